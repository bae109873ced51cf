/* itoi.h: the core's internal interface (the `itoi_` prefix), shared by src/core,
 * src/sync and the mechanisms. Public headers never include it.
 *
 * Who may touch what (the invariants the whole runtime keeps; the scheduler's own are
 * at the top of sched.c):
 *  - A worker's private ready queue (w->rq) and its pools are touched only by code
 *    running on that worker. A unit in the private queue is therefore invisible to
 *    other workers; this is why the hot paths (yield, create, exit) need no atomics.
 *  - A worker publishes units to others only through w->steal (spinlock), and only
 *    ULTs whose context is completely saved: a ULT that is switching out is published
 *    by the post action of the switch, which runs on the next context's stack.
 *  - w->inbox (spinlock) receives units made ready by other workers or by foreign
 *    threads for this worker; the owner drains it when w->inbox_n is non-zero.
 *  - A ULT's `state` word is the only field written by two sides at once (exit vs
 *    join/detach); everything else of a ULT is written by whoever runs it or, while it
 *    is not running, by whoever holds it in a queue.
 *  - Mechanisms keep their state out of these structs: per ULT in slot words, per
 *    worker in slot pointers (the ITOI_*SLOT_* lists below say who owns which).
 */
#ifndef ITO_CORE_ITOI_H
#define ITO_CORE_ITOI_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ito/thread.h"
#include "ito/time.h"
#include "../arch/x86_64/itoa.h"
#include "spinlock.h"

#define ITOI_LIKELY(x)   __builtin_expect(!!(x), 1)
#define ITOI_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define ITOI_CACHELINE 64
#define ITOI_MAX_WORKERS 256
/* Descriptors ito_init makes for each worker: its idle epoll and wake eventfd (idlewait.c),
 * its io_uring ring and the ring's eventfd, or the sync backend's epoll (src/wsc/area.c) */
#define ITOI_FDS_PER_WORKER 4
#define ITOI_NAME_LEN 32

/* ---- stacks (stack.c) ---- */
typedef struct itoi_stack {
    struct itoi_stack *next; /* pool link */
    char *base;              /* lowest usable byte (just above the guard page) */
    size_t size;             /* usable bytes */
    char *map;               /* the mapping, guard page included */
    size_t map_size;
    size_t reg_index;        /* position in the registry of mappings */
} itoi_stack_t;

/* ---- ULT state word ---- */
enum {
    ITOI_LIVE = 0,      /* not finished, nobody joining */
    ITOI_DONE = 1,      /* finished, not yet joined */
    ITOI_DETACHED = 2,  /* detached, not finished */
    ITOI_REAPED = 3,    /* joined (or ended detached): the descriptor is free */
    /* any other value: the joiner's descriptor, waiting for the ULT to finish */
};

/* ULT flags, fixed at creation (other threads read them without synchronization). A ULT
 * is bound to a worker, and never published for stealing, while its `bound` is >= 0
 * (ito_attr_t.worker, main, and temporarily a timed wait or a preempted ULT). */
enum {
    ITOI_F_MAIN = 1u << 0,     /* the main ULT (the caller of ito_init) */
    ITOI_F_DETACHED = 1u << 2, /* created detached */
};

struct itoi_ult;
struct itoi_worker;

/* ---- ready units ----
 * Whatever a worker's queues hold: a ULT (run == NULL; switched to) or a stackless unit
 * (a ZWT entry: run(w, unit) runs it to completion on the scheduler context). The unit is
 * the first member of both, so a queue link costs nothing more. */
typedef struct itoi_unit itoi_unit_t;
typedef void (*itoi_run_fn)(struct itoi_worker *w, itoi_unit_t *u);
struct itoi_unit {
    itoi_unit_t *next;           /* queue link */
    itoi_run_fn run;             /* NULL for a ULT */
};

/* ---- timers (timer.c) ---- */
enum { ITOI_AWAKE = 0, ITOI_SLEEPING = 1, ITOI_IN_EPOLL = 2 }; /* itoi_worker_t.sleep_state */

typedef struct itoi_timer itoi_timer_t;
typedef void (*itoi_timer_fn)(struct itoi_worker *w, itoi_timer_t *t);
struct itoi_timer {
    uint64_t deadline;           /* CLOCK_MONOTONIC ns */
    itoi_timer_t *child, *sibling, *prev; /* pairing-heap links (prev: parent or left sibling) */
    itoi_timer_fn fire;
    bool armed;
    bool bounds_wait; /* only bounds an I/O wait that finalize cancels: not work of its own */
    bool lazy;        /* seen at the scheduler's 64-point looks only: no look is placed by it
                       * (sched.c, look; the WSC latency bound's ticks) */
};

/* A function to run on a given worker's scheduler context, posted by any thread
 * (itoi_worker_call). The node is the poster's: it must stay valid until fn has run. */
typedef struct itoi_call {
    struct itoi_call *next;
    void (*fn)(struct itoi_worker *w, struct itoi_call *c);
} itoi_call_t;

/* A timed wait takes the ULT off the object it waits on when the deadline passes:
 * called with the object's lock held (if it has one); returns true if it found the ULT
 * still waiting and removed it (the ULT then wakes with ITO_ETIMEDOUT), false if a
 * waker got there first (the waker readies it). */
typedef bool (*itoi_unlink_fn)(struct itoi_ult *t, void *obj);

/* The part of a ULT that threads created together share: bulk creation (src/spawn)
 * builds it once as a template and copies it whole. */
typedef struct itoi_ult_common {
    ito_fn_t fn;
    size_t stack_size;
    uint32_t flags;
    int16_t bound;               /* worker index, or -1 */
    void (*on_exit)(struct itoi_worker *w, struct itoi_ult *t); /* called as the ULT finishes
                                                                  * (on worker w), or NULL */
} itoi_ult_common_t;

/* Per-ULT words owned by mechanisms, zero when a ULT is created; core reads one of them,
 * through ITOI_PSAFE below (coop.c: an expired budget never switches inside a region).
 * A word holds a number (.w) or a pointer (.p), as its owner chooses. */
typedef union itoi_uslot {
    uintptr_t w;
    void *p;
} itoi_uslot_t;
enum {
    ITOI_USLOT_REGWIN,           /* src/regwin: the ULT's window state */
    ITOI_USLOT_PSAFE,            /* src/preempt: region depth (preempt_int.h) */
    ITOI_USLOT_PSAFE_PENDING,    /* src/preempt: a switch was delayed by a region */
    ITOI_USLOT_PSAFE_SINCE,      /* src/preempt: when the delayed switch was due */
    ITOI_USLOT_PSAFE_RAN,        /* src/preempt: CPU time the region ran since */
    ITOI_USLOT_GROUP,            /* src/preempt: the ULT's group, while its state has
                                  * ITOI_ST_MEMBER (never cleared at creation) */
    ITOI_USLOT_GANG_RAN,         /* src/preempt: the gang epoch in which it last began to run */
    ITOI_USLOT_BULK,             /* src/spawn: the bulk creation it belongs to */
    ITOI_USLOT_BULK_INDEX,       /* src/spawn: its index there */
    ITOI_USLOT_RDHOLDS,          /* src/sync/rwlock.c: read holds it has on any rwlock */
    ITOI_ULT_SLOTS
};
/* A ULT's preemption-safe region depth: written by the ULT itself (src/preempt) and read
 * by the signal handler on the same worker and by core's compiled-yield path (volatile:
 * the handler interrupts the ULT, no atomics needed). */
#define ITOI_PSAFE(t) (*(volatile uintptr_t *)&(t)->slot[ITOI_USLOT_PSAFE].w)

typedef struct itoi_ult {
    /* Layout: what ito_create writes lies in the first four cache lines (the descriptor
     * is aligned to one), and the fields a ULT's run and its join write (u, sp, stack,
     * ret, state, gen, tag) in the first two, so that a descriptor which ran on another
     * worker comes back to its creator's cache with the join. */
    _Alignas(ITOI_CACHELINE) itoi_unit_t u; /* queue link; u.run is NULL */
    void *sp;                    /* saved context while not running */
    itoi_stack_t *stack;         /* NULL until first run (stacks are attached lazily) */
    union {
        struct {                 /* the fields of itoi_ult_common_t, by name */
            ito_fn_t fn;
            size_t stack_size;
            uint32_t flags;
            int16_t bound;       /* written only by the ULT itself, or by its creator
                                  * before it is published */
            void (*on_exit)(struct itoi_worker *w, struct itoi_ult *t);
        };
        itoi_ult_common_t common;
    };
    void *arg;
    void *ret;
    _Atomic uintptr_t state;     /* ITOI_LIVE / DONE / DETACHED / joiner, keyed with the life's
                                  * generation (itoi_st): see itoi_st */
    _Atomic uint16_t gen;        /* handle generation, bumped at free (read by any thread that
                                  * checks a handle: relaxed loads and stores) */
    int err;                     /* its errno while switched out (ultstate.h): in the hole
                                  * before tag, on the second line, which switches touch less
                                  * than the ones after it */
    _Atomic uintptr_t tag;       /* the current handle ^ itoi_arena.key (itoi_ult_set_gen) */
    uint64_t id;
    struct itoi_ult_store *store; /* thread-specific values (src/sync/tls.c), or NULL */
    const char *blocked_on;      /* what it is parked on ("mutex", "recv", ...), or NULL */
    /* I/O (src/wsc): the ULT's deadline for blocking wrappers (ito_io_deadline), the
     * cancellation asked by ito_cancel_io (set by any thread, consumed by the ULT), and
     * the request it is parked on (owned by the worker that holds the request) */
    uint64_t io_deadline;
    void *_Atomic io_wait;
    _Atomic uint32_t io_cancel;
    int wait_result;
    char name[ITOI_NAME_LEN];
    itoi_uslot_t slot[ITOI_ULT_SLOTS];
    uintptr_t wait_data;         /* scratch for the object the ULT waits on */
    /* timed waits (itoi_block_until): written by the ULT before it parks, read by the
     * timer's firing on the same worker (the ULT is pinned there meanwhile) */
    itoi_timer_t timer;
    itoi_unlink_fn wait_unlink;
    void *wait_obj;
    itoi_spinlock_t *wait_lock;
    /* Who ends a timed wait on an object with a lock (ITOI_CLAIM_*): the waker that takes
     * the ULT off the object's queue, or the timer, by one CAS from WAITING. The timer
     * touches the object only if it won: the ULT is then still queued, so the object cannot
     * be destroyed (ITO_EBUSY) and wakers pass it by (itoi_waiter_pop). NONE for every
     * other wait. */
    _Atomic uint8_t wait_claim;
    /* Its place in a synchronization object's wait queue (src/sync/waitq.h: itoi_waitq_t),
     * under that object's lock: the queue it is in (NULL: none) and its neighbours there.
     * Links of their own, so that a waiter that times out leaves from anywhere at once. */
    void *wq_in;
    struct itoi_ult *wq_next, *wq_prev;
    _Atomic int16_t io_owner;    /* the worker that owns io_wait (read by ito_cancel_io: relaxed) */
    _Atomic uint16_t io_call_gen; /* ito_cancel_io's call, for this generation */
    _Atomic int io_call_busy;
    itoi_call_t io_call;
    void **inline_jb;            /* running inline in its joiner (thread.c): where ito_exit returns */
    uint64_t eh[2];              /* its C++ exception state while switched out (ultstate.h) */
#if defined(ITOI_ASAN)
    void *asan_fake_stack;
#endif
#if defined(ITOI_TSAN)
    void *tsan_fiber;
#endif
} itoi_ult_t;

