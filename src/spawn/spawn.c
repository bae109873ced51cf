/* spawn.c: bulk creation of ULTs through the message pool (ito_create_many).
 *
 * One call = one message {the common part, n, the next unclaimed index, results}. The
 * issuer copies the common arguments once, builds the template if the scheme uses one,
 * and posts the message to the pool; idle workers find it through their poller and
 * claim indices with one atomic fetch-add per access (the "message access" of the
 * paper): 1 index per access for SIMPLE and TEMPLATE, ceil(n/p) for CHUNK and COMBINED.
 * The issuer claims too; it then waits until every claimed index is handled, and removes
 * the message from the pool.
 *
 * Slices (detached threads only): a worker creates what it claimed SLICE threads at a
 * time (with one index per access, SLICE accesses make a slice) and lets them run before it creates the next slice (the issuer yields; a helper's
 * poller returns to its scheduler and is called again when the slice has run; while it is
 * in the middle of a message an idle probe says so, so that a busy worker's look, at
 * least every 64 scheduling points, visits its scheduler context for the next slice). Threads
 * that run as they are made reuse the same few descriptors and stacks, hot in the cache,
 * instead of a million of each; the call returns when every thread is created, most of
 * them finished. Joinable threads are all created first (the call returns their handles
 * at once, and the creation-only time stays comparable with the paper's).
 *
 * Splitting (the runtime's addition to the paper's schemes): a worker that has used up
 * its claims and finds no unclaimed index left splits the upper half off another
 * worker's claimed-but-uncreated indices (at least 2 * SLICE of them) instead of going
 * idle. An idle worker would steal that worker's fresh threads instead, each one's
 * descriptor lines then crossing cores for a thread that does nothing (2026-11-27: with
 * CHUNK on 2 workers, runs in which the first worker done stole the other's fresh
 * threads took 17-19 ns per thread against 10-16 when both finished together). Each
 * worker's claimed indices are a piece of the message (piece_t) under its own lock: the
 * owner takes SLICE (or STEP) indices per lock, a splitter moves `hi` down.
 *
 * Who touches what: `next` is claimed by fetch-add; a piece's fields under its lock (its
 * owner alone when the scheme never splits); out[i]/errs[i] are written only by whoever
 * claimed i; `finished` counts indices handled (added once a piece is all created);
 * `refs` counts the threads alive plus one for the call, and the last one frees the
 * message (the common copy lives in it). A thread's exit does not touch `refs` itself:
 * each worker counts the exits of the message it saw last (owner-only, spawn_w_t) and
 * subtracts them in one atomic when another message's thread exits or its poller runs
 * with no message to work on (every pass of its scheduler loop after its part, before it
 * can sleep; while it creates, every RELEASE_BATCH exits), so a message is freed at the
 * latest when the last worker that ran its threads returns to its scheduler. A thread
 * that could not be allocated is not created at all (errs[i] = ITO_ENOMEM, out[i] = NULL). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ito/spawn.h"
#include "../core/itoi.h"

typedef struct bulk {
    struct bulk *next_open;          /* the message pool's list */
    itoi_ult_common_t tmpl;          /* the template (the common part of every thread) */
    ito_private_fn private_init;
    void *common;                    /* the copy of the common arguments */
    size_t n, chunk;
    ito_spawn_scheme_t scheme;
    ito_thread_t *out;
    int *errs;
    _Alignas(ITOI_CACHELINE) _Atomic size_t next;     /* next unclaimed index */
    _Alignas(ITOI_CACHELINE) _Atomic size_t finished; /* indices handled */
    _Atomic int first_err;
    _Atomic size_t nfailed;
    _Atomic int64_t refs;
    _Atomic int helpers;             /* workers (issuer excluded) still allowed to join */
    struct piece *pieces;            /* one per worker taking part: [0] the issuer's */
    _Atomic int npieces;             /* handed out so far */
} bulk_t;

static itoi_spinlock_t pool_lock;
static _Atomic(bulk_t *) pool;        /* open messages (the list is changed under pool_lock) */

