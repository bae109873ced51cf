/* area.c: the common area of each worker: request records, posting, the flush policy,
 * completion, cancellation, the poller, finalize's part, statistics.
 *
 * Flush policy (what makes a bucket cross into the kernel):
 *   idle       the worker's scheduler context runs its pollers, i.e. no thread of the
 *              worker can run: everything its ULTs and ZWTs posted meanwhile crosses
 *              in one go (the paper's design; the default's main rule). Between two
 *              rounds of ready ZWTs the bucket waits (at most 8 rounds in a row). The
 *              scheduler also visits that context at its looks on a busy worker (at
 *              least every 64 scheduling points, sched.c's fairness rule: wsc_probe says
 *              a bucket waits) and at preemption ticks: the bucket goes there too,
 *              counted as idle;
 *   threshold  K requests are buffered (ito_wsc_set_threshold; default 32);
 *   latency    the oldest buffered request has waited the bound L (default 50 us). Its
 *              timer is lazy (sched.c: no look is placed by it), so on a busy worker it
 *              is looked at at the 64-point looks, where the poller sends the bucket
 *              first: a bucket waits up to 64 scheduling points whatever L, and the rule
 *              itself sends a bucket only while ready ZWTs hold it back (found by
 *              mutation testing, 2026-12-05: the test of this rule could not fail;
 *              syscall.h says so). Looks placed by its ticks, as other timers place
 *              theirs, held a bucket about L but cost the echo server about 10 %
 *              (2026-12-05): not done. A timer ticks every L/2
 *              while requests are buffered, and a bucket found at two ticks in a row
 *              goes (when ZWT rounds held it through the visit of the first). The timer is armed when a bucket begins and no
 *              tick is pending, and a flush does not cancel it, so a busy worker reads
 *              the clock and touches its timer heap once per L/2, not once per bucket
 *              (wsc_fig11, K = 4: 0.06 of a getpid per call); a tick that finds nothing
 *              buffered stops the ticks, and so does a worker going to sleep;
 *   explicit   ito_wsc_flush().
 * Posted requests count as side work queued until completed, so ito_finalize waits for
 * them (see wsc.h for the invariants, runtime.c for finalize's rule). */
#define _GNU_SOURCE
#include <cpuid.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "wsc.h"
#include "../zwt/zwt.h"

#define DEFAULT_K 32
#define DEFAULT_LATENCY_US 50
#define IDLE_SKIPS_MAX 8 /* see wsc_poll */

_Atomic int itoi_wsc_k = DEFAULT_K;
_Atomic unsigned itoi_wsc_latency_us = DEFAULT_LATENCY_US;

static _Atomic(itoi_wscw_t *) areas; /* one per worker, published once per ito_init */
static _Atomic int hooked;           /* the hooks and the policy set up: at the first I/O */
static itoi_spinlock_t setup_lock;
static _Atomic int area_errno;       /* why an area could not be set up (an errno) */
_Atomic int itoi_wsc_fini_cancelling; /* finalize has cancelled: new waits on such fds end at once
                                      * (a call that completes without waiting still runs; wsc.h) */
/* The policy set by ito_wsc_set_* before the areas exist: the environment's values must not
 * overwrite it when the areas are set up (cleared by the teardown at ito_finalize). */
static _Atomic int k_set, latency_set;

static size_t wsc_poll(itoi_worker_t *w, size_t budget);
static bool wsc_before_sleep(itoi_worker_t *w);
static bool wsc_probe(itoi_worker_t *w);
static size_t wsc_fini_cancel(void);
static void wsc_fini_resume(void);
static void wsc_teardown(void);
static const itoi_fini_ops_t fini_ops = {.cancel = wsc_fini_cancel, .resume = wsc_fini_resume};
/* Registered once per process (itoi_mech_register) at the first I/O (hooks_setup); each
 * does nothing on a worker without a ready area. */
static itoi_mech_hooks_t wsc_hooks = {.poll = wsc_poll, .probe = wsc_probe, .presleep = wsc_before_sleep,
                                      .fini_ops = &fini_ops};
/* The teardown closes what every worker opens at ito_init (itoi_wsc_worker_open), I/O or
 * not: registered at ito_init, the hooks above at the first I/O (hooks_setup). */
static itoi_mech_hooks_t wsc_init_hooks = {.fini = wsc_teardown};

/* ---- records ---- */

static inline void live_add(itoi_worker_t *w, itoi_wscw_t *a, itoi_sysrec_t *r)
{
    r->lnext = a->live.lnext;
    r->lprev = &a->live;
    a->live.lnext->lprev = r;
    a->live.lnext = r;
    size_t n = atomic_load_explicit(&a->nlive, memory_order_relaxed) + 1;
    atomic_store_explicit(&a->nlive, n, memory_order_release);
    w->io_pending = n; /* a yield with nothing else ready visits the poller (w: a's owner) */
}

static inline void live_del(itoi_wscw_t *a, itoi_sysrec_t *r)
{
    r->lprev->lnext = r->lnext;
    r->lnext->lprev = r->lprev;
    size_t n = atomic_load_explicit(&a->nlive, memory_order_relaxed) - 1;
    atomic_store_explicit(&a->nlive, n, memory_order_release);
    a->w->io_pending = n;
}

static inline __attribute__((always_inline)) itoi_sysrec_t *rec_get(itoi_worker_t *w, itoi_wscw_t *a)
{
    itoi_sysrec_t *r = a->free;
    if (ITOI_LIKELY(r != NULL)) {
        a->free = r->next;
    } else {
        r = itoi_fault_alloc() ? NULL : aligned_alloc(_Alignof(itoi_sysrec_t), sizeof *r);
        if (!r) return NULL;
        r->owner = (int16_t)w->index;
    }
    r->next = r->wnext = NULL;
    r->wait = NULL;
    r->fd = -1; /* counted in fdlive from rec_fill on (rec_put of an unfilled record counts nothing) */
    r->why = WHY_NONE;
    r->cancel_sent = false;
    r->cancel_missed = false;
    r->cancel_late = false;
    r->retry = false;
    r->state = REC_DONE;
    live_add(w, a, r);
    return r;
}

itoi_sysrec_t *itoi_wsc_rec_get(itoi_worker_t *w, itoi_wscw_t *a) { return rec_get(w, a); }

/* A release store (a plain store on x86): a closer that reads the count its acquire load
 * in itoi_wsc_may_hold gives is ordered after what this worker did with the descriptor
 * before (its epoll_ctl ADD and DEL, its calls on it), so its close(2) comes after them.
 * Relaxed, TSan reported close in ito_close racing epoll_ctl in arm_for / itoi_ready_drop
 * when the count fell to 0 just before a closer on another worker read it (found by an
 * outside tester, h65c, 2026-12-06; test_io_close_fdlive_order). */
static inline void fd_count(itoi_wscw_t *a, int op, int fd, int d)
{
    fd = itoi_wsc_watched_fd(op, fd);
    if (fd >= 0 && a->fdlive) {
        _Atomic uint32_t *c = &a->fdlive[(unsigned)fd % ITOI_WSC_FD_SLOTS];
        atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + (uint32_t)d, memory_order_release);
    }
}

static inline void rec_put(itoi_wscw_t *a, itoi_sysrec_t *r)
{
    fd_count(a, r->op, r->fd, -1);
    live_del(a, r);
    r->state = REC_FREE;
    r->next = a->free;
    a->free = r;
}

void itoi_wsc_rec_put(itoi_wscw_t *a, itoi_sysrec_t *r) { rec_put(a, r); }

static inline __attribute__((always_inline)) void rec_fill(itoi_wscw_t *a, itoi_sysrec_t *r, const ito_sysreq_t *q)
{
    r->op = (uint8_t)q->op;
    r->fd = q->fd;
    fd_count(a, q->op, q->fd, 1);
    r->result = q->result;
    r->frame = q->frame;
    r->entry = q->entry;
}

