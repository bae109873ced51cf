/* test_starvation: a ready ULT is run eventually, even when every worker stays busy.
 *
 * The scenario: worker 1 is asleep (so want_work > 0); main, on worker 0, has a
 * yielding spinner S0 in its private queue; main makes worker 1 busy with a spinner
 * S1 bound to it, then creates an unbound ULT X. Because a worker is idle at that
 * moment, X is published to worker 0's steal queue. Worker 1 wakes, finds S1 in its
 * inbox and runs it (it only steals when it finds nothing else); worker 0 only takes
 * its steal queue back when its private queue is empty, which never happens while S0
 * and main yield to each other. If X has not run after a generous bound (both workers
 * scheduling all along), it is starved: the test fails instead of hanging. Repeated a
 * few rounds because the publication of X depends on worker 1 still being idle. */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "ito/ito.h"
#include "ito_test.h"

static _Atomic int stop, x_ran;

static void *spinner(void *unused)
{
    (void)unused;
    while (!atomic_load(&stop)) ito_yield();
    return NULL;
}

static void *x_fn(void *unused)
{
    (void)unused;
    atomic_store(&x_ran, 1);
    return NULL;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(void)
{
    ito_config_t cfg = {.workers = 2};
    CHECK_OK(ito_init(&cfg));
    for (int round = 0; round < 5; round++) {
        atomic_store(&stop, 0);
        atomic_store(&x_ran, 0);
        ito_attr_t a0, a1;
        CHECK_OK(ito_attr_init(&a0));
        CHECK_OK(ito_attr_init(&a1));
        a0.worker = 0;
        a1.worker = 1;
        ito_thread_t s0, s1, x;
        CHECK_OK(ito_create(&s0, spinner, NULL, &a0));
        struct timespec ms20 = {0, 20 * 1000 * 1000};
        nanosleep(&ms20, NULL); /* worker 1 has nothing to do: it goes to sleep */
        CHECK_OK(ito_create(&s1, spinner, NULL, &a1));
        CHECK_OK(ito_create(&x, x_fn, NULL, NULL));
        double t0 = now();
        while (!atomic_load(&x_ran) && now() - t0 < 3.0) CHECK_OK(ito_yield());
        int ran = atomic_load(&x_ran);
        atomic_store(&stop, 1);
        if (!ran)
            fprintf(stderr, "round %d: a ready ULT did not run for 3 s while both workers "
                            "were scheduling other ULTs (starved in a steal queue)\n", round);
        CHECK(ran);
        CHECK_OK(ito_join(s0, NULL));
        CHECK_OK(ito_join(s1, NULL));
        CHECK_OK(ito_join(x, NULL));
    }
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
