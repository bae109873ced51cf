/* frame.c: instance frames (the analog of Fuce's ACM pages) and their pools.
 *
 * A frame is one allocation: the header, N entries, then the data area. Frames are
 * pooled per worker by size class (powers of two) and never given back to malloc, not
 * even at ito_finalize, so a stale frame handle still points at a frame whose magic
 * word says FREE: every call can reject it instead of touching freed memory. A handle
 * carries the frame's generation (zwt.h, itoi_frame_handle), so a handle of a frame that
 * was destroyed and created again at the same address is refused too.
 * Frames are carved from the handle arena (src/core/arena.c), so a forged frame handle
 * that points anywhere else is refused before it is read; the next runtime reuses what
 * an earlier one left. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "zwt.h"

static itoi_spinlock_t orphan_lock;  /* orphan_free */
itoi_zworker_t *itoi_zws;  /* one per worker, allocated on first use (zwt.h) */
static itoi_spinlock_t setup_lock;
static struct ito_frame *orphan_free[ITOI_NCLASSES]; /* frames freed by non-workers (under orphan_lock) */
/* Unpooled frames (over the largest class) destroyed, for reuse by a create that fits in
 * one (under orphan_lock). Until 2026-12-05 they were kept and never reused: each
 * create/destroy cycle of a frame over 1 GiB kept another GiB resident and of the arena
 * (found by an outside tester). */
static struct ito_frame *big_free;

void itoi_zwt_teardown(void);
static itoi_mech_hooks_t zwt_hooks = {.fini = itoi_zwt_teardown}; /* once per process */

int itoi_zwt_setup(void)
{
    if (ITOI_LIKELY(atomic_load_explicit((_Atomic(itoi_zworker_t *) *)&itoi_zws, memory_order_acquire) != NULL))
        return ITO_OK;
    int rc = ITO_OK;
    itoi_spin_lock(&setup_lock);
    itoi_callout_begin(); /* allocates (the program's malloc may be the allocator) under the lock: no switch here (itoi.h) */
    if (!itoi_zws) {
        void *p = NULL;
        if (posix_memalign(&p, ITOI_CACHELINE, sizeof(itoi_zworker_t) * (size_t)itoi_rt.nworkers) != 0) {
            rc = ITO_ENOMEM;
        } else {
            memset(p, 0, sizeof(itoi_zworker_t) * (size_t)itoi_rt.nworkers);
            if (itoi_mech_register(&zwt_hooks) != ITO_OK) {
                free(p);
                rc = ITO_ENOMEM;
            } else {
                atomic_store_explicit((_Atomic(itoi_zworker_t *) *)&itoi_zws, p, memory_order_release);
            }
        }
    }
    itoi_callout_end();
    itoi_spin_unlock(&setup_lock);
    return rc;
}

/* ito_finalize: the frames are kept, not freed (a frame handle kept across ito_finalize
 * still points at a frame, whose magic says FREE); the pooled sizes go to the shared free
 * lists, where the next runtime takes them before it carves. */
void itoi_zwt_teardown(void)
{
    itoi_spin_lock(&orphan_lock);
    memset(orphan_free, 0, sizeof orphan_free);
    big_free = NULL;
    size_t n = itoi_arena_chunks();
    for (size_t i = 0; i < n; i++) {
        unsigned k = itoi_arena_chunk_kind(i);
        if (k != ITOI_ARENA_FRAME_BIG && k <= ITOI_ARENA_FRAME_LOG) continue;
        size_t stride = k == ITOI_ARENA_FRAME_BIG ? ITOI_ARENA_CHUNK : (size_t)1 << (k - ITOI_ARENA_FRAME_LOG);
        for (size_t off = 0; off < ITOI_ARENA_CHUNK; off += stride) {
            struct ito_frame *f = (struct ito_frame *)((char *)itoi_arena_chunk(i) + off);
            atomic_store_explicit(&f->tag, 0, memory_order_relaxed);
            atomic_store_explicit(&f->magic, ITOI_FRAME_FREE, memory_order_relaxed);
            if (f->size_class < ITOI_NCLASSES) {
                f->next_free = orphan_free[f->size_class];
                orphan_free[f->size_class] = f;
            } else if (k == ITOI_ARENA_FRAME_BIG && f->cap) {
                f->next_free = big_free;
                big_free = f;
            }
        }
    }
    itoi_spin_unlock(&orphan_lock);
    free(itoi_zws);
    itoi_zws = NULL;
}

