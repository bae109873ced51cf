/* itoi.h: the core's internal interface (the `itoi_` prefix), shared by src/core,
 * src/sync and the mechanisms. Public headers never include it.
 *
 * Who may touch what (the invariants the whole runtime keeps):
 *  - A worker's private ready queue (w->rq_*) and its pools are touched only by code
 *    running on that worker. A ULT in the private queue is therefore invisible to
 *    other workers; this is why the hot paths (yield, create, exit) need no atomics.
 *  - A worker publishes ULTs to others only through w->steal (spinlock), and only
 *    ULTs whose context is completely saved: a ULT that is switching out is published
 *    by the post action of the switch, which runs on the next context's stack.
 *  - w->inbox (spinlock) receives ULTs made ready by other workers or by foreign
 *    threads for this worker; the owner drains it when w->inbox_n is non-zero.
 *  - A ULT's `state` word is the only field written by two sides at once (exit vs
 *    join/detach); everything else of a ULT is written by whoever runs it or, while it
 *    is not running, by whoever holds it in a queue.
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

/* ---- timers (timer.c) ---- */
typedef struct itoi_timer itoi_timer_t;
typedef void (*itoi_timer_fn)(struct itoi_worker *w, itoi_timer_t *t);
struct itoi_timer {
    uint64_t deadline;           /* CLOCK_MONOTONIC ns */
    itoi_timer_t *child, *sibling, *prev; /* pairing-heap links (prev: parent or left sibling) */
    itoi_timer_fn fire;
    bool armed;
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
    int16_t bound;               /* worker index, or -1 (written only by the ULT itself, or
                                  * its creator before it is published) */
    void (*on_exit)(struct itoi_ult *t); /* called as the ULT finishes, or NULL */
    void *bulk;                  /* the bulk creation it belongs to, or NULL */
} itoi_ult_common_t;

typedef struct itoi_ult {
    void *sp;                    /* saved context while not running */
    struct itoi_ult *next;       /* ready queue / wait queue / free list link */
    itoi_stack_t *stack;         /* NULL until first run (stacks are attached lazily) */
    union {
        struct {                 /* the fields of itoi_ult_common_t, by name */
            ito_fn_t fn;
            size_t stack_size;
            uint32_t flags;
            int16_t bound;
            void (*on_exit)(struct itoi_ult *t);
            void *bulk;
        };
        itoi_ult_common_t common;
    };
    void *arg;
    void *ret;
    _Atomic uintptr_t state;     /* ITOI_LIVE / DONE / DETACHED / joiner */
    uint16_t gen;                /* handle generation, bumped at free */
    size_t bulk_index;           /* index within its bulk creation */
    uint64_t id;
    uintptr_t wait_data;         /* scratch for the object the ULT waits on */
    int wait_result;
    const char *blocked_on;      /* what it is parked on ("mutex", "recv", ...), or NULL */
    /* timed waits (itoi_block_until): written by the ULT before it parks, read by the
     * timer's firing on the same worker (the ULT is pinned there meanwhile) */
    itoi_timer_t timer;
    itoi_unlink_fn wait_unlink;
    void *wait_obj;
    itoi_spinlock_t *wait_lock;
    /* I/O (src/wsc): the ULT's deadline for blocking wrappers (ito_io_deadline), the
     * cancellation asked by ito_cancel_io (set by any thread, consumed by the ULT), and
     * the request it is parked on (owned by the worker that holds the request) */
    uint64_t io_deadline;
    _Atomic uint32_t io_cancel;
    void *_Atomic io_wait;
    int16_t io_owner;            /* the worker that owns io_wait */
    _Atomic uint16_t io_call_gen; /* ito_cancel_io's call, for this generation */
    _Atomic int io_call_busy;
    itoi_call_t io_call;
    void *mech;                  /* per-thread state of a mechanism (register windows, ...) */
    struct itoi_ult_store *store; /* thread-specific values (src/sync/tls.c), or NULL */
    /* preemption (src/preempt): psafe is written only by the ULT itself and read by the
     * signal handler running on the same worker; group by ito_group_add */
    volatile uint32_t psafe;     /* depth of preemption-safe regions */
    volatile uint32_t psafe_pending; /* a switch was delayed by a region */
    uint64_t psafe_since;        /* when the delayed switch was due (ns) */
    void *group;
    char name[ITOI_NAME_LEN];
#if defined(ITOI_ASAN)
    void *asan_fake_stack;
#endif
#if defined(ITOI_TSAN)
    void *tsan_fiber;
#endif
} itoi_ult_t;