enum { ITOI_CLAIM_NONE, ITOI_CLAIM_WAITING, ITOI_CLAIM_WOKEN, ITOI_CLAIM_TIMER };

/* A waker (holding the lock of the queue t waits on) takes t: false when t's timer has
 * taken it first (it is timing out; the timer takes it off the queue). */
static inline bool itoi_waiter_claim(itoi_ult_t *t)
{
    uint8_t c = atomic_load_explicit(&t->wait_claim, memory_order_relaxed);
    if (c == ITOI_CLAIM_NONE) return true;
    c = ITOI_CLAIM_WAITING;
    return atomic_compare_exchange_strong_explicit(&t->wait_claim, &c, ITOI_CLAIM_WOKEN, memory_order_acq_rel,
                                                   memory_order_relaxed);
}

/* The per-thread state every new ULT starts with (ito_create and bulk creation). Not the
 * group slot: it counts only while the state word has ITOI_ST_MEMBER, and ito_group_add
 * (any thread) may write it, with an atomic store, into a descriptor that has just been
 * reused (itoi_group_of, src/preempt/preempt_int.h). */
static inline void itoi_ult_init_state(itoi_ult_t *t)
{
    for (int i = 0; i < ITOI_ULT_SLOTS; i++)
        if (i != ITOI_USLOT_GROUP) t->slot[i].w = 0;
    t->store = NULL;
    t->wait_result = 0;
    atomic_store_explicit(&t->wait_claim, ITOI_CLAIM_NONE, memory_order_relaxed);
    t->wq_in = NULL;
    t->err = 0;
    t->blocked_on = NULL;
    __atomic_store_n(&t->name[0], (char)0, __ATOMIC_RELAXED); /* ito_thread_name may read a stale handle's (thread.c) */
    t->io_deadline = UINT64_MAX; /* ITO_FOREVER */
    atomic_store_explicit(&t->io_cancel, 0, memory_order_relaxed);
    atomic_store_explicit(&t->io_wait, NULL, memory_order_relaxed);
}

/* A ULT's thread-specific values belong to a layer above the core (src/sync/tls.c): the
 * block starts with the function that runs their destructors and frees it, which the
 * core calls on the ULT's own stack as it exits (and ito_finalize for main). */
typedef struct itoi_ult_store {
    void (*release)(itoi_ult_t *t);
} itoi_ult_store_t;
static inline void itoi_ult_release_store(itoi_ult_t *t)
{
    if (ITOI_UNLIKELY(t->store != NULL)) t->store->release(t);
}

/* A FIFO of units linked through ->next. */
typedef struct itoi_queue {
    itoi_unit_t *head, *tail;
    size_t n;
} itoi_queue_t;

static inline void itoi_queue_push(itoi_queue_t *q, itoi_unit_t *u)
{
    u->next = NULL;
    if (q->tail) q->tail->next = u; else q->head = u;
    q->tail = u;
    q->n++;
}
static inline void itoi_queue_push_front(itoi_queue_t *q, itoi_unit_t *u)
{
    u->next = q->head;
    q->head = u;
    if (!q->tail) q->tail = u;
    q->n++;
}
static inline itoi_unit_t *itoi_queue_pop(itoi_queue_t *q)
{
    itoi_unit_t *u = q->head;
    if (u) {
        q->head = u->next;
        if (!q->head) q->tail = NULL;
        q->n--;
    }
    return u;
}
static inline void itoi_queue_append(itoi_queue_t *dst, itoi_queue_t *src)
{
    if (!src->head) return;
    if (dst->tail) dst->tail->next = src->head; else dst->head = src->head;
    dst->tail = src->tail;
    dst->n += src->n;
    src->head = src->tail = NULL;
    src->n = 0;
}
bool itoi_queue_remove(itoi_queue_t *q, itoi_unit_t *u);

/* ---- workers (worker.c) ---- */
/* Per-worker pointers owned by mechanisms (NULL until they set them up). */
enum {
    ITOI_WSLOT_REGWIN,           /* src/regwin: the worker's register windows */
    ITOI_WSLOT_PREEMPT,          /* src/preempt: its timer, statistics, gang-parked ULTs */
    ITOI_WSLOT_WSC,              /* src/wsc: its common area, once set up (area.c) */
    ITOI_WORKER_SLOTS
};

/* The fairness rule (sched.c): a worker's scheduler looks at least every that many
 * scheduling points. */
#define ITOI_LOOK_EVERY 64

