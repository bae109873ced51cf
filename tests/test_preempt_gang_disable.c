/* test_preempt_gang_disable: ito_preempt_disable while gang scheduling has ULTs parked
 * (found by an outside tester, 2026-12-04). With gang scheduling, the pick filter sets a
 * ULT of a group whose turn it is not aside in its worker's parked queue (gang.c), and the
 * worker's poller gives it back when the turn changes, or once gang scheduling stops. The
 * poller and the idle probe found that queue through the worker's preemption slot, which
 * ito_preempt_disable clears right after stopping the gangs: ULTs parked at that moment
 * were never given back. They stayed "ready" in no queue, their worker slept with nothing
 * to do, and a join of them (and ito_finalize) waited for ever: four spinners in two
 * groups bound to worker 1, disable after 20 ms, half of the runs hung.
 *
 * Here: rounds of four spinners (two groups) on worker 1, gang scheduling on for a few
 * quanta, then off; every spinner must then run to its end (a hang is caught by the
 * watchdog). Signal mode where it is available (release), FLAG mode everywhere. */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdint.h>

#include "ito/ito.h"
#include "ito_test.h"

#define ROUNDS 12
#define SPINNERS 4

static atomic_int stop;
static atomic_long progress[SPINNERS];
static int mode;

static void *spin(void *arg)
{
    int i = (int)(intptr_t)arg;
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        atomic_fetch_add_explicit(&progress[i], 1, memory_order_relaxed);
        if (mode == ITO_PREEMPT_FLAG) ITO_COOP_POINT();
    }
    return NULL;
}

static void round_of(int m)
{
    mode = m;
    atomic_store(&stop, 0);
    ito_group_t *g[2];
    CHECK_OK(ito_group_create(&g[0]));
    CHECK_OK(ito_group_create(&g[1]));
    ito_thread_t t[SPINNERS];
    ito_attr_t at;
    CHECK_OK(ito_attr_init(&at));
    at.worker = 1; /* main stays alone on worker 0 */
    for (int i = 0; i < SPINNERS; i++) {
        CHECK_OK(ito_create(&t[i], spin, (void *)(intptr_t)i, &at));
        CHECK_OK(ito_group_add(g[i % 2], t[i]));
    }
    CHECK_OK(ito_preempt_enable(&(ito_preempt_config_t){.quantum_us = 1000, .gang = 1, .mode = m}));
    CHECK_OK(ito_sleep_ns(20 * 1000000ull));
    CHECK_OK(ito_preempt_disable());
    atomic_store(&stop, 1);
    for (int i = 0; i < SPINNERS; i++) CHECK_OK(ito_join(t[i], NULL)); /* hung: a parked spinner */
    CHECK_OK(ito_group_destroy(g[0]));
    CHECK_OK(ito_group_destroy(g[1]));
}

int main(void)
{
    static atomic_int done;
    ito_test_watchdog(&done, 60, "a ULT parked by gang scheduling was lost at ito_preempt_disable");
    CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
    for (int r = 0; r < ROUNDS; r++) {
        if (ITO_TEST_SIGNAL_MODE_OK) round_of(ITO_PREEMPT_SIGNAL);
        round_of(ITO_PREEMPT_FLAG);
    }
    CHECK_OK(ito_finalize());
    atomic_store(&done, 1);
    TEST_DONE();
}