/* The per-thread state every new ULT starts with (ito_create and bulk creation). */
static inline void itoi_ult_init_state(itoi_ult_t *t)
{
    t->mech = NULL;
    t->store = NULL;
    t->psafe = t->psafe_pending = 0;
    t->group = NULL;
    t->wait_result = 0;
    t->blocked_on = NULL;
    t->name[0] = 0;
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

/* A FIFO of ULTs linked through ->next. */
typedef struct itoi_queue {
    itoi_ult_t *head, *tail;
    size_t n;
} itoi_queue_t;

static inline void itoi_queue_push(itoi_queue_t *q, itoi_ult_t *t)
{
    t->next = NULL;
    if (q->tail) q->tail->next = t; else q->head = t;
    q->tail = t;
    q->n++;
}
static inline void itoi_queue_push_front(itoi_queue_t *q, itoi_ult_t *t)
{
    t->next = q->head;
    q->head = t;
    if (!q->tail) q->tail = t;
    q->n++;
}
static inline itoi_ult_t *itoi_queue_pop(itoi_queue_t *q)
{
    itoi_ult_t *t = q->head;
    if (t) {
        q->head = t->next;
        if (!q->head) q->tail = NULL;
        q->n--;
    }
    return t;
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
bool itoi_queue_remove(itoi_queue_t *q, itoi_ult_t *t);

/* ---- workers (worker.c) ---- */
typedef struct itoi_worker {
    /* owner-only, hot */
    itoi_ult_t *cur;              /* the running ULT, or NULL while in the scheduler context */
    itoi_queue_t rq;              /* private FIFO ready queue */
    itoi_ult_t *free_ult;         /* descriptor pool */
    size_t free_ult_n;
    itoi_stack_t *free_stack;     /* stack pool (default size only) */
    size_t free_stack_n;
    void *sched_sp;               /* saved context of the scheduler (idle loop) */
    int index;
    uint64_t next_id;
    uint32_t tick;                /* scheduling points, for fairness checks */
    itoi_queue_t parked;          /* gang scheduling: ULTs whose group is not running now */
    uint64_t gang_seen;           /* the group epoch parked ULTs were sorted for */
    itoi_ult_t *prev;             /* the ULT that just switched out (read by post actions) */
    void *dead_sp;                /* where an exiting ULT's last context is "saved" */
    const void *sched_lo;         /* the scheduler context's stack, for the sanitizers */
    size_t sched_size;
    void *sched_fake;             /* ASan fake-stack handle of the scheduler context */
    void *dying_fiber;            /* TSan fiber of the ULT that just exited */
    /* counters: written by the owner only, read by anyone (relaxed) */
    _Atomic uint64_t n_switches, n_created, n_finished, n_steals, n_sleeps;
    void *mech;                   /* per-worker state of a mechanism */
    /* timers (timer.c): owner-only heap; timer_next read relaxed by others */
    itoi_timer_t *timers;         /* root of the pairing heap */
    size_t ntimers;
    _Atomic uint64_t timer_next;  /* earliest deadline, ITO_FOREVER if none */
    _Atomic uint64_t n_timers_fired, n_wakeups;
    /* shared */
    _Alignas(ITOI_CACHELINE) itoi_spinlock_t inbox_lock;
    _Atomic size_t inbox_n;
    itoi_queue_t inbox;
    _Atomic(itoi_call_t *) calls;  /* itoi_worker_call: a LIFO pushed by anyone */
    _Alignas(ITOI_CACHELINE) itoi_spinlock_t steal_lock;
    _Atomic size_t steal_n;
    itoi_queue_t steal;
    _Alignas(ITOI_CACHELINE) _Atomic int sleep_state; /* 0 awake, 1 sleeping (futex word) */
    /* non-ULT work ready on this worker (ZWTs, device events), run by the scheduler
     * context through the pollers: side_ready is owner-written, side_inbox is raised by
     * other workers (who then wake this one) */
    size_t side_ready;
    int poll_due;                 /* owner: visit the pollers at the next scheduling point */
    _Atomic size_t side_inbox;
    size_t io_pending;            /* kernel requests in flight (owner-written): a ULT that
                                   * yields with nothing else ready still lets the pollers
                                   * look for their completions */
    const void *zwt_cur;          /* the ZWT entry running on this worker, or NULL */
    _Atomic uint64_t n_side_queued, n_side_run; /* side work made ready here / run here */
    /* sleeping on kernel events (idlewait.c): while fds are watched, an idle worker
     * sleeps in epoll_wait on idle_ep (which also holds wake_fd) instead of the futex */
    int idle_ep, wake_fd;
    _Atomic int watched;
    /* set up by runtime.c */
    void *sched_stack_map;        /* the scheduler context's own stack (worker 0 only) */
    size_t sched_stack_size;
    void *altstack;               /* sigaltstack for the overflow handler */
    unsigned long pthread;        /* pthread_t of this worker (0 for worker 0) */
    _Atomic int tid;              /* kernel thread id (timers are aimed at it); set when it runs */
    void *preempt;                /* per-worker preemption state (src/preempt) */
#if defined(ITOI_TSAN)
    void *tsan_sched_fiber;
#endif
} itoi_worker_t;

/* ---- the runtime (runtime.c) ---- */
typedef struct itoi_runtime {
    _Atomic int state;            /* 0 off, 1 running, 2 finalizing */
    int nworkers;
    size_t default_stack;
    itoi_worker_t *workers;       /* nworkers of them */
    itoi_ult_t *main_ult;
    _Atomic int shutdown;
    _Alignas(ITOI_CACHELINE) _Atomic int want_work; /* workers looking for work */
    _Atomic int spinning;                            /* ... of which spinning, not asleep */
    _Alignas(ITOI_CACHELINE) _Atomic int64_t live;  /* ULTs created and not yet finished (main excluded) */
    _Atomic uint64_t next_id;
    _Alignas(ITOI_CACHELINE) _Atomic int64_t side_shared;
    _Atomic int64_t foreign_in;   /* foreign threads inside the runtime (itoi_foreign_enter) */
    _Atomic uint64_t foreign_wakeups;
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

/* Counters written only by their owner: a relaxed load and store, no RMW. */
#define ITOI_BUMP(field)                                                                     \
    atomic_store_explicit(&(field), atomic_load_explicit(&(field), memory_order_relaxed) + 1, \
                          memory_order_relaxed)

/* scheduler (worker.c) */
void itoi_ready(itoi_ult_t *t);                 /* make t ready: on the caller's worker, or t's own */
void itoi_ready_local(itoi_worker_t *w, itoi_ult_t *t);
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
void itoi_yield_worker_full(itoi_worker_t *w);
int itoi_yield_to(itoi_worker_t *w, itoi_ult_t *t);
_Noreturn void itoi_exit_current(itoi_worker_t *w);
void itoi_worker_loop(itoi_worker_t *w);        /* the scheduler context's loop */
void itoi_wake_worker(itoi_worker_t *w);
void itoi_wake_all(void);
void *itoi_coop_next(void *sp);

/* threads (thread.c) */
itoi_ult_t *itoi_ult_alloc(itoi_worker_t *w);
void itoi_ult_free(itoi_worker_t *w, itoi_ult_t *t);
itoi_ult_t *itoi_handle_get(ito_thread_t h);    /* NULL when stale or invalid */
ito_thread_t itoi_handle_of(itoi_ult_t *t);
void itoi_ult_entry(void);                      /* the first C frame of every ULT */
/* Give t a stack and a fresh context. ULTs made by ito_create get theirs at creation;
 * ULTs made in bulk (src/spawn) get theirs lazily, when a worker first picks them. */
bool itoi_ult_attach_stack(itoi_worker_t *w, itoi_ult_t *t);

/* timers (timer.c): owner-only */
uint64_t itoi_now_ns(void);
void itoi_timer_arm(itoi_worker_t *w, itoi_timer_t *t, uint64_t deadline, itoi_timer_fn fire);
bool itoi_timer_cancel(itoi_worker_t *w, itoi_timer_t *t); /* true if it was armed */
size_t itoi_timers_run(itoi_worker_t *w);        /* fire what is due; how many fired */
void itoi_timers_free(itoi_worker_t *w);

/* Foreign threads (not workers) that touch runtime objects enter and leave, so that
 * ito_finalize does not free what they use: enter fails with ITO_ESTATE when the
 * runtime is not running. Workers and ULTs need not call them. */
int itoi_foreign_enter(void);
void itoi_foreign_exit(void);

/* stacks (stack.c) */
itoi_stack_t *itoi_stack_get(itoi_worker_t *w, size_t size);
void itoi_stack_put(itoi_worker_t *w, itoi_stack_t *s);
void itoi_stack_free_all(void);
int itoi_stack_guard_owner(void *addr, itoi_stack_t **out);
int itoi_overflow_handler_install(void);
int itoi_altstack_setup(itoi_worker_t *w);
void itoi_altstack_teardown(itoi_worker_t *w);

/* descriptor slabs (thread.c) */
void itoi_ult_free_all(void);
/* Call fn on every ULT descriptor ever allocated (live or free), under the slab lock;
 * stops early when fn returns false. For debugging (src/core/dump.c): it reads what
 * other workers write without synchronization. */
void itoi_ult_foreach(bool (*fn)(itoi_ult_t *t, void *arg), void *arg);

/* The runtime's environment variables, validated at ito_init (config.c). Unset
 * variables leave their field at: workers 0, wsc_backend -1, wsc_threshold 0,
 * wsc_latency_us -1, finalize_grace_ms -1, fault_* 0. */
typedef struct itoi_env {
    long workers, wsc_backend, wsc_threshold, wsc_latency_us, finalize_grace_ms, fault_mmap, fault_malloc;
} itoi_env_t;
extern itoi_env_t itoi_env;
int itoi_env_load(void); /* ITO_OK, or ITO_EINVAL with one line on stderr */

/* failure injection for tests (runtime.c): when >0, the Nth call of the wrapped
 * allocation fails. Set from the ITO_FAULT_MMAP / ITO_FAULT_MALLOC environment. */
void *itoi_mmap(size_t len, int prot);
int itoi_munmap(void *p, size_t len);
void *itoi_malloc(size_t n);
void *itoi_calloc(size_t n, size_t m);
void itoi_fault_reset(void);

/* Pollers: how non-ULT work (ZWTs, device events, bulk-creation messages) reaches the
 * workers. A mechanism registers a poller once; every worker's scheduler context calls
 * the pollers before it picks a ULT, steals or sleeps. A poller runs at most `budget`
 * items and returns how many it ran. A ULT leaves its worker to the scheduler context
 * at its next scheduling point when w->side_ready or w->side_inbox is non-zero.
 * itoi_rt.side_shared counts side work that other workers may steal (idle workers do
 * not go to sleep while it is non-zero). */
typedef size_t (*itoi_poll_fn)(itoi_worker_t *w, size_t budget);
int itoi_poller_add(itoi_poll_fn fn);   /* idempotent; ITO_ENOMEM past 8 pollers */
/* A mechanism's clean-up, run by ito_finalize after the workers have stopped. */
int itoi_fini_add(void (*fn)(void));    /* idempotent; ITO_ENOMEM past 8 */
/* What ito_finalize asks the mechanisms while it waits for live work (see runtime.c):
 * `pending` says whether the mechanism holds work that will progress by itself (an armed
 * timer device, a regular-file request in flight); `cancel` cancels what can never
 * complete by itself (requests on sockets and pipes, waits for readiness) and returns
 * how many it cancelled. Both run on the main ULT while the workers run. */
typedef struct itoi_fini_ops {
    bool (*pending)(void);
    size_t (*cancel)(void);
} itoi_fini_ops_t;
int itoi_fini_ops_add(const itoi_fini_ops_t *ops); /* idempotent; ITO_ENOMEM past 8 */

/* Kernel events: a mechanism that waits for fds (io_uring's eventfd, device fds) asks
 * a worker to watch them; the worker, when idle, then sleeps in epoll_wait until one is
 * ready or it is woken, and its pollers run. The fd must be drained by its poller
 * (level-triggered). */
int itoi_worker_watch_fd(itoi_worker_t *w, int fd);
int itoi_worker_unwatch_fd(itoi_worker_t *w, int fd);
/* A mechanism whose watched fd costs something while the worker is busy (io_uring's
 * completion eventfd) turns it on only around the sleep: `before` runs just before an
 * idle worker sleeps in epoll and returns true if work arrived meanwhile (the worker
 * then does not sleep); `after` runs when it wakes. */
typedef bool (*itoi_presleep_fn)(itoi_worker_t *w);
typedef void (*itoi_postsleep_fn)(itoi_worker_t *w);
int itoi_sleep_hooks_add(itoi_presleep_fn before, itoi_postsleep_fn after); /* idempotent */
/* A cheap look (no system call) whether a mechanism has work for w's pollers, made by an
 * idle worker while it spins before it sleeps (e.g. completions in io_uring's ring). */
typedef bool (*itoi_probe_fn)(itoi_worker_t *w);
int itoi_idle_probe_add(itoi_probe_fn fn);      /* idempotent; ITO_ENOMEM past 4 */
bool itoi_idle_probe(itoi_worker_t *w);
int itoi_idlewait_setup(itoi_worker_t *w);      /* at ito_init */
void itoi_idlewait_teardown(itoi_worker_t *w);
void itoi_idlewait_sleep(itoi_worker_t *w, uint64_t deadline); /* the epoll sleep of idle() */
void itoi_idlewait_wake(itoi_worker_t *w);

/* mechanism hooks: a mechanism (register windows, preemption) may observe switches.
 * NULL when unused; checked with a predicted branch on the switch path. */
typedef void (*itoi_switch_hook_fn)(itoi_worker_t *w, itoi_ult_t *from, itoi_ult_t *to);
extern itoi_switch_hook_fn itoi_switch_hook;
/* Gang scheduling (src/preempt/gang.c): while itoi_gang_group is non-NULL only ULTs of
 * that group, or of no group, are picked; the others wait in their worker's parked
 * queue until the epoch changes (the next group's turn) or gang scheduling stops. */
extern _Atomic(void *) itoi_gang_group;
extern _Atomic uint64_t itoi_gang_epoch;

/* Wake-up placement (the register windows' working-set policy): when set and it returns
 * true for a ULT made ready on this worker, the ULT goes to the front of the private
 * queue instead of the back. */
typedef bool (*itoi_wake_front_fn)(itoi_worker_t *w, itoi_ult_t *t);
extern itoi_wake_front_fn itoi_wake_front_hook;

#endif
