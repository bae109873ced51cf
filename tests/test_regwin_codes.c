/* test_regwin_codes: the documented error codes of the register-window run API
 * (regwin.h) that no test drove: ito_regwin_self_stats (ITO_EINVAL for NULL, ITO_ESTATE
 * when not attached, ITO_ENOTULT outside a ULT), ito_regwin_flush_next (ITO_ESTATE,
 * ITO_ENOTULT), ito_regwin_attach (ITO_ESTATE: before ito_init, with the scheme OFF,
 * attached already, also from a ZWT or a foreign thread) and ito_regwin_detach
 * (ITO_ESTATE when not attached, ITO_ENOTULT from a ZWT or a foreign thread while a run is
 * attached), and ito_regwin_configure refused while attached (h60b's API table,
 * 2026-12-05). */
#include "ito/ito.h"
#include "ito/regwin.h"
#include "ito_test.h"

/* From a foreign thread (zwt 0) and a ZWT (zwt 1) while main's run is attached. */
static void elsewhere(int zwt)
{
    (void)zwt;
    ito_regwin_thread_stats_t s;
    CHECK_EQ(ito_regwin_detach(), ITO_ENOTULT);
    CHECK_EQ(ito_regwin_flush_next(), ITO_ENOTULT);
    CHECK_EQ(ito_regwin_self_stats(&s), ITO_ENOTULT);
    CHECK_EQ(ito_regwin_attach(), ITO_ESTATE); /* attached already */
}

static void *stats_of_new_ult(void *arg)
{
    (void)arg;
    ito_regwin_thread_stats_t s;
    return (void *)(intptr_t)ito_regwin_self_stats(&s);
}

int main(void)
{
    ito_regwin_config_t cfg;
    ito_regwin_thread_stats_t s;
    CHECK_OK(ito_regwin_config_init(&cfg));
    CHECK_OK(ito_regwin_configure(&cfg)); /* OFF */
    cfg.scheme = ITO_REGWIN_SP;
    CHECK_EQ(ito_regwin_attach(), ITO_ESTATE); /* before ito_init */
    CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
    CHECK_EQ(ito_regwin_attach(), ITO_ESTATE); /* scheme OFF */
    CHECK_EQ(ito_regwin_detach(), ITO_ESTATE);
    CHECK_EQ(ito_regwin_flush_next(), ITO_ESTATE);
    CHECK_EQ(ito_regwin_self_stats(NULL), ITO_EINVAL);
    CHECK_EQ(ito_regwin_self_stats(&s), ITO_ESTATE);
    /* attached */
    CHECK_OK(ito_regwin_configure(&cfg));
    CHECK_OK(ito_regwin_attach());
    CHECK_EQ(ito_regwin_attached(), 1);
    /* the foreign thread and the ZWT get ITO_ENOTULT */
    ito_test_in_other_contexts(elsewhere);

    CHECK_EQ(ito_regwin_attach(), ITO_ESTATE);
    CHECK_EQ(ito_regwin_configure(&cfg), ITO_ESTATE);
    CHECK_OK(ito_regwin_self_stats(&s));
    CHECK_OK(ito_regwin_flush_next());
    ito_thread_t t;
    void *r;
    CHECK_OK(ito_create(&t, stats_of_new_ult, NULL, NULL));
    CHECK_OK(ito_join(t, &r));
    CHECK_EQ((intptr_t)r, ITO_OK); /* its window state was made at its first switch-in */
    CHECK_OK(ito_regwin_detach());
    CHECK_EQ(ito_regwin_attached(), 0);
    CHECK_EQ(ito_regwin_detach(), ITO_ESTATE);
    CHECK_EQ(ito_regwin_self_stats(&s), ITO_ESTATE);
    cfg.scheme = ITO_REGWIN_OFF;
    CHECK_OK(ito_regwin_configure(&cfg));
    CHECK_OK(ito_finalize());
    CHECK_EQ(ito_regwin_attach(), ITO_ESTATE); /* after ito_finalize */
    TEST_DONE();
}
