/* thread.c: the ULT object and the thread API (create, join, detach, yield, exit).
 *
 * A ULT descriptor comes from its worker's free list (refilled by slabs of one chunk of
 * the handle arena, arena.c; slabs are kept for the life of the process, reused by the
 * next runtime after ito_finalize, so a stale handle always points to a descriptor and
 * its generation tag can be checked, even across ito_finalize and ito_init, and a forged
 * one is refused before it is read). Its stack is taken from the
 * worker's stack pool at creation, so creation reports ITO_ENOMEM itself rather than
 * failing later, and is given back by the post action of its last switch.
 *
 * The state word decides who frees the descriptor (see itoi.h):
 *   LIVE --exit--> DONE --join/detach (CAS)--> REAPED: the joiner frees it;
 *   LIVE --detach--> DETACHED --exit--> REAPED: the exiting ULT frees it;
 *   LIVE --join (post action CAS)--> joiner --exit--> REAPED, joiner woken, frees it.
 * Only DONE can be taken by a join or detach, and only by one CAS: the exit of a ULT
 * that is detached or has its joiner goes straight to REAPED (through DONE a second
 * joiner could take it as well: both freed it). Every one of these words carries its
 * life's generation in the top 16 bits (itoi_st, itoi.h) and every CAS made through a
 * handle expects the handle's generation: the handle's tag check and the CAS are then one
 * step, and a stale handle cannot take a later life of the descriptor. Two flags ride in
 * the low bits of LIVE, DETACHED and a joiner's word (never in DONE or REAPED):
 * ITOI_ST_MEMBER (the life is in a gang group; set by ito_group_add's CAS, kept by join,
 * detach and a join's unlink, cleared by the exit's CAS, which leaves the group first) and
 * ITOI_ST_INLINE (the joiner runs the ULT in place); itoi_st_kind strips both (itoi.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ultstate.h"
#include "itoi.h"
#include "sanitizer.h"

#define SLAB ITOI_ULTS_PER_CHUNK /* descriptors per arena chunk */

#define BATCH 256 /* itoi_ult_free (itoi.h) moves a batch out at 2 * 256 */

/* The global pool, behind the workers' own (LIFO, up to 2 * BATCH each): every chunk of
 * descriptors keeps the free ones of its own in a list at its end (chunk_meta_t), and a
 * bitmap says which chunks have some. A worker that runs out takes BATCH from the
 * lowest chunks first, so the descriptors in use gather at the bottom of the arena
 * whatever order threads ended in: a loop of creates then writes descriptors that lie
 * together and stay in the cache. (A global LIFO of batches kept whatever order bulk
 * creation on two workers had left: the 10^4 descriptors of a loop's round spread over
 * 37 MB and each create missed; docs/reproductions/spawn.md.) All under gdesc_lock,
 * which is held for O(1) per chunk: descriptors move in runs of one chunk (a run's head
 * holds its tail in `arg` and its length in `ret`, fields a free descriptor does not use),
 * and a worker takes whole chunk lists. */
typedef struct chunk_meta {
    itoi_ult_t *head, *tail;
    size_t n;
} chunk_meta_t;
_Static_assert(ITOI_ARENA_CHUNK - ITOI_ULTS_PER_CHUNK * sizeof(itoi_ult_t) >= sizeof(chunk_meta_t),
               "a descriptor chunk has room for its free list");
static itoi_spinlock_t gdesc_lock;
static uint64_t gdesc_map[ITOI_ARENA_NCHUNKS / 64]; /* bit c: chunk c has free descriptors */
static size_t gdesc_low;           /* no bit below word gdesc_low is set */
static _Atomic size_t gdesc_n;     /* free descriptors there, read without the lock as a hint */

static inline size_t chunk_of(const itoi_ult_t *t)
{
    return ((uintptr_t)t - atomic_load_explicit(&itoi_arena.base, memory_order_relaxed)) >> ITOI_ARENA_CHUNK_SHIFT;
}

static inline chunk_meta_t *chunk_meta(size_t c)
{
    return (chunk_meta_t *)((char *)itoi_arena_chunk(c) + ITOI_ARENA_CHUNK - ITOI_ULT_CHUNK_META);
}
static pthread_mutex_t slab_lock = PTHREAD_MUTEX_INITIALIZER;
static size_t reuse_chunk;         /* arena chunks below it are handed out in this runtime */

/* Descriptors live in slabs of one arena chunk each (arena.c), so a thread handle can be
 * checked wherever it points. At ito_finalize the slabs are kept: every descriptor's
 * generation moves on and its other fields are cleared, so a handle kept across
 * ito_finalize (and a later ito_init) still points to a descriptor and is refused by its
 * generation, never read from freed memory. The next runtime hands the kept slabs out
 * again before it carves new ones (reuse_chunk). */

/* A free descriptor is REAPED, whatever its history (freed, retired, fresh): its tag
 * already names its next life (set when it is freed, so that creation writes no tag),
 * and a handle of that life, guessed before the descriptor is handed out, must not find
 * a LIVE state (ITOI_LIVE is 0, the value of cleared memory): a join would register on a
 * free descriptor and never be woken (found by fuzz_api: the main ULT blocked for ever
 * after a new runtime handed the descriptor to a detached bulk thread). */
