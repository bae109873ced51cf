/* test_timer_front_fair: timed-out ULTs go ahead of their worker's ready queue
 * (test_timer_front), but not so many that the queue stops: 200 ULTs bound to worker 0
 * each loop on a 1 us sleep (due again before the next look at the timers, 64 scheduling
 * points later), next to one ULT that counts its yields. The counter and every
 * sleeper must move (within 5 s). Until the front was bounded (a reviewer, 2026-12-04) every look at
 * the timers put the 64 sleepers that had just run ahead again: the counter stood still,
 * and so did the sleepers behind the first 64, whose sleeps had ended. */
#define _GNU_SOURCE
#include <stdatomic.h>

#include "ito/ito.h"
#include "ito_test.h"

#define SLEEPERS 200
static _Atomic int stop;
static _Atomic long count[SLEEPERS + 1];

static void *sleeper(void *arg)
{
    long i = (long)arg;
    while (!atomic_load(&stop)) {
        atomic_fetch_add(&count[i], 1);
        CHECK_OK(ito_sleep_ns(1000));
    }
    return NULL;
}

static void *counter(void *unused)
{
    (void)unused;
    while (!atomic_load(&stop)) {
        atomic_fetch_add(&count[SLEEPERS], 1);
        CHECK_OK(ito_yield());
    }
    return NULL;
}

int main(void)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 1}));
    ito_attr_t at;
    CHECK_OK(ito_attr_init(&at));
    at.worker = 0;
    at.stack_size = 16384;
    static ito_thread_t t[SLEEPERS + 1];
    CHECK_OK(ito_create(&t[SLEEPERS], counter, NULL, &at));
    for (long i = 0; i < SLEEPERS; i++) CHECK_OK(ito_create(&t[i], sleeper, (void *)i, &at));
    CHECK_OK(ito_sleep_ns(100000000));
    static long before[SLEEPERS + 1];
    for (int i = 0; i <= SLEEPERS; i++) before[i] = atomic_load(&count[i]);
    int still = SLEEPERS + 1;
    for (int k = 0; k < 500 && still; k++) { /* up to 5 s: a loaded machine may stall the worker */
        CHECK_OK(ito_sleep_ns(10000000));
        still = 0;
        for (int i = 0; i <= SLEEPERS; i++) still += atomic_load(&count[i]) == before[i];
    }
    long moved = atomic_load(&count[SLEEPERS]) - before[SLEEPERS];
    atomic_store(&stop, 1);
    for (int i = 0; i <= SLEEPERS; i++) CHECK_OK(ito_join(t[i], NULL));
    CHECK_OK(ito_finalize());
    printf("the counter yielded %ld times; %d of %d ULTs did not move\n", moved, still, SLEEPERS + 1);
    CHECK_EQ(still, 0);
    TEST_DONE();
}