typedef struct itoi_worker {
    /* owner-only, hot */
    itoi_ult_t *cur;              /* the running ULT, or NULL while in the scheduler context */
    itoi_queue_t rq;              /* private FIFO of ready units */
    uint32_t tick;                /* scheduling points, for the fairness rule */
    uint16_t look;                /* the (16 low bits of the) tick of the next look (sched.c):
                                   * at most 64 points away, nearer when a timer is near */
    uint16_t poll_due;            /* visit the scheduler context at the next scheduling point */
    _Atomic uint64_t n_switches;  /* a counter (below), here in the first line: every switch bumps it */
    itoi_ult_t *prev;             /* the ULT that just switched out (read by post actions) */
    itoi_ult_t *pending;          /* the ULT ito_create made last, not yet queued: a join that
                                   * comes first runs it inline (thread.c); any scheduling
                                   * point queues it first (itoi_flush_pending) */
    /* the second line: what every switch and every compiled yield's scheduling point
     * (itoi_tick_point) read besides the first; before they were gathered here a compiled
     * yield touched six lines of its worker */
    void *sched_sp;               /* saved context of the scheduler context */
    size_t io_pending;            /* requests a poller must look for (src/wsc sets it): a ULT
                                   * that yields with nothing else ready still lets the
                                   * pollers run */
    void *eh;                     /* this kernel thread's C++ exception globals, or NULL
                                   * without a C++ runtime (ultstate.h) */
    int *errnop;                  /* this kernel thread's errno (ultstate.h) */
    uint64_t coop_t0;             /* owner only: its last switch through an expired budget (coop.c) */
    itoi_ult_t *free_ult;         /* descriptor pool */
    _Atomic uint64_t timer_next;  /* timers (timer.c): earliest deadline, ITO_FOREVER if none;
                                   * owner-written, read relaxed by others */
    _Atomic int watched;          /* fds watched by the idle epoll (idlewait.c) */
    int sleep_hooks_n;            /* owner only: the sleep pairs whose before ran at this
                                   * sleep (itoi_sleep_begin), whose after runs at its end */
    uint64_t sleep_cap;           /* owner only: a presleep hook may lower the idle sleep's
                                   * deadline below the timers' (idle() resets it) */
    size_t free_ult_n;
    itoi_stack_t *free_stack;     /* stack pool (default size only) */
    _Atomic size_t free_stack_n;  /* owner writes (ITOI_OWN_ADD); ito_stats reads */
    size_t stack_credits[18];     /* stack credits held, per size class (stack.c) */
    itoi_call_t stack_call;       /* stack.c: asks this worker to give its pool back ... */
    _Atomic int stack_call_busy;  /* ... (1 while posted) */
    int index;
    uint64_t next_id;
    uint64_t spin_ns;             /* how long the next idle spin may last (adaptive) */
    const itoi_unit_t *unit_cur;  /* the stackless unit running on this worker, or NULL */
    const itoi_unit_t *unit_began; /* a ZWT's run (src/zwt/fire.c): its entry, and its frame's */
    void *unit_frame;             /* handle and its index as its run began, which are what */
    int unit_index;               /* ito_zwt_self answers (the frame may go while it runs) */
    void *dead_sp;                /* where an exiting ULT's last context is "saved" */
    const void *sched_lo;         /* the scheduler context's stack, for the sanitizers */
    size_t sched_size;
    void *sched_fake;             /* ASan fake-stack handle of the scheduler context */
    void *dying_fiber;            /* TSan fiber of the ULT that just exited */
    /* counters: written by the owner only, read by anyone (relaxed) */
    _Atomic uint64_t n_created, n_finished, n_steals, n_steals_stackless, n_sleeps, n_idles, n_spin_ns;
    _Atomic uint64_t n_units_ready, n_units_run; /* stackless units made ready here / run here */
    _Atomic uint64_t n_units_done; /* ... and whose run has returned (finalize's live work) */
    _Atomic uint64_t n_side_queued, n_side_run;  /* mechanisms' work outside the queues
                                                  * (requests in flight): posted / done */
    _Atomic int idling;           /* set by idle(), cleared when the scheduler loop next runs
                                   * something: an awake worker that only polls (busy-polled
                                   * devices) runs nothing (finalize's pending test) */
    void *slot[ITOI_WORKER_SLOTS];
    /* timers (timer.c): owner-only heap (timer_next is in the second line) */
    itoi_timer_t *timers;         /* root of the pairing heap */
    size_t ntimers;
    _Atomic size_t ntimers_work;  /* armed timers that are work (not bounds_wait), for finalize */
    itoi_queue_t *timer_woken;    /* while itoi_timers_run fires: where timed-out ULTs go (they
                                   * then run before the ready queue, in deadline order) */
    uint32_t front_tick, front_used; /* timer.c: the window of scheduling points in which
                                      * front_used timed-out ULTs went ahead of the queue */
    uint64_t look_ns;             /* sched.c: the clock at the last look that read it (0: none
                                   * since the heap was last empty or the worker slept) */
    uint64_t look_per;            /* sched.c: how long a scheduling point lasts (estimate, ns) */
    uint32_t look_tick;           /* sched.c: the tick of the look at look_ns */
    uint32_t kept_tick, kept_n;   /* sched.c: the reclaim at tick kept_tick put kept_n units
                                   * back at the head of rq; offload waits until they have run */
    _Atomic uint64_t n_timers_fired, n_wakeups;
    /* Wake-ups and completions that only a wrapper's own bound caused (an I/O deadline or
     * ito_poll timeout that ended a wait on which nothing moved): not progress for
     * finalize, which subtracts them (a ULT polling in a loop with a timeout shorter than
     * the grace period otherwise kept finalize waiting for ever). */
    _Atomic uint64_t n_bound_ends;
    /* shared */
    _Alignas(ITOI_CACHELINE) itoi_spinlock_t inbox_lock;
    _Atomic size_t inbox_n;
    _Atomic size_t inbox_free;    /* of those, the unbound units a foreign thread put there,
                                   * which an idle worker may take (sched.c, steal_inbox) */
    itoi_queue_t inbox;
    _Atomic(itoi_call_t *) calls;  /* itoi_worker_call: a LIFO pushed by anyone */
    _Alignas(ITOI_CACHELINE) itoi_spinlock_t steal_lock;
    _Atomic size_t steal_n;
    itoi_queue_t steal;
    size_t steal_front;           /* under steal_lock: how many of steal's first units offload
                                   * took from the head of rq (they go back there, reclaim) */
    itoi_unit_t *steal_front_last; /* ... and the last of them (valid while steal_front > 0) */
    _Alignas(ITOI_CACHELINE) _Atomic int sleep_state; /* ITOI_AWAKE / SLEEPING (futex word) /
                                                       * IN_EPOLL: see sched.c's sleep protocol */
    /* sleeping on kernel events (idlewait.c): while fds are watched, an idle worker
     * sleeps in epoll_wait on idle_ep (which also holds wake_fd) instead of the futex */
    int idle_ep, wake_fd;         /* (`watched`, the count of fds, is in the second line) */
    /* set up by runtime.c */
    void *sched_stack_map;        /* the scheduler context's own stack (worker 0 only) */
    size_t sched_stack_size;
    void *altstack;               /* sigaltstack for the overflow handler */
    unsigned long pthread;        /* pthread_t of this worker (0 for worker 0) */
    _Atomic int tid;              /* kernel thread id (timers are aimed at it); set when it runs */
    int io_open_rc;               /* its itoi_wsc_worker_open, written before tid */
#if defined(ITOI_TSAN)
    void *tsan_sched_fiber;
#endif
} itoi_worker_t;

/* ---- the runtime (runtime.c) ---- */
typedef struct itoi_runtime {
    _Atomic int state;            /* 0 off, 1 running, 2 finalizing, 3 starting, 4 a fork's
                                   * child: the runtime is the parent's (runtime.c, on_fork) */
    int nworkers;
    uint64_t start_sigmask;       /* signals 1..64 blocked in the workers at their start
                                   * (ito_init's caller's mask, SIGURG open): preempt.c */
    size_t default_stack;         /* bytes of a default stack's size class */
    int default_class;            /* its class (stack.c) */
    itoi_worker_t *workers;       /* nworkers of them */
    itoi_ult_t *main_ult;
    _Atomic int shutdown;
    _Alignas(ITOI_CACHELINE) _Atomic int want_work; /* workers looking for work */
    _Atomic int spinning;                            /* ... of which spinning, not asleep */
    _Alignas(ITOI_CACHELINE) _Atomic uint64_t next_id;
    /* mechanisms' work that idle workers should poll for (a bulk creation's message,
     * busy-polled devices): idle workers do not sleep while it is non-zero */
    _Alignas(ITOI_CACHELINE) _Atomic int64_t side_shared;
    /* ... of which polling only (busy-polled devices with nothing to deliver): not work
     * that ito_finalize waits for. Raised after side_shared, lowered before it. */
    _Atomic int64_t side_busy;
    _Atomic int64_t foreign_in;   /* foreign threads inside the runtime (itoi_foreign_enter) */
    _Atomic uint64_t foreign_wakeups;
    _Atomic uint64_t foreign_units; /* stackless units made ready by foreign threads */
    size_t page;
    uint64_t finalize_grace_ns;   /* ITO_FINALIZE_GRACE_MS */
} itoi_runtime_t;

extern itoi_runtime_t itoi_rt;

/* The worker running the caller. A ULT migrates between workers, so the thread
 * pointer must be read afresh at every use: the volatile asm keeps the compiler from
 * caching a TLS address across a context switch. */
extern _Thread_local itoi_worker_t *itoi_tls_worker;
static inline itoi_worker_t *itoi_self_worker(void)
{
    itoi_worker_t *w;
    __asm__ volatile("movq itoi_tls_worker@gottpoff(%%rip), %0\n\t"
                     "movq %%fs:(%0), %0"
                     : "=r"(w));
    return w;
}

/* Counters written only by their owner, read by others (statistics, finalize): no RMW.
 * On x86-64 one add to memory without a lock: its store is one aligned store, so a reader
 * sees the old value or the new one, as with a relaxed load and store, in one instruction
 * instead of three (ten such counters per split-phase request; 2026-12-06). Under TSan the
 * relaxed load and store, which it understands. */
#if defined(__x86_64__) && !defined(ITOI_TSAN)
#define ITOI_OWN_ADD(field, d)                                                                         \
    do {                                                                                               \
        _Static_assert(sizeof(field) == 8 || sizeof(field) == 4, "an owner's counter: 4 or 8 bytes");   \
        if (sizeof(field) == 8)                                                                        \
            __asm__ volatile("addq %1, %0" : "+m"(field) : "er"((int64_t)(d)));                        \
        else                                                                                           \
            __asm__ volatile("addl %1, %0" : "+m"(field) : "ir"((int32_t)(d)));                        \
    } while (0)
#else
#define ITOI_OWN_ADD(field, d)                                                                 \
    atomic_store_explicit(&(field), atomic_load_explicit(&(field), memory_order_relaxed) + (d), \
                          memory_order_relaxed)
#endif
#define ITOI_BUMP(field) ITOI_OWN_ADD(field, 1)

/* scheduler (sched.c) */
void itoi_ready(itoi_ult_t *t);                 /* make ULT t ready: on the caller's worker, or t's own */
void itoi_unit_ready(itoi_unit_t *u);           /* make a stackless unit ready (any thread) */
/* itoi_unit_ready_on (the same from w's own thread) and itoi_unit_run_now: inline, below
 * itoi_ready_local. */
void itoi_ready_local_slow(itoi_worker_t *w, itoi_unit_t *u);
void itoi_publish_some(itoi_worker_t *w);       /* offload half of w's queue if a worker wants work */
void itoi_block(itoi_worker_t *w, itoa_post_fn post, void *arg); /* switch away; `post` publishes */
/* Park the running ULT, which the caller has put on a wait queue guarded by `held`;
 * `held` is released once the ULT's context is saved. Wake it with itoi_ready(). */
void itoi_park(itoi_worker_t *w, itoi_spinlock_t *held);
/* The same with a deadline (ITO_FOREVER: none). Until it wakes, the ULT is pinned to
 * w, which holds its timer. When the deadline passes first, `unlink(me, obj)` runs on w
 * under `lock` (which may be NULL) and, if it returns true, the ULT wakes with
 * ITO_ETIMEDOUT. Returns the ULT's wait_result: ITO_OK unless a waker or the timer set
 * something else. `what` names the wait for debugging. */
int itoi_block_until(itoi_worker_t *w, itoa_post_fn post, void *arg, uint64_t deadline,
                     itoi_spinlock_t *lock, itoi_unlink_fn unlink, void *obj, const char *what);
int itoi_park_until(itoi_worker_t *w, itoi_spinlock_t *held, uint64_t deadline, itoi_unlink_fn unlink,
                    void *obj, const char *what);
