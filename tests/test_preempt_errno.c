/* test_preempt_errno: errno belongs to the ULT under preemption too (src/core/ultstate.h):
 * two CPU-bound ULTs on one worker, each with its own errno, switched by the timer, never
 * see each other's. FLAG mode (hand-written yield points, ITO_COOP_POINT) in every tree;
 * SIGNAL mode (the handler switches at any instruction) where it is allowed: linked with
 * the shared libito (this file's name makes tests/CMakeLists.txt do that), not under the
 * sanitizers (refused there with ITO_ENOSYS, documented in preempt.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "ito/ito.h"
#include "ito_test.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- preemption ---- */
static _Atomic int spin_stop, spin_bad;
static _Atomic long spin_rounds[2];

static void *spinner(void *arg)
{
    int me = (int)(intptr_t)arg, v = 20000 + me;
    errno = v;
    volatile uint64_t x = 0;
    while (!atomic_load_explicit(&spin_stop, memory_order_relaxed)) {
        for (int i = 0; i < 1000; i++) x += (uint64_t)i;
        ITO_COOP_POINT(); /* switches when FLAG mode's timer has set the flag */
        if (errno != v) atomic_fetch_add(&spin_bad, 1);
        atomic_fetch_add_explicit(&spin_rounds[me], 1, memory_order_relaxed);
    }
    return NULL;
}

/* Two CPU-bound ULTs on worker 1 under the preemption that is on: both make progress (so they
 * were switched) and neither ever sees the other's errno. */
static void preempted_pair(void)
{
    atomic_store(&spin_stop, 0);
    atomic_store(&spin_bad, 0);
    ito_preempt_stats_t s0, s1;
    CHECK_OK(ito_preempt_stats(&s0));
    ito_attr_t a;
    ito_attr_init(&a);
    a.worker = 1;
    ito_thread_t t[2];
    for (int i = 0; i < 2; i++) {
        atomic_store(&spin_rounds[i], 0);
        CHECK_OK(ito_create(&t[i], spinner, (void *)(intptr_t)i, &a));
    }
    double t0 = now();
    while (now() - t0 < 0.2 || (now() - t0 < 10 && (!atomic_load(&spin_rounds[0]) || !atomic_load(&spin_rounds[1]))))
        CHECK_OK(ito_sleep_ns(10 * 1000 * 1000));
    atomic_store(&spin_stop, 1);
    for (int i = 0; i < 2; i++) CHECK_OK(ito_join(t[i], NULL));
    CHECK_OK(ito_preempt_stats(&s1));
    CHECK(atomic_load(&spin_rounds[0]) > 0 && atomic_load(&spin_rounds[1]) > 0);
    CHECK(s1.preemptions > s0.preemptions);
    CHECK_EQ(atomic_load(&spin_bad), 0);
}

static void check_preempt(void)
{
    ito_preempt_config_t cfg = {.quantum_us = 1000, .mode = ITO_PREEMPT_FLAG};
    CHECK_OK(ito_preempt_enable(&cfg));
    preempted_pair();
    CHECK_OK(ito_preempt_disable());
    cfg.mode = ITO_PREEMPT_SIGNAL;
    int rc = ito_preempt_enable(&cfg);
#if defined(ITOI_ASAN) || defined(ITOI_TSAN)
    CHECK_EQ(rc, ITO_ENOSYS); /* refused under the sanitizers, documented */
    return;
#endif
    CHECK_OK(rc);
    preempted_pair();
    CHECK_OK(ito_preempt_disable());
}

int main(void)
{
    ito_config_t cfg = {.workers = 2};
    CHECK_OK(ito_init(&cfg));
    check_preempt();
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