void itoi_wsc_rec_fill(itoi_wscw_t *a, itoi_sysrec_t *r, const ito_sysreq_t *q) { rec_fill(a, r, q); }

/* ---- setup and teardown ---- */

static void wsc_teardown(void)
{
    itoi_wscw_t *all = atomic_load(&areas);
    if (!all) return;
    itoi_helpers_stop();
    for (int i = 0; i < itoi_rt.nworkers; i++) {
        itoi_wscw_t *a = &all[i];
        if (!atomic_load_explicit(&a->init, memory_order_acquire)) {
            /* No I/O on this worker: only the descriptors ito_init made (itoi_wsc_worker_open) */
            if (a->uring) itoi_uring_close(a);
            itoi_ready_teardown(&itoi_rt.workers[i], a);
            continue;
        }
        /* Finalize waited for every request; a record still live here belonged to a
         * ZWT continuation that nothing will run: its result says so. */
        for (itoi_sysrec_t *r = a->live.lnext; r != &a->live; r = r->lnext)
            if (r->result) *r->result = -ECANCELED;
        itoi_rt.workers[i].slot[ITOI_WSLOT_WSC] = NULL;
        if (a->uring) itoi_uring_teardown(&itoi_rt.workers[i], a);
        itoi_ready_teardown(&itoi_rt.workers[i], a);
        while (a->live.lnext != &a->live) { /* give them back, then free the pool */
            itoi_sysrec_t *r = a->live.lnext;
            live_del(a, r);
            free(r);
        }
        while (a->free) {
            itoi_sysrec_t *r = a->free;
            a->free = r->next;
            free(r);
        }
        free((void *)a->fdlive);
        a->fdlive = NULL;
    }
    free(all);
    atomic_store(&areas, NULL);
    atomic_store(&hooked, 0);
    atomic_store(&k_set, 0); /* the next runtime starts from the environment again */
    atomic_store(&latency_set, 0);
}

/* ito_init, before any worker opens its descriptors: the table of areas (memory only),
 * and the teardown that closes what the workers open, whether they do I/O or not. */
int itoi_wsc_init(void)
{
    size_t bytes = (size_t)itoi_rt.nworkers * sizeof(itoi_wscw_t);
    /* aligned: an area holds a record (its live list's sentinel), records are. Not a
     * failure point of ITO_FAULT_MALLOC: its tests count ito_init's allocations. */
    itoi_wscw_t *p = aligned_alloc(_Alignof(itoi_wscw_t), bytes);
    if (!p || itoi_mech_register(&wsc_init_hooks) != ITO_OK) {
        free(p);
        return ITO_ENOMEM;
    }
    memset(p, 0, bytes);
    for (int i = 0; i < itoi_rt.nworkers; i++) p[i].efd = p[i].rep = -1;
    atomic_store_explicit(&areas, p, memory_order_release);
    return ITO_OK;
}

/* ito_init, on worker w's own thread (the io_uring is created by the thread that submits
 * to it): the descriptors of w's I/O, its io_uring ring and the ring's eventfd, or the
 * sync backend's epoll. Made here, not at w's first I/O, so that no I/O call needs a
 * descriptor of the runtime's own: a server that had taken every descriptor the process
 * may have (RLIMIT_NOFILE) saw its next ito_recv or ito_send on a worker that had done no
 * I/O yet fail with EMFILE, which recv(2) never says, on whichever connection a worker
 * without I/O stole (found by an outside tester, 2026-12-07; test_io_nofile_after_init).
 * They stay inert (no watch, no hooks) until the first I/O (itoi_wsc_area_setup), so a
 * program that does no I/O pays only the descriptors and their creation (about 13 us per
 * ring, on the workers' threads at once). ITO_OK; ITO_ENOMEM out of descriptors (or of
 * memory with ITO_WSC_BACKEND=uring), ITO_ENOSYS for a ring refused with the backend
 * forced, ITO_EIO for an epoll refused: one line on stderr says which. */
int itoi_wsc_worker_open(itoi_worker_t *w)
{
    itoi_wscw_t *a = &atomic_load_explicit(&areas, memory_order_acquire)[w->index];
    a->w = w;
    if (itoi_env.wsc_backend != ITO_WSC_SYNC) {
        bool forced = itoi_env.wsc_backend == ITO_WSC_URING;
        int rc = itoi_uring_open(a);
        if (rc == 0) {
            a->uring = 1;
        } else if (rc == -EMFILE || rc == -ENFILE || (forced && rc == -ENOMEM)) {
            itoi_say_no_fd(w->index, "io_uring ring and its eventfd", -rc);
            return ITO_ENOMEM;
        } else if (forced) {
            /* granted by ito_init's check a moment ago (config.c), refused now */
            if (rc == -EOPNOTSUPP && itoi_uring_lacked_op())
                fprintf(stderr, "ito: ITO_WSC_BACKEND=uring, but this kernel's io_uring lacks %s, "
                                "which ito needs (Linux >= 5.6); unset it to fall back to the sync backend\n",
                        itoi_uring_lacked_op());
            else
                fprintf(stderr, "ito: ITO_WSC_BACKEND=uring, but the kernel refuses worker %d's io_uring ring (%s)\n",
                        w->index, strerror(-rc));
            return ITO_ENOSYS;
        }
        /* else refused (EPERM, ENOSYS), an operation lacking (EOPNOTSUPP) or no memory for a
         * ring (ENOMEM: RLIMIT_MEMLOCK before Linux 5.12, a memory cgroup at its limit): the
         * sync backend, for good */
    }
    /* The readiness epoll (ready.c), on both backends: on io_uring a send that finds no room
     * waits for POLLOUT there (wrappers.c), and made at that first wait it failed the send
     * with EMFILE in a process at RLIMIT_NOFILE, after part of a whole transfer had moved
     * (found by an outside tester, h77a, 2026-12-07; test_io_send_nofile). */
    int rc = itoi_ready_open(a);
    if (rc == 0) return ITO_OK;
    itoi_say_no_fd(w->index, "epoll instance for I/O", -rc);
    return rc == -EMFILE || rc == -ENFILE || rc == -ENOMEM ? ITO_ENOMEM : ITO_EIO;
}

/* The first I/O of the runtime: the hooks, and the policy from the environment (validated
 * at ito_init) or the defaults. */
static int hooks_setup(void)
{
    if (atomic_load_explicit(&hooked, memory_order_acquire)) return ITO_OK;
    int rc = ITO_OK;
    itoi_spin_lock(&setup_lock);
    itoi_callout_begin(); /* allocates (the program's malloc may be the allocator) under the lock: no switch here (itoi.h) */
    if (!atomic_load(&hooked)) {
        atomic_store(&itoi_wsc_fini_cancelling, 0);
        if (!atomic_load(&k_set))
            atomic_store(&itoi_wsc_k, itoi_env.wsc_threshold ? (int)itoi_env.wsc_threshold : DEFAULT_K);
        if (!atomic_load(&latency_set))
            atomic_store(&itoi_wsc_latency_us,
                         itoi_env.wsc_latency_us >= 0 ? (unsigned)itoi_env.wsc_latency_us : DEFAULT_LATENCY_US);
        if (itoi_mech_register(&wsc_hooks) != ITO_OK) rc = ITO_ENOMEM;
        if (rc == ITO_OK) atomic_store_explicit(&hooked, 1, memory_order_release);
    }
    itoi_callout_end();
    itoi_spin_unlock(&setup_lock);
    return rc;
}

/* A first I/O that could not set the worker's area up (-rc: ENOMEM): nothing is kept, the
 * call fails with the reason, and the worker's next call tries again. */