/* Move the running ULT to worker `target` (it continues there). */
void itoi_migrate(itoi_worker_t *w, int target);
/* Run fn on worker `to`'s scheduler context (from any thread; wakes it). */
void itoi_worker_call(itoi_worker_t *to, itoi_call_t *c);
void itoi_yield_worker(itoi_worker_t *w);
void itoi_visit_sched(itoi_worker_t *w);       /* run the pollers once, then continue */
bool itoi_yield_worker_full(itoi_worker_t *w, bool leave); /* leave: even if nothing else is ready; true: it switched */
void itoi_tick_point(itoi_worker_t *w); /* a timer's scheduling point: visit the scheduler context if it has work */
int itoi_yield_to(itoi_worker_t *w, itoi_ult_t *t);
_Noreturn void itoi_exit_current(itoi_worker_t *w);
void itoi_worker_loop(itoi_worker_t *w);        /* the scheduler context's loop */
bool itoi_wake_worker(itoi_worker_t *w); /* true: it was asleep, and is woken */
void itoi_wake_all(void);
void *itoi_coop_next(void *sp);
bool itoi_coop_expired(itoi_worker_t *w);      /* an expired budget: switch? (coop.c) */
bool itoi_coop_other_thread(itoi_worker_t *w); /* not w's kernel thread: a vfork child (coop.c) */
bool itoi_coop_in_handler(itoi_worker_t *w);   /* inside a signal handler of the program (coop.c) */
/* What every compiled yield reads, relaxed, in one cache line (16 bytes, 16-aligned; apart
 * they were two lines in .data and .bss): ito_coop_set_budget's quantum and slice. */
typedef struct itoi_coop_conf {
    _Atomic int quantum;
    _Atomic unsigned long long slice_ns;
} itoi_coop_conf_t;
extern _Alignas(16) itoi_coop_conf_t itoi_coop_conf;
/* Initial-exec, as itoi_tls_worker: these are exported (an instrumented executable's own
 * definitions interpose them), so the default model in the shared libito was general
 * dynamic, two __tls_get_addr calls per compiled yield (callgrind: 22 instructions and 0.8
 * L1 misses of its 360); initial-exec is one GOT load and a %fs access, and safe in the
 * preemption signal handler. */
extern _Thread_local volatile int ito_coop_flag __attribute__((tls_model("initial-exec")));
extern _Thread_local volatile int ito_coop_budget __attribute__((tls_model("initial-exec")));
/* A compiled yield's first step (coop.c explains): clear the flag, refill the budget, and
 * say whether to switch. Inline: it is on every compiled yield. */
/* Non-zero while this kernel thread runs code libito called out to that may be the
 * program's or that signal preemption counts as the program's: the vDSO's clock_gettime
 * (itoi_now_ns, timer.c) and the allocator (itoi_malloc / itoi_calloc / itoi_free, fault.c;
 * the program may define malloc). libito may hold one of its locks there (a deadline check
 * under an object's spinlock, a stack region allocated under a class's lock): no switch,
 * by a tick (preempt.c, safe_pc) or a compiled yield (below), while it is set. A count:
 * the preemption handler reads the clock too. Until 2026-12-06 a tick there switched the
 * ULT out holding the lock and the next taker on its worker spun for ever (outside testers
 * h63a, h63e: test_preempt_vdso_lock, test_preempt_own_malloc). Defined in fault.c. */
extern _Thread_local volatile int itoi_callout_depth __attribute__((tls_model("initial-exec")));
static inline void itoi_callout_begin(void)
{
    itoi_callout_depth++;
    atomic_signal_fence(memory_order_seq_cst);
}
static inline void itoi_callout_end(void)
{
    atomic_signal_fence(memory_order_seq_cst);
    itoi_callout_depth--;
}
static inline bool itoi_coop_due(itoi_worker_t *w)
{
    int flag = ito_coop_flag, left = ito_coop_budget;
    ito_coop_flag = 0;
    ito_coop_budget = atomic_load_explicit(&itoi_coop_conf.quantum, memory_order_relaxed);
    /* A compiled yield in code libito called out to (the program's own malloc, fault.c):
     * libito's frames are below it, perhaps holding a spinlock (test_preempt_own_malloc) */
    if (ITOI_UNLIKELY(itoi_callout_depth != 0)) return false;
    /* A call with budget left and no flag: a yield point by hand (ito_coop_yield in a
     * loop): no system call on that path. */
    if (ITOI_LIKELY(!flag && left >= 0)) return true;
    if (!flag && !itoi_coop_expired(w)) return false;
    /* A set flag or an expired budget (about once a quantum). A vfork child (or a
     * clone(CLONE_VM) child without its own TLS) shares its parent's thread-local words,
     * so it reads the worker's flag and budget and finds the worker as its own: a switch
     * there ran the parent's ULTs in the child process; a point inside a signal handler
     * of the program would switch with the signal frame on the stack (coop.c). Both
     * wait for the next quantum, as a deferred tick does. */
    return !itoi_coop_other_thread(w) && !itoi_coop_in_handler(w);
}

/* threads (thread.c) */
itoi_ult_t *itoi_ult_alloc_slow(itoi_worker_t *w);
void itoi_ult_free_slow(itoi_worker_t *w);
itoi_ult_t *itoi_handle_get(ito_thread_t h);    /* NULL when stale or invalid */
/* The end of a ULT whose state has ITOI_ST_MEMBER: it leaves its group (src/preempt/gang.c).
 * Called before the state word says DONE or REAPED, while t cannot be freed. A hook, as
 * every mechanism's (the core does not depend on src/preempt: a static link of a program
 * without groups takes no gang.o, preempt.o); set by ito_group_add before the CAS that sets
 * the first ITOI_ST_MEMBER, so it is set whenever a state word has the bit. */
typedef void (*itoi_member_exit_fn)(itoi_ult_t *t);
extern _Atomic(itoi_member_exit_fn) itoi_member_exit;
int itoi_handle_err(ito_thread_t h);            /* why it was NULL: ITO_EJOINED stale, ITO_EINVAL forged */
ito_thread_t itoi_handle_of(itoi_ult_t *t);
/* A ULT's identity: its descriptor's address with the generation in the top 16 bits (user
 * addresses use 47). It is the value of the ULT's handle (itoi_handle_of) and of mutex owner
 * words, so a new ULT on a reused descriptor is a different thread and owner. Bit 0 is
 * always clear (descriptors are aligned). Frame handles use the same layout (src/zwt). */
#define ITOI_HANDLE_PTR_BITS 48
static inline uintptr_t itoi_owner_id(itoi_ult_t *t)
{
    return (uintptr_t)t | ((uintptr_t)atomic_load_explicit(&t->gen, memory_order_relaxed) << ITOI_HANDLE_PTR_BITS);
}
void itoi_ult_entry(void);                      /* the first C frame of every ULT */
/* Give t a stack and a fresh context. ULTs made by ito_create get theirs at creation;
 * ULTs made in bulk (src/spawn) get theirs lazily, when a worker first picks them. */
bool itoi_ult_attach_stack(itoi_worker_t *w, itoi_ult_t *t);

/* timers (timer.c): owner-only */
/* The runtime's clock read, marked as a call out (itoi_callout_begin): the program's own
 * reads (ito_now_ns) are not, and stay preemptible in the vDSO. */
uint64_t itoi_now_ns(void);
uint64_t itoi_clock_ns(void); /* the bare read, unmarked: ito_now_ns, the program's */
void itoi_timer_arm(itoi_worker_t *w, itoi_timer_t *t, uint64_t deadline, itoi_timer_fn fire);
bool itoi_timer_cancel(itoi_worker_t *w, itoi_timer_t *t); /* true if it was armed */
size_t itoi_timers_run(itoi_worker_t *w);        /* fire what is due; how many fired */
void itoi_timers_free(itoi_worker_t *w);

/* Foreign threads (not workers) that touch runtime objects enter and leave, so that
 * ito_finalize does not free what they use: enter fails with ITO_ESTATE when the
 * runtime is not running. Workers and ULTs need not call them. */
int itoi_foreign_enter(void);
void itoi_foreign_exit(void);
/* Public calls any thread may make that touch memory teardown frees (a waiter, the
 * workers, the common areas, the device table, preemption's per-worker state): a thread
 * that is not a worker enters as a foreign thread does, so that ito_finalize cannot free
 * that memory under it. itoi_any_enter fails with ITO_ESTATE when the runtime is not
 * running; pair it with itoi_any_leave, which passes rc through. ULTs and ZWTs (on a
 * worker, where finalize cannot tear down under them) pay one TLS load. */
static inline int itoi_any_enter(bool *foreign)
{
    *foreign = itoi_self_worker() == NULL;
    return *foreign && itoi_foreign_enter() != ITO_OK ? ITO_ESTATE : ITO_OK;
}

static inline int itoi_any_leave(bool foreign, int rc)
{
    if (foreign) itoi_foreign_exit();
    return rc;
}

/* Returns the int `call`, made between itoi_any_enter and itoi_any_leave; `fail` when
 * the runtime is not running. */
#define ITOI_ANY_RETURN(fail, call)                                                      \
    do {                                                                                 \
        bool itoi_in_;                                                                   \
        if (itoi_any_enter(&itoi_in_) != ITO_OK) return (fail);                          \
        return itoi_any_leave(itoi_in_, (call));                                         \
    } while (0)

/* stacks (stack.c) */
itoi_stack_t *itoi_stack_get_slow(itoi_worker_t *w, size_t size); /* NULL: no memory */
void itoi_stack_put(itoi_worker_t *w, itoi_stack_t *s);
/* itoi_stack_put when s then stays in w's own pool, which no other thread takes from;
 * false (and nothing done) when it would go to a class's global list. The exit path,
 * still running on s, gives it back this way only (see itoi_exit_current). */
