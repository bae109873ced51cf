/* test_preempt_foreign_mask: ito_preempt_enable called from a foreign thread whose signal
 * mask is not the workers'. The tick's handler tells a handler of the program by the
 * interrupted context blocking a signal the workers do not block by themselves; that set
 * was taken from enable's caller. Here main blocks SIGUSR1 before ito_init (for a
 * signalfd, say), so the workers block it, and a thread started before that, with
 * SIGUSR1 open, enables preemption: every tick looked like one inside a handler, and
 * nothing was ever preempted (3220 ticks, 3220 deferred). From a foreign thread the set is
 * now the mask the workers started with. One worker, SIGNAL mode (shared libito: this
 * file's name makes tests/CMakeLists.txt link it); refused under the sanitizers
 * (ITO_ENOSYS, documented in preempt.h). Counts, not times. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>

#include "ito/ito.h"
#include "ito_test.h"

static _Atomic int go, enabled = -1, other_ran;

static void *foreign(void *unused)
{
    (void)unused;
    while (!atomic_load(&go)) sched_yield();
    ito_preempt_config_t pc = {.quantum_us = 1000, .mode = ITO_PREEMPT_SIGNAL};
    atomic_store(&enabled, ito_preempt_enable(&pc));
    return NULL;
}

/* Never yields: the other ULT runs only if a tick switches this one out. Gives up after
 * 100 ticks of its worker. */
static void *spinner(void *unused)
{
    (void)unused;
    uint64_t t0 = ito_test_pstats().ticks;
    while (!atomic_load(&other_ran) && ito_test_pstats().ticks < t0 + 100)
        for (volatile int i = 0; i < 10000; i++) {
        }
    return (void *)(intptr_t)atomic_load(&other_ran);
}

static void *other(void *unused)
{
    (void)unused;
    atomic_store(&other_ran, 1);
    return NULL;
}

int main(void)
{
    pthread_t f;
    CHECK_EQ(pthread_create(&f, NULL, foreign, NULL), 0); /* SIGUSR1 open in it */
    sigset_t u;
    sigemptyset(&u);
    sigaddset(&u, SIGUSR1);
    CHECK_EQ(pthread_sigmask(SIG_BLOCK, &u, NULL), 0);
    ito_config_t cfg = {.workers = 1};
    CHECK_OK(ito_init(&cfg));
    atomic_store(&go, 1);
    CHECK_EQ(pthread_join(f, NULL), 0);
    int rc = atomic_load(&enabled);
    ITO_TEST_DONE_IF_SIGNAL_REFUSED(rc);
    CHECK_OK(rc);
    ito_thread_t a, b;
    CHECK_OK(ito_create(&a, spinner, NULL, NULL));
    CHECK_OK(ito_create(&b, other, NULL, NULL));
    void *seen = NULL;
    CHECK_OK(ito_join(a, &seen));
    CHECK_OK(ito_join(b, NULL));
    CHECK(seen != NULL); /* the spinner was preempted: the other ULT ran meanwhile */
    CHECK_OK(ito_preempt_disable());
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
