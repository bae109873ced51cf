/* waitq.h: what mutex, condition variable and stream share: a FIFO of parked ULTs
 * under a spinlock, and the check that the caller is a ULT. */
#ifndef ITO_SYNC_WAITQ_H
#define ITO_SYNC_WAITQ_H

#include "../core/itoi.h"

/* The running ULT's worker, or NULL when the caller is not a ULT. */
static inline itoi_worker_t *itoi_ult_worker(void)
{
    itoi_worker_t *w = itoi_self_worker();
    return (w && w->cur) ? w : NULL;
}

/* Put the running ULT at the tail of q (whose lock `l` the caller holds), and park it;
 * returns with `l` released, once somebody has made the ULT ready again. */
static inline void itoi_wait_on(itoi_worker_t *w, itoi_queue_t *q, itoi_spinlock_t *l)
{
    itoi_queue_push(q, &w->cur->u);
    itoi_park(w, l);
}

/* The same with a deadline (ITO_FOREVER: none): ITO_OK when woken, ITO_ETIMEDOUT when
 * the deadline passed first (the ULT was taken off q; `unlink` may also fix obj). */
static inline int itoi_wait_on_until(itoi_worker_t *w, itoi_queue_t *q, itoi_spinlock_t *l, uint64_t deadline,
                                     itoi_unlink_fn unlink, void *obj, const char *what)
{
    w->cur->wait_result = ITO_OK;
    itoi_queue_push(q, &w->cur->u);
    return itoi_park_until(w, l, deadline, unlink, obj, what);
}

/* Whether a deadline has passed (no clock read for ITO_FOREVER). */
static inline bool itoi_deadline_passed(uint64_t deadline)
{
    return deadline != ITO_FOREVER && itoi_now_ns() >= deadline;
}

/* Make the first ULT of q ready (caller holds q's lock); returns whether there was one. */
static inline bool itoi_wake_first(itoi_queue_t *q)
{
    itoi_ult_t *t = (itoi_ult_t *)itoi_queue_pop(q); /* wait queues hold ULTs only */
    if (t) itoi_ready(t);
    return t != NULL;
}

static inline void itoi_wake_every(itoi_queue_t *q)
{
    while (itoi_wake_first(q)) {
    }
}

#endif