bool itoi_stack_put_own(itoi_worker_t *w, itoi_stack_t *s);
/* Stack credits (stack.c): a ULT takes one when created and gives it back when it ends,
 * and attaches its stack when it first runs. take returns how many of n it got (fewer:
 * no memory for their stacks). */
size_t itoi_stack_credit_take_slow(itoi_worker_t *w, size_t size, size_t n);
void itoi_stack_credit_return_slow(itoi_worker_t *w, size_t size);
void itoi_stack_credits_flush(itoi_worker_t *w);     /* all back to the classes (finalize) */
bool itoi_stack_admit(size_t size, size_t n);    /* could n such ULTs exist at all here? */
size_t itoi_stack_round(size_t size);            /* the size class a request gets */
uint64_t itoi_stack_regions(void);
void itoi_stack_free_all(void);
itoi_ult_t *itoi_stack_guard_owner(void *addr, void *ucv); /* the ULT whose guard addr is in (ucv: the fault's context), or NULL */
int itoi_overflow_handler_install(void);
void itoi_overflow_handler_remove(void);
int itoi_altstack_setup(itoi_worker_t *w);
void itoi_altstack_teardown(itoi_worker_t *w);

/* The name ito_thread_name reports ("ult-<id>" when none was given), written into buf
 * without locks or allocation (the overflow report calls it in a signal handler). */
void itoi_ult_name(const itoi_ult_t *t, char *buf, size_t len);

/* The handle arena (arena.c): ULT descriptors and ZWT frames live in one reserved range,
 * carved in chunks whose kind byte (the map) says what they hold, so any handle can be
 * checked before it is read. */
#define ITOI_ARENA_CHUNK_SHIFT 16
#define ITOI_ARENA_CHUNK ((size_t)1 << ITOI_ARENA_CHUNK_SHIFT)
#define ITOI_ARENA_MAX ((size_t)1 << 36)  /* 64 GiB at most */
#define ITOI_ARENA_NCHUNKS (ITOI_ARENA_MAX >> ITOI_ARENA_CHUNK_SHIFT)
enum {
    ITOI_ARENA_FREE = 0,         /* not carved (or outside the arena) */
    ITOI_ARENA_CONT,             /* the second and later chunks of a multi-chunk object */
    ITOI_ARENA_ULT,              /* ULT descriptors, ITOI_ULTS_PER_CHUNK from offset 0 */
    ITOI_ARENA_FRAME_BIG,        /* one frame at offset 0, one or several chunks */
    ITOI_ARENA_HOBJ,             /* handle objects (streams, channels), ITOI_HOBJ_SLOT bytes each (hobj.c) */
    ITOI_ARENA_FRAME_LOG = 16,   /* + k: frames of 2^k bytes (k <= 16) at every multiple of 2^k */
};
/* A chunk of descriptors ends with the chunk's free list (thread.c): 32 bytes. */
#define ITOI_ULT_CHUNK_META 32
#define ITOI_ULTS_PER_CHUNK ((ITOI_ARENA_CHUNK - ITOI_ULT_CHUNK_META) / sizeof(itoi_ult_t))
typedef struct itoi_arena {
    _Atomic uintptr_t base;      /* set once (first carve) */
    _Atomic size_t used;         /* bytes carved from base; grows under the arena's lock */
    size_t nchunks;              /* reserved (<= ITOI_ARENA_NCHUNKS) */
    uintptr_t key;               /* a per-process secret (set before the first carve) */
} itoi_arena_t;
extern itoi_arena_t itoi_arena;
extern _Atomic uint8_t itoi_arena_map[ITOI_ARENA_NCHUNKS]; /* the kind of every chunk */
/* Chunk-aligned memory of `bytes` (rounded up to chunks), zeroed, of kind `kind`; NULL
 * when the arena is full or the system refuses (slow path: a lock and a system call). */
void *itoi_arena_carve(unsigned kind, size_t bytes);
size_t itoi_arena_chunks(void);                  /* chunks carved so far */
void *itoi_arena_chunk(size_t i);
unsigned itoi_arena_chunk_kind(size_t i);
/* The kind of the chunk p points into and p's offset there, or ITOI_ARENA_FREE when p is
 * nowhere the arena has carved. Any thread, any pointer value: no load through p. */
static inline unsigned itoi_arena_kind(const void *p, size_t *in_chunk)
{
    uintptr_t off = (uintptr_t)p - atomic_load_explicit(&itoi_arena.base, memory_order_relaxed);
    if (ITOI_UNLIKELY(off >= ITOI_ARENA_MAX)) return ITOI_ARENA_FREE;
    *in_chunk = off & (ITOI_ARENA_CHUNK - 1);
    return atomic_load_explicit(&itoi_arena_map[off >> ITOI_ARENA_CHUNK_SHIFT], memory_order_acquire);
}

/* The object a handle names, or NULL: the handle's address (its top 16 bits are a
 * generation, ITOI_HANDLE_PTR_BITS) must lie below what the arena has carved (so it is
 * mapped, with a page of slack: a forged pointer elsewhere is never read), and the
 * object's tag word, `tag_off` bytes in, must equal the handle keyed with the process's
 * secret. That one compare says an object starts here, it is live, and of this
 * generation: a header copied elsewhere, a pointer into an object, a stale generation do
 * not hold it. The hot check of thread handles (thread.c) and frame handles (zwt.h). */
static inline __attribute__((always_inline)) void *itoi_arena_check_keyed(uintptr_t v, size_t tag_off,
                                                                           uintptr_t key)
{
    uintptr_t p = v & (((uintptr_t)1 << ITOI_HANDLE_PTR_BITS) - 1);
    size_t used = atomic_load_explicit(&itoi_arena.used, memory_order_acquire);
#if defined(ITOI_ASAN) || defined(ITOI_TSAN)
    if (p & 7) return NULL; /* a misaligned load is fine on x86, not under UBSan */
#endif
    if (ITOI_UNLIKELY(p - atomic_load_explicit(&itoi_arena.base, memory_order_relaxed) >= used ||
                      atomic_load_explicit((_Atomic uintptr_t *)(p + tag_off), memory_order_relaxed) !=
                          (v ^ key)))
        return NULL;
    if (!p) __builtin_unreachable(); /* NULL is below the arena: callers' tests fold away */
    return (void *)p;
}
static inline __attribute__((always_inline)) void *itoi_arena_check(uintptr_t v, size_t tag_off)
{
    return itoi_arena_check_keyed(v, tag_off, itoi_arena.key);
}

/* Handle objects (hobj.c): what else the API hands out by pointer (streams, channels),
 * one slot of ITOI_HOBJ_SLOT bytes each in the arena, a header first and the object after
 * it. The header's tag is the handle keyed with the secret and salted with the object's
 * type (an even salt: a tag is never 0, a free slot's), so a stale, forged or destroyed
 * handle, or one of another type, is refused by the same one compare as threads and
 * frames. Handles carry the slot's generation in their top bits. */
enum { ITOI_HOBJ_STREAM = 1, ITOI_HOBJ_CHAN = 2 };
#define ITOI_HOBJ_SLOT 256
typedef struct itoi_hobj {
    _Atomic uintptr_t tag;       /* handle ^ key ^ salt(type) while live, 0 when free */
    uint16_t gen;                /* bumped at every free (under hobj.c's lock) */
    uint16_t type;
    itoi_spinlock_t lock;        /* the object's own lock (itoi_hobj_lock): here, not in the
                                  * object, so that neither a free (the free list's link) nor
                                  * a create (the zeroing) ever writes it while a late caller
                                  * of an earlier life holds it or waits for it */
} itoi_hobj_t;
_Static_assert(sizeof(itoi_hobj_t) == 16, "the header of a handle-object slot");
#define ITOI_HOBJ_MAX (ITOI_HOBJ_SLOT - sizeof(itoi_hobj_t)) /* bytes of an object */
/* The secret salted per type: an even salt, so a keyed handle (the secret is odd) is never
 * 0, a free slot's tag. (Derived from the arena's secret at every use: the secret is set
 * before anything is carved, so no value passes the range check before it exists.) */
static inline uintptr_t itoi_hobj_key(unsigned type)
{
    return itoi_arena.key ^ ((uintptr_t)type * 0x9e3779b97f4a7c16u);
}
/* A zeroed object of `type` (size <= ITOI_HOBJ_MAX) and its handle; NULL: no memory. */
void *itoi_hobj_alloc(unsigned type, void **handle);
void itoi_hobj_free(void *obj); /* its handle is refused from now on */
/* fork(): the free list's lock held across the fork by the forking thread (prepare), and
 * released in the parent and the child (arena.c registers both with pthread_atfork). */
void itoi_hobj_fork_lock(void);
void itoi_hobj_fork_unlock(void);
/* The same for the key table's lock (tls.c). */
void itoi_keys_fork_lock(void);
void itoi_keys_fork_unlock(void);
/* The object a handle of `type` names, or NULL (any thread, any pointer value). */
static inline void *itoi_hobj_get(const void *h, unsigned type)
{
    /* Only a slot's start in a chunk of slots: a pointer into the middle of a live object,
     * or into another kind of chunk (descriptors), is refused without a load of words
     * that their owners write unsynchronized. */
    size_t in_chunk;
    if (((uintptr_t)h & (ITOI_HOBJ_SLOT - 1)) ||
        itoi_arena_kind((const void *)((uintptr_t)h & (((uintptr_t)1 << ITOI_HANDLE_PTR_BITS) - 1)), &in_chunk) !=
            ITOI_ARENA_HOBJ)
        return NULL;
    itoi_hobj_t *hd = itoi_arena_check_keyed((uintptr_t)h, offsetof(itoi_hobj_t, tag), itoi_hobj_key(type));
    return hd ? (void *)(hd + 1) : NULL;
}

