/* hobj.c: handle objects, the objects other than ULTs and frames that the API hands out
 * by pointer (streams, channels), kept in the handle arena (arena.c) so that a stale,
 * destroyed, forged or wrongly typed handle is refused before anything is read through
 * it (itoi_hobj_get, itoi.h).
 *
 * Slots of ITOI_HOBJ_SLOT bytes, carved a chunk at a time (kind ITOI_ARENA_HOBJ), on one
 * free list under one lock: creating and destroying streams and channels is not a hot
 * path, using them is (one range compare and one tag compare). Invariants: a slot's tag
 * is non-zero exactly while its object is live; the generation moves at every free, so a
 * handle of an earlier life never matches again (until 2^16 lives later); slots are never
 * given back (the arena is never unmapped), so a check may always read a tag. The object's
 * lock lives in the header (itoi_hobj_lock_live): neither the free list's link nor a
 * create's zeroing writes it, so a call that checked a handle just before its destroy may
 * still take it, and checks the handle again under it (the destroy retires the tag while
 * holding it: two destroys of one handle, or a try-call racing one, found by a fuzzer). */
#include <string.h>

#include "itoi.h"

_Static_assert(ITOI_ARENA_CHUNK % ITOI_HOBJ_SLOT == 0, "slots tile a chunk");

static itoi_spinlock_t lock;
static itoi_hobj_t *free_list; /* linked through the first word after the header */

static inline itoi_hobj_t **next_of(itoi_hobj_t *h) { return (itoi_hobj_t **)(void *)(h + 1); }

void *itoi_hobj_alloc(unsigned type, void **handle)
{
    if (itoi_fault_alloc()) return NULL; /* an allocation for failure injection (fault.c) */
    itoi_spin_lock(&lock);
    if (!free_list) {
        itoi_spin_unlock(&lock);
        char *c = itoi_arena_carve(ITOI_ARENA_HOBJ, ITOI_ARENA_CHUNK);
        if (!c) return NULL;
        itoi_spin_lock(&lock);
        for (size_t off = ITOI_ARENA_CHUNK; off > 0; off -= ITOI_HOBJ_SLOT) {
            itoi_hobj_t *h = (itoi_hobj_t *)(void *)(c + off - ITOI_HOBJ_SLOT);
            *next_of(h) = free_list;
            free_list = h;
        }
    }
    itoi_hobj_t *h = free_list;
    free_list = *next_of(h);
    itoi_spin_unlock(&lock);
    memset(h + 1, 0, ITOI_HOBJ_MAX);
    uintptr_t v = (uintptr_t)h | ((uintptr_t)h->gen << ITOI_HANDLE_PTR_BITS);
    h->type = (uint16_t)type;
    atomic_store_explicit(&h->tag, v ^ itoi_hobj_key(type), memory_order_release); /* the secret is set: a chunk was carved */
    *handle = (void *)v;
    return h + 1;
}

/* Held across a fork() (arena.c's handlers): a child forked while another thread held the
 * lock, creating or destroying a stream or channel, found it held for ever and spun in
 * its first create or destroy, which thread.h says works there (outside tester h75a,
 * 2026-12-07; test_fork_object_locks). */
void itoi_hobj_fork_lock(void) { itoi_spin_lock(&lock); }
void itoi_hobj_fork_unlock(void) { itoi_spin_unlock(&lock); }

void itoi_hobj_free(void *obj)
{
    itoi_hobj_t *h = (itoi_hobj_t *)obj - 1;
    atomic_store_explicit(&h->tag, 0, memory_order_release);
    itoi_spin_lock(&lock);
    h->gen++;
    *next_of(h) = free_list;
    free_list = h;
    itoi_spin_unlock(&lock);
}