#define SLICE 64 /* detached threads created before they may run */
#define RELEASE_BATCH 4096 /* exits a creating worker counts before it subtracts them */

#define STEP 1024 /* joinable threads created per lock of the piece (none run meanwhile) */

/* Indices a worker claimed: [lo, hi), of which [next, hi) are not created yet. All
 * under `lock`: the owner takes from next, a splitter moves hi down (never below
 * next + SLICE); lo is changed by the owner only, when the piece is used up. */
typedef struct piece {
    _Alignas(ITOI_CACHELINE) itoi_spinlock_t lock;
    size_t lo, next, hi;
} piece_t;

/* Per worker, touched only by code running on it. */
typedef struct spawn_w {
    _Alignas(ITOI_CACHELINE) bulk_t *cur; /* the message its poller works on, or NULL */
    piece_t *pc;             /* its piece of cur */
    bulk_t *rel;             /* the message whose thread exits it counts */
    int64_t rel_n;           /* ... not yet subtracted from rel->refs */
} spawn_w_t;
static spawn_w_t per_worker[ITOI_MAX_WORKERS];

static void bulk_release_n(bulk_t *b, int64_t k)
{
    if (atomic_fetch_sub_explicit(&b->refs, k, memory_order_acq_rel) == k) free(b);
}

static void release_flush(spawn_w_t *sw)
{
    if (sw->rel_n) bulk_release_n(sw->rel, sw->rel_n);
    sw->rel = NULL;
    sw->rel_n = 0;
}

static void on_exit_bulk(itoi_worker_t *w, itoi_ult_t *t)
{
    bulk_t *b = t->slot[ITOI_USLOT_BULK].p;
    spawn_w_t *sw = &per_worker[w->index];
    if (ITOI_UNLIKELY(sw->rel != b)) {
        release_flush(sw);
        sw->rel = b;
    }
    sw->rel_n++;
}

int ito_spawn_attr_init(ito_spawn_attr_t *attr)
{
    if (!attr) return ITO_EINVAL;
    memset(attr, 0, sizeof *attr);
    return ITO_OK;
}

int ito_spawn_index(size_t *index)
{
    if (!index) return ITO_EINVAL;
    itoi_worker_t *w = itoi_self_worker();
    if (!w || !w->cur || !w->cur->slot[ITOI_USLOT_BULK].p) return ITO_EPERM;
    *index = w->cur->slot[ITOI_USLOT_BULK_INDEX].w;
    return ITO_OK;
}

