/* test_gang_turn_bound: a preemption-safe region of the running group extends its turn
 * only up to max_delay_quanta quanta (preempt.h: "A region of the running group extends
 * the turn (up to max_delay_quanta quanta of wall time)"); past it the turn ends anyway
 * and is counted in the group's forced. A gang tick that extended the turn for as long as
 * the region lasted let one group's 100 ms region starve the other group for all of it,
 * and no test saw it (found by mutation testing, h60e, 2026-12-05). Also the turn's end
 * at the region's end (the pending switch happens at once). One worker, FLAG mode (compiled
 * yield points), so the sanitizer trees run it too.
 * The region makes no system call: a tick that finds its thread just back from one starts
 * the per-ULT bound again (preempt.h), and under CPU contention the kernel deschedules a
 * thread at a system call's return often enough (EEVDF: reading the thread's CPU clock
 * ends a used-up slice) that every few ticks landed there, the bound was never reached and
 * A kept its worker through B's turns: B at 0 in 3 of 20 runs under a load of 8 (h61c). So
 * the bound on the region's length (100 ms of its thread's CPU time, 10 s of wall time) is
 * watched from a foreign thread, which reads the worker's CPU clock (pthread_getcpuclockid). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#include "ito/ito.h"
#include "ito/coop.h"
#include "ito/preempt.h"
#include "ito_test.h"

static _Atomic int stop, go, in_region, enough, a_done;
static ito_test_spinner_t b_spin = {&stop, 0}; /* B: counts its rounds */
static long during;   /* B's progress while A's ULT was inside its region */
static clockid_t a_clock; /* the CPU clock of A's worker thread */

static uint64_t clock_ns(clockid_t c)
{
    struct timespec ts;
    CHECK(clock_gettime(c, &ts) == 0);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *a_body(void *arg)
{
    (void)arg;
    CHECK(pthread_getcpuclockid(pthread_self(), &a_clock) == 0);
    while (!atomic_load(&go)) ito_test_coop_point();
    CHECK_OK(ito_psafe_begin());
    long p0 = atomic_load(&b_spin.progress);
    atomic_store(&in_region, 1);
    /* until B has run, or main says the region ran long enough: no system call in here */
    while (atomic_load(&b_spin.progress) == p0 && !atomic_load(&enough)) ito_test_coop_point();
    during = atomic_load(&b_spin.progress) - p0;
    CHECK_OK(ito_psafe_end());
    atomic_store(&a_done, 1);
    return NULL;
}

/* A foreign thread (main is a ULT on the only worker): A's region lasts until B has run,
 * or 100 ms of its thread's CPU time (50 quanta: the bounds count CPU time, so a worker
 * thread the OS deschedules does not shorten it), at most 10 s of wall time. */
static void *watch(void *arg)
{
    (void)arg;
    while (!atomic_load(&in_region)) {
        struct timespec t = {0, 100000};
        nanosleep(&t, NULL);
    }
    uint64_t c0 = clock_ns(a_clock), w0 = ito_test_now_ns();
    while (!atomic_load(&a_done) && clock_ns(a_clock) - c0 < 100000000 && ito_test_now_ns() - w0 < 10000000000ull) {
        struct timespec t = {0, 1000000};
        nanosleep(&t, NULL);
    }
    atomic_store(&enough, 1);
    return NULL;
}

int main(void)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 1}));
    ito_group_t *ga, *gb;
    CHECK_OK(ito_group_create(&ga));
    CHECK_OK(ito_group_create(&gb));
    ito_preempt_config_t cfg = {.quantum_us = 2000, .max_delay_quanta = 4, .gang = 1, .mode = ITO_PREEMPT_FLAG};
    CHECK_OK(ito_preempt_enable(&cfg));
    ito_thread_t a, b;
    CHECK_OK(ito_create(&a, a_body, NULL, NULL));
    CHECK_OK(ito_group_add(ga, a));
    CHECK_OK(ito_create(&b, ito_test_coop_spin, &b_spin, NULL));
    CHECK_OK(ito_group_add(gb, b));
    /* both run a while, turn by turn */
    uint64_t t0 = ito_test_now_ns();
    while (ito_test_now_ns() - t0 < 20000000 || atomic_load(&b_spin.progress) == 0) CHECK_OK(ito_yield());
    ito_preempt_stats_t s0, s1;
    CHECK_OK(ito_group_stats(ga, &s0));
    pthread_t watcher;
    CHECK(pthread_create(&watcher, NULL, watch, NULL) == 0);
    atomic_store(&go, 1);
    CHECK_OK(ito_join(a, NULL));
    CHECK(pthread_join(watcher, NULL) == 0);
    CHECK_OK(ito_group_stats(ga, &s1));
    atomic_store(&stop, 1);
    CHECK_OK(ito_join(b, NULL));
    CHECK_OK(ito_preempt_disable());
    if (during == 0 || s1.forced == s0.forced)
        fprintf(stderr, "A's region of 100 ms CPU: B progressed %ld, A's turns forced %llu\n", during,
                (unsigned long long)(s1.forced - s0.forced));
    CHECK(during > 0);           /* B had turns while A's region ran past the bound */
    CHECK(s1.forced > s0.forced); /* and A's turn was ended by the bound */
    CHECK_OK(ito_group_destroy(ga));
    CHECK_OK(ito_group_destroy(gb));
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