static void desc_retire(itoi_ult_t *t)
{
    uint16_t g = (uint16_t)(atomic_load_explicit(&t->gen, memory_order_relaxed) + 1);
    memset(t, 0, sizeof *t);
    itoi_ult_set_gen(t, (uint16_t)(g + (g == 0)));
    atomic_store_explicit(&t->state, ITOI_REAPED, memory_order_relaxed);
}

size_t itoi_ult_foreach_from(size_t pos, bool (*fn)(itoi_ult_t *t, void *arg), void *arg)
{
    pthread_mutex_lock(&slab_lock);
    size_t n = itoi_arena_chunks();
    for (size_t i = pos / SLAB; i < n; i++) {
        if (itoi_arena_chunk_kind(i) != ITOI_ARENA_ULT) continue;
        for (size_t k = i == pos / SLAB ? pos % SLAB : 0; k < SLAB; k++)
            if (!fn((itoi_ult_t *)itoi_arena_chunk(i) + k, arg)) {
                pos = i * SLAB + k;
                goto out;
            }
    }
    pos = SIZE_MAX;
out:
    pthread_mutex_unlock(&slab_lock);
    return pos;
}

void itoi_ult_foreach(bool (*fn)(itoi_ult_t *t, void *arg), void *arg) { (void)itoi_ult_foreach_from(0, fn, arg); }

static bool retire(itoi_ult_t *t, void *arg)
{
    (void)arg;
    desc_retire(t);
    return true;
}

void itoi_ult_free_all(void)
{
    memset(gdesc_map, 0, sizeof gdesc_map);
    gdesc_low = 0;
    atomic_store(&gdesc_n, 0);
    for (size_t c = 0, n = itoi_arena_chunks(); c < n; c++)
        if (itoi_arena_chunk_kind(c) == ITOI_ARENA_ULT) *chunk_meta(c) = (chunk_meta_t){NULL, NULL, 0};
    itoi_ult_foreach(retire, NULL);
    pthread_mutex_lock(&slab_lock);
    reuse_chunk = 0;
    pthread_mutex_unlock(&slab_lock);
}

/* A slab: a kept one of an earlier runtime (fresh = false), or a new one; NULL: no memory. */
static itoi_ult_t *slab_get(bool *fresh)
{
    itoi_ult_t *s = NULL;
    pthread_mutex_lock(&slab_lock);
    for (size_t n = itoi_arena_chunks(); reuse_chunk < n && !s; reuse_chunk++)
        if (itoi_arena_chunk_kind(reuse_chunk) == ITOI_ARENA_ULT) s = itoi_arena_chunk(reuse_chunk);
    *fresh = s == NULL;
    if (!s) {
        s = itoi_arena_carve(ITOI_ARENA_ULT, SLAB * sizeof *s);
        /* chunks carved meanwhile for frames are skipped by the scan; this one is in use */
        if (s) reuse_chunk = itoi_arena_chunks();
    }
    pthread_mutex_unlock(&slab_lock);
    return s;
}

/* Free descriptors move between workers in batches through a global pool, so that a
 * worker that creates (and another that joins and frees) do not make the first one
 * allocate new slabs for ever. A batch is a list linked by ->next whose head's ->arg
 * links the next batch. */

itoi_ult_t *itoi_ult_alloc_slow(itoi_worker_t *w)
{
    itoi_ult_t *t = w->free_ult;
    if (ITOI_UNLIKELY(!t)) {
        if (atomic_load_explicit(&gdesc_n, memory_order_relaxed)) {
            size_t got = 0;
            itoi_spin_lock(&gdesc_lock);
            size_t words = (itoi_arena_chunks() + 63) / 64;
            for (size_t i = gdesc_low; got < BATCH && i < words; i++) {
                while (gdesc_map[i] && got < BATCH) { /* the lowest chunk with free ones: all of them */
                    size_t c = i * 64 + (size_t)__builtin_ctzll(gdesc_map[i]);
                    chunk_meta_t *m = chunk_meta(c);
                    m->tail->u.next = (itoi_unit_t *)w->free_ult;
                    w->free_ult = m->head;
                    got += m->n;
                    *m = (chunk_meta_t){NULL, NULL, 0};
                    gdesc_map[i] &= ~((uint64_t)1 << (c % 64));
                }
                if (!gdesc_map[i]) gdesc_low = i + 1;
            }
            atomic_fetch_sub(&gdesc_n, got);
            itoi_spin_unlock(&gdesc_lock);
            if (got) {
                w->free_ult_n = got;
                return itoi_ult_alloc(w);
            }
        }
        bool fresh;
        itoi_ult_t *s = slab_get(&fresh);
        if (!s) return NULL;
        for (int i = (int)SLAB - 1; i >= 0; i--) {
            s[i].u.next = (itoi_unit_t *)w->free_ult;
            if (fresh) { /* a kept slab keeps its generations and is REAPED already */
                itoi_ult_set_gen(&s[i], 1);
                atomic_store_explicit(&s[i].state, ITOI_REAPED, memory_order_relaxed);
            }
            w->free_ult = &s[i];
        }
        w->free_ult_n += SLAB;
        t = w->free_ult;
    }
    w->free_ult = (itoi_ult_t *)t->u.next;
    w->free_ult_n--;
    return t;
}

