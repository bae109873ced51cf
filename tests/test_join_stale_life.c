/* test_join_stale_life: a join or detach through a stale handle (its thread ended
 * detached) gives ITO_EJOINED, also when the descriptor has meanwhile been reused by a
 * new ULT that has finished: it must not join (or detach) that new ULT (thread.h, error.h:
 * "instead of touching another thread"). Before, ito_join checked the handle's tag and
 * then CASed the state word DONE -> REAPED as two steps: a joiner preempted in between
 * reaped the new life, returned ITO_OK with its result and freed it, and the new ULT's
 * own joiner got ITO_EJOINED (found by an outside tester's stress, 2026-12-05; about 1 in
 * 2 million rounds with two workers on one CPU).
 *
 * The whole process runs on one CPU, so that the kernel preempts the stale joiner's
 * worker inside ito_join while the other worker lets the detached T end, creates X on
 * its descriptor (worker 0's pool is LIFO) and keeps X finished and unjoined. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>

#include "ito/ito.h"
#include "ito_test.h"

static _Atomic(ito_thread_t) stale;
static _Atomic int stop;
static _Atomic long stale_ok, x_refused, rounds;

static void *x_fn(void *a) { return a; }

static void *stale_user(void *a)
{
    int use_detach = (int)(uintptr_t)a;
    while (!atomic_load(&stop)) {
        ito_thread_t h = atomic_load(&stale);
        if (!h) continue;
        void *r = NULL;
        int rc = use_detach ? ito_detach(h) : ito_join(h, &r);
        if (rc == ITO_OK) atomic_fetch_add(&stale_ok, 1); /* T was created detached: never */
        else CHECK_EQ(rc, ITO_EJOINED);
    }
    return NULL;
}

/* X on T's descriptor, finished and not joined for a while (ito_test_stale_churn) */
static void reuse(const ito_attr_t *bound)
{
    ito_thread_t x;
    CHECK_OK(ito_create(&x, x_fn, (void *)0x5858, bound));
    ito_yield(); /* X runs and finishes */
    ito_test_spin(3000); /* X finished and not joined: what a stale join could take */
    void *r = NULL;
    int rc = ito_join(x, &r);
    if (rc != ITO_OK) atomic_fetch_add(&x_refused, 1);
    else CHECK(r == (void *)0x5858);
}
static int failed(void) { return atomic_load(&stale_ok) != 0 || atomic_load(&x_refused) != 0; }

int main(void)
{
    cpu_set_t all;
    ito_test_pin_first_cpu(&all); /* the workers inherit it */
#if defined(ITOI_TSAN) || defined(ITOI_ASAN)
    double secs = 4;
#else
    double secs = 3;
#endif
    for (int use_detach = 0; use_detach <= 1; use_detach++) {
        atomic_store(&stop, 0);
        atomic_store(&stale, NULL);
        CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
        ito_attr_t a;
        ito_attr_init(&a);
        ito_thread_t c, j;
        a.worker = 1;
        CHECK_OK(ito_create(&j, stale_user, (void *)(uintptr_t)use_detach, &a));
        a.worker = 0;
        ito_test_churn_t churn = {secs, (void *)1, reuse, failed, &stale, &rounds, &stop};
        CHECK_OK(ito_create(&c, ito_test_stale_churn, &churn, &a));
        CHECK_OK(ito_join(c, NULL));
        CHECK_OK(ito_join(j, NULL));
        CHECK_OK(ito_finalize());
        printf("%s: %ld rounds, stale %s that succeeded %ld, joins of the new thread refused %ld\n",
               use_detach ? "detach" : "join", atomic_load(&rounds), use_detach ? "detaches" : "joins",
               atomic_load(&stale_ok), atomic_load(&x_refused));
        CHECK_EQ(atomic_load(&stale_ok), 0);
        CHECK_EQ(atomic_load(&x_refused), 0);
        atomic_store(&rounds, 0);
    }
    CHECK(sched_setaffinity(0, sizeof all, &all) == 0);
    TEST_DONE();
}
