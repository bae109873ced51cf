/* test_preempt_signal_coop: under signal preemption, two ULTs that also have compiled
 * yield points (ITO_COOP_POINT, as ito-cc inserts) share one worker fairly. The handler
 * sets ito_coop_flag (so that a tick that cannot switch here switches at the next yield
 * point) and then switched without clearing it: the next ULT yielded at its first yield
 * point, and a spinner beside one preempted by signals made one loop iteration per quantum
 * (292 against 47 million in 0.3 s). Found by a misuse test of the group counters
 * (2026-12-03). No time is asserted: after 50 preemptions each spinner must have made at
 * least a tenth of the other's progress (about half each now; about 1e-5 before).
 * Sanitizer trees refuse signal preemption (preempt.h): there the test checks the refusal. */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdint.h>

#include "ito/ito.h"
#include "ito_test.h"

#if !defined(ITOI_ASAN) && !defined(ITOI_TSAN)
static _Atomic int stop;
static ito_test_spinner_t spin[2] = {{.stop = &stop}, {.stop = &stop}};
#endif

int main(void)
{
#if defined(ITOI_ASAN) || defined(ITOI_TSAN)
    CHECK_EQ(ito_test_one_worker_signal_preempt(1000), 0);
#else
    CHECK_EQ(ito_test_one_worker_signal_preempt(1000), 1);
    ito_thread_t a, b;
    CHECK_OK(ito_create(&a, ito_test_coop_spin, &spin[0], NULL));
    CHECK_OK(ito_create(&b, ito_test_coop_spin, &spin[1], NULL));
    ito_preempt_stats_t s;
    uint64_t end = ito_now_ns() + 20ull * 1000000000u;
    do { /* main sleeps: the worker's time goes to the spinners */
        CHECK_OK(ito_sleep_ns(10000000));
        CHECK_OK(ito_preempt_stats(&s));
    } while (s.preemptions < 50 && ito_now_ns() < end);
    atomic_store(&stop, 1);
    CHECK_OK(ito_join(a, NULL));
    CHECK_OK(ito_join(b, NULL));
    long pa = atomic_load(&spin[0].progress), pb = atomic_load(&spin[1].progress);
    printf("preemptions %llu, progress %ld and %ld\n", (unsigned long long)s.preemptions, pa, pb);
    CHECK(s.preemptions >= 50);
    CHECK(pa > 0 && pb > 0);
    CHECK(pa >= pb / 10 && pb >= pa / 10);
    CHECK_OK(ito_preempt_disable());
#endif
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
