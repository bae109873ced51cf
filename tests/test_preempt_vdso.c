/* test_preempt_vdso: a ULT that busy-waits on the clock (`while (now() < deadline)`) is
 * preempted like one that spins in the program's own code. clock_gettime runs in the
 * kernel's vDSO, which the signal handler counted as an unsafe place (a shared object):
 * ~97 % of such a loop's ticks were deferred, and at a 1 ms quantum the other ULTs of its
 * worker waited 140-650 ms for the CPU (found by an outside tester, h59b, 2026-12-05). The
 * vDSO takes no lock and keeps no per-thread state: a switch inside it is safe. */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <time.h>

#include "ito/ito.h"
#include "ito/preempt.h"
#include "ito_test.h"

static _Atomic int stop;

static void *clock_waiter(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop)) {
        uint64_t deadline = ito_test_now_ns() + 1000000;
        while (ito_test_now_ns() < deadline) {
        }
    }
    return NULL;
}

int main(void)
{
    if (!ito_test_one_worker_signal_preempt(1000)) { /* sanitizer trees: no signal mode */
        CHECK_OK(ito_finalize());
        TEST_DONE();
    }
    ito_thread_t t[2];
    for (int i = 0; i < 2; i++) CHECK_OK(ito_create(&t[i], clock_waiter, NULL, NULL));
    uint64_t t0 = ito_test_now_ns();
    CHECK_OK(ito_sleep_ns(300 * 1000 * 1000)); /* main runs again only if they are preempted */
    uint64_t slept = ito_test_now_ns() - t0;
    atomic_store(&stop, 1);
    for (int i = 0; i < 2; i++) CHECK_OK(ito_join(t[i], NULL));
    ito_preempt_stats_t s;
    CHECK_OK(ito_preempt_stats(&s));
    printf("slept %.1f ms for 300; ticks %llu, preemptions %llu, deferred %llu\n", slept / 1e6,
           (unsigned long long)s.ticks, (unsigned long long)s.preemptions, (unsigned long long)s.deferred);
    CHECK(s.ticks > 0);
    CHECK(s.deferred * 2 < s.ticks); /* before: 97 % of them */
    CHECK_OK(ito_preempt_disable());
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