/* Create thread i of b on worker w. */
static inline int make_one(itoi_worker_t *w, bulk_t *b, size_t i, int use_template)
{
    itoi_ult_t *t = itoi_ult_alloc(w);
    if (ITOI_UNLIKELY(!t)) return ITO_ENOMEM;
    if (ITOI_UNLIKELY(!itoi_stack_credit_take(w, b->tmpl.stack_size))) { /* no memory for its stack */
        itoi_ult_free(w, t);
        return ITO_ENOMEM;
    }
    if (use_template) {
        /* the template's fields, with flags as a relaxed atomic: ito_detach, ito_join_until
         * and ito_group_add may read them through a handle of this descriptor's last life
         * (thread.c create_fast; the plain struct copy raced them) */
        t->fn = b->tmpl.fn;
        t->stack_size = b->tmpl.stack_size;
        __atomic_store_n(&t->flags, b->tmpl.flags, __ATOMIC_RELAXED);
        t->bound = b->tmpl.bound;
        t->on_exit = b->tmpl.on_exit;
    } else {
        t->fn = b->tmpl.fn;
        t->stack_size = b->tmpl.stack_size;
        __atomic_store_n(&t->flags, b->tmpl.flags, __ATOMIC_RELAXED); /* see thread.c create_fast */
        t->bound = -1;
        t->on_exit = on_exit_bulk;
    }
    t->stack = NULL; /* attached when first picked */
    if (b->private_init) {
        /* On the issuer, private_init runs in its ULT and may yield or block (an ito mutex,
         * a wrapper): pin the issuer to w meanwhile, since w's private queue and counters,
         * used below and by the callers, are its owner's alone (unpinned, the issuer could
         * come back on another worker and push onto w's queue from there: lost threads,
         * hangs, crashes; tests/test_spawn_private_block.c). On a helper it runs on the
         * scheduler's context (no cur), which cannot switch. */
        itoi_ult_t *me = w->cur;
        int16_t bound = me ? me->bound : -1;
        if (me) me->bound = (int16_t)w->index;
        t->arg = b->private_init(i, b->common);
        if (me) me->bound = bound;
    } else {
        t->arg = b->common;
    }
    t->ret = NULL;
    /* as in thread.c create_fast: ito_thread_id and ito_thread_name may read the id through
     * a handle of this descriptor's last life (a plain store raced them under TSan; found
     * by an outside tester, h66b, 2026-12-06: test_thread_id_stale_race) */
    __atomic_store_n(&t->id, w->next_id++ * ITOI_MAX_WORKERS + (uint64_t)w->index, __ATOMIC_RELAXED);
    itoi_ult_init_state(t);
    t->slot[ITOI_USLOT_BULK].p = b;
    t->slot[ITOI_USLOT_BULK_INDEX].w = i;
    atomic_store_explicit(&t->state, itoi_st_live(t, (b->tmpl.flags & ITOI_F_DETACHED) ? ITOI_DETACHED : ITOI_LIVE),
                          memory_order_relaxed);
    ITOI_BUMP(w->n_created);
    if (b->out) b->out[i] = itoi_handle_of(t);
    itoi_queue_push(&w->rq, &t->u); /* private: published, if wanted, once per access */
    return ITO_OK;
}

/* One message access: claim the next unit of b into the used-up piece pc (its lock
 * held when it may be split). false: nothing left. */
static bool claim(bulk_t *b, piece_t *pc)
{
    size_t unit = b->chunk;
    size_t l = atomic_fetch_add_explicit(&b->next, unit, memory_order_relaxed);
    if (l >= b->n) return false;
    pc->lo = l;
    __atomic_store_n(&pc->next, l, __ATOMIC_RELAXED); /* (splitters glance at next and hi unlocked) */
    __atomic_store_n(&pc->hi, l + unit < b->n ? l + unit : b->n, __ATOMIC_RELAXED);
    return true;
}

/* Pieces of SIMPLE and TEMPLATE (one index per access) are never split: their owner
 * needs no lock. */
static inline bool splittable(const bulk_t *b) { return b->chunk >= 2 * SLICE; }

/* Split the upper half off the largest remainder of another piece: *lo, *hi. false: no
 * piece has 2 * SLICE left. Takes only the victim's lock (the caller holds none: two
 * workers splitting each other must not wait for each other). */
static bool split(bulk_t *b, const piece_t *pc, size_t *lo, size_t *hi)
{
    int n = atomic_load_explicit(&b->npieces, memory_order_acquire);
    for (int tries = 0; tries < 2; tries++) {
        piece_t *best = NULL;
        size_t most = 0;
        for (int i = 0; i < n; i++) { /* unlocked reads: a guess, checked under the lock */
            piece_t *v = &b->pieces[i];
            size_t h = __atomic_load_n(&v->hi, __ATOMIC_RELAXED), nx = __atomic_load_n(&v->next, __ATOMIC_RELAXED);
            if (v != pc && h > nx && h - nx > most) {
                most = h - nx;
                best = v;
            }
        }
        if (!best || most < 2 * SLICE) return false;
        itoi_spin_lock(&best->lock);
        size_t left = best->hi > best->next ? best->hi - best->next : 0;
        if (left >= 2 * SLICE) {
            *lo = best->next + left / 2;
            *hi = best->hi;
            __atomic_store_n(&best->hi, *lo, __ATOMIC_RELAXED);
            itoi_spin_unlock(&best->lock);
            return true;
        }
        itoi_spin_unlock(&best->lock);
    }
    return false;
}

