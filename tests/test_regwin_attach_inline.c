/* test_regwin_attach_inline: ito_regwin_attach from a ULT that its joiner runs in place.
 *
 * ito_join of a ULT that has not started yet may run it on the spot, as a call on its own
 * stack (thread.c, run_inline), and only while no switch hook is installed. A ULT may
 * attach the register-window emulation (regwin.h: "from a ULT (usually main), while no
 * other ULT runs"; the joiner waits in its join). When such a ULT ended (by returning or by
 * ito_exit), its joiner went on without a switch, so the window manager never heard of the
 * end: its worker's file kept the ended ULT as its current thread, the joiner's next switch
 * counted an error (R1 broken), and ito_regwin_detach returned ITO_ESTATE for a correct
 * program (every run). Found by an outside tester, h65g, 2026-12-06. The sanitizer trees
 * never run a join in place, so this checks the release tree's path. */
#include <ito/ito.h>
#include <ito/regwin.h>

#include "ito_test.h"

static void *work(void *a)
{
    for (int i = 0; i < 3; i++) {
        ito_regwin_func_enter(work, NULL);
        ito_yield();
        ito_regwin_func_exit(work, NULL);
    }
    return a;
}

static void *attacher(void *how)
{
    int rc = ito_regwin_attach();
    if ((uintptr_t)how & 2) { /* switches while it runs in place */
        ito_thread_t t;
        CHECK_OK(ito_create(&t, work, NULL, NULL));
        CHECK_OK(ito_join(t, NULL));
    }
    if ((uintptr_t)how & 1) ito_exit((void *)(intptr_t)rc);
    return (void *)(intptr_t)rc;
}

int main(void)
{
    for (uintptr_t how = 0; how < 8; how++) {
        ito_regwin_config_t c;
        CHECK_OK(ito_regwin_config_init(&c));
        c.scheme = ITO_REGWIN_SNP + (int)(how & 1);
        CHECK_OK(ito_regwin_configure(&c));
        CHECK_OK(ito_init(&(ito_config_t){.workers = 1 + (int)(how >> 2)}));
        ito_thread_t t;
        void *rv = NULL;
        CHECK_OK(ito_create(&t, attacher, (void *)how, NULL));
        CHECK_OK(ito_join(t, &rv)); /* runs the attacher in place when it can */
        CHECK_EQ((intptr_t)rv, ITO_OK);
        CHECK(ito_regwin_attached());
        for (int i = 0; i < 4; i++) {
            CHECK_OK(ito_create(&t, work, NULL, NULL));
            CHECK_OK(ito_yield());
            CHECK_OK(ito_join(t, NULL));
        }
        CHECK_EQ(ito_regwin_errors(), 0);
        CHECK_EQ(ito_regwin_detach(), ITO_OK);
        CHECK_OK(ito_finalize());
    }
    TEST_DONE();
}
