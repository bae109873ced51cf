/* test_preempt_mask_resume: the signal mask is the worker's (thread.h), also across a
 * preemption. A ULT switched out by the tick resumes by returning from the tick's handler,
 * and that return installs the mask the ULT was interrupted with: a block that another ULT
 * made on the worker meanwhile was undone (B blocked SIGUSR1 and yielded to the preempted
 * A; when B ran again SIGUSR1 was open, though no ULT had opened it: 20 yields in 20 found
 * it so). Now the handler hands the worker's current mask to its return. One worker, SIGNAL
 * mode (shared libito: this file's name makes tests/CMakeLists.txt link it); refused under
 * the sanitizers (ITO_ENOSYS, documented in preempt.h). Counts, not times. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdatomic.h>

#include "ito/ito.h"
#include "ito_test.h"

static _Atomic int a_started, b_blocked, a_done;

static int usr1_blocked(void)
{
    sigset_t cur;
    CHECK_EQ(pthread_sigmask(SIG_BLOCK, NULL, &cur), 0);
    return sigismember(&cur, SIGUSR1);
}

/* Spins until it has been switched out by a tick after B blocked SIGUSR1 (A was
 * interrupted with the signal open). */
static void *spinner_a(void *unused)
{
    (void)unused;
    atomic_store(&a_started, 1);
    while (!atomic_load(&b_blocked))
        for (volatile int i = 0; i < 1000; i++) {
        }
    atomic_store(&a_done, 1);
    return NULL;
}

static void *blocker_b(void *unused)
{
    (void)unused;
    while (!atomic_load(&a_started)) ito_yield();
    /* A has run: it is the worker's other ULT, and it runs until a tick switches it out */
    uint64_t p0 = ito_test_pstats().preemptions;
    while (ito_test_pstats().preemptions == p0) ito_yield(); /* B runs again only after A's preemption */
    sigset_t u;
    sigemptyset(&u);
    sigaddset(&u, SIGUSR1);
    CHECK_EQ(pthread_sigmask(SIG_BLOCK, &u, NULL), 0);
    atomic_store(&b_blocked, 1);
    int lost = 0;
    while (!atomic_load(&a_done)) { /* A resumes from its tick here, and ends */
        ito_yield();
        if (!usr1_blocked()) lost++;
    }
    ito_yield();
    if (!usr1_blocked()) lost++;
    CHECK_EQ(pthread_sigmask(SIG_UNBLOCK, &u, NULL), 0);
    return (void *)(intptr_t)lost;
}

int main(void)
{
    ito_config_t cfg = {.workers = 1};
    CHECK_OK(ito_init(&cfg));
    ito_preempt_config_t pc = {.quantum_us = 1000, .mode = ITO_PREEMPT_SIGNAL};
    int rc = ito_preempt_enable(&pc);
    ITO_TEST_DONE_IF_SIGNAL_REFUSED(rc);
    CHECK_OK(rc);
    CHECK(!usr1_blocked());
    for (int round = 0; round < 5; round++) {
        atomic_store(&a_started, 0);
        atomic_store(&b_blocked, 0);
        atomic_store(&a_done, 0);
        ito_thread_t a, b;
        CHECK_OK(ito_create(&b, blocker_b, NULL, NULL));
        CHECK_OK(ito_create(&a, spinner_a, NULL, NULL));
        void *lost = NULL;
        CHECK_OK(ito_join(a, NULL));
        CHECK_OK(ito_join(b, &lost));
        CHECK_EQ((intptr_t)lost, 0); /* B's block stayed on the worker */
        CHECK(!usr1_blocked());      /* and B's unblock too */
    }
    CHECK_OK(ito_preempt_disable());
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
