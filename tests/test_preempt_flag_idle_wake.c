/* test_preempt_flag_idle_wake: in FLAG mode a worker that slept through a quantum end does
 * not ask the ULT it wakes for to yield. The sleeping worker holds its tick (preempt.c:
 * tick_hold) and takes it as it wakes, in the scheduler context, where there is nothing to
 * preempt; the tick set ito_coop_flag there anyway, so a ULT that slept 1 ms at a 1 ms
 * quantum yielded at its first compiled yield point after each wake-up, having run nothing
 * of its quantum, and each was counted a preemption (999 of 1000 wake-ups; outside tester
 * h73f, 2026-12-07). FLAG mode: the sanitizer trees run it too. */
#define _GNU_SOURCE
#include <stdio.h>

#include "ito/ito.h"
#include "ito/coop.h"
#include "ito/preempt.h"
#include "ito_test.h"

#define ROUNDS 60

/* Read in a function of its own, as a compiled check reads it (ito_test_coop_point). */
__attribute__((noinline)) static int flag_now(void) { return ito_coop_flag; }

static void *sleeper(void *arg)
{
    int *found = arg;
    for (int i = 0; i < ROUNDS; i++) {
        ito_test_coop_point(); /* takes a flag a tick set while this ULT ran */
        CHECK_OK(ito_sleep_ns(3000000)); /* three quanta: the worker sleeps through ticks */
        *found += flag_now() != 0;
    }
    return NULL;
}

int main(void)
{
    ito_config_t cfg = {.workers = 1};
    CHECK_OK(ito_init(&cfg));
    ito_preempt_config_t pc = {.quantum_us = 1000, .mode = ITO_PREEMPT_FLAG};
    CHECK_OK(ito_preempt_enable(&pc));
    int found = 0;
    ito_thread_t t;
    CHECK_OK(ito_create(&t, sleeper, &found, NULL));
    CHECK_OK(ito_join(t, NULL));
    CHECK_OK(ito_preempt_disable());
    CHECK_OK(ito_finalize());
    /* A tick that comes in the microseconds between the wake-up and the look is a real
     * quantum end (rare, more so on an unloaded machine); the held tick was every time. */
    printf("flag set right after %d of %d wake-ups\n", found, ROUNDS);
    CHECK(found < ROUNDS / 2);
    TEST_DONE();
}