/* The pool holds 2 * BATCH: a batch goes to the global list. */
void itoi_ult_free_slow(itoi_worker_t *w)
{
    /* Outside the lock: cut BATCH off the pool, in runs of one chunk each. */
    itoi_ult_t *first = w->free_ult, *r = first;
    for (size_t left = BATCH; left;) {
        size_t c = chunk_of(r), k = 1;
        itoi_ult_t *e = r;
        while (k < left && chunk_of((itoi_ult_t *)e->u.next) == c) {
            e = (itoi_ult_t *)e->u.next;
            k++;
        }
        r->arg = e;
        r->ret = (void *)(uintptr_t)k;
        left -= k;
        r = (itoi_ult_t *)e->u.next;
        if (!left) e->u.next = NULL;
    }
    w->free_ult = r;
    w->free_ult_n -= BATCH;
    itoi_spin_lock(&gdesc_lock);
    for (itoi_ult_t *h = first, *next; h; h = next) { /* each run to its chunk's list */
        itoi_ult_t *e = h->arg;
        next = (itoi_ult_t *)e->u.next;
        size_t c = chunk_of(h);
        chunk_meta_t *m = chunk_meta(c);
        e->u.next = (itoi_unit_t *)m->head;
        if (!m->head) m->tail = e;
        m->head = h;
        if (m->n == 0) {
            gdesc_map[c / 64] |= (uint64_t)1 << (c % 64);
            if (c / 64 < gdesc_low) gdesc_low = c / 64;
        }
        m->n += (size_t)(uintptr_t)h->ret;
    }
    atomic_fetch_add(&gdesc_n, BATCH);
    itoi_spin_unlock(&gdesc_lock);
}

ito_thread_t itoi_handle_of(itoi_ult_t *t) { return (ito_thread_t)itoi_owner_id(t); }

/* The descriptor a handle's address names, or NULL when it names none (forged): checked
 * against the arena before anything is read. */
static inline __attribute__((always_inline)) itoi_ult_t *handle_desc(ito_thread_t h)
{
    itoi_ult_t *t = (itoi_ult_t *)((uintptr_t)h & (((uintptr_t)1 << ITOI_HANDLE_PTR_BITS) - 1));
    size_t in = 0;
    if (itoi_arena_kind(t, &in) != ITOI_ARENA_ULT || in >= SLAB * sizeof *t || in % sizeof *t != 0) return NULL;
    return t;
}

/* The live descriptor a handle names, or NULL (forged, or stale: another life of the
 * descriptor): the keyed tag (itoi_arena_check). handle_desc, the exact check by the
 * map, tells the two failures apart. */
static inline __attribute__((always_inline)) itoi_ult_t *handle_tagged(ito_thread_t h)
{
#if defined(ITOI_TSAN)
    /* A forged handle into the middle of a live descriptor would load, as its "tag", a
     * word the descriptor's ULT writes unsynchronized: the answer is right (no key
     * matches) but ThreadSanitizer reports the race. Its builds check the map first, as
     * itoi_hobj_get always does (found by a misuse fuzzer, 2026-12-04). */
    if (!handle_desc(h)) return NULL;
#endif
    return itoi_arena_check((uintptr_t)h, offsetof(itoi_ult_t, tag));
}

/* As handle_tagged, and not free: a free descriptor's tag names its next life already
 * (see desc_retire). ito_join reads the state itself (REAPED is not LIVE: ITO_EJOINED). */
static inline __attribute__((always_inline)) itoi_ult_t *handle_get(ito_thread_t h)
{
    itoi_ult_t *t = handle_tagged(h);
    if (t && itoi_st_kind(atomic_load_explicit(&t->state, memory_order_acquire)) == ITOI_REAPED) return NULL;
    return t;
}

itoi_ult_t *itoi_handle_get(ito_thread_t h) { return handle_get(h); }

int itoi_handle_err(ito_thread_t h) { return handle_desc(h) ? ITO_EJOINED : ITO_EINVAL; }

static inline int running(void)
{
    return atomic_load_explicit(&itoi_rt.state, memory_order_relaxed) == 1;
}

int ito_attr_init(ito_attr_t *attr)
{
    if (!attr) return ITO_EINVAL;
    attr->stack_size = 0;
    attr->worker = -1;
    attr->flags = 0;
    attr->name = NULL;
    return ITO_OK;
}

bool itoi_ult_attach_stack(itoi_worker_t *w, itoi_ult_t *t)
{
    t->stack = itoi_stack_get(w, t->stack_size);
    if (ITOI_UNLIKELY(!t->stack)) return false;
    t->sp = itoa_make(t->stack->base + t->stack->size, itoi_ult_entry);
#if defined(ITOI_TSAN)
    t->tsan_fiber = __tsan_create_fiber(0);
#endif
#if defined(ITOI_ASAN)
    t->asan_fake_stack = NULL;
#endif
    return true;
}

