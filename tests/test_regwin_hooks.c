/* test_regwin_hooks: the -finstrument-functions hooks of libito_regwin_hooks
 * (src/regwin_hooks/cyg_profile.c) hand every entry and every exit of instrumented code
 * to the emulation: a ULT of instrumented code calling a recursive function 30 deep and
 * back counts 31 saves and 31 restores, under each scheme, with no errors (regwin.h:
 * "code built with -finstrument-functions performs a save at each function entry and a
 * restore at each exit"). The other regwin tests call ito_regwin_func_enter/exit by hand,
 * so the hooks themselves (the library a program links) were untested. This file is
 * compiled with -finstrument-functions and linked with ito_regwin_hooks
 * (tests/CMakeLists.txt). */
#include <stdint.h>

#include "ito/ito.h"
#include "ito_test.h"

#define NI __attribute__((no_instrument_function))

static __attribute__((noinline)) int rec(int n) /* instrumented */
{
    __asm__ volatile("" ::: "memory");
    return n ? rec(n - 1) + 1 : 0;
}

NI static void *body(void *arg)
{
    (void)arg;
    CHECK_OK(ito_regwin_attach());
    ito_regwin_thread_stats_t a, b;
    CHECK_OK(ito_regwin_self_stats(&a));
    CHECK_EQ(rec(30), 30);
    CHECK_OK(ito_regwin_self_stats(&b));
    CHECK_EQ(b.saves - a.saves, 31);
    CHECK_EQ(b.restores - a.restores, 31);
    CHECK_EQ(ito_regwin_errors(), 0u);
    CHECK_OK(ito_regwin_detach());
    return NULL;
}

NI int main(void)
{
    int schemes[] = {ITO_REGWIN_NS, ITO_REGWIN_SNP, ITO_REGWIN_SP};
    for (int s = 0; s < 3; s++) {
        ito_regwin_config_t cfg;
        CHECK_OK(ito_regwin_config_init(&cfg));
        cfg.scheme = schemes[s];
        CHECK_OK(ito_regwin_configure(&cfg));
        ito_test_main_ult(&(ito_config_t){.workers = 1}, body);
    }
    TEST_DONE();
}
