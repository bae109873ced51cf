/* worker.c: the scheduler. Each worker is a kernel thread with a private FIFO ready
 * queue; it switches directly from ULT to ULT and falls back to its scheduler context
 * (the idle loop) only when it has nothing to run.
 *
 * Design (see itoi.h for who may touch which field):
 *  - Hot paths touch only the private queue: yield is pop-head + push-tail + switch,
 *    no atomic read-modify-write, no lock, no system call.
 *  - Work moves between workers lazily. A worker that finds nothing raises
 *    itoi_rt.want_work; busy workers read it (a relaxed load of a line nobody writes
 *    while everyone is busy) at their scheduling points and then publish half of their
 *    private queue to their steal queue, waking a sleeper. Idle workers steal half of
 *    a victim's steal queue.
 *  - A ULT made ready by another worker (or a foreign thread) for a given worker goes
 *    to that worker's inbox; the owner drains the inbox at each scheduling point.
 *  - Idle: spin about half a millisecond looking for work, then sleep on a futex.
 *    Lost wake-ups are excluded by the Dekker pattern: the sleeper stores
 *    sleep_state = 1 and then looks for work; a waker publishes work and then reads
 *    sleep_state (both sequentially consistent).
 *  - Every switch goes through switch_to(): sanitizer annotations, the mechanism
 *    hook, the counter, and the ABI switch with an optional post action that runs on
 *    the new stack once the old context is saved. */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ito/coop.h"
#include "itoi.h"
#include "sanitizer.h"

_Thread_local itoi_worker_t *itoi_tls_worker;
itoi_switch_hook_fn itoi_switch_hook;
itoi_wake_front_fn itoi_wake_front_hook;
_Atomic(void *) itoi_gang_group;
_Atomic uint64_t itoi_gang_epoch;

/* How long an idle worker looks for work before it sleeps. At most about the cost of a
 * sleep and a wake-up (a futex or epoll round trip), so that short gaps are bridged
 * without system calls; adaptive below that: a spin that ended in sleep halves the next
 * one (down to IDLE_SPIN_MIN_NS), a spin that found work doubles it, so a worker whose
 * spins keep failing (say, one waiting for its I/O while the other worker has the ready
 * threads) stops burning the CPU the other threads of the machine could use. */
#define IDLE_SPIN_NS 50000
#define IDLE_SPIN_MIN_NS 2000

bool itoi_queue_remove(itoi_queue_t *q, itoi_ult_t *t)
{
    itoi_ult_t *prev = NULL;
    for (itoi_ult_t *x = q->head; x; prev = x, x = x->next) {
        if (x != t) continue;
        if (prev) prev->next = x->next; else q->head = x->next;
        if (q->tail == x) q->tail = prev;
        q->n--;
        return true;
    }
    return false;
}

/* ---- sleeping and waking ---- */

/* Sleep on *addr while it holds val, until `deadline` (ITO_FOREVER: no limit). */
static void futex_wait(_Atomic int *addr, int val, uint64_t deadline)
{
    struct timespec ts, *tp = NULL;
    if (deadline != ITO_FOREVER) {
        uint64_t now = itoi_now_ns(), d = deadline > now ? deadline - now : 0;
        ts.tv_sec = (time_t)(d / 1000000000u);
        ts.tv_nsec = (long)(d % 1000000000u);
        tp = &ts;
    }
    syscall(SYS_futex, addr, FUTEX_WAIT_PRIVATE, val, tp, NULL, 0);
}

