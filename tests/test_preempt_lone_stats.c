/* test_preempt_lone_stats: ito_preempt_stats' preemptions are "ULTs switched out by a
 * quantum's end" (ito/preempt.h). In signal mode the handler counted every tick that found
 * a ULT at a safe point, before its switch, which does not happen when nothing else is
 * ready on the worker: a lone CPU-bound ULT was never switched out, yet counted one
 * preemption per quantum (found by an outside tester, 2026-12-04: 39 preemptions and 0
 * context switches in 200 ms at a 2 ms quantum). Here: one worker, a lone spinner (main
 * waits in ito_join) until 5 ticks have come: no preemption; then two spinners side by
 * side: their switches are counted. Signal mode only (refused in the sanitizer trees). */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdint.h>

#include "ito/ito.h"
#include "ito_test.h"

static atomic_int stop;
static atomic_long progress[2];
static uint64_t ticks_at_start;

static void *lone(void *arg)
{
    (void)arg;
    ito_preempt_stats_t s;
    volatile uint64_t x = 0;
    do {
        for (int i = 0; i < 1000000; i++) x += (uint64_t)i;
        CHECK_OK(ito_preempt_stats(&s));
    } while (s.ticks < ticks_at_start + 5);
    return NULL;
}

static void *spin(void *arg)
{
    int i = (int)(intptr_t)arg;
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) atomic_fetch_add_explicit(&progress[i], 1, memory_order_relaxed);
    return NULL;
}

int main(void)
{
    static atomic_int done;
    ito_test_watchdog(&done, 60, "lone spinner");
    if (!ito_test_one_worker_signal_preempt(1000)) {
        CHECK_OK(ito_finalize());
        atomic_store(&done, 1);
        TEST_DONE();
    }
    ito_preempt_stats_t s0, s1;
    CHECK_OK(ito_preempt_stats(&s0));
    ticks_at_start = s0.ticks;
    ito_thread_t t;
    CHECK_OK(ito_create(&t, lone, NULL, NULL));
    CHECK_OK(ito_join(t, NULL)); /* main is not ready meanwhile: nothing to switch to */
    CHECK_OK(ito_preempt_stats(&s1));
    CHECK(s1.ticks >= s0.ticks + 5);
    CHECK_EQ(s1.preemptions - s0.preemptions, 0);

    ito_thread_t a, b;
    CHECK_OK(ito_create(&a, spin, (void *)0, NULL));
    CHECK_OK(ito_create(&b, spin, (void *)1, NULL));
    do CHECK_OK(ito_sleep_ns(5 * 1000000ull)); /* the worker's time goes to the spinners */
    while (!atomic_load(&progress[0]) || !atomic_load(&progress[1]));
    atomic_store(&stop, 1);
    CHECK_OK(ito_join(a, NULL));
    CHECK_OK(ito_join(b, NULL));
    CHECK_OK(ito_preempt_stats(&s0));
    CHECK(s0.preemptions > s1.preemptions); /* b ran only when a was switched out, or the reverse */
    CHECK_OK(ito_preempt_disable());
    CHECK_OK(ito_finalize());
    atomic_store(&done, 1);
    TEST_DONE();
}
