/* test_preempt_toggle: a foreign thread turns preemption on and off many times while
 * every worker runs a spinning ULT; no tick may crash or misbehave in between.
 *
 * Before: the tick handler loaded the worker's preemption slot twice (a NULL test, then
 * the use); ito_preempt_disable on another thread clears the slot, and a tick that came
 * between the two loads dereferenced NULL (SIGSEGV, or UBSan's null-pointer report).
 * The window is a few instructions wide, so the test makes many ticks race many
 * disables: four workers, a 100 µs quantum, and each disable within 3 µs after the
 * first tick is due (the old library crashed in about half of the runs of 20,000
 * toggles; this test does 40,000). FLAG mode, so it runs
 * in all three trees. Counts, not times: every toggle returns ITO_OK, ticks came, the
 * spinners end and the runtime finalizes. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "ito/ito.h"
#include "ito_test.h"

#define SPINNERS 4
#define TOGGLES 40000

static _Atomic int stop;
static ito_test_spinner_t spin[SPINNERS];
static _Atomic int toggles_done;

static void *toggler(void *arg)
{
    (void)arg;
    ito_preempt_config_t cfg = {.quantum_us = 100, .mode = ITO_PREEMPT_FLAG};
    unsigned seed = 12345;
    for (int i = 0; i < TOGGLES; i++) {
        CHECK_OK(ito_preempt_enable(&cfg));
        /* on for 99..102 µs: disable about when the first tick of each worker comes */
        seed = seed * 1103515245u + 12345u;
        long ns = 99000 + (long)((seed >> 8) % 3000u);
        struct timespec t0, t;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        do clock_gettime(CLOCK_MONOTONIC, &t);
        while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < ns);
        CHECK_OK(ito_preempt_disable());
        atomic_fetch_add(&toggles_done, 1);
    }
    return NULL;
}

int main(void)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 4}));
    ito_thread_t t[SPINNERS];
    for (int i = 0; i < SPINNERS; i++) {
        spin[i].stop = &stop;
        CHECK_OK(ito_create(&t[i], ito_test_coop_spin, &spin[i], NULL));
    }
    pthread_t p;
    CHECK_EQ(pthread_create(&p, NULL, toggler, NULL), 0);
    CHECK_EQ(pthread_join(p, NULL), 0);
    CHECK_EQ(atomic_load(&toggles_done), TOGGLES);
    atomic_store(&stop, 1);
    for (int i = 0; i < SPINNERS; i++) CHECK_OK(ito_join(t[i], NULL));
    ito_preempt_stats_t s;
    CHECK_OK(ito_preempt_stats(&s));
    CHECK(s.ticks > 0); /* the ticks did come (the race had something to race) */
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