/* New frames of pool class `cls` (2^(cls+7) bytes), or one unpooled frame of `bytes`
 * (cls == ITOI_NCLASSES), carved from the handle arena (src/core/arena.c). A chunk of
 * small frames is split at once: the caller gets the first, the rest go to the worker's
 * pool (w) or the shared one. Every frame starts at a multiple of its size in its
 * chunk; while live it holds its handle keyed (tag), which is what itoi_frame_get checks. */
static struct ito_frame *frame_alloc(itoi_worker_t *w, size_t bytes, uint32_t cls)
{
    unsigned log = cls + 7;
    bool small = cls < ITOI_NCLASSES && ((size_t)1 << log) <= ITOI_ARENA_CHUNK;
    size_t stride = small ? (size_t)1 << log : ITOI_ARENA_CHUNK;
    unsigned kind = small ? ITOI_ARENA_FRAME_LOG + log : ITOI_ARENA_FRAME_BIG;
    char *p = itoi_arena_carve(kind, small ? ITOI_ARENA_CHUNK : bytes);
    if (!p) return NULL;
    /* the arena's memory is zero: gen 0, magic neither LIVE nor FREE until created */
    struct ito_frame **pool = w ? &itoi_zwt_worker(w)->free[cls] : &orphan_free[cls];
    if (!w) itoi_spin_lock(&orphan_lock);
    for (size_t off = ITOI_ARENA_CHUNK - stride; off > 0; off -= stride) {
        struct ito_frame *f = (struct ito_frame *)(p + off);
        f->size_class = cls;
        atomic_store_explicit(&f->magic, ITOI_FRAME_FREE, memory_order_relaxed);
        f->next_free = *pool;
        *pool = f;
    }
    if (!w) itoi_spin_unlock(&orphan_lock);
    struct ito_frame *f = (struct ito_frame *)p;
    f->size_class = cls;
    if (!small) f->cap = (bytes + ITOI_ARENA_CHUNK - 1) & ~((size_t)ITOI_ARENA_CHUNK - 1);
    return f;
}

static int frame_create(ito_frame_t **out, int nentries, size_t data_size);

/* A slot's new life. Field by field, not a memset: a thread still holding the old life may
 * read the fields shared with other threads (the sync and waiter words, the definition,
 * the value: atomics, zwt.h) at this moment, e.g. a waiter's post action re-reading the
 * code after it installed itself (fire.c, wait_post) while the firing's thread destroyed
 * the frame and created this one (a plain memset there was a data race under TSan,
 * test_zwt_wait_reuse). Those stores are atomic; the rest is the creator's alone. The
 * firing count goes on from the slot's last life (any bytes there will do): a re-arm of
 * the destroyed frame's entry still in its window (the caller's error) cannot match a
 * firing of the new one (zwt.h, found by a reviewer). */
static void entry_reset(itoi_zentry_t *e, struct ito_frame *f, int i)
{
    memset(&e->u, 0, sizeof e->u);
    e->u.run = itoi_zwt_run;
    atomic_store_explicit(&e->sync, 0, memory_order_relaxed);
    ITOI_ZSET(e->fan_in, 0u);
    ITOI_ZSET(e->code, (ito_zwt_fn)NULL);
    atomic_store_explicit(&e->lock, 0, memory_order_relaxed);
    ITOI_ZSET(e->mode, (uint16_t)0);
    ITOI_ZSET(e->defined, (uint16_t)0);
    e->index = i;
    e->fgen = e->fgen + 1; /* written by a firing only while QUEUED, which a destroy refused */
    atomic_store_explicit(&e->value, 0, memory_order_relaxed);
    e->frame = f;
    atomic_store_explicit(&e->waiter, 0, memory_order_release); /* after the generation (frame_create) */
}

/* Any thread. A foreign caller creates inside the runtime's door (itoi_any_enter), so that
 * ito_finalize's teardown (itoi_zwt_teardown: the pools reset, the worker pools freed) waits
 * for it instead of racing it (a data race under TSan with a pthread creating frames while
 * main finalized). */
int ito_frame_create(ito_frame_t **out, int nentries, size_t data_size)
{
    if (!out || nentries < 1 || nentries > ITO_FRAME_MAX_ENTRIES || data_size > ((size_t)1 << 30))
        return ITO_EINVAL;
    if (atomic_load_explicit(&itoi_rt.state, memory_order_relaxed) != 1) return ITO_ESTATE;
    ITOI_ANY_RETURN(ITO_ESTATE, frame_create(out, nentries, data_size));
}

