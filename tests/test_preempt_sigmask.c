/* test_preempt_sigmask: preemption works in a program that blocked every signal before
 * ito_init (a common server pattern: block all, then take signals with sigwait in one
 * thread), and ito_finalize gives the caller its own mask back.
 *
 * Before: the workers inherited the caller's mask with SIGURG (the tick) blocked, so
 * ito_preempt_enable returned ITO_OK and no tick ever arrived (0 ticks, nothing
 * preempted). Counts, not times: the ticks taken while main spins for 20 quanta of CPU.
 * FLAG mode, so it runs in all three trees. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <time.h>

#include "ito/ito.h"
#include "ito_test.h"

static int urg_blocked(void)
{
    sigset_t cur;
    CHECK_EQ(pthread_sigmask(SIG_BLOCK, NULL, &cur), 0);
    return sigismember(&cur, SIGURG);
}

/* One runtime: FLAG preemption at 1 ms while main spins 20 ms of CPU; the ticks taken. */
static uint64_t ticks_in_a_run(void)
{
    CHECK_OK(ito_init(NULL));
    CHECK(!urg_blocked()); /* open while the runtime runs */
    ito_preempt_stats_t s1; /* a runtime's first enable counts afresh (preempt.c) */
    ito_preempt_config_t pc = {.quantum_us = 1000, .mode = ITO_PREEMPT_FLAG};
    CHECK_OK(ito_preempt_enable(&pc));
    uint64_t t0 = ito_test_cpu_ns();
    volatile unsigned long spin = 0;
    while (ito_test_cpu_ns() - t0 < 20000000) spin++;
    CHECK_OK(ito_preempt_disable());
    CHECK_OK(ito_preempt_stats(&s1));
    CHECK_OK(ito_finalize());
    return s1.ticks;
}

int main(void)
{
    sigset_t all, before;
    sigfillset(&all);
    CHECK_EQ(pthread_sigmask(SIG_SETMASK, &all, &before), 0);
    uint64_t ticks = ticks_in_a_run();
    CHECK(ticks > 0);      /* 20 quanta of CPU: ticks arrived (the old library: 0) */
    CHECK(urg_blocked());  /* the caller's mask is its own again */
    sigset_t after;
    CHECK_EQ(pthread_sigmask(SIG_BLOCK, NULL, &after), 0);
    CHECK(sigismember(&after, SIGTERM) && sigismember(&after, SIGINT));

    /* Open before: open after, and ticks as well. */
    CHECK_EQ(pthread_sigmask(SIG_SETMASK, &before, NULL), 0);
    CHECK(!urg_blocked());
    CHECK(ticks_in_a_run() > 0);
    CHECK(!urg_blocked());
    TEST_DONE();
}
