/* once.c: run a function exactly once, however many threads ask at the same time.
 *
 * state goes NEW -> RUNNING -> DONE, each step under the spinlock; DONE is published
 * with a release store, so the fast path (already done) is one acquire load and sees
 * everything fn wrote. Callers that find it RUNNING park on the queue (ULTs only) and
 * are woken when the runner marks it DONE. The runner is recorded so that a caller whose
 * fn calls ito_once on the same object gets ITO_EDEADLK instead of waiting for itself: a
 * ULT by its descriptor, a ZWT by its worker (it runs to its end there), a foreign thread
 * and the main ULT by their kernel thread (until 2026-12-04 ZWTs and foreign threads got
 * ITO_ENOTULT, found by a misuse fuzzer; until 2026-12-05 main before and after ito_init
 * were two callers, found by an outside tester).
 * ITO_ONCE_INIT (all zero) is a valid NEW object: an unlocked spinlock, an empty queue.
 * Having no init, a once object carries no type mark (waitq.h); storage whose state or
 * lock word holds a value no once object holds is refused (ITO_EINVAL).
 *
 * A C++ fn that throws: as std::call_once, the object goes back to NEW, the exception
 * reaches the caller, and the next caller runs fn again. This file is compiled with
 * -fexceptions (src/CMakeLists.txt) so that the runner's cleanup (`fence`) runs while the
 * exception unwinds through ito_once; it wakes the waiters, which loop: one of them
 * becomes the next runner. */
#include <assert.h>

#include "ito/sync.h"
#include "waitq.h"

enum { NEW = 0, RUNNING = 1, DONE = 2 };

typedef struct once_impl {
    _Atomic int state;
    itoi_spinlock_t lock;
    const void *runner;          /* who runs fn: its ULT, else its kernel thread's once_self */
    itoi_waitq_t waiters;
} once_impl_t;

static_assert(sizeof(once_impl_t) <= sizeof(ito_once_t), "ito_once_t too small");

/* The identity of a caller that is not a ULT: an address of its kernel thread's own. */
static _Thread_local char once_self;

/* The end of a run: DONE, or back to NEW when fn threw; wakes every waiter. */
static void finish(once_impl_t *x, int to)
{
    /* A foreign runner enters the runtime to wake waiters (if it runs at all: before
     * ito_init nobody can wait). */
    bool foreign = false;
    int entered = itoi_any_enter(&foreign);
    itoi_spin_lock(&x->lock);
    atomic_store_explicit(&x->state, to, memory_order_release);
    x->runner = NULL;
    itoi_wake_every(&x->waiters);
    itoi_spin_unlock(&x->lock);
    if (entered == ITO_OK) itoi_any_leave(foreign, ITO_OK);
}

typedef struct fence {
    once_impl_t *x;
    bool returned;
} fence_t;

/* Runs when the runner's scope ends: normally after fn returned (DONE), or while a C++
 * exception from fn unwinds through ito_once (NEW again). */
static void fence_end(fence_t *f)
{
    finish(f->x, f->returned ? DONE : NEW);
}

int ito_once(ito_once_t *o, void (*fn)(void))
{
    if (!o || !fn) return ITO_EINVAL;
    once_impl_t *x = (once_impl_t *)o;
    int s0 = atomic_load_explicit(&x->state, memory_order_acquire);
    if (ITOI_LIKELY(s0 == DONE)) return ITO_OK;
    /* Not a once object (it has no init, so no mark: a state or lock word no once object
     * holds is refused instead of spinning on a lock that reads as held for ever). */
    if ((unsigned)s0 > DONE || !itoi_spin_plausible(&x->lock)) return ITO_EINVAL;
    for (;;) {
        itoi_worker_t *w = itoi_self_worker();
        itoi_ult_t *me = w ? w->cur : NULL;
        /* The main ULT is the kernel thread that called ito_init (worker 0, bound): it has
         * that thread's identity, so that a fn that starts or stops the runtime (lazy
         * init through ito_once) and then calls ito_once on the same object gets
         * ITO_EDEADLK (it waited for itself for ever, or got ITO_ENOTULT: found by an
         * outside tester, h58c). */
        const void *who = me && me != itoi_rt.main_ult ? (const void *)me   /* a ULT */
                          : me || !w ? (const void *)&once_self             /* main, a plain thread */
                                     : (const void *)w;                     /* a ZWT, on worker w */
        itoi_spin_lock(&x->lock);
        int s = atomic_load_explicit(&x->state, memory_order_relaxed);
        if (s == RUNNING) {
            int rc = x->runner == who ? ITO_EDEADLK : !me ? ITO_ENOTULT : ITO_OK;
            if (rc != ITO_OK) {
                itoi_spin_unlock(&x->lock);
                return rc;
            }
            /* Woken once the runner is done: DONE, or NEW again if its fn threw. */
            rc = itoi_wait_on_until(w, &x->waiters, &x->lock, ITO_FOREVER, NULL, NULL, "once");
            if (rc != ITO_OK) return rc;
            continue;
        }
        if (s == DONE) {
            itoi_spin_unlock(&x->lock);
            return ITO_OK;
        }
        atomic_store_explicit(&x->state, RUNNING, memory_order_relaxed);
        x->runner = who;
        itoi_spin_unlock(&x->lock);
        fence_t f __attribute__((cleanup(fence_end))) = {x, false};
        fn();
        f.returned = true;
        return ITO_OK; /* fence_end marks it DONE */
    }
}
