/* rwlock.c: a readers-writer lock for ULTs, phase-fair, with direct hand-off.
 *
 * State (under the spinlock): `readers` holding it, `writer` holding it (the ULT's
 * itoi_owner_id, so a new ULT on a dead writer's descriptor is not the writer; 0: none),
 * and two FIFOs of waiters. Invariants:
 *   - readers > 0 and writer != 0 never hold together;
 *   - a reader is admitted at once only when no writer holds the lock AND no writer
 *     waits (writers are not starved by a stream of readers);
 *   - when a writer unlocks, every reader waiting at that moment is admitted together
 *     (readers are not starved by a stream of writers); with no reader waiting, the first
 *     waiting writer gets the lock; when the last reader unlocks, the first waiting
 *     writer gets it.
 * Hand-off: the unlocker updates readers/writer for the ULTs it wakes before it readies
 * them, so a woken waiter owns the lock already and never re-checks. A timed waiter whose
 * deadline passes takes itself off its queue under the lock (rw_unlink); if a writer
 * gives up that way, the readers queued behind it may be admitted at once.
 * Read holds have no owner in the lock; each ULT counts its own (ITOI_USLOT_RDHOLDS, all
 * rwlocks together, touched only by the ULT itself), so that an unlock by a ULT holding no
 * read lock at all is refused instead of taking another reader's hold. */
#include <assert.h>

#include "ito/sync.h"
#include "waitq.h"

typedef struct rw_impl {
    itoi_spinlock_t lock;
    uint32_t mark; /* ITOI_MARK_RWLOCK while initialised (waitq.h) */
    unsigned readers;
    uintptr_t writer;    /* the holding writer's itoi_owner_id (a ULT, not a descriptor), or 0 */
    itoi_waitq_t rq, wq; /* waiting readers, waiting writers */
} rw_impl_t;

static_assert(sizeof(rw_impl_t) <= sizeof(ito_rwlock_t), "ito_rwlock_t too small");
ITOI_MARK_FIRST(rw_impl_t);

int ito_rwlock_init(ito_rwlock_t *l)
{
    if (!l) return ITO_EINVAL;
    rw_impl_t *x = (rw_impl_t *)l;
    itoi_spin_init(&x->lock);
    x->readers = 0;
    x->writer = 0;
    x->rq = x->wq = (itoi_waitq_t){0};
    x->mark = ITOI_MARK_RWLOCK;
    return ITO_OK;
}

int ito_rwlock_destroy(ito_rwlock_t *l)
{
    if (!itoi_marked(l, ITOI_MARK_RWLOCK)) return ITO_EINVAL;
    rw_impl_t *x = (rw_impl_t *)l;
    itoi_spin_lock(&x->lock);
    int busy = x->readers || x->writer || itoi_waitq_head(&x->rq) || itoi_waitq_head(&x->wq);
    int rc = busy ? ITO_EBUSY : itoi_mark_clear(&x->mark) ? ITO_OK : ITO_EINVAL;
    itoi_spin_unlock(&x->lock);
    return rc;
}

/* Admit every waiting reader (lock held, no writer). */
static void admit_readers(rw_impl_t *x)
{
    /* one by one: a reader whose timer has claimed it is passed by (waitq.h) and leaves
     * through rw_unlink, so it must not be counted (counted all at once, it left a read
     * hold behind for ever: found by a test of the claim) */
    for (itoi_ult_t *t; (t = itoi_waiter_pop(&x->rq)) != NULL;) {
        x->readers++;
        itoi_ready(t);
    }
}

/* Give the lock to the first waiting writer, if any (lock held, lock free). */
static bool admit_writer(rw_impl_t *x)
{
    itoi_ult_t *t = itoi_waiter_pop(&x->wq);
    if (!t) return false;
    x->writer = itoi_owner_id(t);
    itoi_ready(t);
    return true;
}

static bool rw_unlink(itoi_ult_t *t, void *obj)
{
    rw_impl_t *x = obj;
    if (itoi_waiter_remove(&x->rq, t)) return true;
    if (!itoi_waiter_remove(&x->wq, t)) return false; /* handed the lock meanwhile */
    /* A writer gave up: readers held back only by it may enter now. */
    if (!x->writer && !x->wq.head) admit_readers(x);
    return true;
}

