/* test_psafe_real: small mixes on ito under both policies; every program's result must be
 * right, block counts must match the workloads' structure, and the statistics must be
 * consistent (no delay without the psafe policy; forced <= delays; a B-MM that spends nearly
 * all its time inside regions sees its quantum expire inside one under a 100 us quantum). */
#include <stdio.h>

#include "ito_test.h"
#include "psr.h"

static void run(int policy, wl_scale sc, psr_prog_result *res, int n, const wl_kind **kinds)
{
    psr_config cfg = {.nprogs = n, .policy = policy, .quantum_us = 100, .bound_quanta = 4, .workers = 2};
    for (int i = 0; i < n; i++) {
        cfg.kinds[i] = kinds[i];
        cfg.sizes[i] = kinds[i]->sizes[sc];
    }
    psr_totals tot;
    char err[256] = "";
    int rc = psr_run(&cfg, res, &tot, err, sizeof err);
    if (rc)
        fprintf(stderr, "psr_run: %s\n", err);
    CHECK_OK(rc);
    for (int i = 0; i < n; i++) {
        if (!res[i].ok)
            fprintf(stderr, "%s: %s\n", kinds[i]->name, res[i].err);
        CHECK(res[i].ok);
        CHECK(res[i].time_ns > 0 && res[i].time_ns <= tot.wall_ns);
        CHECK(res[i].forced <= res[i].delayed);
        if (policy == PSR_PREEMPT)
            CHECK_EQ(res[i].delayed, 0);
        if (!kinds[i]->blocked)
            CHECK_EQ(res[i].blocks, 0);
    }
}

int main(void)
{
    psr_prog_result res[PSR_MAX_PROGS];
    const wl_kind *all[] = {&wl_bmm, &wl_blu, &wl_fft, &wl_bs, &wl_ocean, &wl_mp3d};
    for (int pol = PSR_PREEMPT; pol <= PSR_PSAFE; pol++) {
        run(pol, WL_SCALE_TEST, res, 6, all);
        /* B-MM test size 64/8: 8 column blocks x 8 kk blocks; B-LU 64/8: 8 panels + 28 updates. */
        CHECK_EQ(res[0].blocks, 64);
        CHECK_EQ(res[1].blocks, 8 + 28);
    }
    /* A delay must actually happen: B-MM quick (128/16) with FFT, 100 us quantum. */
    const wl_kind *two[] = {&wl_bmm, &wl_fft};
    run(PSR_PSAFE, WL_SCALE_QUICK, res, 2, two);
    CHECK_EQ(res[0].blocks, 8 * 8);
    CHECK(res[0].delayed > 0);
    CHECK(res[0].delay_ns > 0);
    TEST_DONE();
}
