/* test_preempt_flag_region_count: FLAG mode counts a preemption per quantum whose flag a
 * compiled yield point took (preempt.h), not per tick that finds the flag clear. Inside a
 * preemption-safe region the flag stays clear (the switch is delayed), so the ticks there
 * count no preemption, and the delay is one (delayed counts switches, not ticks). A tick
 * that did not forget the flag it had set before the region counted every tick of the
 * region as a preemption (30 in a 30 ms region at a 1 ms quantum; found by mutation
 * testing, h60e, 2026-12-05). FLAG mode: the sanitizer trees run it too. */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdio.h>

#include "ito/ito.h"
#include "ito/coop.h"
#include "ito/preempt.h"
#include "ito_test.h"

static ito_preempt_stats_t before, after;
static _Atomic int stop;
static _Atomic long other_progress;

/* The other ULT: it takes the flag at its points, so the worker switches between the two. */
static void *other(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop)) {
        atomic_fetch_add(&other_progress, 1);
        ito_test_coop_point();
    }
    return NULL;
}

static void *body(void *arg)
{
    (void)arg;
    /* Outside a region the ticks set the flag and the points take it, switching to the
     * other ULT and back. The region begins just after a point switched back here: the
     * flag the last tick set has been taken (the case that counted every tick). */
    uint64_t t0 = ito_test_now_ns();
    for (;;) {
        long p = atomic_load(&other_progress);
        ito_test_coop_point();
        if (atomic_load(&other_progress) != p && ito_test_now_ns() - t0 > 20000000) break;
    }
    CHECK_OK(ito_preempt_stats(&before));
    CHECK_OK(ito_psafe_begin());
    ito_test_coop_busy_ns(30000000); /* 30 quanta, under the bound of 1000 */
    CHECK_OK(ito_psafe_end());
    CHECK_OK(ito_preempt_stats(&after));
    return NULL;
}

int main(void)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 1}));
    ito_preempt_config_t cfg = {.quantum_us = 1000, .max_delay_quanta = 1000, .mode = ITO_PREEMPT_FLAG};
    CHECK_OK(ito_preempt_enable(&cfg));
    ito_thread_t t, o;
    CHECK_OK(ito_create(&o, other, NULL, NULL));
    CHECK_OK(ito_create(&t, body, NULL, NULL));
    CHECK_OK(ito_join(t, NULL));
    atomic_store(&stop, 1);
    CHECK_OK(ito_join(o, NULL));
    CHECK_OK(ito_preempt_disable());
    uint64_t ticks = after.ticks - before.ticks, pre = after.preemptions - before.preemptions;
    uint64_t delayed = after.delayed - before.delayed, forced = after.forced - before.forced;
    if (pre > 2 || delayed > 2)
        fprintf(stderr, "region: ticks %llu preemptions %llu delayed %llu forced %llu\n", (unsigned long long)ticks,
                (unsigned long long)pre, (unsigned long long)delayed, (unsigned long long)forced);
    CHECK(ticks >= 2);  /* the region did see ticks (fewer when the OS deschedules the worker) */
    CHECK(pre <= 2);    /* the flag taken just before the region, counted at its first tick */
    CHECK(delayed >= 1 && delayed <= 2);
    CHECK_EQ(forced, 0u);
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
