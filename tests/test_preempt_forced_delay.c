/* test_preempt_forced_delay: a region longer than its bound is forced (preempt.h: "Past
 * max_delay_quanta quanta the ULT is preempted anyway ... charged the same way"), and the
 * time counted as delayed is never more than the time spent in the region: each forced
 * switch ends that delay, and the next quantum inside the region starts a new one. A
 * force that left the delay pending charged, at every later tick, the whole time since
 * the region's first delayed tick again (and once more at its end): delay_ns grew with the
 * square of the region's length (found by mutation testing, h60e, 2026-12-05). FLAG mode
 * (compiled yield points), so the sanitizer trees run it too. */
#define _GNU_SOURCE
#include <stdio.h>

#include "ito/ito.h"
#include "ito/coop.h"
#include "ito/preempt.h"
#include "ito_test.h"

#define REGION_NS 80000000ull /* 80 quanta of 1 ms, the bound 3 */

static uint64_t in_region_ns;

static void *long_region(void *arg)
{
    (void)arg;
    CHECK_OK(ito_psafe_begin());
    /* 80 ms, and at least 20 ms of this thread's CPU time (the bound counts CPU time: a
     * worker thread the OS deschedules must still get past it); the CPU clock is a system
     * call, and a tick just after one starts the count again (preempt.h): read rarely */
    uint64_t t0 = ito_test_now_ns(), c0 = ito_test_cpu_ns();
    while ((ito_test_now_ns() - t0 < REGION_NS || ito_test_cpu_ns() - c0 < REGION_NS / 4) &&
           ito_test_now_ns() - t0 < 10000000000ull)
        for (int i = 0; i < 4096; i++) ito_test_coop_point();
    CHECK_OK(ito_psafe_end());
    in_region_ns = ito_test_now_ns() - t0;
    return NULL;
}

int main(void)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 1}));
    ito_preempt_config_t cfg = {.quantum_us = 1000, .max_delay_quanta = 3, .mode = ITO_PREEMPT_FLAG};
    CHECK_OK(ito_preempt_enable(&cfg));
    ito_preempt_stats_t s0, s1;
    CHECK_OK(ito_preempt_stats(&s0));
    ito_thread_t t;
    CHECK_OK(ito_create(&t, long_region, NULL, NULL));
    CHECK_OK(ito_join(t, NULL));
    CHECK_OK(ito_preempt_stats(&s1));
    CHECK_OK(ito_preempt_disable());
    uint64_t delayed = s1.delayed - s0.delayed, forced = s1.forced - s0.forced, delay = s1.delay_ns - s0.delay_ns;
    if (delay > in_region_ns + 2000000u || forced == 0)
        fprintf(stderr, "region %.1f ms: delayed %llu forced %llu delay %.1f ms\n", in_region_ns / 1e6,
                (unsigned long long)delayed, (unsigned long long)forced, delay / 1e6);
    CHECK(delayed >= 1);
    CHECK(forced >= 1);  /* 80 ms of a spinning region went past a bound of 3 quanta */
    CHECK(forced <= delayed);
    /* never more delayed than the region lasted (plus a quantum's slack for the clocks) */
    CHECK(delay <= in_region_ns + 2000000u);
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
