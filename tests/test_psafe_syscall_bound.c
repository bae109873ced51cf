/* test_psafe_syscall_bound: the bound of a preemption-safe region (max_delay_quanta quanta of
 * CPU time) holds for a region that makes system calls that do not block. preempt.h: a tick
 * that finds the ULT just back from a system call starts the count again only when it waited
 * in the kernel. The tick only looked at where the thread was (just past `syscall`); under CPU
 * contention the kernel deschedules a thread at a call's return (EEVDF: a read of the
 * thread's CPU clock ends a used-up slice), and the expirations that passed meanwhile are
 * delivered there: every descheduling started the count again, the region was never forced
 * and a ULT beside it on its worker got nothing for the whole region (seen first as
 * test_gang_turn_bound failing under load; h61c, 2026-12-05). Here the contention is made:
 * a foreign thread spins on the worker's CPU. One worker, FLAG mode, so the sanitizer trees
 * run it too. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>

#include "ito/ito.h"
#include "ito/coop.h"
#include "ito/preempt.h"
#include "ito_test.h"

static _Atomic int stop;
static ito_test_hogs_t hogs; /* one foreign thread that shares the worker's CPU */
static ito_test_spinner_t b_spin = {&stop, 0}; /* B: counts its rounds */
static long during; /* B's progress while A's ULT was inside its region */
static uint64_t region_cpu;

static void *a_body(void *arg)
{
    (void)arg;
    /* the worker's thread and the hog on one CPU (put back at the end) */
    cpu_set_t old;
    ito_test_hogs_pin(&hogs, &old);
    while (!atomic_load(&hogs.on)) ito_test_coop_point();
    CHECK_OK(ito_psafe_begin());
    long p0 = atomic_load(&b_spin.progress);
    /* Until B has run, or 200 ms of this thread's CPU time (the bound is 8 ms), 10 s of wall
     * time at most; the CPU clock (a system call) is read once per 256 points. */
    uint64_t c0 = ito_test_cpu_ns(), t0 = ito_test_now_ns();
    while (atomic_load(&b_spin.progress) == p0 && ito_test_cpu_ns() - c0 < 200000000 && ito_test_now_ns() - t0 < 10000000000ull)
        for (int i = 0; i < 256 && atomic_load(&b_spin.progress) == p0; i++) ito_test_coop_point();
    during = atomic_load(&b_spin.progress) - p0;
    region_cpu = ito_test_cpu_ns() - c0;
    CHECK_OK(ito_psafe_end());
    CHECK(sched_setaffinity(0, sizeof old, &old) == 0);
    return NULL;
}

int main(void)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 1}));
    ito_test_hogs_start(&hogs, 1);
    ito_preempt_config_t cfg = {.quantum_us = 2000, .max_delay_quanta = 4, .mode = ITO_PREEMPT_FLAG};
    CHECK_OK(ito_preempt_enable(&cfg));
    ito_preempt_stats_t s0, s1;
    CHECK_OK(ito_preempt_stats(&s0));
    ito_thread_t a, b;
    CHECK_OK(ito_create(&b, ito_test_coop_spin, &b_spin, NULL));
    CHECK_OK(ito_create(&a, a_body, NULL, NULL));
    CHECK_OK(ito_join(a, NULL));
    CHECK_OK(ito_preempt_stats(&s1));
    atomic_store(&stop, 1);
    CHECK_OK(ito_join(b, NULL));
    CHECK_OK(ito_preempt_disable());
    ito_test_hogs_stop(&hogs);
    if (during == 0)
        fprintf(stderr, "a region of %.1f ms CPU making system calls was not forced: B progressed %ld, forced %llu\n",
                region_cpu / 1e6, during, (unsigned long long)(s1.forced - s0.forced));
    CHECK(during > 0);            /* forced within its bound: B ran */
    CHECK(s1.forced > s0.forced); /* counted as forced */
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
