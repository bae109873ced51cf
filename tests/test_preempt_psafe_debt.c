/* test_preempt_psafe_debt: without gang scheduling, regions that overrun the quantum leave no debt
 * behind. A group's overruns were charged as debt (turns to sit out) also with gangs off,
 * where nothing reads it; gangs enabled later made the group sit out turns for them: after
 * 300 ms of 5 ms regions at a 1 ms quantum (about 270 ms of debt), the group's spinner got
 * no CPU at all in the first 200 ms of gang scheduling (found by an outside tester, h59b,
 * 2026-12-05). preempt.h: without gangs the time is counted, nothing is sat out. */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <time.h>

#include "ito/ito.h"
#include "ito/coop.h"
#include "ito/preempt.h"
#include "ito_test.h"

static _Atomic int phase, stop;
static _Atomic long progress[2];

static void *overrunner(void *arg)
{
    (void)arg;
    while (!atomic_load(&phase)) { /* regions of 5 quanta: each one's end is delayed */
        CHECK_OK(ito_psafe_begin());
        ito_test_coop_busy_ns(5000000);
        CHECK_OK(ito_psafe_end());
    }
    while (!atomic_load(&stop)) {
        atomic_fetch_add(&progress[0], 1);
        ito_test_coop_point();
    }
    return NULL;
}

static void *spinner(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop)) {
        atomic_fetch_add(&progress[1], 1);
        ito_test_coop_point();
    }
    return NULL;
}

static void run_for(uint64_t ns)
{
    uint64_t end = ito_test_now_ns() + ns;
    while (ito_test_now_ns() < end) CHECK_OK(ito_yield());
}

int main(void)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 1}));
    int mode = ITO_TEST_SIGNAL_MODE_OK ? ITO_PREEMPT_SIGNAL : ITO_PREEMPT_FLAG;
    ito_group_t *g1, *g2;
    CHECK_OK(ito_group_create(&g1));
    CHECK_OK(ito_group_create(&g2));
    ito_preempt_config_t cfg = {.quantum_us = 1000, .mode = mode};
    CHECK_OK(ito_preempt_enable(&cfg));
    ito_thread_t a, b;
    CHECK_OK(ito_create(&a, overrunner, NULL, NULL));
    CHECK_OK(ito_group_add(g1, a));
    run_for(300000000);
    CHECK_OK(ito_preempt_disable());
    ito_preempt_stats_t s;
    CHECK_OK(ito_group_stats(g1, &s));
    CHECK(s.delayed > 0); /* the overruns were counted */
    atomic_store(&phase, 1);
    CHECK_OK(ito_create(&b, spinner, NULL, NULL));
    CHECK_OK(ito_group_add(g2, b));
    cfg.gang = 1;
    CHECK_OK(ito_preempt_enable(&cfg));
    run_for(200000000);
    long pa = atomic_load(&progress[0]), pb = atomic_load(&progress[1]);
    printf("g1 delay_ns %.0f ms before gangs; then in 200 ms: g1 %ld, g2 %ld\n", s.delay_ns / 1e6, pa, pb);
    CHECK(pa > 0); /* before: 0 (g1 sat out every turn) */
    atomic_store(&stop, 1);
    CHECK_OK(ito_join(a, NULL));
    CHECK_OK(ito_join(b, NULL));
    CHECK_OK(ito_preempt_disable());
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