static itoi_wscw_t *area_setup_failed(itoi_wscw_t *a, int rc)
{
    free((void *)a->fdlive);
    a->fdlive = NULL;
    atomic_store(&area_errno, -rc);
    return NULL;
}

/* On the worker itself, at its first I/O: its descriptors are there already (made at
 * ito_init, itoi_wsc_worker_open); they are watched from now on, and the runtime's hooks
 * are set up at the first I/O of any worker. */
itoi_wscw_t *itoi_wsc_area_setup(itoi_worker_t *w)
{
    itoi_wscw_t *all = atomic_load_explicit(&areas, memory_order_acquire);
    if (ITOI_UNLIKELY(!all) || hooks_setup() != ITO_OK) { /* (its only failure: memory) */
        atomic_store(&area_errno, ENOMEM);
        return NULL;
    }
    itoi_wscw_t *a = &all[w->index];
    if (atomic_load_explicit(&a->init, memory_order_acquire)) {
        w->slot[ITOI_WSLOT_WSC] = a;
        return a;
    }
    /* The latency bound's timer only hurries buffered requests, which are live work of
     * their own: not work for finalize either (armed whenever a ULT had just re-posted a
     * wait, it kept a looping waiter's finalize from reaching its grace period). */
    a->flush_timer.bounds_wait = true;
    /* Seen at the scheduler's 64-point looks only, where the poller sends the bucket anyway
     * (see the flush policy above): looks placed by its ticks cost the echo server about 10 %
     * of its messages per second (measured 2026-12-05, Intel host: a visit of the
     * scheduler context near every tick, each flushing a partial bucket). */
    a->flush_timer.lazy = true;
    a->live.lnext = a->live.lprev = &a->live;
    /* Lazily zero (calloc maps it): only the pages of the fds in use are touched. */
    a->fdlive = itoi_fault_alloc() ? NULL : calloc(ITOI_WSC_FD_SLOTS, sizeof *a->fdlive);
    /* Watched by the worker's idle sleep from now on: no descriptor is made here */
    int rc = a->uring ? itoi_uring_setup(w, a) : itoi_ready_setup(w, a);
    if (rc != 0) return area_setup_failed(a, rc);
    atomic_store_explicit(&a->init, 1, memory_order_release);
    w->slot[ITOI_WSLOT_WSC] = a;
    return a;
}

itoi_wscw_t *itoi_wsc_area_if_ready(itoi_worker_t *w)
{
    itoi_wscw_t *all = atomic_load_explicit(&areas, memory_order_acquire);
    if (!all || !atomic_load_explicit(&all[w->index].init, memory_order_acquire)) return NULL;
    return &all[w->index];
}

int itoi_wsc_area_error(void) { return itoi_wsc_area_errno() == ENOMEM ? ITO_ENOMEM : ITO_ENOSYS; }

int itoi_wsc_area_errno(void)
{
    int e = atomic_load(&area_errno);
    return e ? e : ENOSYS;
}

/* ---- completion and cancellation ---- */

static long cancelled_result(int why)
{
    switch (why) {
    case WHY_TIMEOUT: return -ETIMEDOUT;
    case WHY_CLOSE: return -EBADF;
    case WHY_SIBLING: return -EALREADY; /* another record of the same poll answered first */
    case WHY_SHUTDOWN: return -EPIPE;    /* ito_shutdown of the sending side (wrappers.c) */
    default: return -ECANCELED;
    }
}

/* Once: a deadline's firing that finds every record done already (they completed after
 * the deadline, before the ULT ran again) reaches here a second time, and a second
 * itoi_ready would queue the ULT twice (found by fuzz_io: a ULT then resumed in its next
 * wait while the request was running, and the helper wrote into its stack). */
static void iowait_wake_if_done(itoi_worker_t *w, itoi_iowait_t *wt)
{
    if (wt->left == 0 && wt->parked) {
        wt->parked = false;
        itoi_ult_t *t = wt->ult;
        atomic_store_explicit(&t->io_wait, NULL, memory_order_release);
        if (!wt->moved) ITOI_BUMP(w->n_bound_ends); /* only its bound ended it */
        itoi_ready(t);
    }
}

void itoi_wsc_cancel_wait(itoi_worker_t *w, itoi_wscw_t *a, itoi_iowait_t *wt, int why)
{
    bool outer = !wt->cancelling;
    wt->cancelling = true;
    for (itoi_sysrec_t *r = wt->recs, *next; r; r = next) {
        next = r->wnext; /* completing r unlinks r only: the others wait for this loop */
        itoi_wsc_cancel(w, a, r, why);
    }
    if (!outer) return;
    wt->cancelling = false;
    iowait_wake_if_done(w, wt);
}

/* One of a waiting ULT's records is done: wake the ULT when all are (see iowait). */
static void iowait_done(itoi_worker_t *w, itoi_wscw_t *a, itoi_iowait_t *wt, itoi_sysrec_t *r)
{
    /* unlink r from the wait's list */
    itoi_sysrec_t **pp = &wt->recs;
    while (*pp && *pp != r) pp = &(*pp)->wnext;
    if (*pp) *pp = r->wnext;
    wt->left--;
    if (wt->cancelling) return; /* a cancelling loop is on the stack: it finishes the job */
    if (wt->any && !wt->fired) { /* poll: the first event ends the wait of the others */
        wt->fired = true;
        itoi_wsc_cancel_wait(w, a, wt, WHY_SIBLING);
        return;
    }
    iowait_wake_if_done(w, wt);
}

/* The ordinary completion's end, shared by the common path below and the full one: the
 * record given back and what it continues counted and made ready (or taken by the poller). */
static inline __attribute__((always_inline)) void complete_continue(itoi_worker_t *w, itoi_wscw_t *a,
                                                                    ito_frame_t *f, int entry, long res)
{
    /* The request counts as run (finalize's live work) only once what it continues is
     * counted: a ZWT made ready, or a ULT woken. (Counted first, a chain of ZWTs and
     * requests showed no live work for an instant; found by a reviewer, 2026-12-04.) */
    if (!f) {
        ITOI_BUMP(w->n_side_run);
        return;
    }
    /* The poller's reap continues inside its look at the frame (wsc_poll), and runs what it
     * makes ready after the reap, unless a worker is idle: it may steal it from the ready
     * queue (a receiver that computes is then not serialized behind the others). */
    if (a->reaping) {
        bool take = a->ndirect < ITOI_WSC_DIRECT && atomic_load_explicit(&itoi_rt.want_work, memory_order_relaxed) == 0;
        itoi_unit_t *u = itoi_zwt_fire_looked(w, &a->look, f, entry, (uint64_t)res, take);
        if (u) {
            ITOI_BUMP(w->n_units_ready); /* made ready now, run after the reap */
            a->direct[a->ndirect++] = u;
        }
        ITOI_BUMP(w->n_side_run);
        return;
    }
    itoi_zwt_continue_io(f, entry, (uint64_t)res);
    ITOI_BUMP(w->n_side_run);
}

/* itoi_wsc_complete_full's rare part: a result of -ECANCELED, -EAGAIN or -EALREADY, or a
 * reason (why). The result to deliver; *bound_out: see itoi_wsc_complete_full. */