void itoi_ult_entry(void)
{
    itoi_worker_t *w = itoi_self_worker();
    itoi_san_after(NULL);
    itoi_state_fresh(w);
    itoi_ult_t *t = w->cur;
    t->ret = t->fn(t->arg);
    itoi_ult_release_store(t);
    w = itoi_self_worker();
    /* No worker: the ULT forked and returned in the child (on_fork_child, runtime.c),
     * where it is the only thread and has no runtime to end into (its joiner's frames and
     * the scheduler belong to the parent's threads): it ends the child as the return of a
     * process's last thread does (thread.h). Until 2026-12-07 it went on into the
     * scheduler with no worker and died of SIGSEGV. */
    if (ITOI_UNLIKELY(w == NULL)) exit(0);
    itoi_exit_current(w);
}

/* Queue a ULT ito_create just made on w. Not published at once even when a worker is
 * idle: a thief pays a cache-line transfer per ULT, which a fresh, short ULT rarely
 * repays, and waking a sleeping thief costs a system call; the creator's next scheduling
 * point offloads half of its queue in one batch instead. Both paths of ito_create use
 * this: when the general path (taken each time the worker's stack credits or
 * descriptors run out, about one create in 60 in a loop) published and woke a thief
 * instead, a loop of creates on two workers made a futex call every few dozen creates
 * (2026-11-27: about 47 per 10^4 creates, and the creates' tail at p99.9 3x that of one
 * worker). */
static inline void create_queue(itoi_worker_t *w, itoi_ult_t *t)
{
    itoi_flush_pending(w); /* the one before goes to the queue */
    w->pending = t;        /* queued at the next scheduling point, or run by a join */
}

/* The common case of ito_create: default attributes, a pooled descriptor and stack. */
static inline int create_fast(itoi_worker_t *w, ito_thread_t *out, ito_fn_t fn, void *arg)
{
    itoi_ult_t *t = w->free_ult;
    size_t *credits = &w->stack_credits[itoi_rt.default_class];
    if (ITOI_UNLIKELY(!t || *credits == 0)) return ITO_EAGAIN; /* the general path */
    w->free_ult = (itoi_ult_t *)t->u.next;
    w->free_ult_n--;
    (*credits)--;    /* its stack is promised; it attaches one when it first runs */
    t->stack = NULL;
    t->fn = fn;
    t->arg = arg;
    t->ret = NULL;
    t->stack_size = itoi_rt.default_stack;
    __atomic_store_n(&t->flags, 0, __ATOMIC_RELAXED); /* a stale join or detach may read it (ito_join_until) */
    t->bound = -1;
    t->on_exit = NULL;
    /* id and name as relaxed atomics: ito_thread_id and ito_thread_name may read them
     * through a handle of this descriptor's last life (thread.c, desc_enter) */
    __atomic_store_n(&t->id, w->next_id++ * ITOI_MAX_WORKERS + (uint64_t)w->index, __ATOMIC_RELAXED);
    itoi_ult_init_state(t);
    atomic_store_explicit(&t->state, itoi_st_live(t, ITOI_LIVE), memory_order_relaxed);
    ITOI_BUMP(w->n_created);
    *out = itoi_handle_of(t);
    create_queue(w, t);
    return ITO_OK;
}

static int create_general(ito_thread_t *out, ito_fn_t fn, void *arg, const ito_attr_t *attr);

int ito_create(ito_thread_t *out, ito_fn_t fn, void *arg, const ito_attr_t *attr)
{
    if (ITOI_LIKELY(attr == NULL && out != NULL && fn != NULL)) {
        itoi_worker_t *w = itoi_self_worker();
        if (ITOI_LIKELY(w != NULL && atomic_load_explicit(&itoi_rt.state, memory_order_relaxed) == 1)) {
            int rc = create_fast(w, out, fn, arg);
            if (ITOI_LIKELY(rc == ITO_OK)) return rc;
        }
    }
    return create_general(out, fn, arg, attr);
}

/* Everything but the common case, out of line: the fast path above then saves no
 * registers and builds no frame (a tail call here when it cannot serve). */