/* The lock of a handle object (obj: what itoi_hobj_get returned). */
static inline itoi_spinlock_t *itoi_hobj_lockp(void *obj) { return &((itoi_hobj_t *)obj - 1)->lock; }

/* Takes obj's lock and checks, under it, that h still names obj (true: locked and live).
 * A handle checked without the lock may be destroyed by another thread before the lock
 * is taken (two destroys of one handle, or a try-call racing a destroy); the destroy
 * retires the tag under this lock (itoi_hobj_retire), so after this check nothing of the
 * object is read or written unless it is live. False: the lock is not held. */
static inline bool itoi_hobj_lock_live(void *obj, const void *h, unsigned type)
{
    itoi_spin_lock(itoi_hobj_lockp(obj));
    if (itoi_hobj_get(h, type) == obj) return true;
    itoi_spin_unlock(itoi_hobj_lockp(obj));
    return false;
}

/* A destroy, holding the lock of a live object: its handle is refused from now on, by
 * every check with or without the lock; the caller then unlocks, frees what the object
 * owns and gives the slot back (itoi_hobj_free). */
static inline void itoi_hobj_retire(void *obj)
{
    atomic_store_explicit(&((itoi_hobj_t *)obj - 1)->tag, 0, memory_order_release);
}

/* A descriptor's generation, and its tag (the handle of that generation keyed with the
 * process's secret: a thread handle is checked by comparing it, thread.c). */
static inline void itoi_ult_set_gen(itoi_ult_t *t, uint16_t g)
{
    atomic_store_explicit(&t->gen, g, memory_order_relaxed);
    atomic_store_explicit(&t->tag, ((uintptr_t)t | ((uintptr_t)g << ITOI_HANDLE_PTR_BITS)) ^ itoi_arena.key,
                          memory_order_relaxed);
}

/* descriptor slabs (thread.c) */
void itoi_ult_free_all(void);
/* Call fn on every ULT descriptor ever allocated (live or free), under the slab lock;
 * stops early when fn returns false. For debugging (src/core/dump.c): it reads what
 * other workers write without synchronization. */
void itoi_ult_foreach(bool (*fn)(itoi_ult_t *t, void *arg), void *arg);
/* The same from the pos-th descriptor on (0: the first); returns the position of the one
 * for which fn returned false (a later call resumes there), SIZE_MAX when it saw them all.
 * fn runs under the slab lock: it must not call code of the program's (a preemption tick
 * there switches the ULT out holding the lock: test_preempt_dump_lock). */
size_t itoi_ult_foreach_from(size_t pos, bool (*fn)(itoi_ult_t *t, void *arg), void *arg);

/* The runtime's environment variables, validated at ito_init (config.c). Unset
 * variables leave their field at: workers 0, wsc_backend -1, wsc_threshold 0,
 * wsc_latency_us -1, finalize_grace_ms -1, fault_* 0. */
typedef struct itoi_env {
    long workers, wsc_backend, wsc_threshold, wsc_latency_us, finalize_grace_ms, fault_mmap, fault_malloc;
    long fault_rearm;           /* ITO_FAULT_REARM: the N-th ito_rearm pauses in its window (fault.c) */
    long fault_waitpost;        /* ITO_FAULT_WAITPOST: the N-th ZWT wait's post action pauses before and after its install (fault.c) */
    long fault_iocont;          /* ITO_FAULT_IOCONT: the N-th I/O continuation pauses after it validated its frame (fault.c) */
    long fault_helper;          /* ITO_FAULT_HELPER: the N-th helper call pauses after it took its descriptor (fault.c) */
    long fault_uring_cancel;    /* ITO_FAULT_URING_CANCEL: the N-th io_uring request is cancelled by the kernel (fault.c) */
    long fault_cancel_miss;     /* ITO_FAULT_CANCEL_MISS: the N-th io_uring cancellation finds nothing (fault.c) */
    long fp_restore;            /* ITOA_FP_AUTO / ALWAYS / LAZY */
    long affinity;              /* ITO_AFFINITY: 0 off, 1 on (worker i on the i-th allowed CPU) */
    long coop_budget, coop_slice_ns; /* ITO_COOP_*: -1 unset (ito_coop_set_budget) */
} itoi_env_t;
extern itoi_env_t itoi_env;
int itoi_env_load(void); /* ITO_OK, or ITO_EINVAL with one line on stderr */

/* failure injection for tests (runtime.c): when >0, the Nth call of the wrapped
 * allocation fails. Set from the ITO_FAULT_MMAP / ITO_FAULT_MALLOC environment. */
void *itoi_mmap(size_t len, int prot);
int itoi_munmap(void *p, size_t len);
void *itoi_malloc(size_t n);
void *itoi_calloc(size_t n, size_t m);
void itoi_free(void *p); /* free, marked as itoi_malloc's call (fault.c): use it under a lock */
void itoi_fault_reset(void);
bool itoi_fault_alloc(void);   /* true: fail this allocation (counted as a malloc) */
/* The hooks of the environment's ITO_FAULT_* variables (fault.c), one bit each in
 * itoi_fault_armed when its variable names a call to fire at. The hooks below sit on hot
 * paths (every request, every I/O continuation, every re-arm): they test their bit inline
 * and call out only when it is set (until 2026-12-06 each was a call into fault.c, about
 * 10 instructions per request and per continuation in a fault-injection build). */
enum {
    ITOI_FAULT_MMAP, ITOI_FAULT_MALLOC, ITOI_FAULT_REARM, ITOI_FAULT_UCANCEL, ITOI_FAULT_WAITPOST,
    ITOI_FAULT_IOCONT, ITOI_FAULT_HELPER, ITOI_FAULT_CMISS, ITOI_FAULT_N
};
extern _Atomic unsigned itoi_fault_armed;
bool itoi_fault_inject(int hook); /* counts this call of an armed hook: whether it is the one */
static inline bool itoi_fault_hit(int hook)
{
    return ITOI_UNLIKELY(atomic_load_explicit(&itoi_fault_armed, memory_order_relaxed) & (1u << hook)) &&
           itoi_fault_inject(hook);
}
void itoi_fault_pause(void); /* sleeps 50 ms */
/* Race windows opened on purpose for tests: the N-th pass of a re-arm through its window
 * after ito_init (ITO_FAULT_REARM=N; ito_rearm and device acks; a re-arm that looks again
 * passes twice) sleeps 50 ms between its clear of the fired mark and its commit, so that other threads can
 * act inside the window (test_zwt_rearm_hold). A no-op without ITOI_FAULT_INJECTION. */
static inline void itoi_fault_window_rearm(void)
{
    if (itoi_fault_hit(ITOI_FAULT_REARM)) itoi_fault_pause();
}
/* Whether this is the N-th ito_frame_wait post action after ito_init (ITO_FAULT_WAITPOST=N):
 * it then sleeps 50 ms (itoi_fault_pause) before it installs its ULT in the entry's waiter
 * word and, if it installs it, 50 ms again right after, still checking (src/zwt/fire.c
 * wait_post), as if the OS had descheduled its worker there: other threads fire, set,
 * destroy or create meanwhile (test_zwt_wait_checking, test_zwt_wait_reshape). False
 * without ITOI_FAULT_INJECTION. */
static inline bool itoi_fault_waitpost(void) { return itoi_fault_hit(ITOI_FAULT_WAITPOST); }
/* Whether this is the N-th continuation sent by the I/O path (a device's event, a request's
 * completion: itoi_zwt_continue_io, itoi_zwt_fire_looked) after ito_init (ITO_FAULT_IOCONT=N):
 * it then sleeps 50 ms after it validated its frame and before it takes its count, as if
 * the OS had descheduled its worker there. False without ITOI_FAULT_INJECTION. */
static inline bool itoi_fault_iocont(void) { return itoi_fault_hit(ITOI_FAULT_IOCONT); }
/* The N-th request queued to io_uring after ito_init (ITO_FAULT_URING_CANCEL=N) goes as a NOP
 * whose result the kernel sets to -ECANCELED: what io_uring answers, unasked, for a request
 * it gives up before running it (an io-wq worker it cannot start). False without
 * ITOI_FAULT_INJECTION. */
static inline bool itoi_fault_uring_cancel(void) { return itoi_fault_hit(ITOI_FAULT_UCANCEL); }
/* The N-th call a helper thread runs after ito_init (ITO_FAULT_HELPER=N; src/wsc/nonblock.c
 * helper_pin) sleeps 50 ms after it took its descriptor (marked busy, a duplicate or the
 * bare number) and before the system call, so that a test can close and reuse the number
 * meanwhile. A no-op without ITOI_FAULT_INJECTION. */
static inline void itoi_fault_window_helper(void)
{
    if (itoi_fault_hit(ITOI_FAULT_HELPER)) itoi_fault_pause();
}
/* The N-th ASYNC_CANCEL ito sends to io_uring after ito_init (ITO_FAULT_CANCEL_MISS=N) goes as
 * a NOP whose result the kernel sets to -ENOENT, the request left running: what io_uring
 * answers for a request it holds where a cancel does not look (queued to be issued again
 * after its poll found the file ready: uring.c). False without ITOI_FAULT_INJECTION. */
static inline bool itoi_fault_cancel_miss(void) { return itoi_fault_hit(ITOI_FAULT_CMISS); }

/* Pollers: how work outside the ready queues (device events, completions of requests,
 * bulk-creation messages) reaches the workers. A mechanism registers a poller once (in
 * its hooks' record: itoi_mech_register, below); every worker's scheduler context calls
 * the pollers before it picks a unit, steals or sleeps. A poller runs at most `budget`
 * items and returns how many it ran. A ULT leaves its worker to the scheduler context at
 * its next scheduling point when w->poll_due is set (at the scheduler's look, at most
 * every 64 scheduling points, while fds are watched or a timer is due).
 * itoi_rt.side_shared counts work that idle workers should poll for (they do not sleep
 * while it is non-zero). */