static __attribute__((noinline)) long complete_odd(itoi_wscw_t *a, itoi_sysrec_t *r, long res, bool *bound_out)
{
    /* A wait that its own bound (the ULT's I/O deadline, ito_poll's timeout) ended with
     * nothing moved is not progress for finalize (thread.h: the bound is not work): a ULT
     * that waits in a loop with a timeout shorter than the grace period kept finalize
     * waiting for ever, each expiry counted as progress (found by a server tester,
     * 2026-12-04). Its completion and the ULT's wake-up are taken back (n_bound_ends). */
    bool bound = false;
    /* io_uring cancels a request by itself when it cannot start the io-wq worker that would
     * run it (creating that thread fails while a signal is pending, as the preemption
     * ticks often are, and is given up after a few tries): -ECANCELED for a request that
     * never ran and that nobody cancelled (a pwrite to a regular file failed so under
     * preemption). The waiting wrapper runs it again (wrappers.c, call_once). */
    if (ITOI_UNLIKELY(res == -ECANCELED) && r->why == WHY_NONE && r->wait) {
        r->wait->kernel_cancelled = true;
        if (r->wait->again) { /* a batch's request: posted again by ito_sys_wait_all */
            r->wait->again[r->bidx / 64] |= UINT64_C(1) << (r->bidx % 64);
            r->result = NULL; /* nothing delivered: its result and continuation come from */
            r->frame = NULL;  /* the run that ends it; the rest is an ordinary completion */
            if (!r->wait->again_id) r->wait->again_id = itoi_calloc(1024, sizeof(uint32_t));
            if (r->wait->again_id && r->fd >= 0) r->wait->again_id[r->bidx] = itoi_wsc_file_identity(r->fd);
        } else if (r->wait->any && r->wait->again_id) {
            /* ito_poll: every descriptor of the wait (the others end now as siblings) is
             * looked at again before the next round, as below (found by an outside tester,
             * h62b: the next round polled the pipe that took a closed socket's number). */
            for (const itoi_sysrec_t *o = r->wait->recs; o; o = o->wnext) /* r too: unlinked below */
                if (o->fd >= 0) r->wait->again_id[o->bidx] = itoi_wsc_file_identity(o->fd);
        } else if (r->fd >= 0) {
            /* No ito_close has reached the record (why), and one cannot close the number
             * before its pass here: the number still names the file the request was
             * posted for. The wrapper compares before it posts it again (a close may come
             * before the ULT runs; wrappers.c, call_once and ito_sys_wait_all). */
            r->wait->id_at = itoi_wsc_file_identity(r->fd);
        }
    }
    if (r->why != WHY_NONE) {
        if (res == -ECANCELED || res == -EINTR) res = cancelled_result(r->why);
        ITOI_BUMP(a->st.cancelled);
        if (r->why == WHY_CANCEL && res == -ECANCELED && r->wait) r->wait->cancelled = true; /* (off the common path) */
        bound = r->why == WHY_TIMEOUT && res == -ETIMEDOUT && r->wait && !r->frame;
    }
    /* A try that found no room or nothing to read (-EAGAIN: a request with MSG_DONTWAIT,
     * such as each attempt of ito_sendmsg to a full unix address, wrappers.c
     * send_in_tries) moved nothing either: not progress. On io_uring each attempt is a
     * request whose completion woke the ULT, and a sendmsg waiting by time for a receiver
     * that never reads kept finalize from its cancel pass for ever (found by an outside
     * tester, h67b, 2026-12-06; tests/test_io_finalize_sendto_unix_full.c). So is a
     * connect's -EALREADY with no reason (nonblock.c: a unix listener's backlog still
     * full), each round of ito_connect's wait by time on the sync backend (found by h67b and
 * h67d; tests/test_io_connect_unix_backlog_finalize.c). */
    if (ITOI_UNLIKELY(res == -EAGAIN || (res == -EALREADY && r->op == ITO_SYS_CONNECT)) && r->why == WHY_NONE &&
        r->wait && !r->frame) {
        bound = true;
        /* A send's one attempt on io_uring that found no room: the wrapper tries again
         * itself once its ULT runs (wrappers.c, call_once), and an ito_close may come
         * before that, when the record is no longer live for its pass, and a new file take
         * the number. As for a request io_uring gave up (above): the file now, which the
         * number still names (no close has passed this record), compared before the try
         * (found by an outside tester, h74a: the rest of a whole ito_send went into the
         * socket a new connection got; tests/test_io_whole_close_retry.c). */
        if (res == -EAGAIN && (r->op == ITO_SYS_SEND || r->op == ITO_SYS_SENDMSG) && !r->wait->any &&
            !r->wait->again && r->fd >= 0)
            r->wait->id_at = itoi_wsc_file_identity(r->fd);
    }
    *bound_out = bound;
    return res;
}

static bool batch_rerun(itoi_worker_t *w, itoi_wscw_t *a, itoi_sysrec_t *r); /* (below, with submit) */

/* A completion with a waiting wrapper or a cancellation reason (why): out of line, so that
 * the common completion (a continuation or a result only) saves no registers for it. */
__attribute__((noinline)) void itoi_wsc_complete_full(itoi_worker_t *w, itoi_wscw_t *a, itoi_sysrec_t *r, long res)
{
    bool bound = false; /* the wait's own bound ended it (complete_odd) */
    if (ITOI_UNLIKELY(res == -ECANCELED) && r->why == WHY_NONE && r->wait && r->wait->again && a->uring &&
        batch_rerun(w, a, r))
        return;
    if (ITOI_UNLIKELY(r->why != WHY_NONE || res == -ECANCELED || res == -EAGAIN || res == -EALREADY))
        res = complete_odd(a, r, res, &bound);
    if (ITOI_UNLIKELY(r->op == ITO_SYS_CLOSE) && res == 0 && a->uring)
        itoi_wsc_closed(r->fd); /* ito_close's, off the worker (a helper's says so itself) */
    if (r->wait && !bound) r->wait->moved = true;
    if (bound) ITOI_BUMP(w->n_bound_ends);
    ITOI_BUMP(a->st.completed);
    if (r->result) *r->result = res;
    itoi_iowait_t *wt = r->wait;
    ito_frame_t *f = r->frame;
    int entry = r->entry;
    rec_put(a, r);
    if (wt) iowait_done(w, a, wt, r);
    complete_continue(w, a, f, entry, res);
}

void itoi_wsc_complete_plain(itoi_worker_t *w, itoi_wscw_t *a, itoi_sysrec_t *r, long res)
{
    /* Without a waiting wrapper and a reason (why), itoi_wsc_complete_full does only this:
     * its -ECANCELED branch needs a wait, and its why branch a reason. */
    ITOI_BUMP(a->st.completed);
    if (r->result) *r->result = res;
    ito_frame_t *f = r->frame;
    int entry = r->entry;
    rec_put(a, r);
    complete_continue(w, a, f, entry, res);
}

static void flush_timer_off(itoi_worker_t *w, itoi_wscw_t *a)
{
    if (a->flush_timer.armed) itoi_timer_cancel(w, &a->flush_timer);
}

void itoi_wsc_cancel(itoi_worker_t *w, itoi_wscw_t *a, itoi_sysrec_t *r, int why)
{
    if (r->why == WHY_NONE) r->why = (uint8_t)why; /* the first reason is the one reported */
    switch (r->state) {
    case REC_BUCKET: {
        itoi_sysrec_t **pp = &a->bucket, *prev = NULL;
        while (*pp && *pp != r) {
            prev = *pp;
            pp = &(*pp)->next;
        }
        if (!*pp) return;
        *pp = r->next;
        if (a->bucket_tail == r) a->bucket_tail = prev;
        a->bucket_n--;
        if (!a->bucket_n && !a->sq_pending) flush_timer_off(w, a);
        itoi_wsc_complete(w, a, r, -ECANCELED);
        return;
    }
    case REC_READY:
        itoi_ready_drop(a, r);
        itoi_wsc_complete(w, a, r, -ECANCELED);
        return;
    case REC_POOL:
        if (itoi_helpers_unqueue(r)) itoi_wsc_complete(w, a, r, -ECANCELED);
        else atomic_store_explicit(&r->abandon, 1, memory_order_seq_cst); /* running: it ends by
                                          * itself (a regular file always does; a helper waiting for
                                          * a descriptor's readiness stops: helpers.c) */
        return;
    case REC_TIME: /* nothing runs it: its end is this */
        itoi_wsc_complete(w, a, r, -ECANCELED);
        return;
    case REC_URING:
        if (!r->cancel_sent) {
            r->cancel_sent = true;
            itoi_uring_cancel(a, r);
        }
        return;
    default:
        return;
    }
}

