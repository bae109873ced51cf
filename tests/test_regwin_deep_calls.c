/* test_regwin_deep_calls: a call chain deeper than the window file, under each scheme
 * (NS, SNP, SP): every entry is a save and every exit a restore (ito_regwin_counters_t),
 * going down spills one window per overflow trap and coming back fills one per underflow
 * trap, so the two trap counts are equal and each is the depth beyond what the file holds;
 * exits of frames entered before the thread had windows (past its root) are ignored, not
 * errors; detach reports no error. The counters and the root were untested: an overflow
 * trap that was not counted, or a restore allowed to pop the root window, passed every
 * test (found by mutation testing, h60e, 2026-12-05). */
#include <stdint.h>

#include "ito/ito.h"
#include "ito/regwin.h"
#include "ito_test.h"

#define DEPTH 40

static int scheme_now;

static void *body(void *arg)
{
    (void)arg;
    CHECK_OK(ito_regwin_attach());
    CHECK_OK(ito_regwin_reset_counters());
    for (int k = 0; k < 3; k++) {
        for (uintptr_t i = 0; i < DEPTH; i++) CHECK_OK(ito_regwin_func_enter((void *)(0x1000 + i), (void *)(0x2000 + i)));
        for (uintptr_t i = DEPTH; i-- > 0;) CHECK_OK(ito_regwin_func_exit((void *)(0x1000 + i), (void *)(0x2000 + i)));
    }
    /* exits of frames this thread entered before it had windows: ignored */
    for (int i = 0; i < 3; i++) CHECK_OK(ito_regwin_func_exit((void *)0x3000, (void *)0x4000));
    ito_regwin_counters_t c;
    CHECK_OK(ito_regwin_read_counters(&c));
    CHECK_EQ(c.saves, 3u * DEPTH);
    CHECK_EQ(c.restores, 3u * DEPTH);
    CHECK(c.overflow_traps > 0);
    CHECK_EQ(c.overflow_traps, c.underflow_traps);
    /* the file holds at most `windows` of them: at least DEPTH - windows traps per descent */
    ito_regwin_config_t cfg;
    CHECK_OK(ito_regwin_get_config(&cfg));
    CHECK(c.overflow_traps >= 3u * (uint64_t)(DEPTH - cfg.windows));
    CHECK(c.overflow_traps <= 3u * DEPTH);
    /* still balanced: one more chain works and is checked */
    for (uintptr_t i = 0; i < DEPTH; i++) CHECK_OK(ito_regwin_func_enter((void *)(0x1000 + i), (void *)(0x2000 + i)));
    for (uintptr_t i = DEPTH; i-- > 0;) CHECK_OK(ito_regwin_func_exit((void *)(0x1000 + i), (void *)(0x2000 + i)));
    CHECK_EQ(ito_regwin_errors(), 0u);
    CHECK_OK(ito_regwin_detach());
    (void)scheme_now;
    return NULL;
}

int main(void)
{
    int schemes[] = {ITO_REGWIN_NS, ITO_REGWIN_SNP, ITO_REGWIN_SP};
    for (int s = 0; s < 3; s++) {
        ito_regwin_config_t cfg;
        CHECK_OK(ito_regwin_config_init(&cfg));
        cfg.scheme = scheme_now = schemes[s];
        CHECK_OK(ito_regwin_configure(&cfg));
        ito_test_main_ult(&(ito_config_t){.workers = 1}, body);
    }
    TEST_DONE();
}
