/* test_preempt_flag_group_reuse: in FLAG mode, a quantum's preemption is counted at the
 * next tick, on the group of the ULT that ran when the flag was set (preempt.c, on_tick).
 * That group was kept as a pointer into gang.c's static table: when it was destroyed and a
 * new group created in its slot before the next tick, the new group was counted the old
 * one's preemption (found by an outside tester, 2026-12-04: ito_group_stats of a group that
 * never had a member said preemptions 1, every round). Here, 20 rounds of: a spinner in a
 * group runs until a tick's flag makes it yield, ends; its group is destroyed and a new one
 * (same slot) created; after a few more ticks the new group must have counted nothing. */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdio.h>

#include "ito/ito.h"
#include "ito_test.h"

static atomic_int stop;

static void *spin(void *arg)
{
    CHECK_OK(ito_group_add((ito_group_t *)arg, ito_self()));
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) ITO_COOP_POINT();
    return NULL;
}

int main(void)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 1}));
    CHECK_OK(ito_preempt_enable(&(ito_preempt_config_t){.quantum_us = 5000, .mode = ITO_PREEMPT_FLAG}));
    for (int r = 0; r < 20; r++) {
        ito_group_t *g, *g2;
        CHECK_OK(ito_group_create(&g));
        atomic_store(&stop, 0);
        ito_thread_t t;
        CHECK_OK(ito_create(&t, spin, g, NULL));
        /* the first yield may find a flag set while no ULT ran (a tick held while the worker
         * slept); the next ones run t until a tick sets the flag while t runs */
        for (int k = 0; k < 3; k++) CHECK_OK(ito_yield());
        atomic_store(&stop, 1);
        CHECK_OK(ito_join(t, NULL));
        CHECK_OK(ito_group_destroy(g));
        CHECK_OK(ito_group_create(&g2)); /* g's slot again */
        CHECK_OK(ito_sleep_ns(15 * 1000000ull)); /* a few ticks */
        ito_preempt_stats_t s;
        CHECK_OK(ito_group_stats(g2, &s));
        CHECK_EQ(s.preemptions, 0); /* g2 never had a member */
        CHECK_OK(ito_group_destroy(g2));
    }
    ito_preempt_stats_t all;
    CHECK_OK(ito_preempt_stats(&all));
    CHECK(all.preemptions > 0); /* the spinners' quanta were counted */
    CHECK_OK(ito_preempt_disable());
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
