/* sched.c: the scheduler. One set of per-worker queues holds every kind of ready unit:
 * stackful ULTs and stackless units (zero-wait threads), scheduled together.
 *
 * Units. A ready unit is an itoi_unit_t {next, run}: a ULT (run == NULL) is switched to;
 * a stackless unit (run != NULL: a ZWT entry) is run to completion by a call of
 * run(w, unit) on the worker's scheduler context, between ULTs. Both are made ready by
 * itoi_unit_ready (ULTs by itoi_ready), both wait in the same FIFO, are published and
 * stolen the same way, and are counted by the same rules.
 *
 * Per worker (who may touch what):
 *  - rq: the private FIFO. Touched only by code running on the worker. The hot paths
 *    (yield, create, exit, a ZWT firing the next) use only it: no atomic
 *    read-modify-write, no lock, no system call.
 *  - steal (steal_lock): units the worker published for thieves, taken half at a time by
 *    idle workers. A worker publishes only while some worker wants work
 *    (itoi_rt.want_work, a relaxed load at scheduling points), and only units whose
 *    context is completely saved: a ULT that switches out is published by the post action
 *    of its switch, which runs on the next context's stack.
 *  - inbox (inbox_lock): units made ready for this worker by other workers (bound ULTs,
 *    a timed waiter's wake-up) or by foreign threads; drained by the owner. The unbound
 *    units of foreign threads (counted in inbox_free) may also be taken by an idle worker
 *    (steal_inbox): the owner may be busy for long with a ULT that does not yield.
 *  - calls: functions other threads want run on this worker (itoi_worker_call).
 *  - timers (timer.c): the owner's heap; fired in the scheduler context.
 *
 * The one fairness rule: at a look, at least every 64 scheduling points, a worker takes
 * back what it published and nobody stole (so a unit in the steal queue, say the holder
 * of a lock that others retry for, cannot starve behind units that keep re-queueing
 * themselves, whatever kind either is) and puts each unit back in its place in the FIFO
 * (what offload took from the head to the head, units made ready meanwhile to the tail;
 * none of the former is published again before it has run: reclaim, offload), and
 * visits its scheduler context if kernel events may wait (watched fds), a timer is due,
 * or a mechanism's idle probe says its poller has work. The next look is w->look (a
 * tick): 64 points on, or, while timers are armed, the point where the earliest deadline
 * should have passed, judged by the clock and how long the points since the last such
 * look took (look_gap; one clock read per look, which the 64-point look paid anyway
 * while timers were armed); arming a new
 * earliest timer brings it to the next point (timer.c). Before 2026-12-05 the look came
 * every 64th point whatever the timers: beside two ULTs computing 100 us between yields
 * a 1 ms sleep took 63-64 points, about 6.3 ms (test_timer_busy_worker). A lazy timer
 * (itoi_timer_t.lazy: the WSC latency bound's ticks) places no look: it is seen at the
 * 64-point looks, as before (placed by its ticks, the looks' visits cost a busy echo
 * server about 10 %).
 * The fast paths (yield, block, exit handing over to the next ULT: head_is_ult) leave
 * the inbox, calls and idle workers to that point too: what other threads post waits at
 * most 63 scheduling points of the worker. A scheduling point that a timer asked for (a
 * preemption tick, a compiled yield after one) takes the look at kernel events, timers,
 * requests, the inbox and calls at once (itoi_tick_point): beside ULTs that never block,
 * ticks are the only points, and 64 of them are 64 quanta.
 *
 * The one steal path: an idle worker takes half of a victim's steal queue, any kind, and
 * the unbound units foreign threads left in its inbox (to_inbox: a sleeper is woken for
 * them when the victim was not asleep, as for published units).
 *
 * The one sleep/wake protocol: an idle worker spins a while (adaptive, up to 50 us)
 * looking for work, then stores sleep_state = SLEEPING, looks once more, and sleeps on its
 * futex, or in epoll_wait when mechanisms watch fds (idlewait.c), until its earliest
 * timer. A waker publishes work first and then reads sleep_state (both sequentially
 * consistent), so no wake-up is lost; it takes the state back to 0 with an exchange and
 * wakes the sleeper the way the state says: a futex wake for SLEEPING, the wake eventfd
 * for IN_EPOLL. The sleeper announces the epoll sleep by a compare-and-swap SLEEPING ->
 * IN_EPOLL before it enters epoll_wait: if a waker took the state first, the swap fails
 * and it does not sleep. (The waker used to decide by reading the sleeper's `watched`
 * count instead, which could still be 0 while the sleeper, reading it a moment later,
 * found the fd a third thread had just added and slept in epoll_wait: that third
 * thread's wake found the state already 0, and nobody wrote the eventfd. Found by
 * test_foreign_teardown: a worker asleep for ever at finalize.) Publishing for thieves
 * wakes a sleeper only when nobody spins.
 *
 * Where a unit made ready goes (itoi_unit_ready): a bound ULT to its worker (inbox if
 * that is not the caller's worker); otherwise, on a worker, to the private queue, or to
 * the steal queue at once while some worker wants work and this one has something else
 * to do (a ULT is running, or the queue is not empty: a ZWT chain fired from the
 * scheduler context keeps its next unit instead of bouncing it between workers); from a
 * foreign thread, to an inbox (a ULT's home worker, worker 0 for stackless units; an
 * unbound unit to an idle worker instead when its home is busy: foreign_target), where
 * a worker that idles later may take it (steal_inbox).
 *
 * Mechanisms plug in through hooks, never through fields of this file: pollers (run by
 * the scheduler context), sleep hooks and idle probes (idlewait.c), the switch hook and
 * the wake-front hook (register windows), the pick filter (gang scheduling parks the ULTs
 * of groups whose turn it is not), calls between workers, timers, and per-worker and
 * per-ULT slots (itoi.h).
 *
 * Every switch goes through switch_with(): the sanitizers' fiber annotations, the switch
 * hook, the counter, and a switch primitive with an optional post action that runs on
 * the new stack once the old context is saved. */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ito/coop.h"
#include "ultstate.h"
#include "itoi.h"
#include "sanitizer.h"

_Thread_local itoi_worker_t *itoi_tls_worker;
_Atomic(itoi_switch_hook_fn) itoi_switch_hook;
_Atomic(itoi_wake_front_fn) itoi_wake_front_hook;
_Atomic(itoi_pick_filter_fn) itoi_pick_filter;
_Atomic(itoi_leave_fn) itoi_must_leave;
_Atomic int itoi_hooked;

void itoi_hooks_changed(void)
{
    atomic_store(&itoi_hooked, itoi_switch_hook_get() != NULL || atomic_load(&itoi_pick_filter) != NULL);
}

