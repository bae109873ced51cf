/* timer.c: the runtime's timers: one pairing heap of deadlines per worker.
 *
 * Every timed wait in ito (ito_sleep_*, the *_until variants of the synchronization
 * objects, the I/O deadline of the blocking wrappers) is an itoi_timer_t armed on the
 * heap of the worker that runs the waiting ULT. The heap is intrusive (the links live in
 * the timer, which lives in the ULT descriptor or the waiting frame), so arming never
 * allocates and never fails. Thousands of sleeping ULTs cost one heap node each and no
 * kernel object: an idle worker sleeps (futex or epoll) until its earliest deadline.
 *
 * Invariants:
 *  - A worker's heap (w->timers, w->ntimers, w->timer_next) is touched only by code
 *    running on that worker. A ULT that waits with a deadline is therefore pinned to
 *    the worker that holds its timer until it has woken up and disarmed it
 *    (itoi_block_until); a waker on another worker or a foreign thread readies it
 *    through that worker's inbox.
 *  - Timers fire only in the worker's scheduler context (itoi_timers_run, called by the
 *    scheduler loop), never inside a ULT's scheduling point: a ULT that parks holds the
 *    lock of the object it parks on until its switch completes, and a firing timer may
 *    need that same lock.
 *  - A timer never fires before its deadline: it fires when CLOCK_MONOTONIC read in the
 *    scheduler context is >= the deadline. A busy worker looks at w->timer_next at its
 *    scheduler's looks (sched.c): at most 64 scheduling points apart, and, while timers
 *    are armed, placed by the clock (one read per look) at the point where the earliest
 *    deadline should have passed, judged by how long the points since the last look
 *    took; arming a new earliest timer brings the next look to the next point. So on a
 *    busy worker whose points are of about equal length a timer fires late by about one
 *    point, and by at most 64 points when they suddenly grow; on an idle one by the
 *    kernel's wake-up latency (bench_timer reports the distribution).
 *  - w->timer_next is the earliest deadline (ITO_FOREVER when the heap is empty); it is
 *    owner-written and read relaxed by others.
 *  - w->ntimers_work counts the armed timers that are work of their own: all but those
 *    marked bounds_wait, the deadline of a ULT parked in a blocking wrapper (wrappers.c),
 *    which only bounds a wait that finalize may cancel. Finalize counts the others as
 *    work that will progress by itself (runtime.c, pending); owner-written, read relaxed.
 *    bounds_wait is set only while the timer is not armed.
 *
 * The pairing heap: insert is a meld with the root (O(1)); removing the minimum melds
 * its children in two passes (O(log n) amortized); removing any other node cuts its
 * subtree out (prev points to the parent for a first child, else to the left sibling)
 * and melds the subtree's children back into the root. */
#define _GNU_SOURCE
#include <time.h>

#include "itoi.h"

uint64_t itoi_clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t itoi_now_ns(void)
{
    itoi_callout_begin();
    uint64_t now = itoi_clock_ns();
    itoi_callout_end();
    return now;
}

/* Meld two heaps (roots, either may be NULL); the root of the result. */
static itoi_timer_t *meld(itoi_timer_t *a, itoi_timer_t *b)
{
    if (!a) return b;
    if (!b) return a;
    if (b->deadline < a->deadline) {
        itoi_timer_t *x = a;
        a = b;
        b = x;
    }
    b->sibling = a->child;
    if (a->child) a->child->prev = b;
    b->prev = a;
    a->child = b;
    a->sibling = a->prev = NULL;
    return a;
}

/* The two-pass merge of a sibling list: pair left to right, then meld right to left. */
static itoi_timer_t *merge_pairs(itoi_timer_t *first)
{
    itoi_timer_t *pairs = NULL; /* melded pairs, linked through sibling, last pair first */
    while (first) {
        itoi_timer_t *a = first, *b = a->sibling;
        first = b ? b->sibling : NULL;
        a->sibling = a->prev = NULL;
        if (b) b->sibling = b->prev = NULL;
        itoi_timer_t *m = meld(a, b);
        m->sibling = pairs;
        pairs = m;
    }
    itoi_timer_t *root = NULL;
    while (pairs) {
        itoi_timer_t *next = pairs->sibling;
        pairs->sibling = NULL;
        root = meld(root, pairs);
        pairs = next;
    }
    return root;
}