/* Up to `limit` indices of the owner's piece pc: [*lo, *hi), refilled by a claim or a
 * split when used up. *counted: the size of the piece when this take used it up (the
 * caller adds it to b->finished once they are created), else 0. false: none left. */
static bool take(bulk_t *b, piece_t *pc, size_t limit, size_t *lo, size_t *hi, size_t *counted)
{
    bool locked = splittable(b);
    if (locked) itoi_spin_lock(&pc->lock);
    if (pc->next >= pc->hi && !claim(b, pc)) {
        /* used up, nothing unclaimed: split another piece (a used-up piece is never split) */
        size_t sl, sh;
        if (locked) itoi_spin_unlock(&pc->lock);
        if (!locked || !split(b, pc, &sl, &sh)) return false;
        itoi_spin_lock(&pc->lock);
        pc->lo = sl;
        __atomic_store_n(&pc->next, sl, __ATOMIC_RELAXED);
        __atomic_store_n(&pc->hi, sh, __ATOMIC_RELAXED);
    }
    *lo = pc->next;
    *hi = pc->hi - pc->next > limit ? pc->next + limit : pc->hi;
    __atomic_store_n(&pc->next, *hi, __ATOMIC_RELAXED);
    *counted = *hi == pc->hi ? pc->hi - pc->lo : 0;
    if (locked) itoi_spin_unlock(&pc->lock);
    return true;
}

/* Create threads [lo, hi) of b on w. */
static void make_range(itoi_worker_t *w, bulk_t *b, size_t lo, size_t hi)
{
    int tmpl = b->scheme == ITO_SPAWN_TEMPLATE || b->scheme == ITO_SPAWN_COMBINED;
    for (size_t i = lo; i < hi; i++) {
        int rc = make_one(w, b, i, tmpl);
        if (ITOI_UNLIKELY(rc != ITO_OK)) {
            if (b->out) b->out[i] = NULL;
            int none = ITO_OK;
            atomic_compare_exchange_strong(&b->first_err, &none, rc);
            atomic_fetch_add(&b->nfailed, 1);
        }
        if (b->errs) b->errs[i] = rc;
    }
}

/* Up to `limit` threads of b from w's piece (claiming or splitting when it is used up),
 * counted as handled once their piece is all created. Returns the number created, 0
 * when b has nothing left for w. */
static size_t make_some(itoi_worker_t *w, bulk_t *b, piece_t *pc, size_t limit)
{
    size_t made = 0, lo, hi, counted;
    while (made < limit) { /* SIMPLE and TEMPLATE claim one index per access: several accesses */
        size_t want = limit - made < STEP ? limit - made : STEP;
        if (!take(b, pc, want, &lo, &hi, &counted)) break;
        make_range(w, b, lo, hi);
        /* one shared write per piece */
        if (counted) atomic_fetch_add_explicit(&b->finished, counted, memory_order_release);
        made += hi - lo;
    }
    if (made) itoi_publish_some(w);
    return made;
}

static bool sliced(const bulk_t *b) { return (b->tmpl.flags & ITOI_F_DETACHED) != 0; }

/* The poller: idle workers take work from the first open message; with slices, one
 * slice per call (the scheduler runs it, then calls again). */
static size_t spawn_poll(itoi_worker_t *w, size_t budget)
{
    (void)budget;
    spawn_w_t *sw = &per_worker[w->index];
    /* While it creates, a worker subtracts its exits rarely (refs shares a line with the
     * other workers' writes); with nothing to create, at every pass. */
    if (sw->rel_n && (!sw->cur || sw->rel_n >= RELEASE_BATCH)) release_flush(sw);
    bulk_t *b = sw->cur;
    if (!b) {
        if (!atomic_load_explicit(&pool, memory_order_acquire)) return 0;
        itoi_spin_lock(&pool_lock);
        for (b = atomic_load_explicit(&pool, memory_order_relaxed); b; b = b->next_open) {
            int h = atomic_load(&b->helpers);
            if (h > 0 && atomic_compare_exchange_strong(&b->helpers, &h, h - 1)) {
                atomic_fetch_add(&b->refs, 1); /* keep it while we work on it */
                break;
            }
        }
        itoi_spin_unlock(&pool_lock);
        if (!b) return 0;
        sw->cur = b;
        sw->pc = &b->pieces[atomic_fetch_add_explicit(&b->npieces, 1, memory_order_acq_rel)];
    }
    size_t done = 0, k;
    while ((k = make_some(w, b, sw->pc, sliced(b) ? SLICE : SIZE_MAX)) != 0) {
        done += k;
        if (sliced(b)) return done; /* let them run; the next slice on the next call */
    }
    sw->cur = NULL;
    bulk_release_n(b, 1);
    return done;
}