static int frame_create(ito_frame_t **out, int nentries, size_t data_size)
{
    int rc = itoi_zwt_setup();
    if (rc != ITO_OK) return rc;
    size_t head = sizeof(struct ito_frame) + (size_t)nentries * sizeof(itoi_zentry_t);
    head = (head + 15) & ~(size_t)15;
    size_t bytes = head + data_size;
    uint32_t cls = 7;
    while (((size_t)1 << cls) < bytes) cls++;
    uint32_t slot = cls - 7;
    itoi_worker_t *w = itoi_self_worker();
    struct ito_frame *f = NULL;
    if (slot < ITOI_NCLASSES) {
        if (w) {
            itoi_zworker_t *zw = itoi_zwt_worker(w);
            f = zw->free[slot];
            if (f) zw->free[slot] = f->next_free;
        }
        if (!f) { /* a foreign thread's, or an earlier runtime's (slow path: the lock) */
            itoi_spin_lock(&orphan_lock);
            f = orphan_free[slot];
            if (f) orphan_free[slot] = f->next_free;
            itoi_spin_unlock(&orphan_lock);
        }
        if (!f) f = frame_alloc(w, (size_t)1 << cls, slot);
    } else { /* the smallest destroyed unpooled frame that fits, else a new one */
        itoi_spin_lock(&orphan_lock);
        struct ito_frame **best = NULL;
        for (struct ito_frame **pp = &big_free; *pp; pp = &(*pp)->next_free)
            if ((*pp)->cap >= bytes && (!best || (*pp)->cap < (*best)->cap)) best = pp;
        if (best) {
            f = *best;
            *best = f->next_free;
        }
        itoi_spin_unlock(&orphan_lock);
        if (!f) f = frame_alloc(NULL, bytes, ITOI_NCLASSES);
    }
    if (!f) return ITO_ENOMEM;
    __atomic_store_n(&f->nentries, (uint32_t)nentries, __ATOMIC_RELAXED); /* a stale handle's bound check may read it */
    f->data_size = data_size;
    atomic_store_explicit(&f->data, (unsigned char *)f + head, memory_order_relaxed);
    f->next_free = NULL;
    /* The new generation before the entries: a waiter of the last life that installs
     * itself in a reset entry (it looked before the destroy) reads it there and leaves
     * (fire.c, wait_post; the reset's waiter store releases it). */
    atomic_store_explicit(&f->gen, atomic_load_explicit(&f->gen, memory_order_relaxed) + 1, memory_order_relaxed);
    for (int i = 0; i < nentries; i++) entry_reset(&f->e[i], f, i);
    memset((unsigned char *)f + head, 0, data_size);
    atomic_store_explicit(&f->magic, ITOI_FRAME_LIVE, memory_order_release);
    *out = itoi_frame_handle(f);
    atomic_store_explicit(&f->tag, (uintptr_t)*out ^ itoi_arena.key, memory_order_release);
    return ITO_OK;
}

static int frame_destroy(ito_frame_t *h);

/* Any thread; a foreign caller enters the runtime's door too: itoi_zwt_teardown puts every
 * frame on the shared free lists, and a destroy that had freed its frame just before the
 * teardown's pass pushed it a second time after it (found by a foreign thread destroying
 * frames while main finalized: the next runtime handed one frame to two creates). With
 * the door shut every frame is freed already (ITO_EINVAL). */
int ito_frame_destroy(ito_frame_t *h) { ITOI_ANY_RETURN(ITO_EINVAL, frame_destroy(h)); }

