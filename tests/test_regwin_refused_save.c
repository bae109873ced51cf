/* test_regwin_refused_save: a `save` refused at a function entry because the thread's
 * memory save area could not grow (ITO_ENOMEM) leaves that frame, and every call below
 * it, unemulated until it returns: the exits restore nothing for them, so saves and
 * restores still pair, no other error follows, detach reports ITO_ENOMEM, and the thread
 * is emulated again afterwards. Found by an outside tester (2026-12-05): the exit of the
 * refused frame restored its caller's window, and every exit after it one window too
 * early (70 refused saves in a recursion of 101: an ITO_ERANGE at the root, a window
 * never restored; with distinct functions, ITO_ESTATE at every exit). The save area
 * grows with realloc, refused here through -Wl,--wrap=realloc. */
#include <stdint.h>
#include <stdlib.h>

#include "ito/ito.h"
#include "ito_test.h"

void *__real_realloc(void *p, size_t n);
void *__wrap_realloc(void *p, size_t n);

static volatile int g_refuse;
/* frames are 128 bytes; refuse the save area beyond 32 of them */
void *__wrap_realloc(void *p, size_t n)
{
    if (g_refuse && n > 128 * 32 && n % 128 == 0) return NULL;
    return __real_realloc(p, n);
}

/* a call chain of distinct functions and call sites, as instrumented code reports it */
static void chain(int depth)
{
    for (int i = 1; i <= depth; i++) ito_regwin_func_enter((void *)(uintptr_t)(0x1000 * i), (void *)(uintptr_t)(0x10 * i + 1));
    for (int i = depth; i >= 1; i--) ito_regwin_func_exit((void *)(uintptr_t)(0x1000 * i), (void *)(uintptr_t)(0x10 * i + 1));
}

int main(void)
{
    ito_regwin_config_t cfg;
    CHECK_OK(ito_regwin_config_init(&cfg));
    cfg.scheme = ITO_REGWIN_SP;
    cfg.windows = 8;
    CHECK_OK(ito_regwin_configure(&cfg));
    CHECK_OK(ito_init(&(ito_config_t){.workers = 1}));
    for (int round = 0; round < 2; round++) {
        CHECK_OK(ito_regwin_reset_counters());
        CHECK_OK(ito_regwin_attach());
        g_refuse = 1;
        chain(100);
        g_refuse = 0;
        CHECK_EQ(ito_regwin_errors(), 1); /* the refused save, nothing after it */
        ito_regwin_counters_t c;
        CHECK_OK(ito_regwin_read_counters(&c));
        CHECK(c.saves > 0 && c.saves < 100);
        CHECK_EQ(c.saves, c.restores);
        chain(10); /* emulated again */
        ito_regwin_counters_t d;
        CHECK_OK(ito_regwin_read_counters(&d));
        CHECK_EQ(d.saves, c.saves + 10);
        CHECK_EQ(d.restores, c.restores + 10);
        CHECK_EQ(ito_regwin_errors(), 1);
        CHECK_EQ(ito_regwin_detach(), ITO_ENOMEM);
    }
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
