/* waitq.h: what the synchronization objects share: a FIFO of parked ULTs under a
 * spinlock, the check that the caller is a ULT, and the entry of wake-side calls made
 * by foreign threads. */
#ifndef ITO_SYNC_WAITQ_H
#define ITO_SYNC_WAITQ_H

#include "../core/itoi.h"

/* The type mark of a caller-owned object (mutex, cond, rwlock, semaphore, barrier, wait
 * group, future): its init writes the mark of its type into the object, its destroy
 * replaces it with ITOI_MARK_DEAD, and every other call checks it first, so that storage
 * never initialised, destroyed, or of another type gives ITO_EINVAL instead of a hang on a
 * lock word that reads as held (random bytes match a mark with probability 2^-32). The mark is written
 * only while nobody else may use the object (init, destroy), so a plain load reads it. */
#define ITOI_MARK(a, b, c, d) ((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | (uint32_t)(d) << 24)
enum {
    ITOI_MARK_MUTEX = ITOI_MARK('i', 'M', 't', 'x'),
    ITOI_MARK_COND = ITOI_MARK('i', 'C', 'n', 'd'),
    ITOI_MARK_RWLOCK = ITOI_MARK('i', 'R', 'w', 'l'),
    ITOI_MARK_SEM = ITOI_MARK('i', 'S', 'e', 'm'),
    ITOI_MARK_BARRIER = ITOI_MARK('i', 'B', 'a', 'r'),
    ITOI_MARK_WAITGROUP = ITOI_MARK('i', 'W', 'g', 'p'),
    ITOI_MARK_FUTURE = ITOI_MARK('i', 'F', 'u', 't'),
    /* What destroy leaves: not 0. ito_once_t has no init and no mark, and takes storage
     * whose first two words are 0 (an unlocked lock, the mark's place) as a NEW once object:
     * destroyed storage of any type read so, and ito_once then woke "waiters" made of the
     * old object's fields (a destroyed future's value: SIGSEGV; found by an outside
     * tester, h68b, 2026-12-06: test_once_destroyed_storage). This mark, like every other,
     * is no lock word a spinlock holds, so ito_once refuses it (ITO_EINVAL). */
    ITOI_MARK_DEAD = ITOI_MARK('i', 'D', 'e', 'd'),
};

/* The mark is the second 32-bit word of every such object (after its spinlock), whatever
 * the type, so that initialising storage as one type overwrites the mark of the type it
 * held before (at another offset, a stale mark of a live barrier survived a semaphore's
 * init in the same storage, and the barrier's calls then used the semaphore's count:
 * found by fuzz_api). Each impl asserts it with ITOI_MARK_FIRST. */
