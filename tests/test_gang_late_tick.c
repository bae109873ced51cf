/* test_gang_late_tick: ito_preempt_disable while worker 0's tick (or an idle worker's
 * overdue-tick poller) is deciding a gang turn (found by an outside tester, 2026-12-04,
 * first as a ThreadSanitizer report: advance() of a late tick racing the next enable's
 * itoi_gang_start on gang.c's `turn`). itoi_gang_stop cleared the running group without
 * turn_lock, and itoi_gang_tick did not check that gang scheduling was still on: a tick
 * that had loaded its worker's record before the disable published a turn again after
 * it (64 of 5000 disables). With preemption off nothing ends that turn, and a ULT of
 * another group then waited in ito_psafe_begin for ever (gang.c: the ULT of a group
 * whose turn it is not waits for its next turn), spinning on its yield: one of four
 * spinners made no region in 2 s. Here: a foreign thread switches gang scheduling on
 * (FLAG mode, so that the static library serves: the check reads the running group, an
 * internal) and off 3000 times while spinners of two groups keep both workers busy; once
 * each disable has returned no group may be running. Then, with preemption off (the
 * spinners yield to each other), every spinner must get through a preemption-safe region
 * (a hang is caught by the watchdog). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "ito/ito.h"
#include "preempt/preempt_int.h"
#include "ito_test.h"

#define ROUNDS 3000
#define SPINNERS 4

static atomic_int stop, regions_on, late_turns;
static atomic_long regions[SPINNERS];
static ito_group_t *groups[2];

/* the check in a function of its own (ito/coop.h: the flag's address under TSan) */
__attribute__((noinline)) static void coop_point(void) { ITO_COOP_POINT(); }

static void *spin(void *arg)
{
    int i = (int)(intptr_t)arg;
    CHECK_OK(ito_group_add(groups[i % 2], ito_self()));
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        coop_point();
        if (atomic_load_explicit(&regions_on, memory_order_relaxed) && atomic_load(&regions[i]) == 0) {
            CHECK_OK(ito_psafe_begin()); /* hung: waiting for a turn no tick ends */
            CHECK_OK(ito_psafe_end());
            atomic_store(&regions[i], 1);
        }
        if (atomic_load_explicit(&regions_on, memory_order_relaxed)) CHECK_OK(ito_yield()); /* no ticks now: take turns */
    }
    return NULL;
}

static void *toggler(void *arg)
{
    (void)arg;
    for (int r = 0; r < ROUNDS; r++) {
        CHECK_OK(ito_preempt_enable(&(ito_preempt_config_t){.quantum_us = 100, .gang = 1, .mode = ITO_PREEMPT_FLAG}));
        ito_test_sleep_us(100 + (r % 7) * 37);
        CHECK_OK(ito_preempt_disable());
        ito_test_sleep_us(50); /* a late tick's handler lands meanwhile */
        if (atomic_load(&itoi_gang_group) != NULL) atomic_fetch_add(&late_turns, 1);
    }
    CHECK_EQ(atomic_load(&late_turns), 0);
    /* preemption is off: every spinner's region must still begin and end */
    atomic_store(&regions_on, 1);
    for (int i = 0; i < SPINNERS; i++)
        while (!atomic_load(&regions[i])) ito_test_sleep_us(1000);
    atomic_store(&stop, 1);
    return NULL;
}

int main(void)
{
    static atomic_int done;
    ito_test_watchdog(&done, 60, "a gang turn published after ito_preempt_disable held a region's begin");
    CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
    CHECK_OK(ito_group_create(&groups[0]));
    CHECK_OK(ito_group_create(&groups[1]));
    ito_thread_t t[SPINNERS];
    for (int i = 0; i < SPINNERS; i++) CHECK_OK(ito_create(&t[i], spin, (void *)(intptr_t)i, NULL));
    pthread_t p;
    CHECK(pthread_create(&p, NULL, toggler, NULL) == 0);
    for (int i = 0; i < SPINNERS; i++) CHECK_OK(ito_join(t[i], NULL)); /* the spinners end when the toggler is done */
    CHECK(pthread_join(p, NULL) == 0);
    CHECK_EQ(atomic_load(&late_turns), 0);
    CHECK_OK(ito_group_destroy(groups[0]));
    CHECK_OK(ito_group_destroy(groups[1]));
    CHECK_OK(ito_finalize());
    atomic_store(&done, 1);
    TEST_DONE();
}