/* ---- posting and flushing ---- */

/* itoi_wsc_user_range's look past the clamp (wsc.h). */
bool itoi_wsc_user_range_slow(const void *buf, size_t len)
{
    static _Atomic uintptr_t top; /* found once: the CPU's paging does not change */
    uintptr_t t = atomic_load_explicit(&top, memory_order_relaxed);
    if (!t) {
        unsigned eax, ebx, ecx = 0, edx;
        bool la57 = __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) && (ecx & (1u << 16));
        t = la57 ? ((uintptr_t)1 << 56) - 4096 : ((uintptr_t)1 << 47) - 4096;
        atomic_store_explicit(&top, t, memory_order_relaxed);
    }
    return (uintptr_t)buf <= t && len <= t - (uintptr_t)buf;
}

/* Why a wrapper's request is not valid, in the kernel's order (a negative errno): a
 * negative pread/pwrite offset EINVAL, then a descriptor that is not open EBADF, then
 * EFAULT for a NULL buffer, vector, message, address or path (or a buffer whose length
 * runs past the top of user space, itoi_wsc_user_range), EINVAL for the rest (a
 * vector count out of 0..1024, no poll events). Only called when itoi_wsc_op_ok said
 * no, so the fcntl costs nothing on a good call. Errors the kernel finds in an open
 * descriptor before the pointer (ESPIPE, ENOTSOCK, EBADF for the access mode) are not
 * reproduced: EFAULT (syscall.h). */
int itoi_wsc_op_errno(const ito_sysreq_t *q)
{
    if ((q->op == ITO_SYS_PREAD || q->op == ITO_SYS_PWRITE) && q->offset < 0) return -EINVAL;
    if (q->op != ITO_SYS_OPENAT && (q->fd < 0 || fcntl(q->fd, F_GETFD) < 0)) return -EBADF;
    switch (q->op) {
    case ITO_SYS_READ: case ITO_SYS_WRITE: case ITO_SYS_SEND: case ITO_SYS_RECV:
    case ITO_SYS_PREAD: case ITO_SYS_PWRITE:
        return -EFAULT;
    case ITO_SYS_READV: case ITO_SYS_WRITEV:
        return q->iovcnt < 0 || q->iovcnt > 1024 || q->offset < -1 ? -EINVAL : -EFAULT;
    case ITO_SYS_SENDMSG: case ITO_SYS_RECVMSG: case ITO_SYS_CONNECT: case ITO_SYS_OPENAT:
        return -EFAULT;
    default:
        return -EINVAL;
    }
}

static inline __attribute__((always_inline)) int req_check(const ito_sysreq_t *q)
{
    if (!q || !itoi_wsc_op_ok(q)) return ITO_EINVAL;
    if (q->frame) { /* the continuation must name an entry of a live frame now (it may
                     * still be destroyed before the completion: that firing is dropped) */
        int rc;
        itoi_zentry_t *e = itoi_zwt_entry(q->frame, q->entry, &rc);
        if (!e) return rc;
        /* The mode rule, with the poster's mode: the completion continues as the kernel,
         * whoever reaps it (itoi_zwt_continue_io). A user thread reaches a kernel-mode
         * entry only through a kernel-interface one (zwt.h), so not as a continuation. */
        if (ITOI_UNLIKELY(ITOI_ZGET(e->mode) == ITO_MODE_KERNEL) && itoi_zwt_caller_mode(itoi_self_worker()) == ITO_MODE_USER)
            return ITO_EPERM;
    }
    return ITO_OK;
}

int itoi_wsc_req_check(const ito_sysreq_t *q) { return req_check(q); }

static void run_bucket(itoi_worker_t *w, itoi_wscw_t *a)
{
    itoi_sysrec_t *r = a->bucket;
    a->bucket = a->bucket_tail = NULL;
    a->bucket_n = 0;
    while (r) {
        itoi_sysrec_t *next = r->next;
        uint32_t ev;
        long res = itoi_wsc_run_nonblocking(&r->req, false, &ev);
        ITOI_BUMP(a->st.crossings);
        if (res == -EAGAIN) {
            r->events = ev;
            r->retry = true;
            itoi_ready_wait(w, a, r); /* retried when ready */
        } else if (res == ITOI_WSC_BLOCKING) {
            itoi_helpers_run(r);
        } else {
            itoi_wsc_complete(w, a, r, res);
        }
        r = next;
    }
}

void itoi_wsc_flush(itoi_worker_t *w, itoi_wscw_t *a, int why)
{
    if (!a->sq_pending && !a->bucket_n) return;
    switch (why) {
    case FLUSH_THRESHOLD: ITOI_BUMP(a->st.flush_threshold); break;
    case FLUSH_IDLE: ITOI_BUMP(a->st.flush_idle); break;
    case FLUSH_LATENCY: ITOI_BUMP(a->st.flush_latency); break;
    default: ITOI_BUMP(a->st.flush_explicit); break;
    }
    a->flushes++; /* the timer keeps ticking (see the flush policy above) */
    if (a->sq_pending) itoi_uring_submit(w, a);
    if (a->bucket_n) run_bucket(w, a);
}

static inline uint64_t half_bound_ns(void)
{
    uint64_t half = (uint64_t)atomic_load_explicit(&itoi_wsc_latency_us, memory_order_relaxed) * 500u;
    return half ? half : 1;
}

static void flush_timer_fire(itoi_worker_t *w, itoi_timer_t *t)
{
    itoi_wscw_t *a = (itoi_wscw_t *)((char *)t - offsetof(itoi_wscw_t, flush_timer));
    if (!a->sq_pending && !a->bucket_n) return; /* nothing buffered: the ticks stop */
    if (a->tick_flushes == a->flushes) { /* the bucket the last tick saw */
        itoi_wsc_flush(w, a, FLUSH_LATENCY);
        return;
    }
    a->tick_flushes = a->flushes;
    itoi_timer_arm(w, &a->flush_timer, itoi_now_ns() + half_bound_ns(), flush_timer_fire);
}

/* Buffered requests are work for the scheduler context: the scheduler's look (at most
 * every 64 points of a busy worker) visits it for them, so that the poller sends the
 * bucket there, on either backend. Until 2026-12-05 only an io_uring worker's watched
 * eventfd brought that visit: on the sync backend with the latency bound off
 * (ITO_WSC_LATENCY_US=0), a bucket of a worker whose threads could always run never went
 * (test_wsc_latency, whose rounds without the bound had run after rounds with it and
 * were flushed by the bound's leftover ticks). */
static bool wsc_probe(itoi_worker_t *w)
{
    itoi_wscw_t *a = itoi_wsc_area_if_ready(w);
    return a && (a->bucket_n || a->sq_pending);
}

/* A worker going to sleep has flushed (the idle rule): a tick still pending would only
 * wake it. */
static bool wsc_before_sleep(itoi_worker_t *w)
{
    itoi_wscw_t *a = itoi_wsc_area_if_ready(w);
    if (a && !a->sq_pending && !a->bucket_n) flush_timer_off(w, a);
    if (a && ITOI_UNLIKELY(a->rep_stale)) itoi_ready_before_sleep(w, a);
    return false;
}

/* A request is posted: counted, and as side work queued until its completion (finalize). */
static inline void count_posted(itoi_worker_t *w, itoi_wscw_t *a)
{
    ITOI_BUMP(a->st.posted);
    ITOI_BUMP(w->n_side_queued);
}