/* The idle probe (looked at by the fairness rule's look, at least every 64 scheduling
 * points, and by an idle worker): w's poller is in the middle of a message. A sliced
 * helper makes one slice per call of its poller, and the poller runs only in w's
 * scheduler context, which a busy worker visits only when the probe says so: without
 * it, a ULT that kept w busy held the rest of w's piece back. The issuer, done with its
 * own indices and unable to split a remainder under 2 * SLICE, yielded alone on w for
 * ever when w's own scheduler context was the helper (it joins while the issuer blocks,
 * in private_init or a slice's wait; tests/test_spawn_own_helper.c). */
static bool spawn_probe(itoi_worker_t *w) { return per_worker[w->index].cur != NULL; }

/* The poller and the idle probe, registered once per process (itoi_mech_register: after
 * the first call one load, no lock; until 2026-12-07 every call took both tables' locks
 * to add them again). Both do nothing while no message is open. */
static itoi_mech_hooks_t spawn_hooks = {.poll = spawn_poll, .probe = spawn_probe};

/* A call that creates nothing for want of memory (the count refused, or no message) still
 * reports per thread, as spawn.h promises: errs[i] = ITO_ENOMEM, out[i] = NULL (a caller
 * that zeroed errs saw every thread as created, and out kept what it held). */
static int refused_whole(size_t n, ito_thread_t *out, int *errs)
{
    if (out)
        for (size_t i = 0; i < n; i++) out[i] = NULL;
    if (errs)
        for (size_t i = 0; i < n; i++) errs[i] = ITO_ENOMEM;
    return ITO_ENOMEM;
}