#define ITOI_MARK_OFFSET 4
#define ITOI_MARK_FIRST(impl_t)                                                                        \
    static_assert(offsetof(impl_t, mark) == ITOI_MARK_OFFSET, #impl_t ": the mark is the second word")

/* Whether obj is an object of the type `want`: false for NULL. */
static inline bool itoi_marked(const void *obj, uint32_t want)
{
    /* Relaxed atomic: a destroy clears the mark under the object's lock while a call of
     * another thread may be checking it (itoi_mark_clear). */
    return obj != NULL && __atomic_load_n((const uint32_t *)((const char *)obj + ITOI_MARK_OFFSET), __ATOMIC_RELAXED) == want;
}

/* Destroy's last step, with the object's lock held: clear the mark if no other destroy
 * has (false then: that destroy said ITO_OK, this one says ITO_EINVAL). Checked and cleared
 * under the lock: two destroys racing both passed itoi_marked before either cleared it,
 * and both said ITO_OK (sync.h promises ITO_EINVAL for "a second destroy too"; found by an
 * outside tester, h62d, 2026-12-05, test_sync_double_destroy). */
static inline bool itoi_mark_clear(uint32_t *mark)
{
    uint32_t v = __atomic_load_n(mark, __ATOMIC_RELAXED);
    if (v == 0 || v == ITOI_MARK_DEAD) return false;
    __atomic_store_n(mark, ITOI_MARK_DEAD, __ATOMIC_RELAXED);
    return true;
}

/* The running ULT's worker, or NULL when the caller is not a ULT. */
static inline itoi_worker_t *itoi_ult_worker(void)
{
    itoi_worker_t *w = itoi_self_worker();
    return (w && w->cur) ? w : NULL;
}

/* A FIFO of parked ULTs (an object's waiters), under the object's lock, linked through
 * the ULTs' own wq_next/wq_prev (itoi.h), not through the unit's next that the ready
 * queues use: so a waiter leaves from anywhere in O(1), and whether it is still in a
 * given queue is one comparison (wq_in). (Through the units' next, a waiter that timed
 * out was found by a walk from the head: N timed waits on one object cost O(N) each,
 * and 40,000 waiters on one semaphore, whose deadlines came in the reverse order of
 * their arrival, ended up to 6.5 s late; found by an outside tester, 2026-12-05.) */
typedef struct itoi_waitq {
    itoi_ult_t *head, *tail;
} itoi_waitq_t;

/* The first waiter of q, or NULL (called with q's lock held, in place of a plain read of
 * q->head, by every path that reads or changes the queue: push and pop call it; a plain
 * read is right only just after a push, pop or remove on q made it the object's own).
 * A queue whose first waiter is queued elsewhere is not this object's own: the object is a
 * byte copy of a live one (struct assignment, memcpy, realloc of an array of objects)
 * made while ULTs waited on the original, so the copy's queue links the original's
 * waiters. The copy gets an empty queue of its own: it acts as the object with nobody
 * waiting, and the original keeps its waiters. (Before, the copy's unlock, post or signal
 * "woke" the original's waiter without taking it off the original's queue, whose own
 * wake-up then readied it a second time: SIGSEGV; pushing onto the copy linked a new
 * waiter into the original's list. Found by an outside tester, h68b, 2026-12-06: test_sync_copied_waiters.)
 * POSIX leaves copies of its objects undefined; this only keeps the runtime whole. */
static inline itoi_ult_t *itoi_waitq_head(itoi_waitq_t *q)
{
    itoi_ult_t *h = q->head;
    if (ITOI_UNLIKELY(h != NULL && h->wq_in != (void *)q)) q->head = q->tail = h = NULL;
    return h;
}

static inline void itoi_waitq_push(itoi_waitq_t *q, itoi_ult_t *t)
{
    (void)itoi_waitq_head(q); /* a copy's queue becomes its own before t joins it */
    t->wq_in = q;
    t->wq_next = NULL;
    t->wq_prev = q->tail;
    if (q->tail) q->tail->wq_next = t; else q->head = t;
    q->tail = t;
}

/* Take t off q: false if it is not in q (taken by a waker, or waiting elsewhere). */
static inline bool itoi_waiter_remove(itoi_waitq_t *q, itoi_ult_t *t)
{
    if (t->wq_in != q) return false;
    if (t->wq_prev) t->wq_prev->wq_next = t->wq_next; else q->head = t->wq_next;
    if (t->wq_next) t->wq_next->wq_prev = t->wq_prev; else q->tail = t->wq_prev;
    t->wq_in = NULL;
    return true;
}

/* Put the running ULT at the tail of q (whose lock `l` the caller holds), and park it;
 * returns with `l` released, once somebody has made the ULT ready again. */
static inline void itoi_wait_on(itoi_worker_t *w, itoi_waitq_t *q, itoi_spinlock_t *l)
{
    itoi_waitq_push(q, w->cur);
    itoi_park(w, l);
}

/* The same with a deadline (ITO_FOREVER: none): ITO_OK when woken, ITO_ETIMEDOUT when
 * the deadline passed first (the ULT was taken off q; `unlink` may also fix obj). */
static inline int itoi_wait_on_until(itoi_worker_t *w, itoi_waitq_t *q, itoi_spinlock_t *l, uint64_t deadline,
                                     itoi_unlink_fn unlink, void *obj, const char *what)
{
    w->cur->wait_result = ITO_OK;
    itoi_waitq_push(q, w->cur);
    return itoi_park_until(w, l, deadline, unlink, obj, what);
}

/* Wait queues hold ULTs only (never stackless units): pop one / take one off. A waker
 * (holding q's lock) passes by a timed waiter whose timer has claimed it (itoi.h,
 * wait_claim): that one is timing out and its timer takes it off q. */
static inline itoi_ult_t *itoi_waiter_pop(itoi_waitq_t *q)
{
    for (itoi_ult_t *t = itoi_waitq_head(q); t; t = t->wq_next) {
        if (!itoi_waiter_claim(t)) continue;
        itoi_waiter_remove(q, t);
        return t;
    }
    return NULL;
}

/* The unlink function of an object with one wait queue: obj is the queue itself. */
static inline bool itoi_waitq_unlink(itoi_ult_t *t, void *queue)
{
    return itoi_waiter_remove(queue, t);
}

/* What destroy checks: ITO_EBUSY while ULTs wait on q (read under its lock l). */
static inline int itoi_destroy_check(itoi_spinlock_t *l, itoi_waitq_t *q, uint32_t *mark)
{
    itoi_spin_lock(l);
    int rc = itoi_waitq_head(q) != NULL ? ITO_EBUSY : itoi_mark_clear(mark) ? ITO_OK : ITO_EINVAL;
    itoi_spin_unlock(l); /* destroyed: later calls are ITO_EINVAL */
    return rc;
}

/* Whether a deadline has passed (no clock read for ITO_FOREVER). */
static inline bool itoi_deadline_passed(uint64_t deadline)
{
    return deadline != ITO_FOREVER && itoi_now_ns() >= deadline;
}

/* Make the first ULT of q ready (caller holds q's lock); returns whether there was one. */
static inline bool itoi_wake_first(itoi_waitq_t *q)
{
    itoi_ult_t *t = itoi_waiter_pop(q);
    if (t) itoi_ready(t);
    return t != NULL;
}

static inline void itoi_wake_every(itoi_waitq_t *q)
{
    while (itoi_wake_first(q)) {
    }
}

/* Make a parked waiter ready with the result its wait returns (caller holds its queue's
 * lock and has taken it off the queue). */
static inline void itoi_wake_with(itoi_ult_t *t, int result)
{
    t->wait_result = result;
    itoi_ready(t);
}

/* Wake every waiter of q with `result`. */
static inline void itoi_wake_every_with(itoi_waitq_t *q, int result)
{
    for (itoi_ult_t *t; (t = itoi_waiter_pop(q)) != NULL;) itoi_wake_with(t, result);
}

/* Wake-side calls (post, signal, set, close, the try-variants) may come from any thread:
 * they enter with itoi_any_enter (itoi.h), so ito_finalize cannot free a waiter under a
 * foreign thread. */

#endif