static int lock_until(ito_rwlock_t *l, bool write, uint64_t deadline)
{
    if (!itoi_marked(l, ITOI_MARK_RWLOCK)) return ITO_EINVAL;
    itoi_worker_t *w = itoi_ult_worker();
    if (!w) return ITO_ENOTULT;
    rw_impl_t *x = (rw_impl_t *)l;
    itoi_spin_lock(&x->lock);
    int rc = ITO_OK;
    if (!itoi_marked(l, ITOI_MARK_RWLOCK)) {
        rc = ITO_EINVAL; /* destroyed since the check above (the destroy clears it under the lock) */
    } else if (x->writer == itoi_owner_id(w->cur)) {
        rc = ITO_EDEADLK;
    } else if (write ? (!x->writer && !x->readers) : (!x->writer && !itoi_waitq_head(&x->wq))) {
        if (write) x->writer = itoi_owner_id(w->cur);
        else x->readers++;
    } else if (itoi_deadline_passed(deadline)) {
        rc = ITO_ETIMEDOUT;
    } else {
        rc = itoi_wait_on_until(w, write ? &x->wq : &x->rq, &x->lock, deadline, rw_unlink, x,
                                write ? "rwlock write" : "rwlock read");
        /* admitted by a hand-off (the unlocker counted us in x->readers) */
        if (rc == ITO_OK && !write) itoi_ult_worker()->cur->slot[ITOI_USLOT_RDHOLDS].w++;
        return rc;
    }
    itoi_spin_unlock(&x->lock);
    if (rc == ITO_OK && !write) w->cur->slot[ITOI_USLOT_RDHOLDS].w++;
    return rc;
}

int ito_rwlock_rdlock(ito_rwlock_t *l) { return lock_until(l, false, ITO_FOREVER); }
int ito_rwlock_wrlock(ito_rwlock_t *l) { return lock_until(l, true, ITO_FOREVER); }
int ito_rwlock_rdlock_until(ito_rwlock_t *l, uint64_t deadline) { return lock_until(l, false, deadline); }
int ito_rwlock_wrlock_until(ito_rwlock_t *l, uint64_t deadline) { return lock_until(l, true, deadline); }

static int trylock(ito_rwlock_t *l, bool write)
{
    int rc = lock_until(l, write, 0); /* a deadline in the past: never waits */
    return rc == ITO_ETIMEDOUT ? ITO_EBUSY : rc;
}

int ito_rwlock_tryrdlock(ito_rwlock_t *l) { return trylock(l, false); }
int ito_rwlock_trywrlock(ito_rwlock_t *l) { return trylock(l, true); }

int ito_rwlock_unlock(ito_rwlock_t *l)
{
    if (!itoi_marked(l, ITOI_MARK_RWLOCK)) return ITO_EINVAL;
    itoi_worker_t *w = itoi_ult_worker();
    if (!w) return ITO_ENOTULT;
    rw_impl_t *x = (rw_impl_t *)l;
    int rc = ITO_OK;
    itoi_spin_lock(&x->lock);
    if (x->writer) {
        if (x->writer != itoi_owner_id(w->cur)) {
            rc = ITO_EPERM;
        } else {
            x->writer = 0;
            /* The readers first; the first writer when none was admitted: also when every
             * queued reader is timing out (its timer has claimed it, and its unlink only
             * takes it off: the writer behind it waited for ever, found by a stress
             * tester, test_rwlock_timeout_writer). */
            if (itoi_waitq_head(&x->rq)) admit_readers(x);
            if (!x->readers) admit_writer(x);
        }
    } else if (x->readers && w->cur->slot[ITOI_USLOT_RDHOLDS].w) {
        w->cur->slot[ITOI_USLOT_RDHOLDS].w--;
        if (--x->readers == 0) admit_writer(x);
    } else {
        rc = ITO_EPERM;
    }
    itoi_spin_unlock(&x->lock);
    return rc;
}