static __attribute__((noinline)) int create_general(ito_thread_t *out, ito_fn_t fn, void *arg,
                                                    const ito_attr_t *attr)
{
    if (ITOI_UNLIKELY(!running())) return ITO_ESTATE;
    if (ITOI_UNLIKELY(!fn)) return ITO_EINVAL;
    /* Pools are per worker: create from a ULT. Checked before the runtime's settings are
     * read (a foreign caller may race the next ito_init writing them). */
    itoi_worker_t *home = itoi_self_worker();
    if (ITOI_UNLIKELY(!home)) return ITO_ENOTULT;
    size_t ssize = itoi_rt.default_stack;
    int bound = -1;
    unsigned flags = 0;
    if (attr) {
        if (attr->stack_size) {
            if (attr->stack_size < ITO_STACK_MIN || attr->stack_size > ITO_STACK_MAX) return ITO_EINVAL;
            ssize = attr->stack_size;
        }
        if (attr->worker < -1 || attr->worker >= itoi_rt.nworkers) return ITO_EINVAL;
        if (attr->flags & ~(unsigned)(ITO_ATTR_DETACHED | ITO_ATTR_CHILD_FIRST)) return ITO_EINVAL;
        bound = attr->worker;
        flags = attr->flags;
    }
    if (ITOI_UNLIKELY(!out && !(flags & ITO_ATTR_DETACHED))) return ITO_EINVAL;

    itoi_ult_t *t = itoi_ult_alloc(home);
    if (ITOI_UNLIKELY(!t)) return ITO_ENOMEM;
    if (ITOI_UNLIKELY(!itoi_stack_credit_take(home, ssize))) { /* no memory for its stack */
        itoi_ult_free(home, t);
        return ITO_ENOMEM;
    }
    t->stack_size = ssize;
    t->stack = NULL; /* attached when it first runs */
    t->fn = fn;
    t->arg = arg;
    t->ret = NULL;
    __atomic_store_n(&t->flags, flags & ITO_ATTR_DETACHED ? ITOI_F_DETACHED : 0, __ATOMIC_RELAXED); /* see create_fast */
    t->bound = (int16_t)bound;
    __atomic_store_n(&t->id, home->next_id++ * ITOI_MAX_WORKERS + (uint64_t)home->index,
                     __ATOMIC_RELAXED); /* as in create_fast */
    t->on_exit = NULL;
    itoi_ult_init_state(t); /* unnamed: named lazily "ult-<id>" (see ito_thread_name) */
    if (attr && attr->name) { /* byte by byte, relaxed: see create_fast */
        size_t i = 0;
        for (; i < ITOI_NAME_LEN - 1 && attr->name[i]; i++)
            __atomic_store_n(&t->name[i], attr->name[i], __ATOMIC_RELAXED);
        __atomic_store_n(&t->name[i], (char)0, __ATOMIC_RELAXED);
    }
    atomic_store_explicit(&t->state, itoi_st_live(t, (flags & ITO_ATTR_DETACHED) ? ITOI_DETACHED : ITOI_LIVE),
                          memory_order_relaxed);
    ITOI_BUMP(home->n_created);
    if (out) *out = itoi_handle_of(t);
    if (bound >= 0 && bound != home->index) {
        itoi_ready(t); /* to the bound worker's inbox */
    } else if ((flags & ITO_ATTR_CHILD_FIRST) && home->cur) {
        itoi_queue_push_front(&home->rq, &t->u);
        itoi_yield_to(home, t);
    } else {
        create_queue(home, t);
    }
    return ITO_OK;
}

/* What a join that waits passes to its post action and unlink: the thread and the
 * generation of the life its handle names (on the joiner's stack, live while it waits). */
typedef struct join_arg {
    itoi_ult_t *t;
    uint16_t gen;
} join_arg_t;

/* Post action of a join that must wait: runs once the joiner's context is saved. */
static void join_post(void *arg)
{
    join_arg_t *ja = arg;
    itoi_ult_t *t = ja->t;
    uint16_t g = ja->gen;
    itoi_worker_t *w = itoi_self_worker();
    itoi_ult_t *me = w->prev;
    uintptr_t expect = itoi_st(g, ITOI_LIVE);
    /* (again with ITOI_ST_MEMBER if t is in a group, or an add set it meanwhile: kept) */
    while (!atomic_compare_exchange_strong_explicit(&t->state, &expect,
                                                    itoi_st(g, (uintptr_t)me) | (expect & ITOI_ST_MEMBER),
                                                    memory_order_acq_rel, memory_order_acquire))
        if ((expect & ~ITOI_ST_MEMBER) != itoi_st(g, ITOI_LIVE)) break;
    if ((expect & ~ITOI_ST_MEMBER) == itoi_st(g, ITOI_LIVE)) return; /* t's exit will wake us */
    /* t finished meanwhile (DONE: we reap it if no other join or detach takes it
     * first), or another joiner/detacher got there first, or it is another life. */
    me->wait_result = expect == itoi_st(g, ITOI_DONE) && atomic_compare_exchange_strong_explicit(
                                                 &t->state, &expect, itoi_st(g, ITOI_REAPED), memory_order_acq_rel,
                                                 memory_order_acquire)
                          ? ITO_OK
                          : ITO_EJOINED;
    itoi_ready_local(w, &me->u);
}

static int reap(itoi_worker_t *w, itoi_ult_t *t, void **retval)
{
    if (retval) *retval = t->ret;
    itoi_ult_free(w, t);
    return ITO_OK;
}

/* A timed join gives up: it is still the registered joiner unless t's exit took the
 * state word first (then the exit readies it, and the join succeeds). */
static bool join_unlink(itoi_ult_t *me, void *obj)
{
    join_arg_t *ja = obj;
    uintptr_t expect = itoi_st(ja->gen, (uintptr_t)me);
    while (!atomic_compare_exchange_strong_explicit(&ja->t->state, &expect,
                                                    itoi_st(ja->gen, ITOI_LIVE) | (expect & ITOI_ST_MEMBER),
                                                    memory_order_acq_rel, memory_order_acquire))
        if ((expect & ~ITOI_ST_MEMBER) != itoi_st(ja->gen, (uintptr_t)me)) return false; /* (an add: again) */
    return true;
}