/* The registries below share one shape (hooks.c): entries (one function, or a pair) are
 * added under a lock and never removed; readers load the count with acquire and call the
 * entries without a lock, each cast back to its table's own function type. Mechanisms do
 * not call the tables' adds: they hand their hooks to itoi_mech_register (below). */
typedef void (*itoi_hook_fn)(void);
#define ITOI_HOOKS_MAX 8
typedef struct itoi_hook_table {
    itoi_spinlock_t lock;
    _Atomic int n;
    int cap;                      /* at most ITOI_HOOKS_MAX */
    itoi_hook_fn a[ITOI_HOOKS_MAX], b[ITOI_HOOKS_MAX];
} itoi_hook_table_t;
int itoi_hook_add(itoi_hook_table_t *t, itoi_hook_fn a, itoi_hook_fn b); /* idempotent; ITO_ENOMEM when full */
static inline int itoi_hook_count(itoi_hook_table_t *t)
{
    return atomic_load_explicit(&t->n, memory_order_acquire);
}
/* The tables' adds below (each idempotent; ITO_ENOMEM when its table is full) are for
 * itoi_mech_register only. */
typedef size_t (*itoi_poll_fn)(itoi_worker_t *w, size_t budget);
int itoi_poller_add(itoi_poll_fn fn);   /* ITO_ENOMEM past 8 pollers */
/* A mechanism's clean-up, run by ito_finalize after the workers have stopped. */
int itoi_fini_add(void (*fn)(void));    /* ITO_ENOMEM past 8 */
/* What ito_finalize asks the mechanisms while it waits for live work (see runtime.c):
 * `pending` says whether the mechanism holds work that will progress by itself (an armed
 * timer device, a regular-file request in flight); `holds` whether it holds work that
 * will run by itself even when no ULT, ZWT or request is live (an armed one-shot timer
 * device: its handler is to run before finalize returns); `cancel` cancels what can
 * never complete by itself (requests on sockets and pipes, waits for readiness) and
 * returns how many it cancelled (or found live); `resume` tells it that finalize gave up
 * (ITO_EBUSY) and the runtime goes on; `background` counts the stackless units made ready
 * by work that never ends by itself (a periodic timer device's deliveries to a handler
 * with code), which finalize does not take for progress, and `background_armed` says
 * whether such work is armed (it keeps finalize from giving up with ITO_EBUSY, not
 * from cancelling). Any may be NULL. All run on the main ULT while the
 * workers run; a mechanism that must wait for its workers there uses itoi_fini_nap. */
typedef struct itoi_fini_ops {
    bool (*pending)(void);
    bool (*holds)(void);
    size_t (*cancel)(void);
    void (*resume)(void);
    uint64_t (*background)(void);
    bool (*background_armed)(void);
} itoi_fini_ops_t;
int itoi_fini_ops_add(const itoi_fini_ops_t *ops); /* ITO_ENOMEM past 8 */
/* Main naps `ns` inside ito_finalize (its worker runs others or sleeps meanwhile); its
 * own wake-up is not counted as the runtime's progress. Only from a fini op. */
void itoi_fini_nap(uint64_t ns);

/* Kernel events: a mechanism that waits for fds (io_uring's eventfd, device fds) asks
 * a worker to watch them; the worker, when idle, then sleeps in epoll_wait until one is
 * ready or it is woken, and its pollers run. The fd must be drained by its poller
 * (level-triggered). */
int itoi_worker_watch_fd(itoi_worker_t *w, int fd);
int itoi_worker_unwatch_fd(itoi_worker_t *w, int fd);
/* Sleep hooks: what a mechanism changes only while a worker sleeps. `before` runs on the
 * worker just before an idle worker sleeps (on its futex or in epoll) and returns true if
 * work arrived meanwhile (the worker then does not sleep); `after` runs when it wakes, on
 * the same thread, also after a sleep that `before` called off, and only if `before` ran
 * (a pair registered while the worker slept begins at its next sleep). Users: io_uring
 * turns its completion eventfd on only around the sleep (it costs something while the
 * worker is busy); preemption holds its tick signal off a sleeping worker; gang
 * scheduling caps the sleep; the wrapped system calls stop their flush timer. */
typedef bool (*itoi_presleep_fn)(itoi_worker_t *w);
typedef void (*itoi_postsleep_fn)(itoi_worker_t *w);
int itoi_sleep_hooks_add(itoi_presleep_fn before, itoi_postsleep_fn after); /* ITO_ENOMEM past 8 pairs */
bool itoi_sleep_begin(itoi_worker_t *w); /* idle(): the before hooks; true: do not sleep */
void itoi_sleep_end(itoi_worker_t *w);   /* idle(): the after hooks */
/* A cheap look (no system call) whether a mechanism has work for w's pollers, made by an
 * idle worker while it spins before it sleeps (e.g. completions in io_uring's ring). */
typedef bool (*itoi_probe_fn)(itoi_worker_t *w);
int itoi_idle_probe_add(itoi_probe_fn fn);      /* ITO_ENOMEM past 8 */
bool itoi_idle_probe(itoi_worker_t *w);

/* A mechanism's hooks in one record, registered once per process. The tables keep their
 * entries for the life of the process, across ito_finalize and the next ito_init, so a
 * mechanism registers its record wherever it starts (at its first use in each runtime,
 * or at every start: ito_create_many, the device table's setup and a poll mode's change,
 * ito_preempt_enable (with gangs, gang scheduling's too), a group's creation, the areas'
 * setup, a worker's io_uring ring, the ZWT workers' setup, ito_regwin_attach), and only
 * the first successful call adds: later ones, in this runtime or the next, cost one
 * acquire load of `registered` (a plain load on x86-64) and take no lock. Not called
 * under a lock that a fini hook takes (the first call takes the finalizers' lock, which
 * ito_finalize holds while it runs them: preempt.c's enable). Racing first calls both
 * add, idempotently. On ITO_ENOMEM (a table full) some of the record's hooks may be in
 * already and stay; the next call adds the rest. So each hook must be harmless while its
 * mechanism is unused, in this runtime and in later ones (a poller with nothing to poll
 * returns 0, a sleep hook of a mechanism that is off does nothing). Unused fields are
 * NULL; `registered` is the core's (hooks.c). A mechanism may have more than one record
 * (the wrapped system calls' common one and io_uring's). */
typedef struct itoi_mech_hooks {
    itoi_poll_fn poll;
    itoi_probe_fn probe;
    itoi_presleep_fn presleep;     /* the sleep pair: either may be NULL */
    itoi_postsleep_fn postsleep;
    void (*fini)(void);
    const itoi_fini_ops_t *fini_ops;
    _Atomic bool registered;
} itoi_mech_hooks_t;
int itoi_mech_register_slow(itoi_mech_hooks_t *m);
static inline int itoi_mech_register(itoi_mech_hooks_t *m)
{
    if (ITOI_LIKELY(atomic_load_explicit(&m->registered, memory_order_acquire))) return ITO_OK;
    return itoi_mech_register_slow(m);
}
int itoi_idlewait_setup(itoi_worker_t *w);      /* at ito_init */
/* One line on stderr: worker `index` cannot create `what` (errno e); out of descriptors it
 * names the limit (RLIMIT_NOFILE and what ito_init takes per worker, or the system's). */
void itoi_say_no_fd(int index, const char *what, int e);
/* src/wsc (area.c), called by ito_init: each worker's I/O descriptors (its io_uring ring
 * and eventfd, or its epoll) are made at ito_init, so that no I/O call needs one of the
 * runtime's own. itoi_wsc_init before the workers start (ITO_ENOMEM); then
 * itoi_wsc_worker_open on each worker's own thread (ITO_OK; ITO_ENOMEM, ITO_ENOSYS or
 * ITO_EIO with a line on stderr). ito_finalize's hooks close them. */
int itoi_wsc_init(void);
int itoi_wsc_worker_open(itoi_worker_t *w);
void itoi_idlewait_teardown(itoi_worker_t *w);
void itoi_idlewait_sleep(itoi_worker_t *w, uint64_t deadline); /* the epoll sleep of idle() */
void itoi_idlewait_wake(itoi_worker_t *w);

/* mechanism hooks: a mechanism (register windows, preemption) may observe switches.
 * NULL when unused; checked with a predicted branch on the switch path. */
typedef void (*itoi_switch_hook_fn)(itoi_worker_t *w, itoi_ult_t *from, itoi_ult_t *to);
extern _Atomic(itoi_switch_hook_fn) itoi_switch_hook;
/* The hook as every worker reads it (a relaxed load: a plain load on x86-64). The
 * mechanism that clears it must itself wait for the workers already inside (see
 * src/regwin/regwin_rt.c, H1). */
static inline itoi_switch_hook_fn itoi_switch_hook_get(void)
{
    return atomic_load_explicit(&itoi_switch_hook, memory_order_relaxed);
}
/* The pick filter (gang scheduling, src/preempt/gang.c): when set, every ULT a worker
 * is about to run passes through it; it returns false when it took the ULT away (parked
 * it until its group's turn), and the worker picks another. */
typedef bool (*itoi_pick_filter_fn)(itoi_worker_t *w, itoi_ult_t *t);
extern _Atomic(itoi_pick_filter_fn) itoi_pick_filter;
/* The leave test (gang scheduling): when set and it returns true for the running ULT
 * (its group's turn is over), a yield with nothing else ready still goes through the
 * scheduler context, whose pick filter parks it. No side effects. */
