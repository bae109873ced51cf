/* test_regwin_nested_hooks: a signal handler of the program built with
 * -finstrument-functions calls the instrumentation hooks itself; when its signal
 * interrupts a hook of an attached ULT (which holds its window file's lock, between the
 * steps of a save or a restore), the handler's hooks must do nothing (regwin.h). They spun
 * on the lock the interrupted hook held, for ever (the worker hung), or, arriving between
 * two of its steps, ran a save and a restore through the middle of the interrupted one,
 * which then found its window's values changed: ito_regwin_detach returned ITO_ESTATE
 * (found by an outside tester, h71c, 2026-12-07).
 *
 * 4 ULTs on 2 workers recurse through instrumented code under each scheme while an
 * interval timer sends SIGALRM every 50 us to the process, whose handler is instrumented;
 * each round runs until the handler has run 1,000 times. A watchdog ends a hang. (A
 * handler that interrupts the program's code, not a hook, is emulated as a call, and its
 * save may grow the ULT's save area with realloc, which is not async-signal-safe
 * (regwin.h): the ULTs reach their greatest depth before the signals start.)
 * Compiled with -finstrument-functions, linked with ito_regwin_hooks (tests/CMakeLists.txt). */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/time.h>

#include "ito/ito.h"
#include "ito_test.h"

#define NI __attribute__((no_instrument_function))

static atomic_long handled;
static atomic_int stop, done_, warm;

static __attribute__((noinline)) long leaf(long x) /* instrumented */
{
    __asm__ volatile("" ::: "memory");
    return x * 3 + 1;
}

static void on_alarm(int sig) /* instrumented: its entry and exit call the hooks */
{
    atomic_fetch_add(&handled, leaf(sig) > 0);
}

static __attribute__((noinline)) long rec(int d) /* instrumented */
{
    __asm__ volatile("" ::: "memory");
    return d == 0 ? 0 : 1 + rec(d - 1);
}

NI static void *body(void *arg)
{
    (void)arg;
    /* first as deep as it will go later, and more: the handler's saves on top never
     * grow the save area then (a realloc in a signal handler, which TSan reports) */
    CHECK_EQ(rec(100), 100);
    atomic_fetch_add(&warm, 1);
    for (int i = 0; !atomic_load(&stop); i++) {
        CHECK_EQ(rec(20 + i % 30), 20 + i % 30);
        CHECK_OK(ito_yield()); /* switches under the signals too; main, on worker 0, runs */
    }
    return NULL;
}

NI static void set_timer(long us)
{
    struct itimerval it = {{0, us}, {0, us}};
    CHECK(setitimer(ITIMER_REAL, &it, NULL) == 0);
}

NI int main(void)
{
    /* the watchdog's thread never takes SIGALRM (its sleep, interrupted every 50 us, did
     * not end) */
    sigset_t alrm;
    sigemptyset(&alrm);
    sigaddset(&alrm, SIGALRM);
    CHECK(pthread_sigmask(SIG_BLOCK, &alrm, NULL) == 0);
    ito_test_watchdog(&done_, 30, "a signal handler's hooks spun on the window file's lock");
    CHECK(pthread_sigmask(SIG_UNBLOCK, &alrm, NULL) == 0);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sa.sa_flags = SA_RESTART;
    CHECK(sigaction(SIGALRM, &sa, NULL) == 0);
    int schemes[] = {ITO_REGWIN_NS, ITO_REGWIN_SNP, ITO_REGWIN_SP};
    for (int s = 0; s < 3; s++) {
        ito_test_regwin_configure(schemes[s], 8);
        CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
        CHECK_OK(ito_regwin_attach());
        atomic_store(&stop, 0);
        atomic_store(&warm, 0);
        ito_thread_t t[4];
        for (int i = 0; i < 4; i++) CHECK_OK(ito_create(&t[i], body, NULL, NULL));
        while (atomic_load(&warm) < 4) CHECK_OK(ito_yield());
        long first = atomic_load(&handled);
        set_timer(50);
        while (atomic_load(&handled) - first < 1000) CHECK_OK(ito_sleep_ns(1000000));
        atomic_store(&stop, 1);
        for (int i = 0; i < 4; i++) CHECK_OK(ito_join(t[i], NULL));
        set_timer(0);
        CHECK_OK(ito_regwin_detach());
        CHECK_EQ(ito_regwin_errors(), 0);
        CHECK_OK(ito_finalize());
    }
    atomic_store(&done_, 1);
    TEST_DONE();
}
