/* arena.c: the one address range that holds every object whose address the runtime hands
 * out as a handle (ULT descriptors, ZWT frames), so that any handle can be checked, a
 * forged one too, without reading memory the runtime does not own.
 *
 * The arena is reserved once per process (PROT_NONE, no memory committed: 64 GiB of
 * address space, less when RLIMIT_AS is set, halved until the kernel accepts) and carved
 * from the bottom up in chunks of 64 KiB, made readable and writable as they are carved
 * (adjacent ranges merge: the arena stays one or two kernel mappings). It is never given
 * back, not even at ito_finalize: a handle kept across ito_finalize still points into it.
 *
 * Every chunk has a kind byte (ITOI_ARENA_*, itoi.h): what it holds and so the stride at
 * which objects start in it. itoi_arena_kind() turns any pointer into (kind, offset in its
 * chunk) with two loads and a compare, or kind FREE when the pointer is outside what has
 * been carved; the owners of each kind check the offset against their stride, then the
 * object's generation (thread.c itoi_handle_get, zwt.h itoi_frame_get).
 *
 * Invariants: `used` only grows, under `lock`; a chunk's kind byte is stored before
 * `used` is released past it, so a thread that holds a genuine handle (made after the
 * carve) reads the right kind. Kind bytes and `base` are atomics because a forged handle
 * may be checked by a thread while another carves (the answer is then FREE or the new
 * kind, both safe: the memory is mapped). */
#define _GNU_SOURCE
#include <pthread.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "itoi.h"

#if defined(ITOI_ASAN)
#include <sanitizer/lsan_interface.h>
#endif

#define RESERVE_MAX ((size_t)1 << 36)   /* 64 GiB */
#define RESERVE_MIN ((size_t)1 << 24)   /* 16 MiB */

itoi_arena_t itoi_arena;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* Reserve the range and the kind table (under lock, once). */
static bool reserve(void)
{
    size_t want = RESERVE_MAX;
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur / 4 < want)
        want = rl.rlim_cur / 4;  /* leave the rest of a limited address space to stacks */
    for (; want >= RESERVE_MIN; want /= 2) {
        void *p = mmap(NULL, want, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED) continue;
        size_t nchunks = want >> ITOI_ARENA_CHUNK_SHIFT;
        void *k = mmap(NULL, nchunks, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (k == MAP_FAILED) {
            munmap(p, want);
            continue;
        }
        itoi_arena.kind = k;
        itoi_arena.nchunks = nchunks;
        atomic_store_explicit(&itoi_arena.base, (uintptr_t)p, memory_order_relaxed);
        return true;
    }
    return false;
}

void *itoi_arena_carve(uint8_t kind, size_t bytes)
{
    if (itoi_fault_alloc()) return NULL;   /* counted as an allocation (fault.c) */
    size_t n = (bytes + ITOI_ARENA_CHUNK - 1) >> ITOI_ARENA_CHUNK_SHIFT;
    void *out = NULL;
    pthread_mutex_lock(&lock);
    if (!itoi_arena.kind && !reserve()) goto done;
    size_t used = atomic_load_explicit(&itoi_arena.used, memory_order_relaxed);
    size_t first = used >> ITOI_ARENA_CHUNK_SHIFT;
    if (n == 0 || n > itoi_arena.nchunks - first) goto done;
    char *p = (char *)atomic_load_explicit(&itoi_arena.base, memory_order_relaxed) + used;
    size_t len = n << ITOI_ARENA_CHUNK_SHIFT;
    if (mprotect(p, len, PROT_READ | PROT_WRITE) != 0) goto done;
#if defined(ITOI_ASAN)
    __lsan_register_root_region(p, len); /* user pointers kept in frames and descriptors */
#endif
    atomic_store_explicit(&itoi_arena.kind[first], kind, memory_order_relaxed);
    for (size_t i = 1; i < n; i++)
        atomic_store_explicit(&itoi_arena.kind[first + i], ITOI_ARENA_CONT, memory_order_relaxed);
    atomic_store_explicit(&itoi_arena.used, used + len, memory_order_release);
    out = p;
done:
    pthread_mutex_unlock(&lock);
    return out;
}

size_t itoi_arena_chunks(void)
{
    return atomic_load_explicit(&itoi_arena.used, memory_order_acquire) >> ITOI_ARENA_CHUNK_SHIFT;
}

void *itoi_arena_chunk(size_t i)
{
    return (char *)atomic_load_explicit(&itoi_arena.base, memory_order_relaxed) + (i << ITOI_ARENA_CHUNK_SHIFT);
}

uint8_t itoi_arena_chunk_kind(size_t i)
{
    return atomic_load_explicit(&itoi_arena.kind[i], memory_order_relaxed);
}
