/* test_mutex_timeout_race: a timed locker gives up just as the holder unlocks (2
 * workers). The holder (on worker 0) takes the mutex and keeps it until an instant T;
 * the waiter (on worker 1) asks for it with a deadline of T minus 0-15 us, so that its
 * timer fires about when the holder unlocks, 20,000 times. Mutual exclusion holds (a
 * counter checked inside the critical section), every call returns ITO_OK or
 * ITO_ETIMEDOUT, and the mutex is free at the end.
 *
 * Regression test: an unlock that saw the waiters bit took the slow path; when the last
 * waiter timed out before the unlock got the mutex's spinlock (the timeout holds it while
 * it takes the waiter off the queue), the queue was empty and the unlock handed the mutex
 * to NULL (found by fuzz_wait: a NULL dereference, the mutex left owned by nobody).
 *
 * On a loaded machine each round's hand-overs between the two workers can cost scheduler
 * quanta: the holder stops after 100 s once 5,000 rounds have run (ito_test_budget_t; the
 * old code crashed within 80 ms). */
#define _GNU_SOURCE /* CLOCK_MONOTONIC (ito_test_budget_t) */
#include <stdatomic.h>

#include "ito/ito.h"
#include "ito_test.h"

#define ROUNDS 20000

static ito_mutex_t m;
static _Atomic int inside, round_no, finished; /* finished: the holder ran its last round */
static _Atomic uint64_t until; /* when the holder unlocks, for round round_no */
static long timeouts, taken, rounds_run;

static void critical(void)
{
    CHECK_EQ(atomic_fetch_add(&inside, 1), 0);
    atomic_fetch_sub(&inside, 1);
}

static void *holder(void *arg)
{
    (void)arg;
    ito_test_budget_t budget;
    ito_test_budget_init(&budget, "holder", ROUNDS, ROUNDS / 4, 100);
    int i;
    for (i = 1; ito_test_budget_more(&budget, i - 1); i++) {
        CHECK_OK(ito_mutex_lock(&m));
        critical();
        uint64_t t = ito_now_ns() + 20000;
        atomic_store(&until, t);
        atomic_store(&round_no, i);
        while (ito_now_ns() < t) {
        }
        CHECK_OK(ito_mutex_unlock(&m));
        while (atomic_load(&round_no) != -i) CHECK_OK(ito_yield()); /* the waiter is done */
    }
    rounds_run = i - 1;
    atomic_store(&finished, 1);
    return NULL;
}

static void *waiter(void *arg)
{
    (void)arg;
    for (int i = 1;; i++) {
        while (atomic_load(&round_no) != i) {
            if (atomic_load(&finished)) return NULL;
            CHECK_OK(ito_yield());
        }
        int rc = ito_mutex_lock_until(&m, atomic_load(&until) - (uint64_t)(i % 16) * 1000);
        if (rc == ITO_OK) {
            critical();
            taken++;
            CHECK_OK(ito_mutex_unlock(&m));
        } else {
            CHECK_EQ(rc, ITO_ETIMEDOUT);
            timeouts++;
        }
        atomic_store(&round_no, -i);
    }
    return NULL;
}

int main(void)
{
    ito_config_t cfg = {.workers = 2};
    CHECK_OK(ito_init(&cfg));
    CHECK_OK(ito_mutex_init(&m));
    ito_attr_t a0, a1;
    CHECK_OK(ito_attr_init(&a0));
    CHECK_OK(ito_attr_init(&a1));
    a0.worker = 0;
    a1.worker = 1;
    ito_thread_t h, w;
    CHECK_OK(ito_create(&h, holder, NULL, &a0));
    CHECK_OK(ito_create(&w, waiter, NULL, &a1));
    CHECK_OK(ito_join(h, NULL));
    CHECK_OK(ito_join(w, NULL));
    CHECK_OK(ito_mutex_trylock(&m)); /* free */
    CHECK_OK(ito_mutex_unlock(&m));
    CHECK_OK(ito_mutex_destroy(&m));
    CHECK_OK(ito_finalize());
    printf("waiter: took the mutex %ld times, timed out %ld times\n", taken, timeouts);
    CHECK_EQ(taken + timeouts, rounds_run); /* the waiter asked in every round */
    TEST_DONE();
}