typedef bool (*itoi_leave_fn)(itoi_worker_t *w, itoi_ult_t *t);
extern _Atomic(itoi_leave_fn) itoi_must_leave;
/* Whether the switch hook or the pick filter is installed: the fast paths (yield, a
 * block or an exit handing over to the next ULT) read this one word instead of both.
 * Whoever sets or clears either calls itoi_hooks_changed() afterwards. */
extern _Atomic int itoi_hooked;
void itoi_hooks_changed(void);

/* Wake-up placement (the register windows' working-set policy): when set and it returns
 * true for a ULT made ready on this worker, the ULT goes to the front of the private
 * queue instead of the back. */
typedef bool (*itoi_wake_front_fn)(itoi_worker_t *w, itoi_ult_t *t);
extern _Atomic(itoi_wake_front_fn) itoi_wake_front_hook;
static inline itoi_wake_front_fn itoi_wake_front_get(void)
{
    return atomic_load_explicit(&itoi_wake_front_hook, memory_order_relaxed);
}

/* ---- the hot paths' fast cases (the general cases are the *_slow functions) ---- */

/* Queue the ULT ito_create left pending (see itoi_worker_t.pending). */
static inline void itoi_flush_pending(itoi_worker_t *w)
{
    itoi_ult_t *t = w->pending;
    if (ITOI_UNLIKELY(t != NULL)) {
        w->pending = NULL;
        itoi_queue_push(&w->rq, &t->u);
    }
}


/* Make u ready on w, which runs the caller. */
static inline void itoi_ready_local(itoi_worker_t *w, itoi_unit_t *u)
{
    itoi_flush_pending(w); /* it came first */
    if (ITOI_LIKELY(atomic_load_explicit(&itoi_rt.want_work, memory_order_relaxed) == 0 &&
                    itoi_wake_front_get() == NULL)) {
        itoi_queue_push(&w->rq, u);
        return;
    }
    itoi_ready_local_slow(w, u);
}

/* itoi_unit_ready from w's own thread (w: itoi_self_worker()). Inline: a ZWT firing the
 * next is the hot path of split-phase calls (a call into sched.c per firing until
 * 2026-12-06). */
static inline void itoi_unit_ready_on(itoi_worker_t *w, itoi_unit_t *u)
{
    ITOI_BUMP(w->n_units_ready);
    itoi_ready_local(w, u);
}

/* Run a stackless unit to completion on w's scheduler context: counted as run before it
 * runs (statistics and progress: whoever it wakes finds it counted) and as done after
 * (finalize's live work: a unit still running may make more work; until 2026-12-04
 * finalize could end while a timer device's handler was re-arming its device, found by a
 * reviewer). The scheduler's loop runs the units it picks so; a poller runs so, at once,
 * a unit that was just made ready (its completions: no queue between a completion and
 * its continuation), and counts it as made ready (n_units_ready) when it takes it. */
static inline void itoi_unit_run_now(itoi_worker_t *w, itoi_unit_t *u)
{
    ITOI_BUMP(w->n_units_run);
    w->unit_cur = u;
    u->run(w, u);
    w->unit_cur = NULL;
    ITOI_BUMP(w->n_units_done);
}

/* A descriptor from w's pool. */
static inline itoi_ult_t *itoi_ult_alloc(itoi_worker_t *w)
{
    itoi_ult_t *t = w->free_ult;
    if (ITOI_LIKELY(t != NULL)) {
        w->free_ult = (itoi_ult_t *)t->u.next;
        w->free_ult_n--;
        return t;
    }
    return itoi_ult_alloc_slow(w);
}

/* A thread's state word holds its kind (ITOI_LIVE, DONE, DETACHED, REAPED, or the joiner's
 * descriptor address) in the low 48 bits and the generation of the life it belongs to in
 * the top 16, so that a CAS made through a handle (join, detach) can only succeed on the
 * life that handle names: the tag check and a CAS on the kind alone were two steps, and a
 * stale handle whose thread ended (detached), was freed and reused by a new ULT in
 * between joined and freed that new ULT (found by an outside tester, 2026-12-05). A free
 * descriptor's word is plain ITOI_REAPED (generation 0, which no life has). */
/* Two flags sit in the kind's low bits, free in every kind (0..3 use bits 0 and 1, a
 * joiner's descriptor is aligned to a cache line):
 *  - ITOI_ST_MEMBER: the life is in a gang group (src/preempt/gang.c). Set only by
 *    ito_group_add, by a CAS that expects the generation of its handle's life and an
 *    unfinished kind (so a stale handle, or a thread that finished, is refused in the same
 *    atomic step); cleared only by the life's end, which leaves the group first. A ULT's
 *    final state CAS (itoi_exit_current) thus sees every add that came before it, and an
 *    add after it finds DONE, REAPED or another generation. A ULT created detached has no
 *    final CAS: only it may add itself, and it leaves through its on_exit (gang.c).
 *    Invariant: a life with ITOI_ST_MEMBER leaves its group exactly once, before its state
 *    says DONE or REAPED (or, ending without a CAS, before it is freed).
 *  - ITOI_ST_INLINE: with a joiner's address, the joiner runs the ULT in place (thread.c,
 *    run_inline), which ends it without a CAS: ito_group_add from another thread refuses it
 *    (ITO_EBUSY); the ULT itself may add itself, and leaves through its on_exit. A member
 *    is never run in place.
 * Join, detach and a join's unlink keep ITOI_ST_MEMBER as they change the kind; DONE and
 * REAPED never carry a flag. itoi_st_kind strips them. */
#define ITOI_ST_MEMBER ((uintptr_t)4)
#define ITOI_ST_INLINE ((uintptr_t)8)
#define ITOI_ST_FLAGS (ITOI_ST_MEMBER | ITOI_ST_INLINE)
#define ITOI_ST_GEN_MASK (~(((uintptr_t)1 << ITOI_HANDLE_PTR_BITS) - 1))
#define ITOI_ST_KIND_MASK ((((uintptr_t)1 << ITOI_HANDLE_PTR_BITS) - 1) & ~ITOI_ST_FLAGS)
_Static_assert(_Alignof(itoi_ult_t) > ITOI_ST_FLAGS, "a joiner's address leaves the state flags clear");
static inline uintptr_t itoi_st(uint16_t gen, uintptr_t kind) { return kind | (uintptr_t)gen << ITOI_HANDLE_PTR_BITS; }
static inline uintptr_t itoi_st_kind(uintptr_t st) { return st & ITOI_ST_KIND_MASK; }
/* The generation of the life a thread handle names (its top bits). */
static inline uint16_t itoi_handle_gen(ito_thread_t h) { return (uint16_t)((uintptr_t)h >> ITOI_HANDLE_PTR_BITS); }
static inline uintptr_t itoi_st_live(itoi_ult_t *t, uintptr_t kind)
{
    return itoi_st(atomic_load_explicit(&t->gen, memory_order_relaxed), kind);
}

/* ito_cancel_io stores the generation of the life its handle names in io_cancel (0:
 * none), and a ULT takes only a cancellation of its own life: a stale handle checked just
 * before its thread ended and the descriptor was reused must not cancel the new ULT's next
 * call (found by an outside tester, 2026-12-05). */
static inline bool itoi_io_cancelled(itoi_ult_t *me)
{
    return atomic_load_explicit(&me->io_cancel, memory_order_acquire) ==
           (uint32_t)atomic_load_explicit(&me->gen, memory_order_relaxed);
}
static inline bool itoi_io_cancel_take(itoi_ult_t *me)
{
    uint32_t g = atomic_load_explicit(&me->gen, memory_order_relaxed);
    return atomic_load_explicit(&me->io_cancel, memory_order_relaxed) == g &&
           atomic_compare_exchange_strong(&me->io_cancel, &g, 0);
}

/* Give a descriptor back to w's pool: its handles go stale (the generation moves on,
 * never to 0); past 2 * 256 a batch goes to the global list. */
static inline void itoi_ult_free(itoi_worker_t *w, itoi_ult_t *t)
{
    uint16_t g = (uint16_t)(atomic_load_explicit(&t->gen, memory_order_relaxed) + 1);
    itoi_ult_set_gen(t, (uint16_t)(g + (g == 0)));
    atomic_store_explicit(&t->state, ITOI_REAPED, memory_order_relaxed);
    t->u.next = (itoi_unit_t *)w->free_ult;
    w->free_ult = t;
    if (ITOI_UNLIKELY(++w->free_ult_n >= 2 * 256)) itoi_ult_free_slow(w);
}

/* A stack credit for a new ULT of `size` (false: no memory for its stack). */
static inline bool itoi_stack_credit_take(itoi_worker_t *w, size_t size)
{
    if (ITOI_LIKELY(size == itoi_rt.default_stack && w->stack_credits[itoi_rt.default_class] > 0)) {
        w->stack_credits[itoi_rt.default_class]--;
        return true;
    }
    return itoi_stack_credit_take_slow(w, size, 1) == 1;
}

static inline void itoi_stack_credit_return(itoi_worker_t *w, size_t size)
{
    if (ITOI_LIKELY(size == itoi_rt.default_stack && w->stack_credits[itoi_rt.default_class] < 128)) {
        w->stack_credits[itoi_rt.default_class]++;
        return;
    }
    itoi_stack_credit_return_slow(w, size);
}

/* A stack of `size` bytes (NULL: no memory). */
static inline itoi_stack_t *itoi_stack_get(itoi_worker_t *w, size_t size)
{
    itoi_stack_t *s = w->free_stack;
    if (ITOI_LIKELY(size == itoi_rt.default_stack && s != NULL)) {
        w->free_stack = s->next;
        ITOI_OWN_ADD(w->free_stack_n, -1);
        return s;
    }
    return itoi_stack_get_slow(w, size);
}

#endif