static int frame_destroy(ito_frame_t *h)
{
    struct ito_frame *f = itoi_frame_get(h);
    if (!f) return ITO_EINVAL;
    /* Every entry's waiter word goes from 0 or FIRED to DEAD by a CAS, so that no ULT can
     * install itself between this look and the end of the frame (a look and then the
     * magic's CAS let a waiter that had looked before the destroy install itself after
     * it: in the next life's entry, where it waited for ever; found with
     * test_zwt_wait_reuse, 2026-12-05). A waiter or a set there: the words taken go back,
     * ITO_EBUSY. Another destroy's DEAD in the first word: it is deciding; wait for it. */
    uint32_t n = f->nentries;
    for (uint32_t i = 0; i < n; i++) {
        itoi_zentry_t *e = &f->e[i];
        uintptr_t wt = itoi_zentry_waiter(e);
        bool taken = false;
        while (!itoi_zentry_queued(e) && (wt == 0 || wt == ITOI_ZW_FIRED)) {
            if (atomic_compare_exchange_strong_explicit(&e->waiter, &wt, wt ? ITOI_ZW_DEAD1 : ITOI_ZW_DEAD0,
                                                        memory_order_seq_cst, memory_order_acquire)) {
                /* An I/O continuation may have reserved the firing after our look at the sync
                 * word: it reads the waiter word after its CAS, we read the sync word after
                 * ours (seq_cst both), so one sees the other (fire.c, io_fire_live). Seen
                 * here: the word goes back and the entry is queued (ITO_EBUSY). */
                int32_t s2 = atomic_load(&e->sync);
                if (ITOI_UNLIKELY(s2 == ITOI_ZS_QUEUED) && itoi_zentry_queued(e)) {
                    uintptr_t was = atomic_load_explicit(&e->waiter, memory_order_relaxed) == ITOI_ZW_DEAD1 ? ITOI_ZW_FIRED : 0;
                    atomic_store_explicit(&e->waiter, was, memory_order_release);
                    wt = was;
                    break;
                }
                taken = true;
                break;
            }
            if (wt == ITOI_ZW_SETTING || itoi_zw_checking(wt)) wt = itoi_zentry_waiter(e);
        }
        if (taken) continue;
        if (i == 0 && itoi_zw_dead(wt)) { /* another destroy: its outcome decides ours */
            while (itoi_zw_dead(itoi_zentry_waiter(e)) &&
                   atomic_load_explicit(&f->magic, memory_order_acquire) == ITOI_FRAME_LIVE)
                itoi_spin_pause();
            /* Ended (FREE: its wait for looks may still run, with the tag not yet cleared)
             * or given back (LIVE): only then again. (Asking the tag alone recursed until
             * the other destroy's wait ended: a stack overflow in a -O0 tree.) */
            return atomic_load(&f->magic) == ITOI_FRAME_LIVE && itoi_frame_get(h) == f ? frame_destroy(h) : ITO_EINVAL;
        }
        while (i-- > 0) { /* a waiter, a queued firing or a set: the words go back, the first last */
            uintptr_t was = atomic_load_explicit(&f->e[i].waiter, memory_order_relaxed) == ITOI_ZW_DEAD1 ? ITOI_ZW_FIRED : 0;
            atomic_store_explicit(&f->e[i].waiter, was, memory_order_release);
        }
        return ITO_EBUSY;
    }
    uint32_t expect = ITOI_FRAME_LIVE;
    if (!atomic_compare_exchange_strong(&f->magic, &expect, ITOI_FRAME_FREE)) return ITO_EINVAL;
    /* Waits and I/O continuations that looked at this life (`lookers`, zwt.h) end their look before the frame
     * goes back to its pool: a look that began after the CAS above sees FREE and touches
     * nothing (both sides seq_cst: the look's increment, then its read of the magic; our
     * CAS, then this read). A few instructions and a switch away (fire.c). So no late look
     * CASes a word of the next life, which may be another entry's or the data area of a
     * frame of another shape: a waiter put itself into the program's data, or spun for
     * ever on an odd data word it took for a "checking" waiter (found by an outside tester,
     * h64a, 2026-12-06: test_zwt_wait_reshape). Here, not in frame_create: create is hot. */
    atomic_store_explicit(&f->tag, 0, memory_order_relaxed); /* new callers are refused at once */
    while (atomic_load(&f->lookers) != 0) itoi_spin_pause();
    if (f->size_class >= ITOI_NCLASSES) { /* unpooled (over 1 GiB): its data given back to the
                                           * kernel (the header and entries stay: the magic, tag
                                           * and firing counts outlive the frame), then listed */
        uintptr_t pg = 4096, from = ((uintptr_t)atomic_load_explicit(&f->data, memory_order_relaxed) + pg - 1) & ~(pg - 1);
        uintptr_t to = (uintptr_t)f + f->cap;
        if (from < to) (void)madvise((void *)from, to - from, MADV_DONTNEED);
        itoi_spin_lock(&orphan_lock);
        f->next_free = big_free;
        big_free = f;
        itoi_spin_unlock(&orphan_lock);
        return ITO_OK;
    }
    itoi_worker_t *w = itoi_self_worker();
    if (w) {
        itoi_zworker_t *zw = itoi_zwt_worker(w);
        f->next_free = zw->free[f->size_class];
        zw->free[f->size_class] = f;
    } else {
        itoi_spin_lock(&orphan_lock);
        f->next_free = orphan_free[f->size_class];
        orphan_free[f->size_class] = f;
        itoi_spin_unlock(&orphan_lock);
    }
    return ITO_OK;
}