/* How long an idle worker looks for work before it sleeps. At most about the cost of a
 * sleep and a wake-up (a futex or epoll round trip), so that short gaps are bridged
 * without system calls; adaptive below that: a spin that ended in sleep halves the next
 * one (down to IDLE_SPIN_MIN_NS), a spin that found work doubles it, so a worker whose
 * spins keep failing (say, one waiting for its I/O while the other worker has the ready
 * threads) stops burning the CPU the other threads of the machine could use. */
#define IDLE_SPIN_NS 50000
#define IDLE_SPIN_MIN_NS 2000
#define OFFLOAD_MAX 64
#define UNITS_PER_ROUND 64 /* stackless units run per scheduler round before the pollers again */

bool itoi_queue_remove(itoi_queue_t *q, itoi_unit_t *u)
{
    itoi_unit_t *prev = NULL;
    for (itoi_unit_t *x = q->head; x; prev = x, x = x->next) {
        if (x != u) continue;
        if (prev) prev->next = x->next; else q->head = x->next;
        if (q->tail == x) q->tail = prev;
        q->n--;
        return true;
    }
    return false;
}

/* ---- sleeping and waking ---- */

/* Sleep while *addr == val, at most `d` ns (ITO_FOREVER: no bound). */
static void futex_wait(_Atomic int *addr, int val, uint64_t d)
{
    struct timespec ts, *tp = NULL;
    if (d != ITO_FOREVER) {
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

bool itoi_wake_worker(itoi_worker_t *w)
{
    if (atomic_load(&w->sleep_state) == ITOI_AWAKE) return false;
    int was = atomic_exchange(&w->sleep_state, ITOI_AWAKE);
    if (was == ITOI_SLEEPING) futex_wake(&w->sleep_state);
    else if (was == ITOI_IN_EPOLL) itoi_idlewait_wake(w);
    return was != ITOI_AWAKE;
}

void itoi_wake_all(void)
{
    for (int i = 0; i < itoi_rt.nworkers; i++) itoi_wake_worker(&itoi_rt.workers[i]);
}

/* Work was just published for thieves: make sure some worker will look at it. A worker
 * that is spinning in its idle loop will (it checks again after it announces that it
 * sleeps), so a sleeper is woken only when nobody spins: one futex call per burst of
 * work instead of one per unit. */
static void wake_one_sleeper(itoi_worker_t *self)
{
    if (atomic_load(&itoi_rt.spinning) > 0) return;
    for (int i = 1; i < itoi_rt.nworkers; i++) {
        itoi_worker_t *v = &itoi_rt.workers[(self->index + i) % itoi_rt.nworkers];
        if (atomic_load(&v->sleep_state) != ITOI_AWAKE) {
            itoi_wake_worker(v);
            return;
        }
    }
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

/* The scheduler context's kernel-side sources want a visit: descriptors are watched (their
 * events arrive only there) or a timer is due. Looked at by the fairness rule and by a
 * tick's scheduling point (itoi_tick_point). */
static inline bool sources_due(itoi_worker_t *w)
{
    return atomic_load_explicit(&w->watched, memory_order_relaxed) > 0 || timer_due(w);
}

/* ---- pollers (mechanisms' work outside the queues) ---- */

static itoi_hook_table_t pollers = {.cap = 8};

int itoi_poller_add(itoi_poll_fn fn) { return itoi_hook_add(&pollers, (itoi_hook_fn)fn, NULL); }

static size_t run_pollers(itoi_worker_t *w)
{
    size_t did = 0;
    int n = itoi_hook_count(&pollers);
    for (int i = 0; i < n; i++) did += ((itoi_poll_fn)pollers.a[i])(w, 64);
    return did;
}

/* Something for the scheduler context (not a ULT) to do before the next ULT. */
static inline bool sched_due(itoi_worker_t *w)
{
    return w->poll_due || atomic_load_explicit(&w->calls, memory_order_relaxed) != NULL;
}

/* ---- queues ---- */

static void drain_inbox(itoi_worker_t *w)
{
    itoi_spin_lock(&w->inbox_lock);
    itoi_queue_append(&w->rq, &w->inbox);
    atomic_store_explicit(&w->inbox_n, 0, memory_order_relaxed);
    atomic_store_explicit(&w->inbox_free, 0, memory_order_relaxed);
    itoi_spin_unlock(&w->inbox_lock);
}

static inline bool unit_bound(const itoi_unit_t *u)
{
    return u->run == NULL && ((const itoi_ult_t *)u)->bound >= 0;
}

/* Publish part of the private queue (unbound units only, from its head) for thieves:
 * half of it, at most OFFLOAD_MAX, and only when the thieves have taken the previous
 * batch; the scan is bounded too, so a queue full of bound ULTs costs O(1) here.
 * Not while what the last reclaim put back at the head may not have run yet (counted in
 * scheduling points since the reclaim, each of which takes at most one unit off the
 * head): those units waited in the steal queue once already. Published again at once,
 * the same batch went back and forth while no thief came and the worker ran one of them
 * per look; published from behind them instead, the batch came back ahead of them at
 * the next reclaim, and a unit at the boundary was passed again at every look (both
 * found by test_steal_fifo_wait: waits of many rounds of the queue). */
static void offload(itoi_worker_t *w)
{
    if (atomic_load_explicit(&w->steal_n, memory_order_relaxed) != 0) return;
    if (w->tick - w->kept_tick < w->kept_n) return;
    itoi_flush_pending(w);
    size_t k = w->rq.n / 2;
    if (k > OFFLOAD_MAX) k = OFFLOAD_MAX;
    itoi_queue_t give = {0}, keep = {0};
    for (size_t bound_seen = 0; k && w->rq.head && bound_seen < 8;) {
        itoi_unit_t *u = itoi_queue_pop(&w->rq);
        if (unit_bound(u)) {
            itoi_queue_push(&keep, u);
            bound_seen++;
        } else {
            itoi_queue_push(&give, u);
            k--;
        }
    }
    itoi_queue_append(&keep, &w->rq);
    w->rq = keep;
    if (!give.n) return;
    itoi_spin_lock(&w->steal_lock);
    /* the steal queue is empty (steal_n was 0, and only this worker adds to it): the
     * batch is its front part, the units that were ahead of everything in rq */
    w->steal_front = give.n;
    w->steal_front_last = give.tail;
    itoi_queue_append(&w->steal, &give);
    atomic_store(&w->steal_n, w->steal.n);
    itoi_spin_unlock(&w->steal_lock);
    wake_one_sleeper(w);
}

void itoi_publish_some(itoi_worker_t *w)
{
    if (atomic_load_explicit(&itoi_rt.want_work, memory_order_relaxed) > 0 && w->rq.n > 1) offload(w);
}

/* Take back what nobody stole, each part to its place in the FIFO: the front part (what
 * offload took from the head of rq and thieves left) back to the head, in order; the rest
 * (units made ready while a worker wanted work, itoi_ready_local_slow, newer than
 * everything in rq) to the tail. Until 2026-12-06 all of it went to the tail: a unit
 * published from the head waited a whole extra round of the queue behind the ones that
 * had yielded after it, and again each time it was published and left (beside 4,000
 * yielders on worker 0 and a thief busy with its batches, waits of up to 17 rounds;
 * test_steal_fifo_wait). */
static void reclaim(itoi_worker_t *w)
{
    itoi_spin_lock(&w->steal_lock);
    itoi_queue_t q = w->steal;
    size_t front = w->steal_front;
    itoi_unit_t *front_last = w->steal_front_last;
    w->steal = (itoi_queue_t){0};
    w->steal_front = 0;
    atomic_store(&w->steal_n, 0);
    itoi_spin_unlock(&w->steal_lock);
    if (front != 0) { /* q = front part, then the rest: front part + rq + rest */
        itoi_queue_t rest = {front_last->next, front_last->next ? q.tail : NULL, q.n - front};
        front_last->next = NULL;
        q.tail = front_last;
        q.n = front;
        itoi_queue_append(&q, &w->rq);
        itoi_queue_append(&q, &rest);
        w->rq = q;
    } else {
        itoi_queue_append(&w->rq, &q);
    }
    w->kept_tick = w->tick;
    w->kept_n = (uint32_t)front;
}

/* A ULT gets its stack when first picked. Its stack was promised when it was created (a
 * credit, stack.c), so this fails only when the kernel refuses a mapping the promise
 * counted on; the ULT then waits at the tail of the queue (said once on stderr). */
static bool give_stack(itoi_worker_t *w, itoi_ult_t *t)
{
    static _Atomic int warned;
    if (ITOI_LIKELY(itoi_ult_attach_stack(w, t))) return true;
    if (!atomic_exchange(&warned, 1))
        fprintf(stderr, "ito: the kernel refused memory for a promised ULT stack; the ULT waits until "
                        "another ULT frees one\n");
    itoi_queue_push(&w->rq, &t->u);
    return false;
}

/* How many points after this look the next one comes, while a timer is armed: where
 * its deadline should pass, judged by the clock and how long a point lasts. That length
 * (w->look_per) is the longest of what the points since the last look that read the
 * clock took on average and of the previous estimate less an eighth: it rises at once
 * when points grow, so that the next look does not overshoot again, and sinks slowly
 * when they shrink (one look in the points between a 100 us computation and a 2 us
 * visit of the scheduler context, taken alone, overshot a 150 us deadline by 25
 * points). 1 while there is no estimate yet (the next point gives one) and when the
 * deadline has passed (this look's visit fires it; the next look places itself by the
 * timer after it). The division is paid once per look, never on the fast paths. */
static uint32_t look_gap(itoi_worker_t *w, uint64_t now, uint64_t next)
{
    uint32_t points = w->tick - w->look_tick;
    if (w->look_ns != 0 && now > w->look_ns && points != 0) {
        uint64_t per = (now - w->look_ns) / points, keep = w->look_per - w->look_per / 8;
        w->look_per = per > keep ? per : keep;
    }
    w->look_ns = now;
    w->look_tick = w->tick;
    uint64_t gap = now < next && w->look_per != 0 ? (next - now) / w->look_per : 1;
    return gap < 1 ? 1 : gap > ITOI_LOOK_EVERY ? ITOI_LOOK_EVERY : (uint32_t)gap;
}

/* The look (the fairness rule's point): take back what was published and nobody stole;
 * look at the scheduler context's sources (kernel events, timers) and the mechanisms'
 * idle probes; place the next look. */
static void look(itoi_worker_t *w)
{
    if (atomic_load_explicit(&w->steal_n, memory_order_relaxed)) reclaim(w);
    uint32_t gap = ITOI_LOOK_EVERY;
    bool due = atomic_load_explicit(&w->watched, memory_order_relaxed) > 0;
    uint64_t next = atomic_load_explicit(&w->timer_next, memory_order_relaxed);
    if (next == ITO_FOREVER) {
        w->look_ns = 0;
    } else if (w->timers->lazy) {
        due = due || timer_due(w); /* as before timers placed looks: no clock read when due anyway */
    } else {
        uint64_t now = itoi_now_ns();
        due = due || now >= next;
        gap = look_gap(w, now, next);
    }
    if (due || itoi_idle_probe(w)) w->poll_due = 1;
    w->look = (uint16_t)(w->tick + gap);
}

/* The next unit to run on w, or NULL; the slow part of pick (rarely taken). */
static itoi_unit_t *pick_slow(itoi_worker_t *w)
{
    if (atomic_load_explicit(&w->inbox_n, memory_order_relaxed) != 0) drain_inbox(w);
    if ((uint16_t)w->tick == w->look) look(w);
    itoi_unit_t *u = itoi_queue_pop(&w->rq);
    if (!u && atomic_load_explicit(&w->steal_n, memory_order_relaxed) != 0) {
        reclaim(w);
        u = itoi_queue_pop(&w->rq);
    }
    return u;
}

/* A ULT unit's stack, given now if it has none. false: no stack could be had (the unit
 * was put back to wait for one). */
static inline bool ult_stacked(itoi_worker_t *w, itoi_ult_t *t)
{
    return ITOI_LIKELY(t->stack != NULL) || give_stack(w, t);
}

/* The gang filter (preempt/gang.c). false: the unit may not run now (it was put
 * elsewhere). */
static inline bool ult_passes_filter(itoi_worker_t *w, itoi_ult_t *t)
{
    itoi_pick_filter_fn f = atomic_load_explicit(&itoi_pick_filter, memory_order_relaxed);
    return ITOI_LIKELY(f == NULL) || f(w, t);
}

/* Prepare a ULT unit to run: its stack, the gang filter. false: it cannot run now. */
static inline bool ult_runnable(itoi_worker_t *w, itoi_ult_t *t)
{
    return ult_stacked(w, t) && ult_passes_filter(w, t);
}

/* The next unit for w; NULL when there is none. Hot: a yield between two ULTs takes the
 * fast path (one pop, three relaxed loads). */
static inline itoi_unit_t *pick_unit(itoi_worker_t *w)
{
    itoi_unit_t *u;
    if (ITOI_LIKELY((uint16_t)++w->tick != w->look &&
                    atomic_load_explicit(&w->inbox_n, memory_order_relaxed) == 0 && (u = itoi_queue_pop(&w->rq))))
        ;
    else
        u = pick_slow(w);
    if (ITOI_UNLIKELY(atomic_load_explicit(&itoi_rt.want_work, memory_order_relaxed) > 0) && w->rq.n > 0)
        offload(w);
    return u;
}

/* The next ULT for a ULT's scheduling point; NULL means "go to the scheduler context":
 * nothing is ready, or it has work (a stackless unit is next, pollers, calls). */
static __attribute__((noinline)) itoi_ult_t *pick_ult_slow(itoi_worker_t *w)
{
    itoi_flush_pending(w);
    for (;;) {
        if (ITOI_UNLIKELY(sched_due(w))) return NULL;
        itoi_unit_t *u = pick_unit(w);
        if (!u) return NULL;
        if (ITOI_UNLIKELY(u->run != NULL)) { /* stackless: the scheduler context runs it */
            itoi_queue_push_front(&w->rq, u);
            return NULL;
        }
        itoi_ult_t *t = (itoi_ult_t *)u;
        /* A ULT that found no stack went back to the queue: the scheduler context waits
         * for one instead of this loop, which runs in a parking ULT's context (its
         * object's lock held) and would pick it again and again: that lock, the calls that
         * give other workers' pools back (stack.c) and the timers would wait for ever (a
         * worker spun here holding a semaphore's lock whose ito_sem_post spun on main's
         * worker, the one whose pool held the free stacks; found by an outside tester,
         * h69e, under RLIMIT_AS: test_stack_wait_unlocked). */
        if (!ult_stacked(w, t)) return NULL;
        if (ITOI_LIKELY(ult_passes_filter(w, t))) return t;
    }
}

/* Whether the head of the private queue may simply be taken: a ULT, and nothing of this
 * worker's own pending (a created ULT not yet queued, the fairness rule's point, a due
 * visit of the scheduler context) and no hook installed (the pick filter, the switch
 * hook: itoi_hooked). What other threads post (the inbox, calls) and idle workers
 * wanting work are not looked at here: the fairness rule's point, at most 63 points
 * later, takes the general path, which drains the inbox, runs the calls and offloads.
 * (Measured 2026-11-27, AMD EPYC: with these loads and the two hook globals gone, two
 * ULTs yielding to each other took 8.2-8.4 ns instead of 8.5-9.1, minima of interleaved
 * processes; a path with no checks at all, 7.4.) */
static inline bool head_is_ult(itoi_worker_t *w, itoi_unit_t *u)
{
    /* The tick moves only when the head is taken here: a point that is a look (the
     * fairness rule's) is refused without being used up, so the general path that
     * follows (pick_unit) reaches it. */
    if (u != NULL && w->pending == NULL && u->run == NULL && (uint16_t)(w->tick + 1) != w->look && !w->poll_due &&
        atomic_load_explicit(&itoi_hooked, memory_order_relaxed) == 0) {
        w->tick++;
        return true;
    }
    return false;
}

static inline bool head_is_plain(itoi_worker_t *w, itoi_unit_t *u)
{
    /* u->run first: a stackless unit is no itoi_ult_t, and its memory past the unit is
     * not a stack pointer (the order mattered once descriptors became cache-line aligned:
     * UBSan reported the misaligned member access of a ZWT entry read as a ULT) */
    return u != NULL && u->run == NULL && ((itoi_ult_t *)u)->stack != NULL && head_is_ult(w, u);
}

/* The head of the ready queue taken if it is a plain ULT (head_is_plain), else NULL. */
static inline itoi_ult_t *take_plain_head(itoi_worker_t *w)
{
    itoi_unit_t *u = w->rq.head;
    if (ITOI_LIKELY(head_is_plain(w, u))) {
        if (!(w->rq.head = u->next)) w->rq.tail = NULL;
        w->rq.n--;
        return (itoi_ult_t *)u;
    }
    return NULL;
}

static inline itoi_ult_t *pick_ult(itoi_worker_t *w)
{
    itoi_ult_t *t = take_plain_head(w);
    return ITOI_LIKELY(t != NULL) ? t : pick_ult_slow(w);
}

/* Take the free units of v's inbox (to_inbox: unbound units from foreign threads, left
 * there while v is busy) into w's queue, in order; the bound ones stay. */
static bool steal_inbox(itoi_worker_t *w, itoi_worker_t *v)
{
    if (!itoi_spin_trylock(&v->inbox_lock)) return false;
    itoi_queue_t keep = {0};
    size_t taken = 0;
    for (itoi_unit_t *u; (u = itoi_queue_pop(&v->inbox)) != NULL;) {
        bool bound = unit_bound(u);
        itoi_queue_push(bound ? &keep : &w->rq, u);
        taken += !bound;
    }
    v->inbox = keep;
    atomic_store_explicit(&v->inbox_free, 0, memory_order_relaxed);
    atomic_store(&v->inbox_n, keep.n);
    itoi_spin_unlock(&v->inbox_lock);
    ITOI_OWN_ADD(w->n_steals, taken);
    return taken != 0;
}

static itoi_unit_t *steal(itoi_worker_t *w)
{
    int n = itoi_rt.nworkers;
    for (int i = 1; i < n; i++) {
        itoi_worker_t *v = &itoi_rt.workers[(w->index + i) % n];
        if (atomic_load_explicit(&v->inbox_free, memory_order_relaxed) != 0 && steal_inbox(w, v))
            return itoi_queue_pop(&w->rq);
        if (atomic_load_explicit(&v->steal_n, memory_order_relaxed) == 0) continue;
        if (!itoi_spin_trylock(&v->steal_lock)) continue;
        size_t k = (v->steal.n + 1) / 2, taken = 0;
        while (k-- && v->steal.head) {
            itoi_unit_t *u = itoi_queue_pop(&v->steal);
            if (u->run) ITOI_BUMP(w->n_steals_stackless);
            itoi_queue_push(&w->rq, u);
            taken++;
        }
        v->steal_front = taken < v->steal_front ? v->steal_front - taken : 0; /* taken from the front */
        atomic_store(&v->steal_n, v->steal.n);
        itoi_spin_unlock(&v->steal_lock);
        if (w->rq.head) {
            ITOI_OWN_ADD(w->n_steals, taken); /* units, not steal operations */
            return itoi_queue_pop(&w->rq);
        }
    }
    return NULL;
}

static bool work_visible(itoi_worker_t *w)
{
    if (atomic_load(&w->inbox_n) || atomic_load(&itoi_rt.shutdown) || sched_due(w) ||
        atomic_load(&itoi_rt.side_shared) > 0)
        return true;
    if (timer_due(w) || itoi_idle_probe(w)) return true;
    for (int i = 0; i < itoi_rt.nworkers; i++)
        if (atomic_load(&itoi_rt.workers[i].steal_n) || atomic_load(&itoi_rt.workers[i].inbox_free)) return true;
    return false;
}

/* ---- making units ready ---- */

void itoi_ready_local_slow(itoi_worker_t *w, itoi_unit_t *u)
{
    if (ITOI_UNLIKELY(atomic_load_explicit(&itoi_rt.want_work, memory_order_relaxed) > 0) && !unit_bound(u) &&
        (w->cur || w->rq.head) && atomic_load_explicit(&w->steal_n, memory_order_relaxed) < OFFLOAD_MAX) {
        /* Someone is idle and this worker has other work: make it stealable at once. */
        itoi_spin_lock(&w->steal_lock);
        itoi_queue_push(&w->steal, u);
        atomic_store(&w->steal_n, w->steal.n);
        itoi_spin_unlock(&w->steal_lock);
        wake_one_sleeper(w);
        return;
    }
    itoi_wake_front_fn front = itoi_wake_front_get();
    if (ITOI_UNLIKELY(front != NULL) && u->run == NULL && front(w, (itoi_ult_t *)u))
        itoi_queue_push_front(&w->rq, u);
    else
        itoi_queue_push(&w->rq, u);
}

/* stealable: an unbound unit from a foreign thread, which any idle worker may take from the
 * inbox (steal_inbox) if `to` has not drained it first. `to` may be busy for long (no worker
 * idled as the thread looked, or `to` stopped idling just then), so when it was not asleep
 * a sleeping worker is woken for the unit, as for published units (wake_one_sleeper).
 * No wake-up is lost: the count is stored before the sleep states are read, and an idle
 * worker stores its state before work_visible reads the counts (all sequentially
 * consistent). */
static void to_inbox(itoi_worker_t *to, itoi_unit_t *u, bool stealable)
{
    itoi_spin_lock(&to->inbox_lock);
    itoi_queue_push(&to->inbox, u);
    if (stealable) atomic_fetch_add(&to->inbox_free, 1);
    atomic_store(&to->inbox_n, to->inbox.n);
    itoi_spin_unlock(&to->inbox_lock);
    if (!itoi_wake_worker(to) && stealable) wake_one_sleeper(to);
}

/* Where an unbound unit that a foreign thread made ready goes: its home worker (worker 0
 * for stackless units), unless that one is busy and another idles: then the idle one.
 * The idling flags are hints, and no worker may idle as the thread looks: so the unit is
 * also stealable in the inbox it goes to (to_inbox), and a worker that idles later takes
 * it (steal_inbox). History (test_foreign_ready_idle): with inboxes drained only by their
 * owners, a unit sent to a busy home waited for its next scheduling point with the other
 * workers idle (a ZWT continued from a foreign thread beside a CPU-bound main on 4
 * workers: 888 ms; h61b, 2026-12-05), and until 2026-12-07 also when no worker idled at
 * the moment of the look but one did right after (h77b). */
static itoi_worker_t *foreign_target(itoi_worker_t *home)
{
    if (atomic_load_explicit(&home->idling, memory_order_relaxed)) return home;
    for (int i = 0; i < itoi_rt.nworkers; i++)
        if (atomic_load_explicit(&itoi_rt.workers[i].idling, memory_order_relaxed)) return &itoi_rt.workers[i];
    return home;
}

void itoi_ready(itoi_ult_t *t)
{
    itoi_worker_t *w = itoi_self_worker();
    if (w) ITOI_BUMP(w->n_wakeups);
    else atomic_fetch_add_explicit(&itoi_rt.foreign_wakeups, 1, memory_order_relaxed);
    if (w && (t->bound < 0 || t->bound == w->index)) {
        itoi_ready_local(w, &t->u);
        return;
    }
    if (t->bound >= 0) {
        to_inbox(&itoi_rt.workers[t->bound], &t->u, false);
        return;
    }
    to_inbox(foreign_target(&itoi_rt.workers[(int)(t->id % (uint64_t)itoi_rt.nworkers)]), &t->u, true);
}

void itoi_unit_ready(itoi_unit_t *u)
{
    itoi_worker_t *w = itoi_self_worker();
    if (ITOI_LIKELY(w != NULL)) {
        ITOI_BUMP(w->n_units_ready);
        itoi_ready_local(w, u);
        return;
    }
    /* A foreign thread: counted as live work at once (finalize), queued on worker 0 (or
     * an idle one). */
    atomic_fetch_add_explicit(&itoi_rt.foreign_units, 1, memory_order_relaxed);
    to_inbox(foreign_target(&itoi_rt.workers[0]), u, true);
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
    itoi_state_switch(w, from, to);
    w->cur = to;
    w->prev = from;
    ITOI_BUMP(w->n_switches);
    itoi_switch_hook_fn hook = itoi_switch_hook_get();
    if (ITOI_UNLIKELY(hook != NULL)) hook(w, from, to);
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

static inline void switch_to(itoi_worker_t *w, itoi_ult_t *from, itoi_ult_t *to, itoa_post_fn post, void *arg)
{
    switch_with(itoa_switch_abi, w, from, to, post, arg);
}

/* Whether a ULT with nothing else ready should still visit its scheduler context:
 * mechanisms have work there (requests in flight to reap, calls, due pollers), or the
 * ULT may not go on (the leave test: a compiled yield of a gang whose turn ended). */
static inline bool visit_anyway(itoi_worker_t *w)
{
    if (w->io_pending || sched_due(w) || atomic_load_explicit(&w->inbox_n, memory_order_relaxed)) return true;
    itoi_leave_fn leave = atomic_load_explicit(&itoi_must_leave, memory_order_relaxed);
    return ITOI_UNLIKELY(leave != NULL) && leave(w, w->cur);
}

/* A yield that saves everything, as a preemptive switch must (ito_coop_yield_full
 * and the preemption signal handler use it). */
bool itoi_yield_worker_full(itoi_worker_t *w, bool leave)
{
    itoi_ult_t *cur = w->cur;
    itoi_ult_t *next = pick_ult(w);
    /* leave: the caller may not go on even with nothing else ready (gang scheduling: its
     * group's turn is over); the scheduler context then parks it and looks for work */
    if (!next && !w->rq.head && !leave && !visit_anyway(w)) return false;
    itoi_queue_push(&w->rq, &cur->u);
    switch_with(itoa_switch_full, w, cur, next, NULL, NULL);
    return true;
}

static inline void yield_on(itoi_worker_t *w)
{
    itoi_ult_t *cur = w->cur;
    itoi_ult_t *next = pick_ult(w);
    if (ITOI_UNLIKELY(!next) && !w->rq.head && !visit_anyway(w)) return;
    itoi_queue_push(&w->rq, &cur->u);
    switch_to(w, cur, next, NULL, NULL);
}

void itoi_yield_worker(itoi_worker_t *w) { yield_on(w); }

/* The general path of ito_yield, out of line so that the fast path builds no frame. */
__attribute__((noinline)) static int yield_slow(itoi_worker_t *w)
{
    yield_on(w);
    return ITO_OK;
}

/* A switch between two ULTs with no post action and no hook: the tail of the fast
 * paths. In release builds it ends in a tail call of the switch (whose resume returns
 * 0 = ITO_OK for the caller); the sanitizer trees take the annotated path. */
static inline int fast_switch(itoi_worker_t *w, itoi_ult_t *from, itoi_ult_t *to)
{
#if defined(ITOI_ASAN) || defined(ITOI_TSAN)
    switch_to(w, from, to, NULL, NULL);
    return ITO_OK;
#else
    itoi_state_switch(w, from, to);
    w->cur = to;
    w->prev = from;
    ITOI_BUMP(w->n_switches);
    itoa_hint_resume(to->sp);
    return itoa_switch_abi_np(&from->sp, to->sp);
#endif
}

/* Let the scheduler context run once (its pollers: buffered requests, completions),
 * then come back. */
void itoi_visit_sched(itoi_worker_t *w)
{
    itoi_flush_pending(w);
    itoi_ult_t *cur = w->cur;
    itoi_queue_push_front(&w->rq, &cur->u);
    switch_to(w, cur, NULL, NULL, NULL);
}

/* The public yield lives here so that the whole path is one function. Its fast path
 * covers the common case, a ULT first in the private queue and nothing of this worker's
 * own pending (head_is_ult): one pop, one push, the switch. Everything else (the
 * fairness rule's look, which also serves the inbox, calls and idle workers;
 * a hook; a unit without a stack or a stackless one) takes the general path. */
int ito_yield(void)
{
    itoi_worker_t *w = itoi_self_worker();
    itoi_ult_t *cur;
    if (ITOI_UNLIKELY(!w || !(cur = w->cur))) return ITO_ENOTULT;
    itoi_unit_t *u = w->rq.head;
    if (ITOI_LIKELY(head_is_plain(w, u))) {
        /* the queue keeps its length: u leaves its head, cur joins its tail */
        w->rq.head = u->next;
        cur->u.next = NULL;
        if (w->rq.head) w->rq.tail->next = &cur->u; else w->rq.head = &cur->u;
        w->rq.tail = &cur->u;
        return fast_switch(w, cur, (itoi_ult_t *)u);
    }
    return yield_slow(w);
}

int itoi_yield_to(itoi_worker_t *w, itoi_ult_t *t)
{
    itoi_ult_t *cur = w->cur;
    if (t == cur) return ITO_OK;
    itoi_flush_pending(w);
    if (!itoi_queue_remove(&w->rq, &t->u)) {
        itoi_yield_worker(w);
        return ITO_OK;
    }
    if (!t->stack && !itoi_ult_attach_stack(w, t)) {
        itoi_queue_push_front(&w->rq, &t->u);
        itoi_yield_worker(w);
        return ITO_OK;
    }
    /* The pick filter, as for any ULT about to run: with gang scheduling a ULT of a group
     * whose turn it is not is parked (the filter takes it), and the hand-off becomes a
     * plain yield (without it, a ULT of another group ran in the turn: test_gang_yield_to). */
    itoi_pick_filter_fn f = atomic_load_explicit(&itoi_pick_filter, memory_order_relaxed);
    if (ITOI_UNLIKELY(f != NULL) && !f(w, t)) {
        itoi_yield_worker(w);
        return ITO_OK;
    }
    itoi_queue_push(&w->rq, &cur->u);
    switch_to(w, cur, t, NULL, NULL);
    return ITO_OK;
}

/* itoi_block when the head of the queue is not a plain ULT (pick_ult_slow): out of line,
 * so that the common block, which calls nothing before its switch but the switch hook,
 * saves three registers instead of six (while pick_ult_slow was a call inside it). */
static __attribute__((noinline)) void block_slow(itoi_worker_t *w, itoa_post_fn post, void *arg)
{
    itoi_ult_t *cur = w->cur;
    itoi_ult_t *next = pick_ult_slow(w);
    switch_to(w, cur, next, post, arg);
}

void itoi_block(itoi_worker_t *w, itoa_post_fn post, void *arg)
{
    itoi_ult_t *next = take_plain_head(w); /* pick_ult's fast path */
    if (ITOI_LIKELY(next != NULL)) {
        switch_to(w, w->cur, next, post, arg);
        return;
    }
    block_slow(w, post, arg);
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

/* A joinable ULT's final state (itoi_exit_current): DONE if nobody joins it yet, REAPED
 * if it was detached or a joiner waits; its generation kept, the flags cleared. */
static inline uintptr_t exit_state(uintptr_t old)
{
    return (old & ITOI_ST_GEN_MASK) | (itoi_st_kind(old) == ITOI_LIVE ? ITOI_DONE : ITOI_REAPED);
}

/* ... when it is in a group (ITOI_ST_MEMBER) or the state changed under the first CAS (a
 * join, a detach, an ito_group_add): a member leaves its group before the CAS that
 * publishes the end, as a joiner may free t right after it. The bit stays set until that
 * CAS (only the end clears it), so the group is left once. Returns the state replaced. */
_Atomic(itoi_member_exit_fn) itoi_member_exit;

static __attribute__((noinline)) uintptr_t exit_state_slow(itoi_ult_t *t, uintptr_t old)
{
    bool left = false;
    for (;;) {
        if ((old & ITOI_ST_MEMBER) && !left) {
            /* the bit was read relaxed: the add's release CAS published the hook */
            atomic_thread_fence(memory_order_acquire);
            atomic_load_explicit(&itoi_member_exit, memory_order_relaxed)(t);
            left = true;
        }
        if (atomic_compare_exchange_weak_explicit(&t->state, &old, exit_state(old), memory_order_acq_rel,
                                                  memory_order_relaxed))
            return old;
    }
}

_Noreturn void itoi_exit_current(itoi_worker_t *w)
{
    itoi_ult_t *t = w->cur;
    if (ITOI_UNLIKELY(t->inline_jb != NULL)) __builtin_longjmp(t->inline_jb, 1); /* back to its joiner */
    itoi_stack_t *stack = t->stack;
    size_t stack_size = t->stack_size;
#if defined(ITOI_TSAN)
    w->dying_fiber = t->tsan_fiber;
#endif
    if (ITOI_UNLIKELY(t->on_exit != NULL)) t->on_exit(w, t);
    ITOI_BUMP(w->n_finished);
    itoi_stack_credit_return(w, stack_size);
    /* t may be freed and reused by another worker from here on: a tick's handler (which
     * reads the running ULT's region depth) and other workers (gang.c) must not find it
     * as this worker's current ULT any more. */
    __atomic_store_n(&w->cur, NULL, __ATOMIC_RELAXED);
    if (t->flags & ITOI_F_DETACHED) {
        /* Created detached: nobody else ever writes its state (join and detach only read
         * it and refuse; ito_group_add only from the ULT itself, which then leaves its
         * group through on_exit above), so no atomic is needed to end it. */
        itoi_ult_free(w, t);
    } else {
        /* Nobody joining: DONE, for a join or detach to reap. Detached, or a joiner
         * registered: REAPED at once, so that no other join or detach can take it (with
         * DONE there, a second joiner reaped it too: a double free), then freed here or
         * by that joiner. After this CAS a joiner may free t at any moment: t is not
         * touched again.
         * A member of a group (ITOI_ST_MEMBER, set by ito_group_add's CAS on this same
         * word) leaves it before that CAS, which clears the bit: an add that came first is
         * seen here (in the load, or as a failed CAS), an add after it finds DONE/REAPED and
         * refuses. The bit stays set until this CAS (nothing else clears it), so it is
         * left once. */
        uintptr_t old = atomic_load_explicit(&t->state, memory_order_relaxed);
        if (ITOI_UNLIKELY((old & ITOI_ST_MEMBER) ||
                          !atomic_compare_exchange_strong_explicit(&t->state, &old, exit_state(old),
                                                                   memory_order_acq_rel, memory_order_relaxed)))
            old = exit_state_slow(t, old);
        old = itoi_st_kind(old);
        if (old == ITOI_DETACHED) itoi_ult_free(w, t);
        else if (old != ITOI_LIVE) itoi_ready((itoi_ult_t *)old);
    }
#if !defined(ITOI_ASAN) && !defined(ITOI_TSAN)
    /* The next ULT has never run and wants a stack like ours: it starts on ours, fresh
     * frames at its top (nothing of this context is needed again; the three words
     * itoa_make writes are the dead entry frame of the trampoline). No pool traffic. */
    itoi_unit_t *h = w->rq.head;
    if (h != NULL && h->run == NULL && ((itoi_ult_t *)h)->stack == NULL && ((itoi_ult_t *)h)->stack_size == stack_size &&
        head_is_ult(w, h)) {
        if (!(w->rq.head = h->next)) w->rq.tail = NULL;
        w->rq.n--;
        itoi_ult_t *next = (itoi_ult_t *)h;
        next->stack = stack;
        itoi_state_switch(w, NULL, next); /* as below: t has ended */
        w->cur = next;
        w->prev = NULL;
        ITOI_BUMP(w->n_switches);
        itoa_resume(itoa_make(stack->base + stack->size, itoi_ult_entry));
    }
#endif
    itoi_ult_t *next = pick_ult(w);
    itoi_state_switch(w, NULL, next); /* nothing to save: t has ended */
    w->cur = next;
    w->prev = NULL;
    ITOI_BUMP(w->n_switches);
    itoi_switch_hook_fn hook = itoi_switch_hook_get();
    if (ITOI_UNLIKELY(hook != NULL)) hook(w, NULL, next);
#if defined(ITOI_ASAN) || defined(ITOI_TSAN)
    itoi_san_ctx_t c;
    san_ctx(w, next, &c);
    itoi_san_before(NULL, 1, &c);
    itoa_switch_abi(&w->dead_sp, next ? next->sp : w->sched_sp, exit_post, stack);
#else
    /* Nothing of this context needs saving. Its stack goes back before the resume only
     * into this worker's own pool, which no other thread takes from (we still run on it
     * until itoa_resume); a stack bound for a global list (another size class, or the
     * pool full) goes there in the post action, once the next context runs. */
    void *load = next ? next->sp : w->sched_sp;
    if (ITOI_LIKELY(itoi_stack_put_own(w, stack))) {
        if (next) itoa_hint_resume(load); /* a ULT's context: the word it reads lies in its
                                            * stack or the stack's header (the scheduler
                                            * context's first one lies at the very top of
                                            * its mapping) */
        itoa_resume(load);
    }
    itoa_switch_abi(&w->dead_sp, load, exit_post, stack);
#endif
    __builtin_unreachable();
}

/* A scheduling point that a timer asked for (a preemption tick, a compiled yield after
 * one) looks at the scheduler context's sources now, as the fairness rule does at every
 * 64th point, and at what other threads posted (the inbox: ULTs that foreign threads or
 * other workers woke; calls). Beside ULTs that never block, the ticks are the worker's
 * only scheduling points, and the 64th came 64 quanta later: completions, ready
 * descriptors, buffered requests, due timers and wake-ups waited that long (a server on
 * the wrappers beside three CPU-bound ULTs, 1 ms quantum, signal mode: 169-170
 * connections served in 10 s on io_uring, 1,397 with this look; sync backend 743-1,096
 * and 1,667-1,683; tests/test_preempt_io.c: 126 ticks per pipe round trip, now 6; a ULT
 * woken through a channel by a foreign thread beside two CPU-bound ULTs, flag mode,
 * 1 ms: 38.6 ms late at the median, now 2.5 ms). The look is the fairness rule's without
 * the idle probes (io_pending already says that the ring has requests out): about 10-15
 * cycles per compiled yield (switchcost-stub, a round of two compiled yields and two
 * ito_yields, 5 interleaved runs: median 598-606 -> 610-635 cycles); with the idle
 * probes it was about 35 per yield. */
void itoi_tick_point(itoi_worker_t *w)
{
    if (w->io_pending || sources_due(w) || atomic_load_explicit(&w->inbox_n, memory_order_relaxed) != 0 ||
        atomic_load_explicit(&w->calls, memory_order_relaxed) != NULL)
        w->poll_due = 1;
}

/* The minimal-save yield (ito_coop_yield, assembly) asks here for the next context. */
void *itoi_coop_next(void *sp)
{
    itoi_worker_t *w = itoi_self_worker();
    itoi_ult_t *cur = w ? w->cur : NULL;
    if (!itoi_coop_due(w) || !cur) return sp;
    itoi_tick_point(w);
    itoi_ult_t *next = pick_ult(w);
    if (!next && !w->rq.head && !visit_anyway(w)) return sp;
    cur->sp = sp;
    itoi_queue_push(&w->rq, &cur->u);
    itoi_state_switch(w, cur, next);
    w->cur = next;
    w->prev = cur;
    ITOI_BUMP(w->n_switches);
    itoi_switch_hook_fn hook = itoi_switch_hook_get();
    if (ITOI_UNLIKELY(hook != NULL)) hook(w, cur, next);
    return next ? next->sp : w->sched_sp;
}

/* ---- the scheduler context ---- */

/* When a sleeping worker must wake by itself: its earliest timer, or the cap a sleep
 * hook set, whichever comes first (ITO_FOREVER: neither). */
static inline uint64_t sleep_until(itoi_worker_t *w)
{
    uint64_t until = atomic_load_explicit(&w->timer_next, memory_order_relaxed);
    return w->sleep_cap < until ? w->sleep_cap : until;
}

static void idle(itoi_worker_t *w)
{
    atomic_fetch_add(&itoi_rt.want_work, 1);
    atomic_fetch_add(&itoi_rt.spinning, 1);
    atomic_store_explicit(&w->idling, 1, memory_order_relaxed);
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
    atomic_store(&w->sleep_state, ITOI_SLEEPING);
    atomic_fetch_sub(&itoi_rt.spinning, 1);
    if (!work_visible(w)) {
        /* Sleep until woken, a kernel event, the earliest timer of this worker, or the
         * cap a sleep hook set. */
        ITOI_BUMP(w->n_sleeps);
        w->sleep_cap = ITO_FOREVER;
        bool busy = itoi_sleep_begin(w);
        if (!busy) { /* the hooks found nothing arrived meanwhile */
            int sleeping = ITOI_SLEEPING;
            if (atomic_load(&w->watched) > 0) { /* kernel events wake it too */
                if (atomic_compare_exchange_strong(&w->sleep_state, &sleeping, ITOI_IN_EPOLL))
                    itoi_idlewait_sleep(w, sleep_until(w)); /* else a waker came first */
            } else {
                /* Timers may be armed meanwhile: the bound is taken again at each
                 * wake-up, with one clock read. */
                while (atomic_load(&w->sleep_state) == ITOI_SLEEPING) {
                    uint64_t due = sleep_until(w), now = 0;
                    if (due != ITO_FOREVER && (now = itoi_now_ns()) >= due) break;
                    futex_wait(&w->sleep_state, ITOI_SLEEPING, due == ITO_FOREVER ? ITO_FOREVER : due - now);
                }
            }
        }
        itoi_sleep_end(w);
    }
    atomic_store(&w->sleep_state, ITOI_AWAKE);
out:
    w->look_ns = 0; /* time spent idle is no scheduling point's length (look_gap) */
    /* idling stays set until the loop finds something to run (busy polling leaves here
     * at once and comes back, running nothing) */
    atomic_fetch_sub(&itoi_rt.want_work, 1);
}

void itoi_worker_loop(itoi_worker_t *w)
{
    for (;;) {
        itoi_flush_pending(w);
        w->poll_due = 0;
        size_t did = run_calls(w);
        did += itoi_timers_run(w);
        did += run_pollers(w);
        itoi_ult_t *t = NULL;
        for (int k = 0; k < UNITS_PER_ROUND && !t; k++) {
            itoi_unit_t *u = pick_unit(w);
            if (!u) u = steal(w);
            if (!u) break;
            if (u->run) {
                itoi_unit_run_now(w, u);
                did++;
                if (sched_due(w)) break;
                continue;
            }
            if (ult_runnable(w, (itoi_ult_t *)u)) t = (itoi_ult_t *)u;
        }
        bool work = t || did || w->rq.head || sched_due(w);
        if (work && ITOI_UNLIKELY(atomic_load_explicit(&w->idling, memory_order_relaxed)))
            atomic_store_explicit(&w->idling, 0, memory_order_relaxed);
        if (t) {
            switch_to(w, NULL, t, NULL, NULL);
            continue;
        }
        if (work) continue;
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
    if (l) {
        /* The object may be gone once a waker has taken the ULT (a post, then a destroy
         * and free, before this worker ran its timers: found by ASan, a use-after-free of
         * the semaphore's lock, and a hang in release). Touch it only after winning the
         * claim: the ULT is still queued then, which keeps the object alive (itoi.h). */
        uint8_t c = ITOI_CLAIM_WAITING;
        if (!atomic_compare_exchange_strong_explicit(&t->wait_claim, &c, ITOI_CLAIM_TIMER, memory_order_acq_rel,
                                                     memory_order_relaxed))
            return; /* a waker took it: the waker readies it */
        itoi_spin_lock(l);
    }
    bool removed = !t->wait_unlink || t->wait_unlink(t, t->wait_obj);
    if (l) itoi_spin_unlock(l);
    if (!removed) return; /* a waker took it off first: the waker readies it */
    t->wait_result = ITO_ETIMEDOUT;
    ITOI_BUMP(w->n_wakeups);
    /* Pinned to w (itoi_block_until) until it runs: never stealable, so it may go ahead of
     * the ready queue (timer.c) whether or not a worker is idle. */
    if (w->timer_woken && itoi_wake_front_get() == NULL) { /* itoi_timers_run queues
                                                            * w->pending first */
        itoi_queue_push(w->timer_woken, &t->u);
        return;
    }
    itoi_ready_local(w, &t->u); /* pinned here */
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
    /* before the post action lets wakers see the ULT (it releases `lock`) */
    atomic_store_explicit(&me->wait_claim, lock ? ITOI_CLAIM_WAITING : ITOI_CLAIM_NONE, memory_order_relaxed);
    itoi_timer_arm(w, &me->timer, deadline, block_timeout);
    itoi_block(w, post, arg);
    w = itoi_self_worker(); /* the same worker: pinned */
    itoi_timer_cancel(w, &me->timer);
    atomic_store_explicit(&me->wait_claim, ITOI_CLAIM_NONE, memory_order_relaxed); /* untimed waits next */
    me->bound = bound;
    me->blocked_on = NULL;
    return me->wait_result;
}

int itoi_park_until(itoi_worker_t *w, itoi_spinlock_t *held, uint64_t deadline, itoi_unlink_fn unlink,
                    void *obj, const char *what)
{
    return itoi_block_until(w, unlock_post, held, deadline, held, unlink, obj, what);
}
