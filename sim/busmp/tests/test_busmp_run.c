/* End to end: the traced workloads drive the simulator as coroutines.  B-MM and FFT at test
 * size, small quantum: both results are still right, the event streams (reads, writes) do not
 * depend on the policy, the runs are deterministic, and only PSAFE delays switches. */
#include "busmp.h"
#include "ito_test.h"

static void run(int policy, busmp_pstats out[2])
{
    busmp_params p = busmp_paper_params();
    p.policy = policy;
    p.quantum = 20000;
    p.switch_cost = 500;
    p.signal_cost = 100;
    busmp *m = busmp_new(&p);
    CHECK(m != NULL);
    busmp_wprog *a = busmp_add_workload(m, &wl_bmm, &wl_bmm.sizes[WL_SCALE_TEST], 1);
    busmp_wprog *b = busmp_add_workload(m, &wl_fft, &wl_fft.sizes[WL_SCALE_TEST], 2);
    CHECK(a && b);
    CHECK_EQ(busmp_run(m), 0);
    char err[256];
    CHECK_EQ(busmp_wprog_check(a, err, sizeof err), 0);
    CHECK_EQ(busmp_wprog_check(b, err, sizeof err), 0);
    out[0] = *busmp_stats(m, 0);
    out[1] = *busmp_stats(m, 1);
    busmp_wprog_free(a);
    busmp_wprog_free(b);
    busmp_free(m);
}

int main(void)
{
    busmp_pstats pre[2], ps[2], ps2[2];
    run(BUSMP_PREEMPT, pre);
    run(BUSMP_PSAFE, ps);
    run(BUSMP_PSAFE, ps2);
    for (int i = 0; i < 2; i++) {
        CHECK_EQ(pre[i].mem.reads, ps[i].mem.reads);
        CHECK_EQ(pre[i].mem.writes, ps[i].mem.writes);
        CHECK(pre[i].mem.misses > 0);
        CHECK_EQ(ps[i].finish, ps2[i].finish);
        CHECK_EQ(ps[i].mem.misses, ps2[i].mem.misses);
        CHECK(pre[i].slices > 1);
    }
    const long n = 64, b = 8;
    CHECK_EQ(pre[0].regions, (n / b) * (n / b));
    CHECK_EQ(ps[0].signals, 2 * (n / b) * (n / b));
    CHECK_EQ(pre[0].delays, 0);
    CHECK(ps[0].delays > 0);
    CHECK_EQ(ps[1].delays, 0);
    CHECK(ps[0].finish > 0 && ps[1].finish > 0);
    TEST_DONE();
}
