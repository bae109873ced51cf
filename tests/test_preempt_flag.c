/* test_preempt_flag: FLAG-mode preemption (the timer sets ito_coop_flag, compiled yield
 * points switch) counts its preemptions in ito_preempt_stats, as signal mode does; two
 * ULTs that only switch at co-operative points both progress on one worker. Runs in all
 * three trees (the flag mode needs no signal-handler switch). */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "ito/ito.h"
#include "ito_test.h"

static _Atomic int stop;
static _Atomic long progress[2];

static void *coop_spin(void *arg)
{
    int i = (int)(intptr_t)arg;
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        atomic_fetch_add_explicit(&progress[i], 1, memory_order_relaxed);
        ITO_COOP_POINT(); /* what ito-cc inserts: a flag check and a yield */
    }
    return NULL;
}

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
    CHECK_OK(ito_create(&a, coop_spin, (void *)0, NULL));
    CHECK_OK(ito_create(&b, coop_spin, (void *)1, NULL));
    ito_preempt_stats_t s;
    double t0 = now();
    do { /* main yields too; the spinners only switch when the flag says so */
        CHECK_OK(ito_yield());
        CHECK_OK(ito_preempt_stats(&s));
    } while (now() - t0 < 0.1 || (now() - t0 < 20 && (s.preemptions < 3 || !atomic_load(&progress[0]) ||
                                                       !atomic_load(&progress[1]))));
    atomic_store(&stop, 1);
    CHECK_OK(ito_join(a, NULL));
    CHECK_OK(ito_join(b, NULL));
    CHECK(atomic_load(&progress[0]) > 0 && atomic_load(&progress[1]) > 0);
    CHECK(s.ticks > 0);
    CHECK(s.preemptions >= 3); /* counted, not 0 as before */
    CHECK(s.preemptions <= s.ticks);
    CHECK_OK(ito_preempt_disable());
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
