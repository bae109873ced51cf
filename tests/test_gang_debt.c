/* test_gang_debt: with gang scheduling, a group whose preemption-safe regions extend its
 * turns sits the extra time out of its next turns (preempt.h: "with gang scheduling it
 * sits that long out of its turns, the paper's compensation"), so over many turns it gets
 * about the CPU of a group that never extends. Nothing tested the compensation: a debt
 * never paid back (or never charged) passed every test, and the group with 6 ms regions at
 * a 2 ms quantum then took about three quarters of the worker (found by mutation testing,
 * h60e, 2026-12-05). One worker, FLAG mode (compiled yield points), so the sanitizer trees
 * run it too; each ULT adds up the time it runs.
 * Run twice: alone, and with three foreign threads spinning on the worker's CPU. The
 * extension used to be charged in wall time and the debt paid back a quantum per turn:
 * an extension that the OS stretched (the worker's thread descheduled inside it) was
 * charged many quanta while a sat-out turn stretched the same way paid back one, and the
 * group with regions got 0.06-0.45 of the other's CPU (h61c, 2026-12-05). Now each tick of
 * an extension is charged at most a quantum (gang.c, advance). */
#define _GNU_SOURCE
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>

#include "ito/ito.h"
#include "ito/coop.h"
#include "ito/preempt.h"
#include "ito_test.h"

#define NHOGS 3 /* with one, the extension and the sat-out turns were stretched alike */

static _Atomic int stop;
static uint64_t ran[2]; /* ns each ULT ran, as it saw it */

static void *with_regions(void *arg)
{
    (void)arg;
    uint64_t last = ito_test_now_ns();
    while (!atomic_load(&stop)) {
        CHECK_OK(ito_psafe_begin());
        uint64_t t0 = ito_test_now_ns();
        while (ito_test_now_ns() - t0 < 6000000) { /* 3 quanta, under the bound of 10 */
            ito_test_account(&ran[0], &last);
            ito_test_coop_point();
        }
        CHECK_OK(ito_psafe_end());
        ito_test_account(&ran[0], &last);
        ito_test_coop_point();
    }
    return NULL;
}

static void *plain(void *arg)
{
    (void)arg;
    ito_test_account_until(&ran[1], &stop, 1);
    return NULL;
}

static void run(int hogs)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 1}));
    ito_test_hogs_t h;
    cpu_set_t old;
    if (hogs) { /* main is a ULT of the only worker: its thread and the hogs on one CPU */
        ito_test_hogs_start(&h, hogs);
        ito_test_hogs_pin(&h, &old);
        while (atomic_load(&h.on) < hogs) sched_yield();
    }
    atomic_store(&stop, 0);
    ran[0] = ran[1] = 0;
    ito_group_t *ga, *gb;
    CHECK_OK(ito_group_create(&ga));
    CHECK_OK(ito_group_create(&gb));
    ito_preempt_config_t cfg = {.quantum_us = 2000, .max_delay_quanta = 10, .gang = 1, .mode = ITO_PREEMPT_FLAG};
    CHECK_OK(ito_preempt_enable(&cfg));
    ito_thread_t a, b;
    CHECK_OK(ito_create(&a, with_regions, NULL, NULL));
    CHECK_OK(ito_group_add(ga, a));
    CHECK_OK(ito_create(&b, plain, NULL, NULL));
    CHECK_OK(ito_group_add(gb, b));
    /* main is in no group; until the two ran 400 ms between them (the thread may share its
     * CPU), 10 s at most */
    uint64_t t0 = ito_test_now_ns();
    while (ran[0] + ran[1] < 400000000 && ito_test_now_ns() - t0 < 10000000000ull) CHECK_OK(ito_yield());
    atomic_store(&stop, 1);
    CHECK_OK(ito_join(a, NULL));
    CHECK_OK(ito_join(b, NULL));
    ito_preempt_stats_t sa;
    CHECK_OK(ito_group_stats(ga, &sa));
    CHECK_OK(ito_preempt_disable());
    if (hogs) {
        ito_test_hogs_stop(&h);
        CHECK(sched_setaffinity(0, sizeof old, &old) == 0);
    }
    double ratio = ran[1] ? (double)ran[0] / (double)ran[1] : 1e9;
    printf("%d hogs: regions' group ran %.0f ms, plain group %.0f ms (ratio %.2f); delayed %llu, delay %.0f ms\n",
           hogs, ran[0] / 1e6, ran[1] / 1e6, ratio, (unsigned long long)sa.delayed, sa.delay_ns / 1e6);
    CHECK(sa.delayed > 0); /* the regions did extend turns */
    CHECK(ratio < 1.8);    /* compensated: about even (uncompensated about 3) */
    CHECK(ratio > 0.5);    /* and not overcharged for time the OS had the thread descheduled */
    CHECK_OK(ito_group_destroy(ga));
    CHECK_OK(ito_group_destroy(gb));
    CHECK_OK(ito_finalize());
}

int main(void)
{
    run(0);
    run(NHOGS);
    TEST_DONE();
}
