/* barrier.c: a reusable barrier for ULTs.
 *
 * Under the spinlock: `arrived` counts the ULTs of the current round; the first count-1
 * park on the queue, the count-th wakes them all and resets `arrived` for the next round
 * before it leaves, so a ULT that hurries into the next round can never be counted in the
 * old one (the woken ones need not re-check anything: the round they waited for is over
 * when they are readied). The last arrival gets ITO_BARRIER_SERIAL, the others ITO_OK. */
#include <assert.h>

#include "ito/sync.h"
#include "waitq.h"

typedef struct barrier_impl {
    itoi_spinlock_t lock;
    uint32_t mark; /* ITOI_MARK_BARRIER while initialised (waitq.h) */
    unsigned count, arrived;
    itoi_waitq_t waiters;
} barrier_impl_t;

static_assert(sizeof(barrier_impl_t) <= sizeof(ito_barrier_t), "ito_barrier_t too small");
ITOI_MARK_FIRST(barrier_impl_t);

int ito_barrier_init(ito_barrier_t *b, unsigned count)
{
    if (!b || count == 0) return ITO_EINVAL;
    barrier_impl_t *x = (barrier_impl_t *)b;
    itoi_spin_init(&x->lock);
    x->count = count;
    x->arrived = 0;
    x->waiters = (itoi_waitq_t){0};
    x->mark = ITOI_MARK_BARRIER;
    return ITO_OK;
}

int ito_barrier_destroy(ito_barrier_t *b)
{
    if (!itoi_marked(b, ITOI_MARK_BARRIER)) return ITO_EINVAL;
    barrier_impl_t *x = (barrier_impl_t *)b;
    itoi_spin_lock(&x->lock);
    int busy = x->arrived != 0;
    int rc = busy ? ITO_EBUSY : itoi_mark_clear(&x->mark) ? ITO_OK : ITO_EINVAL;
    itoi_spin_unlock(&x->lock);
    return rc;
}

int ito_barrier_wait(ito_barrier_t *b)
{
    if (!itoi_marked(b, ITOI_MARK_BARRIER)) return ITO_EINVAL;
    itoi_worker_t *w = itoi_ult_worker();
    if (!w) return ITO_ENOTULT;
    barrier_impl_t *x = (barrier_impl_t *)b;
    itoi_spin_lock(&x->lock);
    if (!itoi_marked(b, ITOI_MARK_BARRIER)) { /* destroyed since the check above: parking */
        itoi_spin_unlock(&x->lock);           /* here would wait for ever */
        return ITO_EINVAL;
    }
    if (++x->arrived == x->count) {
        x->arrived = 0;
        itoi_wake_every(&x->waiters);
        itoi_spin_unlock(&x->lock);
        return ITO_BARRIER_SERIAL;
    }
    return itoi_wait_on_until(w, &x->waiters, &x->lock, ITO_FOREVER, NULL, NULL, "barrier");
}