static void futex_wake(_Atomic int *addr)
{
    syscall(SYS_futex, addr, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

void itoi_wake_worker(itoi_worker_t *w)
{
    if (atomic_load(&w->sleep_state) == 1 && atomic_exchange(&w->sleep_state, 0) == 1) {
        futex_wake(&w->sleep_state);
        if (atomic_load(&w->watched) > 0) itoi_idlewait_wake(w);
    }
}

void itoi_wake_all(void)
{
    for (int i = 0; i < itoi_rt.nworkers; i++) itoi_wake_worker(&itoi_rt.workers[i]);
}

/* Work was just published for thieves: make sure some worker will look at it. A worker
 * that is spinning in its idle loop will (it checks again after it announces that it
 * sleeps), so a sleeper is woken only when nobody spins: one futex call per burst of
 * work instead of one per ULT. */
static void wake_one_sleeper(itoi_worker_t *self)
{
    if (atomic_load(&itoi_rt.spinning) > 0) return;
    for (int i = 1; i < itoi_rt.nworkers; i++) {
        itoi_worker_t *v = &itoi_rt.workers[(self->index + i) % itoi_rt.nworkers];
        if (atomic_load(&v->sleep_state) == 1) {
            itoi_wake_worker(v);
            return;
        }
    }
}

/* ---- queues ---- */

static void drain_inbox(itoi_worker_t *w)
{
    itoi_spin_lock(&w->inbox_lock);
    itoi_queue_append(&w->rq, &w->inbox);
    atomic_store_explicit(&w->inbox_n, 0, memory_order_relaxed);
    itoi_spin_unlock(&w->inbox_lock);
}

/* Publish part of the private queue (unbound ULTs only, from its head) for thieves:
 * half of it, at most OFFLOAD_MAX, and only when the thieves have taken the previous
 * batch; the scan is bounded too, so a queue full of bound ULTs costs O(1) here. */
#define OFFLOAD_MAX 64
static void offload(itoi_worker_t *w)
{
    if (atomic_load_explicit(&w->steal_n, memory_order_relaxed) != 0) return;
    size_t k = w->rq.n / 2;
    if (k > OFFLOAD_MAX) k = OFFLOAD_MAX;
    itoi_queue_t give = {0}, keep = {0};
    for (size_t bound_seen = 0; k && w->rq.head && bound_seen < 8;) {
        itoi_ult_t *t = itoi_queue_pop(&w->rq);
        if (t->bound >= 0) {
            itoi_queue_push(&keep, t);
            bound_seen++;
        } else {
            itoi_queue_push(&give, t);
            k--;
        }
    }
    itoi_queue_append(&keep, &w->rq);
    w->rq = keep;
    if (!give.n) return;
    itoi_spin_lock(&w->steal_lock);
    itoi_queue_append(&w->steal, &give);
    atomic_store(&w->steal_n, w->steal.n);
    itoi_spin_unlock(&w->steal_lock);
    wake_one_sleeper(w);
}

void itoi_publish_some(itoi_worker_t *w)
{
    if (atomic_load_explicit(&itoi_rt.want_work, memory_order_relaxed) > 0 && w->rq.n > 1) offload(w);
}

static void reclaim(itoi_worker_t *w)
{
    itoi_spin_lock(&w->steal_lock);
    itoi_queue_append(&w->rq, &w->steal);
    atomic_store(&w->steal_n, 0);
    itoi_spin_unlock(&w->steal_lock);
}

static itoi_ult_t *take_back(itoi_worker_t *w)
{
    itoi_spin_lock(&w->steal_lock);
    itoi_queue_append(&w->rq, &w->steal);
    atomic_store(&w->steal_n, 0);
    itoi_spin_unlock(&w->steal_lock);
    return itoi_queue_pop(&w->rq);
}

/* ---- pollers (non-ULT work) ---- */

#define MAX_POLLERS 8
static itoi_poll_fn pollers[MAX_POLLERS];
static _Atomic int npollers;
static itoi_spinlock_t pollers_lock;

int itoi_poller_add(itoi_poll_fn fn)
{
    int rc = ITO_OK;
    itoi_spin_lock(&pollers_lock);
    int n = atomic_load(&npollers);
    for (int i = 0; i < n; i++)
        if (pollers[i] == fn) goto out;
    if (n == MAX_POLLERS) {
        rc = ITO_ENOMEM;
        goto out;
    }
    pollers[n] = fn;
    atomic_store_explicit(&npollers, n + 1, memory_order_release);
out:
    itoi_spin_unlock(&pollers_lock);
    return rc;
}

static size_t run_pollers(itoi_worker_t *w)
{
    size_t did = 0;
    int n = atomic_load_explicit(&npollers, memory_order_acquire);
    for (int i = 0; i < n; i++) did += pollers[i](w, 64);
    return did;
}

static inline bool side_pending(itoi_worker_t *w)
{
    return w->side_ready != 0 || w->poll_due || atomic_load_explicit(&w->side_inbox, memory_order_relaxed) != 0 ||
           atomic_load_explicit(&w->calls, memory_order_relaxed) != NULL;
}

/* ---- calls posted to a worker by other threads ---- */

void itoi_worker_call(itoi_worker_t *to, itoi_call_t *c)
{
    itoi_call_t *head = atomic_load_explicit(&to->calls, memory_order_relaxed);
    do c->next = head;
    while (!atomic_compare_exchange_weak_explicit(&to->calls, &head, c, memory_order_release,
                                                  memory_order_relaxed));
    itoi_wake_worker(to);
}

static size_t run_calls(itoi_worker_t *w)
{
    if (atomic_load_explicit(&w->calls, memory_order_relaxed) == NULL) return 0;
    itoi_call_t *c = atomic_exchange_explicit(&w->calls, NULL, memory_order_acquire), *rev = NULL;
    while (c) { /* oldest first */
        itoi_call_t *next = c->next;
        c->next = rev;
        rev = c;
        c = next;
    }
    size_t n = 0;
    while (rev) {
        itoi_call_t *next = rev->next; /* fn may free or reuse the node */
        rev->fn(w, rev);
        rev = next;
        n++;
    }
    return n;
}

/* Whether a timer of w is due (one clock read, only when timers are armed). */
static inline bool timer_due(itoi_worker_t *w)
{
    uint64_t next = atomic_load_explicit(&w->timer_next, memory_order_relaxed);
    return next != ITO_FOREVER && itoi_now_ns() >= next;
}

/* A ULT created without a stack gets one when first picked. If none can be mapped,
 * it goes back to the tail of the queue and waits for a stack to be freed (said once on
 * stderr); NULL when no ULT of the queue can run now. */
static itoi_ult_t *give_stack(itoi_worker_t *w, itoi_ult_t *t)
{
    static _Atomic int warned;
    for (size_t tries = w->rq.n + 1; tries; tries--) {
        if (t->stack || itoi_ult_attach_stack(w, t)) return t;
        if (!atomic_exchange(&warned, 1))
            fprintf(stderr, "ito: no memory for the stack of a ULT created in bulk; it waits until "
                            "another ULT frees one\n");
        itoi_queue_push(&w->rq, t);
        t = itoi_queue_pop(&w->rq);
    }
    itoi_queue_push_front(&w->rq, t);
    return NULL;
}

/* Gang scheduling: give back the parked ULTs when another group's turn has come (or
 * gang scheduling stopped), and set aside those of groups that are not running. */
static void unpark(itoi_worker_t *w)
{
    uint64_t e = atomic_load_explicit(&itoi_gang_epoch, memory_order_acquire);
    if (e == w->gang_seen && atomic_load_explicit(&itoi_gang_group, memory_order_relaxed)) return;
    w->gang_seen = e;
    /* They waited a whole turn: they go first (the ULT preempted at the end of the last
     * turn goes behind them, so a group with more ULTs than workers rotates). */
    itoi_queue_append(&w->parked, &w->rq);
    w->rq = w->parked;
    w->parked = (itoi_queue_t){0};
}

static itoi_ult_t *gang_filter(itoi_worker_t *w, itoi_ult_t *t)
{
    void *g = atomic_load_explicit(&itoi_gang_group, memory_order_relaxed);
    while (t && g && t->group && t->group != g) {
        itoi_queue_push(&w->parked, t);
        t = itoi_queue_pop(&w->rq);
        if (t && !t->stack) t = give_stack(w, t);
    }
    return t;
}

/* The next ULT to run on w, or NULL. */
static inline itoi_ult_t *pick_ult(itoi_worker_t *w)
{
    if (ITOI_UNLIKELY(w->parked.head != NULL)) unpark(w);
    if (ITOI_UNLIKELY(atomic_load_explicit(&w->inbox_n, memory_order_relaxed) != 0)) drain_inbox(w);
    /* Fairness: now and then take back what was published and nobody stole, so a busy
     * worker never leaves a ready ULT starving in its steal queue. */
    if (ITOI_UNLIKELY((++w->tick & 63) == 0)) {
        if (atomic_load_explicit(&w->steal_n, memory_order_relaxed)) reclaim(w);
        /* Kernel events (devices, completions) are collected by the pollers, and timers
         * fire in the scheduler context: visit it now and then even while ULTs keep
         * switching among themselves. */
        if (atomic_load_explicit(&w->watched, memory_order_relaxed) > 0 || timer_due(w)) w->poll_due = 1;
    }
    itoi_ult_t *t = itoi_queue_pop(&w->rq);
    if (ITOI_UNLIKELY(t && !t->stack)) t = give_stack(w, t);
    if (ITOI_UNLIKELY(!t)) {
        if (atomic_load_explicit(&w->steal_n, memory_order_relaxed) != 0) t = take_back(w);
        if (t && !t->stack) t = give_stack(w, t);
    } else if (ITOI_UNLIKELY(atomic_load_explicit(&itoi_rt.want_work, memory_order_relaxed) > 0) &&
               w->rq.n > 0) {
        offload(w);
    }
    if (ITOI_UNLIKELY(atomic_load_explicit(&itoi_gang_group, memory_order_relaxed) != NULL) && t)
        t = gang_filter(w, t);
    return t;
}

/* The next ULT to run on w; NULL when there is none, or when side work is waiting for
 * the scheduler context (check side_pending() to tell the two apart). */
static inline itoi_ult_t *pick(itoi_worker_t *w)
{
    if (ITOI_UNLIKELY(side_pending(w))) return NULL;
    return pick_ult(w);
}

static itoi_ult_t *steal(itoi_worker_t *w)
{
    int n = itoi_rt.nworkers;
    for (int i = 1; i < n; i++) {
        itoi_worker_t *v = &itoi_rt.workers[(w->index + i) % n];
        if (atomic_load_explicit(&v->steal_n, memory_order_relaxed) == 0) continue;
        if (!itoi_spin_trylock(&v->steal_lock)) continue;
        size_t k = (v->steal.n + 1) / 2;
        while (k-- && v->steal.head) itoi_queue_push(&w->rq, itoi_queue_pop(&v->steal));
        atomic_store(&v->steal_n, v->steal.n);
        itoi_spin_unlock(&v->steal_lock);
        if (w->rq.head) {
            ITOI_BUMP(w->n_steals);
            itoi_ult_t *t = itoi_queue_pop(&w->rq);
            t = t->stack ? t : give_stack(w, t);
            return gang_filter(w, t);
        }
    }
    return NULL;
}

static bool work_visible(itoi_worker_t *w)
{
    if (atomic_load(&w->inbox_n) || atomic_load(&itoi_rt.shutdown) || side_pending(w) ||
        atomic_load(&itoi_rt.side_shared) > 0)
        return true;
    if (timer_due(w) || itoi_idle_probe(w)) return true;
    if (w->parked.head && (atomic_load(&itoi_gang_epoch) != w->gang_seen || !atomic_load(&itoi_gang_group)))
        return true;
    for (int i = 0; i < itoi_rt.nworkers; i++)
        if (atomic_load(&itoi_rt.workers[i].steal_n)) return true;
    return false;
}

void itoi_ready_local(itoi_worker_t *w, itoi_ult_t *t)
{
    if (ITOI_UNLIKELY(atomic_load_explicit(&itoi_rt.want_work, memory_order_relaxed) > 0) &&
        t->bound < 0 &&
        atomic_load_explicit(&w->steal_n, memory_order_relaxed) < OFFLOAD_MAX) {
        /* Someone is idle: make it stealable at once. */
        itoi_spin_lock(&w->steal_lock);
        itoi_queue_push(&w->steal, t);
        atomic_store(&w->steal_n, w->steal.n);
        itoi_spin_unlock(&w->steal_lock);
        wake_one_sleeper(w);
        return;
    }
    if (ITOI_UNLIKELY(itoi_wake_front_hook != NULL) && itoi_wake_front_hook(w, t)) itoi_queue_push_front(&w->rq, t);
    else itoi_queue_push(&w->rq, t);
}

void itoi_ready(itoi_ult_t *t)
{
    itoi_worker_t *w = itoi_self_worker();
    if (w) ITOI_BUMP(w->n_wakeups);
    else atomic_fetch_add_explicit(&itoi_rt.foreign_wakeups, 1, memory_order_relaxed);
    if (w && (t->bound < 0 || t->bound == w->index)) {
        itoi_ready_local(w, t);
        return;
    }
    itoi_worker_t *to = &itoi_rt.workers[t->bound >= 0 ? t->bound : (int)(t->id % (uint64_t)itoi_rt.nworkers)];
    itoi_spin_lock(&to->inbox_lock);
    itoi_queue_push(&to->inbox, t);
    atomic_store(&to->inbox_n, to->inbox.n);
    itoi_spin_unlock(&to->inbox_lock);
    itoi_wake_worker(to);
}

/* ---- switching ---- */

__attribute__((unused)) static inline void san_ctx(itoi_worker_t *w, itoi_ult_t *t, itoi_san_ctx_t *c)
{
    if (t) {
        c->stack_lo = t->stack ? (const void *)t->stack->base : NULL;
        c->stack_size = t->stack ? t->stack->size : 0;
#if defined(ITOI_TSAN)
        c->tsan_fiber = t->tsan_fiber;
#endif
    } else {
        c->stack_lo = w->sched_lo;
        c->stack_size = w->sched_size;
#if defined(ITOI_TSAN)
        c->tsan_fiber = w->tsan_sched_fiber;
#endif
    }
}

__attribute__((unused)) static inline void **fake_slot(itoi_worker_t *w, itoi_ult_t *t)
{
#if defined(ITOI_ASAN)
    return t ? &t->asan_fake_stack : &w->sched_fake;
#else
    (void)w; (void)t;
    return NULL;
#endif
}

/* Switch from `from` (NULL: the scheduler context) to `to` (NULL: the scheduler
 * context). Returns when `from` is resumed, possibly on another worker. */
typedef void (*switch_fn)(void **, void *, itoa_post_fn, void *);

static inline void switch_with(switch_fn sw, itoi_worker_t *w, itoi_ult_t *from, itoi_ult_t *to,
                               itoa_post_fn post, void *arg)
{
    void **save = from ? &from->sp : &w->sched_sp;
    void *load = to ? to->sp : w->sched_sp;
    w->cur = to;
    w->prev = from;
    ITOI_BUMP(w->n_switches);
    if (ITOI_UNLIKELY(itoi_switch_hook != NULL)) itoi_switch_hook(w, from, to);
#if defined(ITOI_ASAN) || defined(ITOI_TSAN)
    itoi_san_ctx_t c;
    san_ctx(w, to, &c);
    itoi_san_before(fake_slot(w, from), 0, &c);
#endif
    sw(save, load, post, arg);
#if defined(ITOI_ASAN)
    itoi_worker_t *now = itoi_self_worker();
    itoi_san_after(*fake_slot(now, from));
#endif
}

static inline void switch_to(itoi_worker_t *w, itoi_ult_t *from, itoi_ult_t *to,
                             itoa_post_fn post, void *arg)
{
    switch_with(itoa_switch_abi, w, from, to, post, arg);
}

/* A yield that saves everything, as a preemptive switch must (ito_coop_yield_full
 * and the preemption signal handler use it). */
void itoi_yield_worker_full(itoi_worker_t *w)
{
    itoi_ult_t *cur = w->cur;
    itoi_ult_t *next = pick(w);
    if (!next && !side_pending(w)) return;
    itoi_queue_push(&w->rq, cur);
    switch_with(itoa_switch_full, w, cur, next, NULL, NULL);
}

static inline void yield_on(itoi_worker_t *w)
{
    itoi_ult_t *cur = w->cur;
    itoi_ult_t *next = pick(w);
    if (ITOI_UNLIKELY(!next) && !side_pending(w) && !w->io_pending) return;
    itoi_queue_push(&w->rq, cur);
    switch_to(w, cur, next, NULL, NULL);
}

void itoi_yield_worker(itoi_worker_t *w) { yield_on(w); }

/* Let the scheduler context run once (its pollers: buffered requests, completions),
 * then come back. */
void itoi_visit_sched(itoi_worker_t *w)
{
    itoi_ult_t *cur = w->cur;
    itoi_queue_push_front(&w->rq, cur);
    switch_to(w, cur, NULL, NULL, NULL);
}

/* The public yield lives here so that the whole path is one function. */
int ito_yield(void)
{
    itoi_worker_t *w = itoi_self_worker();
    if (ITOI_UNLIKELY(!w || !w->cur)) return ITO_ENOTULT;
    yield_on(w);
    return ITO_OK;
}

int itoi_yield_to(itoi_worker_t *w, itoi_ult_t *t)
{
    itoi_ult_t *cur = w->cur;
    if (t == cur) return ITO_OK;
    if (!itoi_queue_remove(&w->rq, t)) {
        itoi_yield_worker(w);
        return ITO_OK;
    }
    if (!t->stack && !itoi_ult_attach_stack(w, t)) {
        itoi_queue_push_front(&w->rq, t);
        itoi_yield_worker(w);
        return ITO_OK;
    }
    itoi_queue_push(&w->rq, cur);
    switch_to(w, cur, t, NULL, NULL);
    return ITO_OK;
}

void itoi_block(itoi_worker_t *w, itoa_post_fn post, void *arg)
{
    itoi_ult_t *cur = w->cur;
    itoi_ult_t *next = pick(w);
    switch_to(w, cur, next, post, arg);
}

static void exit_post(void *stack)
{
    itoi_worker_t *w = itoi_self_worker();
#if defined(ITOI_TSAN)
    __tsan_destroy_fiber(w->dying_fiber);
    w->dying_fiber = NULL;
#endif
    itoi_stack_put(w, stack);
}

_Noreturn void itoi_exit_current(itoi_worker_t *w)
{
    itoi_ult_t *t = w->cur;
    itoi_stack_t *stack = t->stack;
#if defined(ITOI_TSAN)
    w->dying_fiber = t->tsan_fiber;
#endif
    if (ITOI_UNLIKELY(t->on_exit != NULL)) t->on_exit(t);
    ITOI_BUMP(w->n_finished);
    /* After this exchange a joiner may free t at any moment: t is not touched again. */
    uintptr_t old = atomic_exchange_explicit(&t->state, ITOI_DONE, memory_order_acq_rel);
    if (old == ITOI_DETACHED) itoi_ult_free(w, t);
    else if (old != ITOI_LIVE) itoi_ready((itoi_ult_t *)old);
    itoi_ult_t *next = pick(w);
    w->cur = next;
    w->prev = NULL;
    ITOI_BUMP(w->n_switches);
    if (ITOI_UNLIKELY(itoi_switch_hook != NULL)) itoi_switch_hook(w, NULL, next);
#if defined(ITOI_ASAN) || defined(ITOI_TSAN)
    itoi_san_ctx_t c;
    san_ctx(w, next, &c);
    itoi_san_before(NULL, 1, &c);
#endif
    itoa_switch_abi(&w->dead_sp, next ? next->sp : w->sched_sp, exit_post, stack);
    __builtin_unreachable();
}

/* The minimal-save yield (ito_coop_yield, assembly) asks here for the next context. */
void *itoi_coop_next(void *sp)
{
    itoi_worker_t *w = itoi_self_worker();
    itoi_ult_t *cur = w ? w->cur : NULL;
    ito_coop_flag = 0;
    if (!cur) return sp;
    itoi_ult_t *next = pick(w);
    if (!next && !side_pending(w)) return sp;
    cur->sp = sp;
    itoi_queue_push(&w->rq, cur);
    w->cur = next;
    w->prev = cur;
    ITOI_BUMP(w->n_switches);
    if (ITOI_UNLIKELY(itoi_switch_hook != NULL)) itoi_switch_hook(w, cur, next);
    return next ? next->sp : w->sched_sp;
}

/* ---- the scheduler context ---- */

static void idle(itoi_worker_t *w)
{
    atomic_fetch_add(&itoi_rt.want_work, 1);
    atomic_fetch_add(&itoi_rt.spinning, 1);
    ITOI_BUMP(w->n_idles);
    if (w->spin_ns == 0) w->spin_ns = IDLE_SPIN_NS;
    uint64_t t0 = itoi_now_ns(), until = t0 + w->spin_ns, t = t0;
    for (int i = 1;; i++) {
        if (work_visible(w)) {
            atomic_fetch_sub(&itoi_rt.spinning, 1);
            atomic_store_explicit(&w->n_spin_ns, w->n_spin_ns + (itoi_now_ns() - t0), memory_order_relaxed);
            w->spin_ns = w->spin_ns * 2 < IDLE_SPIN_NS ? w->spin_ns * 2 : IDLE_SPIN_NS;
            goto out;
        }
        itoi_spin_pause();
        if ((i & 15) == 0 && (t = itoi_now_ns()) >= until) break;
    }
    atomic_store_explicit(&w->n_spin_ns, w->n_spin_ns + (t - t0), memory_order_relaxed);
    w->spin_ns = w->spin_ns / 2 > IDLE_SPIN_MIN_NS ? w->spin_ns / 2 : IDLE_SPIN_MIN_NS;
    atomic_store(&w->sleep_state, 1);
    atomic_fetch_sub(&itoi_rt.spinning, 1);
    if (!work_visible(w)) {
        /* Sleep until woken, a kernel event, or the earliest timer of this worker. */
        uint64_t until = atomic_load_explicit(&w->timer_next, memory_order_relaxed);
        ITOI_BUMP(w->n_sleeps);
        if (atomic_load(&w->watched) > 0) itoi_idlewait_sleep(w, until); /* kernel events wake it too */
        else
            while (atomic_load(&w->sleep_state) == 1 && !timer_due(w)) futex_wait(&w->sleep_state, 1, until);
    }
    atomic_store(&w->sleep_state, 0);
out:
    atomic_fetch_sub(&itoi_rt.want_work, 1);
}

void itoi_worker_loop(itoi_worker_t *w)
{
    for (;;) {
        w->poll_due = 0;
        size_t did = run_calls(w);
        did += itoi_timers_run(w);
        did += run_pollers(w);
        itoi_ult_t *t = pick_ult(w);
        if (!t) t = steal(w);
        if (t) {
            switch_to(w, NULL, t, NULL, NULL);
            continue;
        }
        if (did || side_pending(w)) continue;
        if (atomic_load(&itoi_rt.shutdown)) return;
        idle(w);
    }
}

/* ---- parking, for synchronization objects ---- */

static void unlock_post(void *lock) { itoi_spin_unlock(lock); }

void itoi_park(itoi_worker_t *w, itoi_spinlock_t *held)
{
    itoi_block(w, unlock_post, held);
}

/* ---- moving to a given worker ---- */

static void migrate_post(void *unused)
{
    (void)unused;
    itoi_ready(itoi_self_worker()->prev); /* bound to the target: its inbox */
}

void itoi_migrate(itoi_worker_t *w, int target)
{
    itoi_ult_t *me = w->cur;
    if (w->index == target) return;
    int16_t bound = me->bound;
    me->bound = (int16_t)target;
    itoi_block(w, migrate_post, NULL);
    me->bound = bound;
}

/* ---- timed waits ---- */

static void block_timeout(itoi_worker_t *w, itoi_timer_t *tm)
{
    itoi_ult_t *t = (itoi_ult_t *)((char *)tm - offsetof(itoi_ult_t, timer));
    itoi_spinlock_t *l = t->wait_lock;
    if (l) itoi_spin_lock(l);
    bool removed = !t->wait_unlink || t->wait_unlink(t, t->wait_obj);
    if (l) itoi_spin_unlock(l);
    if (!removed) return; /* a waker took it off first: the waker readies it */
    t->wait_result = ITO_ETIMEDOUT;
    ITOI_BUMP(w->n_wakeups);
    itoi_ready_local(w, t); /* pinned here */
}

int itoi_block_until(itoi_worker_t *w, itoa_post_fn post, void *arg, uint64_t deadline,
                     itoi_spinlock_t *lock, itoi_unlink_fn unlink, void *obj, const char *what)
{
    itoi_ult_t *me = w->cur;
    me->blocked_on = what;
    if (deadline == ITO_FOREVER) {
        itoi_block(w, post, arg);
        me->blocked_on = NULL;
        return me->wait_result;
    }
    /* Pinned to w until the timer is disarmed: w owns the timer's heap. */
    int16_t bound = me->bound;
    me->bound = (int16_t)w->index;
    me->wait_unlink = unlink;
    me->wait_obj = obj;
    me->wait_lock = lock;
    itoi_timer_arm(w, &me->timer, deadline, block_timeout);
    itoi_block(w, post, arg);
    w = itoi_self_worker(); /* the same worker: pinned */
    itoi_timer_cancel(w, &me->timer);
    me->bound = bound;
    me->blocked_on = NULL;
    return me->wait_result;
}

int itoi_park_until(itoi_worker_t *w, itoi_spinlock_t *held, uint64_t deadline, itoi_unlink_fn unlink,
                    void *obj, const char *what)
{
    return itoi_block_until(w, unlock_post, held, deadline, held, unlink, obj, what);
}
