/* mutex.c: a ULT mutex with direct hand-off.
 *
 * The owner word holds the owning ULT's identity (itoi_owner_id: its descriptor's
 * address and its handle's generation, so a new ULT on a reused descriptor is not the
 * owner), with bit 0 set when ULTs wait. lock: one CAS 0 -> me when free. unlock: one CAS me -> 0 when nobody waits;
 * otherwise, under the spinlock, ownership passes straight to the first waiter (FIFO:
 * no barging, no starvation) and that waiter is made ready already owning it. The
 * waiters bit is only set under the spinlock, and a waiter parks only after setting
 * it, so an unlock can never miss a waiter. A destroy takes the word from 0 to DEAD under
 * the spinlock, so a lock that passed the mark check before it cannot own it after. */
#include <assert.h>

#include "ito/sync.h"
#include "waitq.h"

typedef struct mutex_impl {
    itoi_spinlock_t lock;
    uint32_t mark; /* ITOI_MARK_MUTEX while initialised (waitq.h) */
    _Atomic uintptr_t owner;
    itoi_waitq_t waiters;
} mutex_impl_t;

static_assert(sizeof(mutex_impl_t) <= sizeof(ito_mutex_t), "ito_mutex_t too small");
ITOI_MARK_FIRST(mutex_impl_t);

#define WAITERS ((uintptr_t)1)
/* The owner word of a destroyed mutex: no owner id (an address with a generation) is
 * ever this, so every CAS of a lock fails on it and the lock says ITO_EINVAL. */
#define DEAD (~(uintptr_t)1)

int ito_mutex_init(ito_mutex_t *m)
{
    if (!m) return ITO_EINVAL;
    mutex_impl_t *x = (mutex_impl_t *)m;
    itoi_spin_init(&x->lock);
    atomic_init(&x->owner, 0);
    x->waiters = (itoi_waitq_t){0};
    x->mark = ITOI_MARK_MUTEX;
    return ITO_OK;
}

int ito_mutex_destroy(ito_mutex_t *m)
{
    if (!itoi_marked(m, ITOI_MARK_MUTEX)) return ITO_EINVAL;
    mutex_impl_t *x = (mutex_impl_t *)m;
    /* Under x->lock: the mark (a second destroy: ITO_EINVAL), no waiter queued (an unlock
     * that found only one whose timer has claimed it freed the mutex with that waiter still
     * queued; its timer takes it off under x->lock), then the owner word taken from free to
     * DEAD by CAS. A lock that passed the mark check before this destroy fails its CAS on
     * DEAD (ITO_EINVAL) instead of owning a destroyed mutex (found by
     * test_sync_enter_destroy_locks: 2 in 6,000 rounds said ITO_OK). */
    uintptr_t v = 0;
    int rc = ITO_OK;
    itoi_spin_lock(&x->lock);
    if (!itoi_marked(m, ITOI_MARK_MUTEX))
        rc = ITO_EINVAL;
    else if (itoi_waitq_head(&x->waiters) != NULL ||
             !atomic_compare_exchange_strong_explicit(&x->owner, &v, DEAD, memory_order_acquire,
                                                      memory_order_relaxed))
        rc = ITO_EBUSY;
    else
        itoi_mark_clear(&x->mark); /* still set: checked under the lock */
    itoi_spin_unlock(&x->lock);
    return rc;
}

int ito_mutex_trylock(ito_mutex_t *m)
{
    if (!itoi_marked(m, ITOI_MARK_MUTEX)) return ITO_EINVAL;
    itoi_worker_t *w = itoi_ult_worker();
    if (!w) return ITO_ENOTULT;
    mutex_impl_t *x = (mutex_impl_t *)m;
    uintptr_t expect = 0;
    uintptr_t me = itoi_owner_id(w->cur);
    if (atomic_compare_exchange_strong_explicit(&x->owner, &expect, me, memory_order_acquire,
                                                memory_order_relaxed))
        return ITO_OK;
    if (expect == DEAD) return ITO_EINVAL; /* destroyed since the mark check */
    return (expect & ~WAITERS) == me ? ITO_EDEADLK : ITO_EBUSY;
}