/* In the child of a fork() of a running runtime (state 4, on_fork_child in runtime.c) every
 * frame handle is refused, as after ito_finalize (thread.h): the check alone let the child
 * read the data pointer of its copy of a live frame (outside tester h75a, 2026-12-07;
 * test_fork). One relaxed load; not the runtime's door, which ito_finalize closes for a
 * moment while frames stay live. */
void *ito_frame_data(ito_frame_t *h)
{
    if (ITOI_UNLIKELY(atomic_load_explicit(&itoi_rt.state, memory_order_relaxed) == 4)) return NULL;
    struct ito_frame *f = itoi_frame_get(h);
    return f ? atomic_load_explicit(&f->data, memory_order_relaxed) : NULL;
}

static int entry_set(ito_frame_t *f, int entry, ito_zwt_fn code, uint32_t fan_in, int mode);

/* Any thread; a foreign caller inside the runtime's door (see ito_frame_destroy). */
int ito_entry_set(ito_frame_t *f, int entry, ito_zwt_fn code, uint32_t fan_in, int mode)
{
    ITOI_ANY_RETURN(ITO_EINVAL, entry_set(f, entry, code, fan_in, mode));
}

static int entry_set(ito_frame_t *f, int entry, ito_zwt_fn code, uint32_t fan_in, int mode)
{
    int rc;
    itoi_zentry_t *e = itoi_zwt_entry(f, entry, &rc);
    if (!e) return rc;
    if (fan_in < 1 || fan_in > (1u << 30)) return ITO_EINVAL;
    if (mode != ITO_MODE_USER && mode != ITO_MODE_KERNEL && mode != ITO_MODE_KERNEL_IF) return ITO_EINVAL;
    /* Both words held while the definition changes (zwt.h). The waiter word first, by a
     * CAS that refuses a ULT waiting (its registration stays, and so does the definition
     * it waits on) and another set; nothing else has changed yet when it fails. */
    uintptr_t wt;
    for (;;) {
        wt = itoi_zentry_waiter(e); /* another set: waited out */
        if (wt > ITOI_ZW_FIRED) return ITO_EBUSY; /* a ULT waits */
        if (atomic_compare_exchange_strong_explicit(&e->waiter, &wt, ITOI_ZW_SETTING, memory_order_acq_rel,
                                                    memory_order_acquire))
            break;
    }
    /* Then the sync word, by a CAS that refuses a queued entry: continuations meanwhile
     * are refused (the arming below supersedes the one they would count), and none can
     * take a last count between the look and the arming. (A look and two plain stores
     * let a continuation queue the entry in between and the store overwrite
     * ITOI_ZS_QUEUED: queued twice, SEGV; found by a test of a fix of 2026-12-03.) */
    for (;;) {
        int32_t s = itoi_zentry_settle(e);
        if (s == ITOI_ZS_QUEUED) { /* ready with code: give the waiter word back */
            atomic_store_explicit(&e->waiter, wt, memory_order_release);
            return ITO_EBUSY;
        }
        if (atomic_compare_exchange_strong_explicit(&e->sync, &s, ITOI_ZS_SETTING, memory_order_acq_rel,
                                                    memory_order_acquire))
            break;
    }
    ITOI_ZSET(e->code, code);
    ITOI_ZSET(e->fan_in, fan_in);
    ITOI_ZSET(e->mode, (uint16_t)mode);
    ITOI_ZSET(e->defined, (uint16_t)1);
    /* Released in this order: a waiter that installs itself next reads the new code; a
     * continuation that takes a count of the new arming reads it too. A firing of the old
     * definition meanwhile left the word alone (wake_waiter): the arming supersedes it. */
    atomic_store_explicit(&e->waiter, 0, memory_order_release);
    atomic_store_explicit(&e->sync, (int32_t)fan_in, memory_order_release);
    return ITO_OK;
}