/* Join of a ULT that has never run and is still this worker's pending one (ito_create
 * left it out of the queue): the joiner runs it right here, as a call on the child's
 * own stack (itoa_call_on: its declared size, its guard, its name in an overflow
 * report), and reaps it: no context switch, no queue, one atomic (the joiner's
 * registration, against a concurrent ito_detach). The child is a ULT all the same
 * (ito_self is the child; it may block or yield, its context then saved on its stack;
 * it may resume on another worker, and return there). ito_exit in the child comes back
 * here by __builtin_longjmp. Not with hooks that expect switches (register windows,
 * gangs) nor in the sanitizer trees, whose fiber tracking expects a switch per ULT. */
static void *inline_body(void *arg) /* on the child's stack */
{
    itoi_ult_t *t = arg;
    t->ret = t->fn(t->arg);
    itoi_ult_release_store(t); /* its thread-specific destructors, on its stack */
    return NULL;
}

static __attribute__((noinline)) void run_inline(itoi_worker_t *w, itoi_ult_t *me, itoi_ult_t *t,
                                                 itoi_stack_t *stack)
{
    void *jb[5];
    t->stack = stack;
    t->inline_jb = jb;
    itoi_state_switch(w, me, NULL);   /* the child starts with no C++ exception of the joiner's */
    w->cur = t;
    if (__builtin_setjmp(jb) == 0) itoa_call_on(inline_body, t, stack->base + stack->size);
    w = itoi_self_worker();        /* it may have moved */
    if (ITOI_UNLIKELY(w == NULL)) exit(0); /* it forked and returned in the child: itoi_ult_entry */
    itoi_state_switch(w, NULL, me);   /* and the joiner has its own back, on whichever worker */
    t->inline_jb = NULL;
    if (ITOI_UNLIKELY(t->on_exit != NULL)) t->on_exit(w, t);
    ITOI_BUMP(w->n_finished);
    itoi_stack_credit_return(w, t->stack_size);
    itoi_stack_put(w, stack);      /* we are off it again */
    t->stack = NULL;
    w->cur = me;
    /* No hook was installed when the run began (join_inline_ok), but the child may have
     * installed one (ito_regwin_attach from a ULT its joiner ran in place): tell it of the
     * child's end and the joiner's return as the exit switch would. Unreported, the
     * window file kept the ended child as its current thread, and the joiner's next
     * switch counted an error that ito_regwin_detach returned (ITO_ESTATE; found by an
     * outside tester, h65g, 2026-12-06: test_regwin_attach_inline). */
    itoi_switch_hook_fn hook = itoi_switch_hook_get();
    if (ITOI_UNLIKELY(hook != NULL)) hook(w, NULL, me);
    if (ITOI_UNLIKELY(me->bound >= 0 && me->bound != w->index)) itoi_migrate(w, me->bound);
}

static int join_wait(itoi_worker_t *w, itoi_ult_t *t, uint16_t g, void **retval, uint64_t deadline);

/* Run in place only a ULT in no group, and (ITOI_ST_INLINE in its state while it runs)
 * only it may then add itself to one (gang.c: through its on_exit, called above), as it
 * ends without a state CAS, in reap. */
static inline bool join_inline_ok(itoi_worker_t *w, itoi_ult_t *t)
{
#if defined(ITOI_ASAN) || defined(ITOI_TSAN)
    (void)w;
    (void)t;
    return false;
#else
    return t == w->pending && itoi_switch_hook_get() == NULL &&
           atomic_load_explicit(&itoi_pick_filter, memory_order_relaxed) == NULL;
#endif
}

