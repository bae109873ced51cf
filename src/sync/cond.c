/* cond.c: a ULT condition variable. A waiter queues itself before it releases the
 * mutex, under the condition's spinlock, so a signal sent after the release always
 * finds it (no lost wake-up). Wake-ups are FIFO; after waking, the waiter re-takes the
 * mutex (Mesa semantics: re-check the predicate). */
#include <assert.h>

#include "ito/sync.h"
#include "waitq.h"

typedef struct cond_impl {
    itoi_spinlock_t lock;
    uint32_t mark; /* ITOI_MARK_COND while initialised (waitq.h) */
    itoi_waitq_t waiters;
} cond_impl_t;

static_assert(sizeof(cond_impl_t) <= sizeof(ito_cond_t), "ito_cond_t too small");
ITOI_MARK_FIRST(cond_impl_t);

int ito_cond_init(ito_cond_t *c)
{
    if (!c) return ITO_EINVAL;
    cond_impl_t *x = (cond_impl_t *)c;
    itoi_spin_init(&x->lock);
    x->waiters = (itoi_waitq_t){0};
    x->mark = ITOI_MARK_COND;
    return ITO_OK;
}

int ito_cond_destroy(ito_cond_t *c)
{
    if (!itoi_marked(c, ITOI_MARK_COND)) return ITO_EINVAL;
    cond_impl_t *x = (cond_impl_t *)c;
    return itoi_destroy_check(&x->lock, &x->waiters, &x->mark);
}

static bool cond_unlink(itoi_ult_t *t, void *obj)
{
    cond_impl_t *x = obj;
    return itoi_waiter_remove(&x->waiters, t);
}

int ito_cond_wait(ito_cond_t *c, ito_mutex_t *m) { return ito_cond_wait_until(c, m, ITO_FOREVER); }

int ito_cond_wait_until(ito_cond_t *c, ito_mutex_t *m, uint64_t deadline)
{
    if (!itoi_marked(c, ITOI_MARK_COND) || !m) return ITO_EINVAL; /* m: by its unlock */
    itoi_worker_t *w = itoi_ult_worker();
    if (!w) return ITO_ENOTULT;
    cond_impl_t *x = (cond_impl_t *)c;
    itoi_spin_lock(&x->lock);
    /* destroyed meanwhile: see ito_sem_wait_until */
    int rc = itoi_marked(c, ITOI_MARK_COND) ? ito_mutex_unlock(m) : ITO_EINVAL; /* lock order: condition, then mutex */
    if (rc != ITO_OK) {
        itoi_spin_unlock(&x->lock);
        return rc;
    }
    int woke = itoi_wait_on_until(w, &x->waiters, &x->lock, deadline, cond_unlink, x, "cond");
    /* The mutex is taken again whatever woke us, without a deadline (as pthreads do). */
    rc = ito_mutex_lock(m);
    return rc != ITO_OK ? rc : woke;
}

/* signal and broadcast may come from any thread; from a foreign thread they enter the
 * runtime, so that finalize cannot free a waiter under them. */
static int wake(ito_cond_t *c, bool all)
{
    if (!itoi_marked(c, ITOI_MARK_COND)) return ITO_EINVAL;
    bool foreign;
    if (itoi_any_enter(&foreign) != ITO_OK) return ITO_ESTATE;
    cond_impl_t *x = (cond_impl_t *)c;
    itoi_spin_lock(&x->lock);
    if (all) itoi_wake_every(&x->waiters);
    else itoi_wake_first(&x->waiters);
    itoi_spin_unlock(&x->lock);
    return itoi_any_leave(foreign, ITO_OK);
}

int ito_cond_signal(ito_cond_t *c) { return wake(c, false); }

int ito_cond_broadcast(ito_cond_t *c) { return wake(c, true); }
