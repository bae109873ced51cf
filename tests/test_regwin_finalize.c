/* test_regwin_finalize: a register-window emulation attached when ito_finalize runs ends
 * with the runtime: afterwards ito_regwin_attached() is 0, ito_regwin_configure works
 * again (regwin.h: "before ito_init too"), and the next runtime, with more workers, can
 * attach a run of its own. Found by a misuse fuzzer (2026-12-04): the emulation stayed
 * attached for good (configure refused with ITO_ESTATE; the switch hook ran in the next
 * runtime with the old runtime's files, its extra workers unemulated). */
#include "ito/ito.h"
#include "ito_test.h"

static void *spin(void *a)
{
    for (int i = 0; i < 50; i++) CHECK_OK(ito_yield());
    return a;
}

static void run_some(int workers)
{
    for (int k = 0; k < 2 * workers; k++) {
        ito_attr_t at;
        CHECK_OK(ito_attr_init(&at));
        at.worker = k % workers;
        ito_thread_t t;
        CHECK_OK(ito_create(&t, spin, NULL, &at));
        CHECK_OK(ito_join(t, NULL));
    }
}

int main(void)
{
    ito_regwin_config_t cfg;
    CHECK_OK(ito_regwin_config_init(&cfg));
    cfg.scheme = ITO_REGWIN_SP;
    CHECK_OK(ito_regwin_configure(&cfg));
    CHECK_OK(ito_init(&(ito_config_t){.workers = 1}));
    CHECK_OK(ito_regwin_attach());
    run_some(1);
    CHECK_OK(ito_finalize()); /* without ito_regwin_detach */
    CHECK_EQ(ito_regwin_attached(), 0);
    ito_regwin_counters_t c;
    CHECK_OK(ito_regwin_read_counters(&c));
    CHECK(c.switches > 0); /* the run's counters are kept */
    cfg.scheme = ITO_REGWIN_NS;
    CHECK_OK(ito_regwin_configure(&cfg)); /* was ITO_ESTATE: still attached */
    CHECK_OK(ito_regwin_reset_counters());
    CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
    CHECK_OK(ito_regwin_attach()); /* a run of this runtime: files for both workers */
    run_some(2);
    CHECK_EQ(ito_regwin_errors(), 0);
    CHECK_OK(ito_finalize()); /* detaches it again (an explicit detach right after the
                               * joins: test_regwin_detach_race) */
    CHECK_EQ(ito_regwin_attached(), 0);
    cfg.scheme = ITO_REGWIN_OFF;
    CHECK_OK(ito_regwin_configure(&cfg));
    TEST_DONE();
}