/* The latency bound's timer for a bucket that was empty before this post (`started`:
 * it was not), unless it ticks already. */
static inline void latency_arm(itoi_worker_t *w, itoi_wscw_t *a, bool started)
{
    if (!started && !a->flush_timer.armed && atomic_load_explicit(&itoi_wsc_latency_us, memory_order_relaxed)) {
        a->tick_flushes = a->flushes - 1; /* no tick has seen this bucket */
        itoi_timer_arm(w, &a->flush_timer, itoi_now_ns() + half_bound_ns(), flush_timer_fire);
    }
}

/* r, with its whole request in r->req, at the bucket's end: ito runs it at the flush. */
static inline void bucket_add(itoi_wscw_t *a, itoi_sysrec_t *r)
{
    r->state = REC_BUCKET;
    r->next = NULL;
    if (a->bucket_tail) a->bucket_tail->next = r; else a->bucket = r;
    a->bucket_tail = r;
    a->bucket_n++;
}

/* more: flags or-ed into a send's (itoi_uring_queue); 0 for the others. */
static inline __attribute__((always_inline)) void submit(itoi_worker_t *w, itoi_wscw_t *a, itoi_sysrec_t *r,
                                                         const ito_sysreq_t *q, int more)
{
    count_posted(w, a);
    bool started = a->sq_pending || a->bucket_n;
    if (!a->uring || itoi_uring_queue(a, r, q, more) != 0) {
        if (q != &r->req) r->req = *q; /* ito runs it itself: the whole request */
        r->req.flags |= more;
        if (!a->uring && q->op == ITO_SYS_POLL) { /* the sync backend waits in its epoll */
            r->events = (uint32_t)(uint16_t)q->events;
            itoi_ready_wait(w, a, r);
            return;
        }
        bucket_add(a, r);
    }
    if (a->sq_pending + a->bucket_n >= (size_t)atomic_load_explicit(&itoi_wsc_k, memory_order_relaxed)) {
        itoi_wsc_flush(w, a, FLUSH_THRESHOLD);
        return;
    }
    latency_arm(w, a, started);
}

/* A request of an ito_sys_wait_all batch that io_uring gave up before running it (see
 * complete_odd) is queued again here, at its reap, up to ITOI_WSC_BATCH_RERUNS times, while
 * the batch's other requests go on waiting. Until 2026-12-08 it was only marked, and the
 * batch posted it again once every other request had ended: a pwrite to a regular file in
 * a batch with a pipe read waited for the read, and with a deadline ended -ETIMEDOUT
 * unrun (200 ms early), with ito_cancel_io or finalize -ECANCELED (found by an outside
 * tester, h78b; tests/test_io_batch_giveup_rerun.c). No ito_close has passed the record
 * (its reason would be set): the number still names the file it was posted for. Its
 * ended run is counted as a completion and the new one as a post (finalize's count). */
static bool batch_rerun(itoi_worker_t *w, itoi_wscw_t *a, itoi_sysrec_t *r)
{
    if (r->reruns >= ITOI_WSC_BATCH_RERUNS) return false;
    r->reruns++;
    ITOI_BUMP(a->st.completed);
    ITOI_BUMP(w->n_side_run);
    count_posted(w, a);
    /* As submit does, but never flushing here: the poller is reaping (the worker's next
     * look at its area sends it, or the latency bound's tick). */
    bool started = a->sq_pending || a->bucket_n;
    if (itoi_uring_queue(a, r, &r->req, 0) != 0) bucket_add(a, r); /* no SQE */
    latency_arm(w, a, started);
    return true;
}

void itoi_wsc_submit(itoi_worker_t *w, itoi_wscw_t *a, itoi_sysrec_t *r, const ito_sysreq_t *q)
{
    submit(w, a, r, q, 0);
}

/* A record for q whose completion wakes wt's ULT with its result in *res; NULL: none. */
static inline itoi_sysrec_t *rec_for_wait(itoi_worker_t *w, itoi_wscw_t *a, const ito_sysreq_t *q, long *res,
                                          itoi_iowait_t *wt)
{
    itoi_sysrec_t *r = rec_get(w, a);
    if (ITOI_UNLIKELY(!r)) return NULL;
    rec_fill(a, r, q);
    r->result = res;
    r->frame = NULL;
    itoi_wsc_wait_add(wt, r);
    return r;
}

itoi_sysrec_t *itoi_wsc_post_wait(itoi_worker_t *w, itoi_wscw_t *a, const ito_sysreq_t *q, int more, long *res,
                                  itoi_iowait_t *wt)
{
    itoi_sysrec_t *r = rec_for_wait(w, a, q, res, wt);
    if (ITOI_UNLIKELY(!r)) return NULL;
    if (ITOI_UNLIKELY(q->op == ITO_SYS_OPENAT)) r->req = *q; /* finalize reads its path (finalize's cancel) */
    submit(w, a, r, q, more);
    return r;
}

bool itoi_wsc_part_refused(itoi_worker_t *w, itoi_wscw_t *a, itoi_sysrec_t *r, uint64_t gen)
{
    if (!itoi_wsc_part_closed(r->fd, gen)) return false;
    itoi_wsc_submit_time(w, a, r); /* posted with nothing to run: */
    itoi_wsc_cancel(w, a, r, WHY_CLOSE); /* it ends as a wait that a close ended */
    return true;
}

itoi_sysrec_t *itoi_wsc_post_part(itoi_worker_t *w, itoi_wscw_t *a, const ito_sysreq_t *q, int more, long *res,
                                  itoi_iowait_t *wt, uint64_t gen)
{
    itoi_sysrec_t *r = rec_for_wait(w, a, q, res, wt);
    if (ITOI_UNLIKELY(!r)) return NULL;
    if (!itoi_wsc_part_refused(w, a, r, gen)) submit(w, a, r, q, more);
    return r;
}

itoi_sysrec_t *itoi_wsc_post_wait_helper(itoi_worker_t *w, itoi_wscw_t *a, const ito_sysreq_t *q, long *res,
                                         itoi_iowait_t *wt)
{
    itoi_sysrec_t *r = rec_for_wait(w, a, q, res, wt);
    if (ITOI_UNLIKELY(!r)) return NULL;
    r->req = *q;
    itoi_wsc_submit_retry(w, a, r, ITOI_WSC_BLOCKING, 0);
    return r;
}

void itoi_wsc_submit_time(itoi_worker_t *w, itoi_wscw_t *a, itoi_sysrec_t *r)
{
    count_posted(w, a);
    r->state = REC_TIME;
}

void itoi_wsc_submit_retry(itoi_worker_t *w, itoi_wscw_t *a, itoi_sysrec_t *r, long first, uint32_t events)
{
    count_posted(w, a);
    if (first == ITOI_WSC_BLOCKING) {
        itoi_helpers_run(r);
        return;
    }
    r->events = events;
    r->retry = true;
    itoi_ready_wait(w, a, r);
}

int ito_sys_post(const ito_sysreq_t *req)
{
    int rc = req_check(req); /* inlined: the posting path's own copy */
    if (rc != ITO_OK) return rc;
    if (atomic_load_explicit(&itoi_rt.state, memory_order_relaxed) != 1) return ITO_ESTATE;
    itoi_worker_t *w = itoi_self_worker();
    if (!w) return ITO_ENOTULT; /* the common area belongs to a worker */
    itoi_wscw_t *a = itoi_wsc_area(w);
    if (!a) return itoi_wsc_area_error();
    itoi_sysrec_t *r = rec_get(w, a);
    if (!r) return ITO_ENOMEM;
    rec_fill(a, r, req);
    submit(w, a, r, req, 0); /* inlined, as the check */
    return ITO_OK;
}

/* ---- the poller ---- */

