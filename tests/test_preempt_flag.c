/* test_preempt_flag: FLAG-mode preemption (the timer sets ito_coop_flag, compiled yield
 * points switch) counts its preemptions in ito_preempt_stats, as signal mode does; two
 * ULTs that only switch at co-operative points both progress on one worker. Runs in all
 * three trees (the flag mode needs no signal-handler switch). One of the two is in a
 * group, whose ito_group_stats count its preemptions too (they stayed 0 in flag mode
 * until 2026-12-03: only the signal path counted a group's; found by a misuse test). */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "ito/ito.h"
#include "ito_test.h"

static _Atomic int stop;
static ito_test_spinner_t spin[2] = {{.stop = &stop}, {.stop = &stop}};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(void)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 1}));
    ito_preempt_config_t cfg = {.quantum_us = 1000, .mode = ITO_PREEMPT_FLAG};
    CHECK_OK(ito_preempt_enable(&cfg));
    ito_thread_t a, b;
    ito_group_t *g;
    CHECK_OK(ito_group_create(&g));
    CHECK_OK(ito_create(&a, ito_test_coop_spin, &spin[0], NULL));
    CHECK_OK(ito_group_add(g, a)); /* before it runs */
    CHECK_OK(ito_create(&b, ito_test_coop_spin, &spin[1], NULL));
    ito_preempt_stats_t s, gs;
    double t0 = now();
    do { /* main yields too; the spinners only switch when the flag says so */
        CHECK_OK(ito_yield());
        CHECK_OK(ito_preempt_stats(&s));
        CHECK_OK(ito_group_stats(g, &gs));
    } while (now() - t0 < 0.1 || (now() - t0 < 20 && (s.preemptions < 3 || gs.preemptions < 1 ||
                                                       !atomic_load(&spin[0].progress) ||
                                                       !atomic_load(&spin[1].progress))));
    atomic_store(&stop, 1);
    CHECK_OK(ito_join(a, NULL));
    CHECK_OK(ito_join(b, NULL));
    CHECK(atomic_load(&spin[0].progress) > 0 && atomic_load(&spin[1].progress) > 0);
    CHECK(s.ticks > 0);
    CHECK(s.preemptions >= 3); /* counted, not 0 as before */
    CHECK(s.preemptions <= s.ticks);
    CHECK_OK(ito_group_stats(g, &gs));
    CHECK(gs.preemptions >= 1); /* the grouped spinner's, counted for its group */
    CHECK(gs.preemptions <= s.preemptions);
    CHECK_OK(ito_group_destroy(g)); /* a left with its end */
    CHECK_OK(ito_preempt_disable());
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
