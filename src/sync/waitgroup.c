/* waitgroup.c: wait for a number of tasks to finish (Go's sync.WaitGroup).
 *
 * A counter under the spinlock: add (any thread) changes it and, when it reaches zero,
 * wakes every waiter; wait parks while it is not zero. The counter never goes below
 * zero (an add that would is refused whole). A waiter is woken only by the counter
 * reaching zero; it returns ITO_OK even if another add has raised the counter again
 * since (it waited for a moment when the count was zero, as Go's does). */
#include <assert.h>

#include "ito/sync.h"
#include "waitq.h"

typedef struct wg_impl {
    itoi_spinlock_t lock;
    uint32_t mark; /* ITOI_MARK_WAITGROUP while initialised (waitq.h) */
    int64_t count;
    itoi_waitq_t waiters;
} wg_impl_t;

static_assert(sizeof(wg_impl_t) <= sizeof(ito_waitgroup_t), "ito_waitgroup_t too small");
ITOI_MARK_FIRST(wg_impl_t);

int ito_waitgroup_init(ito_waitgroup_t *g)
{
    if (!g) return ITO_EINVAL;
    wg_impl_t *x = (wg_impl_t *)g;
    itoi_spin_init(&x->lock);
    x->count = 0;
    x->waiters = (itoi_waitq_t){0};
    x->mark = ITOI_MARK_WAITGROUP;
    return ITO_OK;
}

int ito_waitgroup_destroy(ito_waitgroup_t *g)
{
    if (!itoi_marked(g, ITOI_MARK_WAITGROUP)) return ITO_EINVAL;
    wg_impl_t *x = (wg_impl_t *)g;
    return itoi_destroy_check(&x->lock, &x->waiters, &x->mark);
}

int ito_waitgroup_add(ito_waitgroup_t *g, int64_t delta)
{
    if (!itoi_marked(g, ITOI_MARK_WAITGROUP)) return ITO_EINVAL;
    bool foreign;
    if (itoi_any_enter(&foreign) != ITO_OK) return ITO_ESTATE;
    wg_impl_t *x = (wg_impl_t *)g;
    int rc = ITO_OK;
    itoi_spin_lock(&x->lock);
    if (delta < 0 ? x->count + delta < 0 : x->count > INT64_MAX - delta) { /* count >= 0: no overflow */
        rc = ITO_ERANGE;
    } else {
        x->count += delta;
        if (x->count == 0) itoi_wake_every(&x->waiters);
    }
    itoi_spin_unlock(&x->lock);
    return itoi_any_leave(foreign, rc);
}

int ito_waitgroup_done(ito_waitgroup_t *g) { return ito_waitgroup_add(g, -1); }

int ito_waitgroup_wait(ito_waitgroup_t *g) { return ito_waitgroup_wait_until(g, ITO_FOREVER); }

int ito_waitgroup_wait_until(ito_waitgroup_t *g, uint64_t deadline)
{
    if (!itoi_marked(g, ITOI_MARK_WAITGROUP)) return ITO_EINVAL;
    itoi_worker_t *w = itoi_ult_worker();
    if (!w) return ITO_ENOTULT;
    wg_impl_t *x = (wg_impl_t *)g;
    itoi_spin_lock(&x->lock);
    int rc = ITO_OK;
    if (!itoi_marked(g, ITOI_MARK_WAITGROUP)) rc = ITO_EINVAL; /* destroyed meanwhile: see ito_sem_wait_until */
    else if (x->count != 0) {
        if (!itoi_deadline_passed(deadline))
            return itoi_wait_on_until(w, &x->waiters, &x->lock, deadline, itoi_waitq_unlink, &x->waiters,
                                      "waitgroup");
        rc = ITO_ETIMEDOUT;
    }
    itoi_spin_unlock(&x->lock);
    return rc;
}

int ito_waitgroup_count(ito_waitgroup_t *g, int64_t *count)
{
    if (!itoi_marked(g, ITOI_MARK_WAITGROUP) || !count) return ITO_EINVAL;
    wg_impl_t *x = (wg_impl_t *)g;
    itoi_spin_lock(&x->lock);
    *count = x->count;
    itoi_spin_unlock(&x->lock);
    return ITO_OK;
}
