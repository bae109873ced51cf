/* test_preempt_regwin_own_malloc: the register-window emulation allocates with the
 * program's malloc inside its hooks (a thread's window state at its first switch-in,
 * inside the core's switch; its save area's growth at a deep function entry, with the
 * window file locked). A program that defines malloc has it in "the program's own code"
 * for signal preemption (preempt.h), so a tick there switched the ULT out from inside
 * the hook: the handler's switch called the switch hook, which spun on the file's lock
 * the interrupted save held, and the worker hung (found by an outside tester, h71c,
 * 2026-12-07; the same kind as test_preempt_own_malloc). The hooks run as libito's
 * call-outs now (regwin_rt.c, H2): the tick defers.
 *
 * 50 instrumented ULTs on 2 workers recurse ever deeper (their save areas grow by
 * realloc) under a 100 us quantum with a malloc that spins tens of microseconds, 10
 * attached runs per scheme. A watchdog ends a hang. Signal mode needs the shared libito
 * and no sanitizer (ITO_TEST_SIGNAL_MODE_OK); elsewhere the refusal is checked.
 * Compiled with -finstrument-functions, linked with ito_regwin_hooks (tests/CMakeLists.txt). */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdlib.h>

#include "ito/ito.h"
#include "ito_test.h"

#define NI __attribute__((no_instrument_function))

static _Atomic int slow_alloc;
static atomic_int done_;

ITO_TEST_DEFINE_SLOW_MALLOC(slow_alloc)

static __attribute__((noinline)) long rec(int d) /* instrumented */
{
    __asm__ volatile("" ::: "memory");
    return d == 0 ? 0 : 1 + rec(d - 1);
}

static void *body(void *arg) /* instrumented */
{
    (void)arg;
    for (int i = 0; i < 50; i++) CHECK_EQ(rec(10 + i * 4), 10 + i * 4);
    return NULL;
}

NI int main(void)
{
    ito_test_watchdog(&done_, 60, "a tick in the program's malloc switched out of a register-window hook");
    int schemes[] = {ITO_REGWIN_NS, ITO_REGWIN_SNP, ITO_REGWIN_SP};
    for (int s = 0; s < 3; s++) {
        ito_test_regwin_configure(schemes[s], 8);
        if (!ito_test_start_signal_preempt(&(ito_config_t){.workers = 2}, 100)) break;
        atomic_store(&slow_alloc, 1);
        for (int r = 0; r < 10; r++) {
            CHECK_OK(ito_regwin_attach());
            ito_thread_t t[50];
            for (int i = 0; i < 50; i++) CHECK_OK(ito_create(&t[i], body, NULL, NULL));
            for (int i = 0; i < 50; i++) CHECK_OK(ito_join(t[i], NULL));
            CHECK_OK(ito_regwin_detach());
            CHECK_EQ(ito_regwin_errors(), 0);
        }
        atomic_store(&slow_alloc, 0);
        CHECK_OK(ito_preempt_disable());
        CHECK_OK(ito_finalize());
    }
    atomic_store(&done_, 1);
    TEST_DONE();
}