static size_t wsc_poll(itoi_worker_t *w, size_t budget)
{
    (void)budget;
    itoi_wscw_t *a = itoi_wsc_area_if_ready(w);
    if (!a) return 0;
    size_t did = 0;
    if (a->sq_pending || a->bucket_n) {
        /* The scheduler context visits the pollers between rounds of stackless units too:
         * while ZWTs are still ready, the bucket waits for them (they may post more), up
         * to IDLE_SKIPS_MAX visits in a row; otherwise nothing else can run and it crosses. */
        const itoi_unit_t *next = w->rq.head;
        if (next && next->run && a->idle_skips < IDLE_SKIPS_MAX) {
            a->idle_skips++;
        } else {
            a->idle_skips = 0;
            itoi_wsc_flush(w, a, FLUSH_IDLE);
            did++;
        }
    }
    a->reaping = true;
    if (a->uring && a->inflight) did += itoi_uring_reap(w, a);
    if (a->nwaiting) did += itoi_ready_poll(w, a);
    itoi_zwt_look_close(&a->look); /* before any program code runs: it may destroy the frame */
    a->reaping = false;
    /* The continuations that became ready, at once and in completion order. What they post
     * or complete meanwhile takes the ordinary paths (reaping is off). */
    unsigned n = a->ndirect;
    a->ndirect = 0;
    for (unsigned i = 0; i < n; i++) itoi_unit_run_now(w, a->direct[i]);
    return did;
}

/* ---- finalize: cancel what can never complete by itself ---- */

/* Whether a request ends by itself, however slow the device: nop and getpid; a call on a
 * regular file, directory or block device; an openat of such a path (or a symbolic link,
 * or a path not there: O_CREAT makes a regular file, else ENOENT). Not a tty's open,
 * which may wait for a carrier, nor a FIFO's or a socket's. One fstat or fstatat: off
 * the common path (finalize's cancel pass, a deadline already passed). */
bool itoi_wsc_ends_by_itself(const ito_sysreq_t *q)
{
    struct stat st;
    switch (q->op) {
    case ITO_SYS_NOP: case ITO_SYS_GETPID: return true;
    /* ito_close's close of a regular file, off the worker: never cancelled (its number
     * names nothing once the kernel has taken it: no look at the file) */
    case ITO_SYS_CLOSE: return true;
    case ITO_SYS_OPENAT: {
        if (!q->path) return false;
        int nofollow = (q->flags & O_NOFOLLOW) ? AT_SYMLINK_NOFOLLOW : 0;
        struct statx sx; /* the cached attributes (see itoi_wsc_stat_cached): finalize's probe runs on a worker */
        if (statx(q->fd, q->path, nofollow | AT_STATX_DONT_SYNC, STATX_TYPE, &sx) != 0) {
            if (errno != ENOSYS && errno != EPERM) return true; /* the open's own error, or a new file */
            if (fstatat(q->fd, q->path, &st, nofollow) != 0) return true;
            sx.stx_mode = (uint16_t)st.st_mode;
        }
        return S_ISREG(sx.stx_mode) || S_ISDIR(sx.stx_mode) || S_ISBLK(sx.stx_mode) || S_ISLNK(sx.stx_mode);
    }
    default:
        return itoi_wsc_fstat(q->fd, &st) == 0 && (S_ISREG(st.st_mode) || S_ISBLK(st.st_mode) || S_ISDIR(st.st_mode));
    }
}

/* Finalize's view: an openat is left to run once the cancel pass is done (its path is
 * not at hand for a ZWT's request; open_may_block decides for those in flight). */
static bool on_regular_file(int op, int fd)
{
    if (op == ITO_SYS_OPENAT) return true;
    return itoi_wsc_ends_by_itself(&(ito_sysreq_t){.op = op, .fd = fd});
}

bool itoi_wsc_finalizing_slow(const ito_sysreq_t *q) { return !on_regular_file(q->op, q->fd); }

static _Atomic size_t fini_found;
static _Atomic int fini_left;
static itoi_call_t *fini_calls;

/* A live record that a cancellation by `match` takes. */
static inline bool may_cancel(const itoi_sysrec_t *r, bool (*match)(const itoi_sysrec_t *, void *), void *ctx)
{
    return r->state != REC_FREE && r->state != REC_DONE && match(r, ctx);
}

size_t itoi_wsc_cancel_matching(itoi_worker_t *w, itoi_wscw_t *a, bool (*match)(const itoi_sysrec_t *, void *),
                                void *ctx, int why)
{
    size_t n = a->nlive, k = 0;
    if (!n) return 0;
    /* A cancellation may end other records too (a poll's siblings): take a snapshot of
     * the list first. Ended records go back to the pool (state FREE), never to malloc,
     * and nothing is posted meanwhile, so the snapshot stays valid. Up to 64 on the
     * stack; more on the heap. */
    itoi_sysrec_t *small[64], **snap = n <= 64 ? small : itoi_malloc(n * sizeof *snap);
    size_t hit = 0;
    if (!snap) {
        /* No memory for the snapshot: cancel one record at a time, looking again from
         * the head after each (a cancel sets the record's reason first, so none is taken
         * twice, and nothing is added meanwhile). Until 2026-12-05 this cancelled
         * nothing: an ito_close under memory pressure left the descriptor's waiters
         * waiting on a closed number, for ever on the sync backend (found by a tester). */
        for (;;) {
            itoi_sysrec_t *r = a->live.lnext;
            while (r != &a->live && (r->why != WHY_NONE || !may_cancel(r, match, ctx))) r = r->lnext;
            if (r == &a->live) return hit;
            hit++;
            itoi_wsc_cancel(w, a, r, why);
        }
    }
    for (itoi_sysrec_t *r = a->live.lnext; r != &a->live && k < n; r = r->lnext) snap[k++] = r;
    for (size_t i = 0; i < k; i++) {
        itoi_sysrec_t *r = snap[i];
        if (!may_cancel(r, match, ctx)) continue;
        hit++;
        itoi_wsc_cancel(w, a, r, why);
    }
    if (snap != small) free(snap);
    return hit;
}

/* An openat that can wait for ever: the path names a character device (a tty's open
 * may wait for a carrier), or a FIFO or socket; a regular file, directory or block
 * device, or a path not there (O_CREAT makes a regular file; else ENOENT), ends by
 * itself, however slow the file system. The path is readable only while its caller
 * waits (a blocking wrapper's, or a request the sync backend runs itself); a ZWT's
 * request on io_uring (the kernel took the path at submission) counts as one that may
 * wait for ever. (Until 2026-12-04 every openat in flight was cancelled: with
 * ITO_FINALIZE_GRACE_MS=0 most opens of regular files by ULTs that finalize found
 * running failed with ECANCELED, and their files were never written; found by a
 * finalize tester.) */
static bool open_may_block(const itoi_sysrec_t *r, const itoi_wscw_t *a)
{
    if (!r->wait && a->uring) return true;
    if (r->req.op != ITO_SYS_OPENAT || !r->req.path) return true;
    return !itoi_wsc_ends_by_itself(&r->req);
}

/* Calls that end at once on a regular file, directory or block device (ENOTSOCK, or
 * ready at once): a wait in one of them is on something else. */
static bool socket_or_poll(int op)
{
    switch (op) {
    case ITO_SYS_SEND: case ITO_SYS_RECV: case ITO_SYS_SENDMSG: case ITO_SYS_RECVMSG:
    case ITO_SYS_ACCEPT: case ITO_SYS_CONNECT: case ITO_SYS_POLL:
        return true;
    default:
        return false;
    }
}