int ito_join_until(ito_thread_t h, void **retval, uint64_t deadline)
{
    if (ITOI_UNLIKELY(!h)) return ITO_EINVAL;
    if (ITOI_UNLIKELY(!running())) return ITO_ESTATE;
    itoi_worker_t *w = itoi_self_worker();
    if (ITOI_UNLIKELY(!w || !w->cur)) return ITO_ENOTULT;
    itoi_ult_t *t = handle_tagged(h); /* a free one is REAPED: refused below */
    if (ITOI_UNLIKELY(!t)) return itoi_handle_err(h);
    if (ITOI_UNLIKELY(t == w->cur)) return ITO_EDEADLK;
    /* (the flags of another life, if t was reused since the tag check: the CAS below refuses it) */
    if (ITOI_UNLIKELY(__atomic_load_n(&t->flags, __ATOMIC_RELAXED) & ITOI_F_MAIN))
        return ITO_EPERM; /* main ends in ito_finalize, never here */
    /* Every CAS below expects the generation of h's life (itoi_st): t may have ended, been
     * freed and reused since the tag check. */
    uint16_t g = itoi_handle_gen(h);
    uintptr_t s = atomic_load_explicit(&t->state, memory_order_acquire);
    if (s == itoi_st(g, ITOI_DONE)) {
        if (!atomic_compare_exchange_strong_explicit(&t->state, &s, itoi_st(g, ITOI_REAPED), memory_order_acq_rel,
                                                     memory_order_acquire))
            return ITO_EJOINED;
        return reap(w, t, retval);
    }
    itoi_stack_t *stack;
    if (ITOI_UNLIKELY(s != itoi_st(g, ITOI_LIVE))) {
        if ((s & ~ITOI_ST_MEMBER) != itoi_st(g, ITOI_LIVE)) return ITO_EJOINED;
        /* a member of a group: joinable, not in place (below: it leaves at its exit) */
    } else if (deadline == ITO_FOREVER && join_inline_ok(w, t) && (stack = itoi_stack_get(w, t->stack_size)) != NULL) {
        itoi_ult_t *me = w->cur; /* (a run inline cannot time out) */
        /* ITOI_ST_INLINE: ito_group_add refuses t from now on, but from t itself (gang.c) */
        if (!atomic_compare_exchange_strong_explicit(&t->state, &s, itoi_st(g, (uintptr_t)me | ITOI_ST_INLINE),
                                                     memory_order_acq_rel, memory_order_acquire)) {
            itoi_stack_put(w, stack);
            if (s != itoi_st(g, ITOI_LIVE | ITOI_ST_MEMBER)) return ITO_EJOINED; /* detached meanwhile */
            return join_wait(w, t, g, retval, deadline); /* added to a group meanwhile */
        }
        w->pending = NULL;
        run_inline(w, me, t, stack);
        return reap(itoi_self_worker(), t, retval); /* we are its joiner: nobody else touches it */
    }
    return join_wait(w, t, g, retval, deadline);
}

/* ito_join_until's general case: the joiner registers in t's state and waits for its end. */
static int join_wait(itoi_worker_t *w, itoi_ult_t *t, uint16_t g, void **retval, uint64_t deadline)
{
    if (deadline != ITO_FOREVER && itoi_now_ns() >= deadline) return ITO_ETIMEDOUT;
    w->cur->wait_result = ITO_OK;
    join_arg_t ja = {t, g};
    int rc = itoi_block_until(w, join_post, &ja, deadline, NULL, join_unlink, &ja, "join");
    w = itoi_self_worker();
    if (rc != ITO_OK) return rc;
    /* We are the registered joiner and t is DONE: nobody else can touch it. */
    atomic_thread_fence(memory_order_acquire);
    return reap(w, t, retval);
}

int ito_join(ito_thread_t h, void **retval) { return ito_join_until(h, retval, ITO_FOREVER); }


/* ---- time ---- */

/* The program's clock read: the bare read, not itoi_now_ns, whose mark keeps a tick in
 * the vDSO from switching (itoi.h); a ULT that busy-waits on ito_now_ns holds no lock of the runtime
 * there and stays preemptible, as with clock_gettime (test_preempt_vdso). */
uint64_t ito_now_ns(void) { return itoi_clock_ns(); }

uint64_t ito_deadline_in(uint64_t ns)
{
    uint64_t now = ito_now_ns();
    return ns >= ITO_FOREVER - now ? ITO_FOREVER : now + ns;
}

int ito_sleep_until(uint64_t deadline)
{
    if (deadline == ITO_FOREVER) return ITO_EINVAL;
    itoi_worker_t *w = itoi_self_worker();
    if (w && !w->cur) return ITO_ENOTULT; /* a ZWT runs to completion: it may not sleep */
    if (!w) { /* a foreign thread: the kernel sleeps */
        struct timespec ts = {(time_t)(deadline / 1000000000u), (long)(deadline % 1000000000u)};
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
        }
        return ITO_OK;
    }
    if (itoi_now_ns() >= deadline) return ITO_OK;
    w->cur->wait_result = ITO_OK;
    int rc = itoi_block_until(w, NULL, NULL, deadline, NULL, NULL, NULL, "sleep");
    return rc == ITO_ETIMEDOUT ? ITO_OK : rc;
}

int ito_sleep_ns(uint64_t ns)
{
    if (ns == ITO_FOREVER) return ITO_EINVAL;
    return ito_sleep_until(ito_deadline_in(ns));
}

static int detach(ito_thread_t h);

/* Any thread: a foreign caller enters the runtime (finalize's teardown waits for it). */
int ito_detach(ito_thread_t h)
{
    if (!h) return ITO_EINVAL;
    ITOI_ANY_RETURN(ITO_ESTATE, detach(h));
}