/* A timed waiter gives up (under x->lock): off the queue, and the waiters bit goes
 * when it was the last one. The owner word cannot change meanwhile: with the bit set,
 * unlock takes x->lock, and lock/trylock only succeed on a zero word. An unlock that saw
 * the bit and waits for x->lock then finds the queue empty: it frees the mutex. */
static bool mutex_unlink(itoi_ult_t *t, void *obj)
{
    mutex_impl_t *x = obj;
    if (!itoi_waiter_remove(&x->waiters, t)) return false; /* handed the mutex meanwhile */
    if (!x->waiters.head) atomic_fetch_and_explicit(&x->owner, ~WAITERS, memory_order_relaxed);
    return true;
}

int ito_mutex_lock(ito_mutex_t *m) { return ito_mutex_lock_until(m, ITO_FOREVER); }

int ito_mutex_lock_until(ito_mutex_t *m, uint64_t deadline)
{
    if (!itoi_marked(m, ITOI_MARK_MUTEX)) return ITO_EINVAL;
    itoi_worker_t *w = itoi_ult_worker();
    if (!w) return ITO_ENOTULT;
    mutex_impl_t *x = (mutex_impl_t *)m;
    uintptr_t me = itoi_owner_id(w->cur), v = 0;
    if (ITOI_LIKELY(atomic_compare_exchange_strong_explicit(&x->owner, &v, me, memory_order_acquire,
                                                            memory_order_relaxed)))
        return ITO_OK;
    if ((v & ~WAITERS) == me) return ITO_EDEADLK;
    itoi_spin_lock(&x->lock);
    for (;;) {
        v = atomic_load_explicit(&x->owner, memory_order_relaxed);
        if (v == DEAD) { /* destroyed since the mark check */
            itoi_spin_unlock(&x->lock);
            return ITO_EINVAL;
        }
        if (v == 0) {
            if (atomic_compare_exchange_strong_explicit(&x->owner, &v, me, memory_order_acquire,
                                                        memory_order_relaxed)) {
                itoi_spin_unlock(&x->lock);
                return ITO_OK;
            }
            continue;
        }
        if (itoi_deadline_passed(deadline)) {
            itoi_spin_unlock(&x->lock);
            return ITO_ETIMEDOUT;
        }
        if (atomic_compare_exchange_strong_explicit(&x->owner, &v, v | WAITERS, memory_order_relaxed,
                                                    memory_order_relaxed))
            break;
    }
    int rc = itoi_wait_on_until(w, &x->waiters, &x->lock, deadline, mutex_unlink, x, "mutex");
    /* Woken by unlock's hand-off: we own the mutex now (unless the deadline passed). */
    atomic_thread_fence(memory_order_acquire);
    return rc;
}

int ito_mutex_unlock(ito_mutex_t *m)
{
    if (!itoi_marked(m, ITOI_MARK_MUTEX)) return ITO_EINVAL;
    itoi_worker_t *w = itoi_ult_worker();
    if (!w) return ITO_ENOTULT;
    mutex_impl_t *x = (mutex_impl_t *)m;
    uintptr_t me = itoi_owner_id(w->cur), v = me;
    if (ITOI_LIKELY(atomic_compare_exchange_strong_explicit(&x->owner, &v, 0, memory_order_release,
                                                            memory_order_relaxed)))
        return ITO_OK;
    if ((v & ~WAITERS) != me) return ITO_EPERM;
    itoi_spin_lock(&x->lock);
    itoi_ult_t *next = itoi_waiter_pop(&x->waiters);
    if (!next) {
        /* The last waiter timed out between our failed CAS and the lock (mutex_unlink
         * cleared the bit), or is timing out (its timer takes it off and clears the bit):
         * nobody to hand it to (found by fuzz_wait: NULL was readied). */
        atomic_store_explicit(&x->owner, 0, memory_order_release);
        itoi_spin_unlock(&x->lock);
        return ITO_OK;
    }
    atomic_store_explicit(&x->owner, itoi_owner_id(next) | (x->waiters.head ? WAITERS : 0),
                          memory_order_release);
    itoi_spin_unlock(&x->lock);
    itoi_ready(next);
    return ITO_OK;
}
