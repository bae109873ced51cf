/* test_fp_restore_env: ITO_FP_RESTORE selects how a switch restores MXCSR
 * (docs/ENVIRONMENT.md): `always` loads the resumed ULT's saved MXCSR, status flags
 * included; `lazy` loads it only when its control bits differ, "so the sticky status
 * flags of MXCSR (not preserved by the ABI) stay as they are". B clears its status flags
 * and yields to A on the same worker; A raises the inexact flag (1.0 / 3.0) and yields
 * back: under `always` B finds its own flags (clear), under `lazy` A's (inexact set).
 * test_switch sets the mode directly (itoa_fp_lazy); the words of the variable were
 * untested (a swapped table gave `always` the lazy behaviour). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>

#include "ito/ito.h"
#include "ito_test.h"

#define PE 0x20u /* MXCSR precision (inexact) flag */

static uint32_t get_mxcsr(void)
{
    uint32_t v;
    __asm__ volatile("stmxcsr %0" : "=m"(v));
    return v;
}
static void set_mxcsr(uint32_t v) { __asm__ volatile("ldmxcsr %0" ::"m"(v)); }

static volatile int stage;
static uint32_t b_seen;

static void *b_body(void *arg)
{
    (void)arg;
    set_mxcsr(get_mxcsr() & ~0x3fu); /* no status flag */
    stage = 1;
    while (stage != 2) ito_yield();
    b_seen = get_mxcsr();
    return NULL;
}

static void *a_body(void *arg)
{
    (void)arg;
    while (stage != 1) ito_yield();
    volatile double one = 1.0, three = 3.0;
    volatile double third = one / three; /* inexact */
    (void)third;
    CHECK(get_mxcsr() & PE);
    stage = 2;
    return NULL;
}

static uint32_t run(const char *mode)
{
    CHECK_OK(setenv("ITO_FP_RESTORE", mode, 1));
    ito_config_t cfg = {0};
    cfg.workers = 2;
    CHECK_OK(ito_init(&cfg));
    stage = 0;
    ito_attr_t at;
    CHECK_OK(ito_attr_init(&at));
    at.worker = 1;
    ito_thread_t a, b;
    CHECK_OK(ito_create(&b, b_body, NULL, &at));
    CHECK_OK(ito_create(&a, a_body, NULL, &at));
    CHECK_OK(ito_join(a, NULL));
    CHECK_OK(ito_join(b, NULL));
    CHECK_OK(ito_finalize());
    CHECK_OK(unsetenv("ITO_FP_RESTORE"));
    return b_seen & PE;
}

int main(void)
{
    CHECK_EQ(run("always"), 0);  /* B's own flags */
    CHECK_EQ(run("lazy"), PE);   /* A's flag stayed */
    TEST_DONE();
}
