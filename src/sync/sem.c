/* sem.c: a counting semaphore for ULTs, FIFO with direct hand-off.
 *
 * Invariant (under the spinlock): waiters are queued only while count == 0, but for a
 * timed waiter whose timer has claimed it (itoi.h, wait_claim): its wait has ended with
 * ITO_ETIMEDOUT, post passes it by and raises count, and the timer takes it off the queue
 * once it has the lock (sync.h, ito_sem_value, says so). post gives
 * its unit straight to the first waiter (count stays 0, the waiter wakes owning it)
 * instead of raising count, so a ULT that arrives later cannot take the unit from a
 * waiter that was first (no barging, no starvation). A timed waiter whose deadline
 * passes takes itself off the queue under the lock; if it is no longer there, a post
 * handed it a unit first and its wait succeeds. post may come from any thread. */
#include <assert.h>
#include <limits.h>

#include "ito/sync.h"
#include "waitq.h"

typedef struct sem_impl {
    itoi_spinlock_t lock;
    uint32_t mark; /* ITOI_MARK_SEM while initialised (waitq.h) */
    unsigned count;
    itoi_waitq_t waiters;
} sem_impl_t;

static_assert(sizeof(sem_impl_t) <= sizeof(ito_sem_t), "ito_sem_t too small");
ITOI_MARK_FIRST(sem_impl_t);

int ito_sem_init(ito_sem_t *s, unsigned value)
{
    if (!s || value > ITO_SEM_VALUE_MAX) return ITO_EINVAL;
    sem_impl_t *x = (sem_impl_t *)s;
    itoi_spin_init(&x->lock);
    x->count = value;
    x->waiters = (itoi_waitq_t){0};
    x->mark = ITOI_MARK_SEM;
    return ITO_OK;
}

int ito_sem_destroy(ito_sem_t *s)
{
    if (!itoi_marked(s, ITOI_MARK_SEM)) return ITO_EINVAL;
    sem_impl_t *x = (sem_impl_t *)s;
    return itoi_destroy_check(&x->lock, &x->waiters, &x->mark);
}

int ito_sem_wait(ito_sem_t *s) { return ito_sem_wait_until(s, ITO_FOREVER); }

int ito_sem_wait_until(ito_sem_t *s, uint64_t deadline)
{
    if (!itoi_marked(s, ITOI_MARK_SEM)) return ITO_EINVAL;
    itoi_worker_t *w = itoi_ult_worker();
    if (!w) return ITO_ENOTULT;
    sem_impl_t *x = (sem_impl_t *)s;
    itoi_spin_lock(&x->lock);
    /* A destroy that came between the check above and the lock (it clears the mark under
     * the lock, itoi_mark_clear) leaves a dead object: parking in it waited for ever, or was
     * dropped by a new init of the storage (test_sync_enter_destroy, found by an outside
     * tester, h62d, 2026-12-05). */
    if (!itoi_marked(s, ITOI_MARK_SEM)) {
        itoi_spin_unlock(&x->lock);
        return ITO_EINVAL;
    }
    if (x->count > 0) {
        x->count--;
        itoi_spin_unlock(&x->lock);
        return ITO_OK;
    }
    if (itoi_deadline_passed(deadline)) {
        itoi_spin_unlock(&x->lock);
        return ITO_ETIMEDOUT;
    }
    /* Woken by post's hand-off: the unit is ours. */
    return itoi_wait_on_until(w, &x->waiters, &x->lock, deadline, itoi_waitq_unlink, &x->waiters,
                              "semaphore");
}

int ito_sem_trywait(ito_sem_t *s)
{
    if (!itoi_marked(s, ITOI_MARK_SEM)) return ITO_EINVAL;
    bool foreign;
    if (itoi_any_enter(&foreign) != ITO_OK) return ITO_ESTATE;
    sem_impl_t *x = (sem_impl_t *)s;
    int rc = ITO_EAGAIN;
    itoi_spin_lock(&x->lock);
    if (x->count > 0) {
        x->count--;
        rc = ITO_OK;
    }
    itoi_spin_unlock(&x->lock);
    return itoi_any_leave(foreign, rc);
}

int ito_sem_post(ito_sem_t *s)
{
    if (!itoi_marked(s, ITOI_MARK_SEM)) return ITO_EINVAL;
    bool foreign;
    if (itoi_any_enter(&foreign) != ITO_OK) return ITO_ESTATE;
    sem_impl_t *x = (sem_impl_t *)s;
    int rc = ITO_OK;
    itoi_spin_lock(&x->lock);
    if (!itoi_wake_first(&x->waiters)) {
        if (x->count == ITO_SEM_VALUE_MAX) rc = ITO_ERANGE;
        else x->count++;
    }
    itoi_spin_unlock(&x->lock);
    return itoi_any_leave(foreign, rc);
}

int ito_sem_value(ito_sem_t *s, unsigned *value)
{
    if (!itoi_marked(s, ITOI_MARK_SEM) || !value) return ITO_EINVAL;
    sem_impl_t *x = (sem_impl_t *)s;
    itoi_spin_lock(&x->lock);
    *value = x->count;
    itoi_spin_unlock(&x->lock);
    return ITO_OK;
}