static int detach(ito_thread_t h)
{
    if (!running()) return ITO_ESTATE;
    itoi_ult_t *t = handle_get(h);
    if (!t) return itoi_handle_err(h);
    uint32_t fl = __atomic_load_n(&t->flags, __ATOMIC_RELAXED); /* maybe another life's: see below */
    if (fl & ITOI_F_MAIN) return ITO_EPERM;
    if (fl & ITOI_F_DETACHED) return ITO_EJOINED; /* created detached: its state is its own */
    uint16_t g = itoi_handle_gen(h); /* h's life only (itoi_st) */
    uintptr_t s = itoi_st(g, ITOI_LIVE);
    while (!atomic_compare_exchange_strong(&t->state, &s, itoi_st(g, ITOI_DETACHED) | (s & ITOI_ST_MEMBER)))
        if ((s & ~ITOI_ST_MEMBER) != itoi_st(g, ITOI_LIVE)) break; /* (an add set the bit: again, keeping it) */
    if ((s & ~ITOI_ST_MEMBER) == itoi_st(g, ITOI_LIVE)) return ITO_OK;
    if (s == itoi_st(g, ITOI_DONE)) {
        /* Finished: detaching frees it now, into the caller's worker's pool. */
        itoi_worker_t *w = itoi_self_worker();
        if (!w) return ITO_ENOTULT; /* state untouched: it can still be joined or detached */
        if (!atomic_compare_exchange_strong(&t->state, &s, itoi_st(g, ITOI_REAPED))) return ITO_EJOINED;
        itoi_ult_free(w, t);
        return ITO_OK;
    }
    return ITO_EJOINED;
}

int ito_yield_to(ito_thread_t h)
{
    if (!h) return ITO_EINVAL;
    itoi_worker_t *w = itoi_self_worker();
    if (!w || !w->cur) return ITO_ENOTULT;
    itoi_ult_t *t = handle_get(h);
    if (!t) return itoi_handle_err(h);
    return itoi_yield_to(w, t);
}

int ito_exit(void *retval)
{
    itoi_worker_t *w = itoi_self_worker();
    if (!w || !w->cur) return ITO_ENOTULT;
    if (w->cur->flags & ITOI_F_MAIN) return ITO_EPERM;
    w->cur->ret = retval;
    itoi_ult_release_store(w->cur);
    itoi_exit_current(itoi_self_worker());
}

ito_thread_t ito_self(void)
{
    itoi_worker_t *w = itoi_self_worker();
    return (w && w->cur) ? itoi_handle_of(w->cur) : NULL;
}

/* ito_thread_id and ito_thread_name read a descriptor from any thread. A foreign caller
 * reads it inside the runtime's door (itoi_any_enter): ito_finalize retires descriptors
 * (desc_retire clears them) only once the door is shut and nobody is inside, so the read
 * never meets the clearing (it did, a data race under TSan with a pthread asking for ids
 * while main finalized). With the door shut every handle is of a finished runtime: stale
 * (ITO_EJOINED), or forged (ITO_EINVAL), told apart by the arena's map alone. */
static int desc_enter(ito_thread_t h, itoi_ult_t **t, bool *foreign)
{
    if (itoi_any_enter(foreign) != ITO_OK) return itoi_handle_err(h);
    *t = handle_get(h);
    return *t ? ITO_OK : itoi_any_leave(*foreign, itoi_handle_err(h));
}

int ito_thread_id(ito_thread_t h, uint64_t *id)
{
    if (!h || !id) return ITO_EINVAL;
    itoi_ult_t *t;
    bool foreign;
    int rc = desc_enter(h, &t, &foreign);
    if (rc != ITO_OK) return rc;
    uint64_t v = __atomic_load_n(&t->id, __ATOMIC_RELAXED); /* create may write it meanwhile */
    /* t may have ended and been reused since the check: then the read was the new
     * life's, and h is stale (checked again after the read, as a seqlock reader) */
    atomic_thread_fence(memory_order_acquire);
    if (handle_get(h) != t) return itoi_any_leave(foreign, ITO_EJOINED);
    *id = v;
    return itoi_any_leave(foreign, ITO_OK);
}

void itoi_ult_name(const itoi_ult_t *t, char *buf, size_t len)
{
    if (!len) return;
    size_t i = 0;
    /* relaxed atomic reads: ito_thread_name may read a descriptor that ito_create is giving
     * to a new thread meanwhile (it checks the handle again afterwards; h64d, 2026-12-06) */
    if (__atomic_load_n(&t->name[0], __ATOMIC_RELAXED)) {
        for (char c; i + 1 < len && (c = __atomic_load_n(&t->name[i], __ATOMIC_RELAXED)); i++) buf[i] = c;
    } else {
        const char pre[] = "ult-";
        for (; i + 1 < len && pre[i]; i++) buf[i] = pre[i];
        char d[24];
        int n = 0;
        uint64_t v = __atomic_load_n(&t->id, __ATOMIC_RELAXED);
        do d[n++] = (char)('0' + v % 10); while ((v /= 10) && n < 24);
        while (n && i + 1 < len) buf[i++] = d[--n];
    }
    buf[i] = 0;
}

int ito_thread_name(ito_thread_t h, char *buf, size_t len)
{
    if (!h || !buf || !len) return ITO_EINVAL;
    itoi_ult_t *t;
    bool foreign;
    int rc = desc_enter(h, &t, &foreign);
    if (rc != ITO_OK) return rc;
    itoi_ult_name(t, buf, len);
    atomic_thread_fence(memory_order_acquire);
    if (handle_get(h) != t) { /* reused meanwhile: that was another life's name (see ito_thread_id) */
        buf[0] = 0;
        return itoi_any_leave(foreign, ITO_EJOINED);
    }
    return itoi_any_leave(foreign, ITO_OK);
}