static inline void update_next(itoi_worker_t *w)
{
    atomic_store_explicit(&w->timer_next, w->timers ? w->timers->deadline : ITO_FOREVER,
                          memory_order_relaxed);
}

/* Owner-written, read by finalize: a load and a store, no read-modify-write. */
static inline void work_count(itoi_worker_t *w, int d)
{
    size_t n = atomic_load_explicit(&w->ntimers_work, memory_order_relaxed);
    atomic_store_explicit(&w->ntimers_work, n + (size_t)d, memory_order_relaxed);
}

void itoi_timer_arm(itoi_worker_t *w, itoi_timer_t *t, uint64_t deadline, itoi_timer_fn fire)
{
    if (t->armed) itoi_timer_cancel(w, t);
    t->deadline = deadline;
    t->fire = fire;
    t->child = t->sibling = t->prev = NULL;
    t->armed = true;
    w->timers = meld(w->timers, t);
    w->ntimers++;
    if (!t->bounds_wait) work_count(w, 1);
    update_next(w);
    /* the earliest now: the scheduler's next look, placed for a later deadline (or none),
     * comes at the next scheduling point instead, and places the one after (sched.c) */
    if (w->timers == t && !t->lazy) w->look = (uint16_t)(w->tick + 1);
}

bool itoi_timer_cancel(itoi_worker_t *w, itoi_timer_t *t)
{
    if (!t->armed) return false;
    t->armed = false;
    w->ntimers--;
    if (!t->bounds_wait) work_count(w, -1);
    if (t == w->timers) {
        w->timers = merge_pairs(t->child);
    } else {
        /* cut t's subtree out of its sibling list */
        if (t->prev->child == t) t->prev->child = t->sibling;
        else t->prev->sibling = t->sibling;
        if (t->sibling) t->sibling->prev = t->prev;
        w->timers = meld(w->timers, merge_pairs(t->child));
    }
    t->child = t->sibling = t->prev = NULL;
    update_next(w);
    return true;
}

#define FRONT_WINDOW 64 /* scheduling points (the fairness rule's period, sched.c) */
#define FRONT_MAX 32     /* timed-out ULTs ahead of the ready queue per window */

size_t itoi_timers_run(itoi_worker_t *w)
{
    if (atomic_load_explicit(&w->timer_next, memory_order_relaxed) == ITO_FOREVER) return 0;
    uint64_t now = itoi_now_ns();
    size_t fired = 0;
    if (!w->timers || w->timers->deadline > now) return 0;
    /* ULTs whose timed wait ended go ahead of the ready queue (in deadline order): behind
     * it they would end late by the whole queue (a 1 ms sleep among 1,000 ready ULTs was
     * 1,000 scheduling points late), not by the 64 of ito/time.h. */
    itoi_queue_t woken = {0};
    w->timer_woken = &woken;
    while (w->timers && w->timers->deadline <= now) {
        itoi_timer_t *t = w->timers;
        itoi_timer_cancel(w, t);
        fired++;
        ITOI_BUMP(w->n_timers_fired);
        t->fire(w, t); /* may arm timers again */
    }
    w->timer_woken = NULL;
    if (woken.head) {
        itoi_flush_pending(w);
        /* At most FRONT_MAX go ahead per FRONT_WINDOW scheduling points, the rest behind
         * the queue: unbounded, 64 ULTs that sleep for less than 64 points took every
         * point, and the ready queue (and the timed-out ULTs behind the first 64) never
         * ran again (found by a reviewer, 2026-12-04). */
        if (!w->rq.head) { /* ahead of nothing: they delay nobody, nothing charged (a
                            * budget spent so starved a later one behind the whole queue) */
            w->rq = woken;
            return fired;
        }
        if ((uint32_t)(w->tick - w->front_tick) >= FRONT_WINDOW) {
            w->front_tick = w->tick;
            w->front_used = 0;
        }
        itoi_queue_t front = {0};
        while (woken.head && w->front_used < FRONT_MAX) {
            itoi_queue_push(&front, itoi_queue_pop(&woken));
            w->front_used++;
        }
        itoi_queue_append(&front, &w->rq);
        itoi_queue_append(&front, &woken); /* over the budget: behind, as other wake-ups */
        w->rq = front;
    }
    return fired;
}

void itoi_timers_free(itoi_worker_t *w)
{
    w->timers = NULL;
    w->ntimers = 0;
    atomic_store(&w->ntimers_work, 0);
    atomic_store(&w->timer_next, ITO_FOREVER);
}
