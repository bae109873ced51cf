/* test_preempt_in_handler: signal preemption never switches a ULT out inside a signal
 * handler of the program. The tick's handler took the interrupted PC for the only sign of a
 * safe point; a handler of the program (its code in the executable) that had interrupted
 * malloc looked safe, so a tick delivered together with it, or while it ran, switched the
 * ULT out with malloc's arena lock held or its thread cache half updated: ULTs that
 * malloc in a loop beside a SIGALRM timer hung or aborted ("free(): double free detected
 * in tcache 2") in 3 runs of 20. Deterministic here: ULT `a` raises SIGALRM, whose handler
 * spins 5 quanta of CPU time while `b`, on the same worker, counts; b must not run during
 * the handler (before: it did, at the first tick). The handler is still preempted once it
 * returns (a's spin afterwards is). Part 2: the same handler installed with SA_NODEFER |
 * SA_ONSTACK and an empty mask blocks nothing, so only the stack it runs on (the worker's
 * alternate signal stack) tells it; before, it was preempted at once (b counted during
 * it), leaving its frames on the worker's one alternate stack for the next signal there
 * to overwrite (found in review, 2026-12-06). Sanitizer trees refuse signal preemption
 * (preempt.h): there the test checks the refusal. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "ito/ito.h"
#include "ito_test.h"

#if !defined(ITOI_ASAN) && !defined(ITOI_TSAN)
static _Atomic long b_count;
static _Atomic int stop;
static long seen_before, seen_after;

static void on_alarm(int sig)
{
    (void)sig;
    seen_before = atomic_load(&b_count);
    uint64_t end = ito_test_cpu_ns() + 5000000u; /* 5 quanta, nearly all of it in this loop */
    volatile unsigned long spin = 0;
    while (ito_test_cpu_ns() < end)
        for (int i = 0; i < 100000; i++) spin++;
    seen_after = atomic_load(&b_count);
}

static void *counter(void *unused)
{
    (void)unused;
    while (!atomic_load(&stop)) atomic_fetch_add(&b_count, 1);
    return NULL;
}

static void *raiser(void *unused)
{
    (void)unused;
    while (atomic_load(&b_count) == 0) { /* b has run once: both are on the worker */
        ito_yield();
    }
    raise(SIGALRM);
    long at = atomic_load(&b_count);
    while (atomic_load(&b_count) == at) { /* outside the handler it is preempted */
    }
    atomic_store(&stop, 1);
    return NULL;
}

/* One part: the handler installed with these flags, a and b on one worker. */
static void part(int flags)
{
    atomic_store(&b_count, 0);
    atomic_store(&stop, 0);
    seen_before = seen_after = -1;
    struct sigaction sa = {0};
    sa.sa_handler = on_alarm;
    sa.sa_flags = flags;
    sigemptyset(&sa.sa_mask);
    CHECK_EQ(sigaction(SIGALRM, &sa, NULL), 0);
    CHECK_EQ(ito_test_one_worker_signal_preempt(1000), 1);
    ito_thread_t a, b;
    CHECK_OK(ito_create(&b, counter, NULL, NULL));
    CHECK_OK(ito_create(&a, raiser, NULL, NULL));
    CHECK_OK(ito_join(a, NULL));
    CHECK_OK(ito_join(b, NULL));
    ito_preempt_stats_t s;
    CHECK_OK(ito_preempt_stats(&s));
    printf("flags %#x: b counted %ld during the handler; preemptions %llu, deferred %llu\n", (unsigned)flags,
           seen_after - seen_before, (unsigned long long)s.preemptions, (unsigned long long)s.deferred);
    CHECK(seen_before >= 0);
    CHECK_EQ(seen_after, seen_before);
    CHECK(s.deferred >= 1);
    CHECK_OK(ito_preempt_disable());
    signal(SIGALRM, SIG_DFL);
    CHECK_OK(ito_finalize());
}
#endif

int main(void)
{
#if defined(ITOI_ASAN) || defined(ITOI_TSAN)
    CHECK_EQ(ito_test_one_worker_signal_preempt(1000), 0);
    CHECK_OK(ito_finalize());
#else
    part(0);                       /* the kernel blocks SIGALRM while its handler runs */
    part(SA_NODEFER | SA_ONSTACK); /* nothing blocked: told by the alternate stack */
#endif
    TEST_DONE();
}
