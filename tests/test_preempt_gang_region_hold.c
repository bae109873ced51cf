/* test_preempt_gang_region_hold: a gang ULT inside a region when its group's turn is forced
 * to end keeps its worker until ito_psafe_end (preempt.h), and the time it keeps it is
 * charged to its group like any delayed switch ("ito_psafe_end() then switches at once, and
 * the ULT's group is charged the extra time it used (with gang scheduling it sits that long
 * out of its turns"). In signal mode that time was only counted (delay_ns), not charged:
 * with regions of 7 quanta of running at a bound of 4, the turn's extension was charged,
 * then the ULT ran on through the very turns that paid it back, and its group got about
 * four times the CPU of the other (0.69-0.89 of the worker; h61c, 2026-12-05). One worker;
 * signal mode where it is available (FLAG mode in the sanitizer trees); each ULT adds up the
 * time it runs. */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdio.h>

#include "ito/ito.h"
#include "ito/coop.h"
#include "ito/preempt.h"
#include "ito_test.h"

static _Atomic int stop;
static uint64_t ran[2]; /* ns each ULT ran, as it saw it */
static int flag_mode;

static inline void point(void)
{
    if (flag_mode) ito_test_coop_point();
}

static void *with_regions(void *arg)
{
    (void)arg;
    uint64_t last = ito_test_now_ns();
    while (!atomic_load(&stop)) {
        CHECK_OK(ito_psafe_begin());
        uint64_t r0 = ran[0];
        while (ran[0] - r0 < 14000000 && !atomic_load(&stop)) { /* 7 quanta of running */
            ito_test_account(&ran[0], &last);
            point();
        }
        CHECK_OK(ito_psafe_end());
        for (int i = 0; i < 100; i++) {
            ito_test_account(&ran[0], &last);
            point();
        }
    }
    return NULL;
}

static void *plain(void *arg)
{
    (void)arg;
    ito_test_account_until(&ran[1], &stop, flag_mode);
    return NULL;
}

int main(void)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 1}));
    flag_mode = !ITO_TEST_SIGNAL_MODE_OK;
    ito_group_t *ga, *gb;
    CHECK_OK(ito_group_create(&ga));
    CHECK_OK(ito_group_create(&gb));
    ito_preempt_config_t cfg = {.quantum_us = 2000, .max_delay_quanta = 4, .gang = 1,
                                .mode = flag_mode ? ITO_PREEMPT_FLAG : ITO_PREEMPT_SIGNAL};
    CHECK_OK(ito_preempt_enable(&cfg));
    ito_thread_t a, b;
    CHECK_OK(ito_create(&a, with_regions, NULL, NULL));
    CHECK_OK(ito_group_add(ga, a));
    CHECK_OK(ito_create(&b, plain, NULL, NULL));
    CHECK_OK(ito_group_add(gb, b));
    /* main is in no group; until the two ran 400 ms between them, 10 s at most */
    uint64_t t0 = ito_test_now_ns();
    while (ran[0] + ran[1] < 400000000 && ito_test_now_ns() - t0 < 10000000000ull) CHECK_OK(ito_sleep_ns(20000000));
    atomic_store(&stop, 1);
    CHECK_OK(ito_join(a, NULL));
    CHECK_OK(ito_join(b, NULL));
    ito_preempt_stats_t sa;
    CHECK_OK(ito_group_stats(ga, &sa));
    CHECK_OK(ito_preempt_disable());
    double ratio = ran[1] ? (double)ran[0] / (double)ran[1] : 1e9;
    printf("%s mode: regions' group ran %.0f ms, plain group %.0f ms (ratio %.2f); delayed %llu, forced %llu\n",
           flag_mode ? "flag" : "signal", ran[0] / 1e6, ran[1] / 1e6, ratio, (unsigned long long)sa.delayed,
           (unsigned long long)sa.forced);
    CHECK(sa.delayed > 0); /* the regions did extend turns */
    /* charged for the time it kept the worker: about even (uncharged about 4). The turns
     * end by the clock and each ULT counts its own running, so a worker thread the kernel
     * takes away skews the ratio: 1.97 once at load 10 on 2 CPUs (h69c), 1.07-1.66 in the
     * reruns; 2.5 still tells the charged case from the uncharged one. */
    CHECK(ratio < 2.5);
    CHECK_OK(ito_group_destroy(ga));
    CHECK_OK(ito_group_destroy(gb));
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