static bool fini_match(const itoi_sysrec_t *r, void *ctx)
{
    const itoi_wscw_t *a = ctx;
    if (r->state == REC_TIME) return true; /* a poll's timeout is not work (syscall.h) */
    if (!(r->state == REC_READY || r->state == REC_POOL || (r->state == REC_URING && !r->cancel_sent))) return false;
    if (r->op == ITO_SYS_OPENAT) return open_may_block(r, a);
    /* What the number names now says nothing about a wait that is never on a file that
     * ends by itself: a readiness wait (the epoll refuses such files: not_pollable settles
     * them at once), a socket call, a poll. Their number may have been closed with
     * close(2) and taken by a regular file: left live, the wait kept every pass finding
     * work and finalize never returned (found by a reviewer, 2026-12-04). */
    if (r->state == REC_READY || socket_or_poll(r->op)) return true;
    return !on_regular_file(r->op, r->fd);
}

/* The probe before the cancel pass: how many of this worker's live records end by
 * themselves (a request on a regular file, directory or block device, an openat of such
 * a path, one whose cancellation is already on its way). Such a request is work that will
 * progress by itself (thread.h, the finalize rule), as a sleep is: while one is in flight
 * the grace period has not run out, and nothing is cancelled. (Until 2026-12-06 the pass
 * cancelled the waits on pipes and sockets while a long file write or fsync ran: a ULT
 * that would have fed a pipe once its write ended left its reader ECANCELED, where a
 * sleeping feeder did not; found by an outside tester, h64b;
 * tests/test_io_finalize_file_feeds_pipe.c.) Buffered requests go first and readiness
 * events the epoll holds are delivered, as in the pass. */
static void fini_probe_here(itoi_worker_t *w, itoi_call_t *c)
{
    (void)c;
    itoi_wscw_t *a = itoi_wsc_area_if_ready(w);
    size_t found = 0;
    if (a) {
        itoi_wsc_flush(w, a, FLUSH_EXPLICIT);
        if (a->nwaiting) itoi_ready_drain(w, a);
        for (itoi_sysrec_t *r = a->live.lnext; r != &a->live; r = r->lnext)
            if (r->state != REC_FREE && r->state != REC_DONE && !fini_match(r, a)) found++;
    }
    atomic_fetch_add(&fini_found, found);
    atomic_fetch_sub(&fini_left, 1);
}

static void fini_cancel_here(itoi_worker_t *w, itoi_call_t *c)
{
    (void)c;
    itoi_wscw_t *a = itoi_wsc_area_if_ready(w);
    size_t found = 0;
    if (a) {
        itoi_wsc_flush(w, a, FLUSH_EXPLICIT); /* buffered requests go now */
        /* A readiness wait whose descriptor is ready completes by itself: the events the
         * worker's epoll holds are delivered first (with ITO_FINALIZE_GRACE_MS=0 a reader
         * whose data had come was cancelled). Whatever waits after that is cancelled, also
         * a wait that poll(2) on its number calls ready: the number may name another file
         * now (closed with close(2) and reused), which the epoll does not watch, and
         * leaving such a wait live kept every later pass finding work: finalize never
         * returned (found by a reviewer, 2026-12-04; until then a poll(2) of the number
         * decided, with POLLNVAL, a closed number, taken for not ready). */
        if (a->nwaiting) itoi_ready_drain(w, a);
        found = a->nlive;
        itoi_wsc_cancel_matching(w, a, fini_match, a, WHY_FINALIZE);
    }
    atomic_fetch_add(&fini_found, found);
    atomic_fetch_sub(&fini_left, 1);
}

/* Runs on the main ULT: each worker cancels its own; returns how many requests were
 * live (cancelled now, or going to end by themselves). */
static size_t on_every_worker(void (*fn)(itoi_worker_t *, itoi_call_t *))
{
    int n = itoi_rt.nworkers;
    atomic_store(&fini_found, 0);
    atomic_store(&fini_left, n);
    for (int i = 0; i < n; i++) {
        fini_calls[i].fn = fn;
        itoi_worker_call(&itoi_rt.workers[i], &fini_calls[i]);
    }
    while (atomic_load(&fini_left) > 0) itoi_fini_nap(50000); /* not progress (runtime.c) */
    return atomic_load(&fini_found);
}

static size_t wsc_fini_cancel(void)
{
    if (!atomic_load(&areas) || !atomic_load(&hooked)) return 0; /* no I/O in this runtime */
    int n = itoi_rt.nworkers;
    if (!fini_calls && !(fini_calls = itoi_calloc((size_t)n, sizeof *fini_calls))) return 1; /* try again */
    /* A request that ends by itself is still running: no cancel pass yet (fini_probe_here). */
    size_t found = on_every_worker(fini_probe_here);
    if (found == 0) {
        atomic_store(&itoi_wsc_fini_cancelling, 1);
        found = on_every_worker(fini_cancel_here);
    }
    free(fini_calls);
    fini_calls = NULL;
    return found;
}

/* Finalize gave up (ITO_EBUSY): the runtime goes on, and so do waits on sockets and pipes
 * (the flag stayed up until the next ito_init, and every such wait of the still running
 * runtime ended at once with ECANCELED). */
static void wsc_fini_resume(void) { atomic_store(&itoi_wsc_fini_cancelling, 0); }

/* ---- policy and statistics ---- */

int ito_wsc_set_threshold(int k)
{
    if (k < 1 || k > 64) return ITO_EINVAL;
    atomic_store(&itoi_wsc_k, k);
    atomic_store(&k_set, 1);
    return ITO_OK;
}

int ito_wsc_set_latency_us(unsigned us)
{
    if (us > 1000000u) return ITO_EINVAL;
    atomic_store(&itoi_wsc_latency_us, us);
    atomic_store(&latency_set, 1);
    return ITO_OK;
}

int ito_wsc_flush(void)
{
    itoi_worker_t *w = itoi_self_worker();
    if (!w) return ITO_ENOTULT;
    itoi_wscw_t *a = itoi_wsc_area(w);
    if (!a) return itoi_wsc_area_error();
    itoi_wsc_flush(w, a, FLUSH_EXPLICIT);
    return ITO_OK;
}

int ito_wsc_backend(void)
{
    if (atomic_load(&itoi_rt.state) != 1) return ITO_ESTATE;
    itoi_worker_t *w = itoi_self_worker();
    if (!w) return ITO_ENOTULT;
    itoi_wscw_t *a = itoi_wsc_area(w);
    if (!a) return itoi_wsc_area_error();
    return a->uring ? ITO_WSC_URING : ITO_WSC_SYNC;
}

int ito_wsc_stats(ito_wsc_stats_t *out)
{
    if (!out) return ITO_EINVAL;
    bool in;
    if (itoi_any_enter(&in) != ITO_OK) return ITO_ESTATE;
    memset(out, 0, sizeof *out);
    itoi_wscw_t *all = atomic_load_explicit(&areas, memory_order_acquire);
    if (!all) return itoi_any_leave(in, ITO_OK);
    for (int i = 0; i < itoi_rt.nworkers; i++) { /* owner-written counters: a snapshot */
        itoi_wsc_counters_t *s = &all[i].st;
        out->posted += atomic_load_explicit(&s->posted, memory_order_relaxed);
        out->completed += atomic_load_explicit(&s->completed, memory_order_relaxed);
        out->crossings += atomic_load_explicit(&s->crossings, memory_order_relaxed);
        out->cancelled += atomic_load_explicit(&s->cancelled, memory_order_relaxed);
        out->flush_threshold += atomic_load_explicit(&s->flush_threshold, memory_order_relaxed);
        out->flush_idle += atomic_load_explicit(&s->flush_idle, memory_order_relaxed);
        out->flush_latency += atomic_load_explicit(&s->flush_latency, memory_order_relaxed);
        out->flush_explicit += atomic_load_explicit(&s->flush_explicit, memory_order_relaxed);
    }
    return itoi_any_leave(in, ITO_OK);
}