int ito_create_many(size_t n, ito_fn_t fn, const void *common, size_t common_size,
                    ito_private_fn private_init, ito_thread_t *out, int *errs,
                    const ito_spawn_attr_t *attr)
{
    if (atomic_load_explicit(&itoi_rt.state, memory_order_relaxed) != 1) return ITO_ESTATE;
    ito_spawn_attr_t a;
    ito_spawn_attr_init(&a);
    if (attr) a = *attr;
    if (!fn || (common_size && !common) || n == 0 || n > ((size_t)1 << 40)) return ITO_EINVAL; /* spawn.h: at most 2^40 */
    if ((unsigned)a.scheme > ITO_SPAWN_COMBINED || a.workers < 0) return ITO_EINVAL;
    if (a.flags & ~(unsigned)ITO_ATTR_DETACHED) return ITO_EINVAL;
    if (!out && !(a.flags & ITO_ATTR_DETACHED)) return ITO_EINVAL;
    if (a.stack_size && (a.stack_size < ITO_STACK_MIN || a.stack_size > ITO_STACK_MAX)) return ITO_EINVAL;
    itoi_worker_t *w = itoi_self_worker();
    if (!w || !w->cur) return ITO_ENOTULT;
    /* the runtime's settings only from a ULT, as in ito_create (thread.c create_general): a
     * foreign caller read the worker count while the next ito_init wrote it (a data race
     * under TSan; found by an outside tester, h66b, 2026-12-06: test_spawn_foreign_init_race) */
    if (a.workers > itoi_rt.nworkers) return ITO_EINVAL;
    size_t ssize = a.stack_size ? a.stack_size : itoi_rt.default_stack;
    if (!itoi_stack_admit(ssize, n)) return refused_whole(n, out, errs); /* more than this machine could hold */
    if (itoi_mech_register(&spawn_hooks) != ITO_OK) return refused_whole(n, out, errs);

    int p = a.workers ? a.workers : itoi_rt.nworkers;
    if (a.scheme == ITO_SPAWN_SERIAL) p = 1;
    bulk_t *b = NULL;
    size_t head = (sizeof *b + ITOI_CACHELINE - 1) / ITOI_CACHELINE * ITOI_CACHELINE;
    size_t pieces = (size_t)p * sizeof(piece_t);
    /* a message no memory could hold (the sum wrapped: a small block, then a copy of
     * common_size bytes over the heap; found by an outside tester, h65g, 2026-12-06).
     * PTRDIFF_MAX, malloc's own bound: past it ASan's allocator aborts instead of failing. */
    if (head + pieces > PTRDIFF_MAX || common_size > PTRDIFF_MAX - head - pieces) return refused_whole(n, out, errs);
    if (posix_memalign((void **)&b, ITOI_CACHELINE, head + pieces + common_size) != 0 || !b)
        return refused_whole(n, out, errs);
    memset(b, 0, head + pieces);
    b->pieces = (piece_t *)((char *)b + head);
    atomic_store(&b->npieces, 1); /* [0]: the issuer's */
    b->common = common_size ? (void *)((char *)b + head + pieces) : (void *)common;
    if (common_size) memcpy(b->common, common, common_size);
    b->private_init = private_init;
    b->n = n;
    b->scheme = a.scheme;
    b->out = out;
    b->errs = errs;
    b->tmpl.fn = fn;
    b->tmpl.stack_size = ssize;
    b->tmpl.flags = (a.flags & ITO_ATTR_DETACHED) ? ITOI_F_DETACHED : 0;
    b->tmpl.bound = -1;
    b->tmpl.on_exit = on_exit_bulk;
    b->chunk = (a.scheme == ITO_SPAWN_CHUNK || a.scheme == ITO_SPAWN_COMBINED) ? (n + (size_t)p - 1) / (size_t)p
                                                                              : 1;
    if (a.scheme == ITO_SPAWN_SERIAL) b->chunk = n;
    /* One reference per thread that may be created, one for this call. */
    atomic_store(&b->refs, (int64_t)n + 1);
    atomic_store(&b->helpers, p - 1);
    atomic_store(&b->first_err, ITO_OK);

    if (p > 1) { /* post the message and wake the idle workers */
        itoi_spin_lock(&pool_lock);
        b->next_open = atomic_load_explicit(&pool, memory_order_relaxed);
        atomic_store_explicit(&pool, b, memory_order_release);
        itoi_spin_unlock(&pool_lock);
        atomic_fetch_add(&itoi_rt.side_shared, 1);
        itoi_wake_all();
    }
    while (make_some(w, b, &b->pieces[0], sliced(b) ? SLICE : SIZE_MAX) != 0) {
        if (sliced(b)) { /* let the slice run (we may come back on another worker) */
            itoi_yield_worker(w);
            w = itoi_self_worker();
        }
    }
    if (p > 1) {
        while (atomic_load_explicit(&b->finished, memory_order_acquire) < n) { /* the helpers' part */
            itoi_yield_worker(w);
            w = itoi_self_worker();
            itoi_spin_pause();
        }
        itoi_spin_lock(&pool_lock);
        if (atomic_load_explicit(&pool, memory_order_relaxed) == b) {
            atomic_store_explicit(&pool, b->next_open, memory_order_release);
        } else {
            for (bulk_t *x = atomic_load_explicit(&pool, memory_order_relaxed); x->next_open; x = x->next_open)
                if (x->next_open == b) {
                    x->next_open = b->next_open;
                    break;
                }
        }
        itoi_spin_unlock(&pool_lock);
        atomic_fetch_sub(&itoi_rt.side_shared, 1);
    } else {
        atomic_thread_fence(memory_order_acquire);
    }
    int rc = atomic_load(&b->first_err);
    size_t failed = atomic_load(&b->nfailed);
    bulk_release_n(b, (int64_t)failed + 1); /* threads never created hold no reference */
    return rc;
}
