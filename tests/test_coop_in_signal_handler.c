/* test_coop_in_signal_handler: a compiled yield point reached inside a signal handler of
 * the program does not switch; the yield waits for a point after the handler. ito-cc
 * leaves out of its points only the handlers it can see registered in the same module
 * (compiler/plugin/Safety.h); a handler registered elsewhere, or a function it calls in
 * another file, has points, and the yield they took with the flag set (or the budget
 * expired) switched to the worker's next ULT with the signal frame on the stack: that
 * ULT ran with the handler's signal mask (here b saw SIGUSR1 blocked), and a handler on
 * the worker's one alternate signal stack (SA_ONSTACK) left its frames there for the
 * next signal on that worker to overwrite (another ULT's SA_ONSTACK handler did, and the
 * first handler's sigreturn then resumed the other ULT's interrupted context). Here ULT a
 * raises SIGUSR1, whose handler takes three due yields of one flavour while b, on the same
 * worker, counts between yields: b must not count during the handler (before: it counted
 * at every yield, in every flavour), and a due yield after the handler returns switches.
 * Part 1: a handler installed with no flags (the kernel blocks SIGUSR1 while it runs);
 * part 2: SA_NODEFER | SA_ONSTACK and an empty mask (nothing blocked: it runs on the
 * worker's alternate signal stack). Part 3: outside any handler, a ULT that blocks a
 * signal it has no handler for (as for sigwait or a signalfd) still switches at its
 * points: only a blocked signal the program handles is taken for a running handler.
 * Found in review (a known open defect; h71a, 2026-12-07). */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>

#include "ito/coop.h"
#include "ito/ito.h"
#include "ito_test.h"

static _Atomic long b_count;
static _Atomic int stop, b_saw_usr1_blocked;
static long seen_before, seen_after, after_handler, while_blocked;
static int flavour, blocking;

static void on_usr1(int sig)
{
    (void)sig;
    seen_before = atomic_load(&b_count);
    for (int i = 0; i < 3; i++) ito_test_coop_due_yield(flavour);
    seen_after = atomic_load(&b_count);
}

static void *counter(void *unused)
{
    (void)unused;
    while (!atomic_load(&stop)) {
        sigset_t m;
        if (pthread_sigmask(SIG_BLOCK, NULL, &m) == 0 && sigismember(&m, SIGUSR1)) atomic_store(&b_saw_usr1_blocked, 1);
        atomic_fetch_add(&b_count, 1);
        ito_yield();
    }
    return NULL;
}

static void *raiser(void *unused)
{
    (void)unused;
    while (atomic_load(&b_count) == 0) ito_yield(); /* b has run once: both are on the worker */
    if (blocking) { /* part 3: SIGUSR2 blocked, with no handler */
        sigset_t s, old;
        sigemptyset(&s);
        sigaddset(&s, SIGUSR2);
        CHECK_EQ(pthread_sigmask(SIG_BLOCK, &s, &old), 0);
        long at = atomic_load(&b_count);
        ito_test_coop_due_yield(flavour);
        while_blocked = atomic_load(&b_count) - at;
        CHECK_EQ(pthread_sigmask(SIG_SETMASK, &old, NULL), 0);
    } else {
        raise(SIGUSR1);
    }
    long at = atomic_load(&b_count);
    ito_test_coop_due_yield(flavour); /* out of the handler, the yield switches */
    after_handler = atomic_load(&b_count) - at;
    atomic_store(&stop, 1);
    return NULL;
}

/* Runs a and b once for each flavour of yield. */
static void run_pair(void)
{
    atomic_store(&b_count, 0);
    atomic_store(&stop, 0);
    atomic_store(&b_saw_usr1_blocked, 0);
    seen_before = seen_after = after_handler = while_blocked = -1;
    ito_thread_t a, b;
    CHECK_OK(ito_create(&b, counter, NULL, NULL));
    CHECK_OK(ito_create(&a, raiser, NULL, NULL));
    CHECK_OK(ito_join(a, NULL));
    CHECK_OK(ito_join(b, NULL));
}

static void part(int flags)
{
    struct sigaction sa = {0};
    sa.sa_handler = on_usr1;
    sa.sa_flags = flags;
    sigemptyset(&sa.sa_mask);
    CHECK_EQ(sigaction(SIGUSR1, &sa, NULL), 0);
    for (flavour = 0; flavour < ITO_TEST_COOP_FLAVOURS; flavour++) {
        run_pair();
        printf("flags %#x, %s yield: b counted %ld during the handler (saw SIGUSR1 blocked: %d), %ld after\n",
               (unsigned)flags, ito_test_coop_names[flavour], seen_after - seen_before,
               atomic_load(&b_saw_usr1_blocked), after_handler);
        CHECK(seen_before >= 1);
        CHECK_EQ(seen_after, seen_before);
        CHECK_EQ(atomic_load(&b_saw_usr1_blocked), 0);
        CHECK(after_handler >= 1);
    }
    signal(SIGUSR1, SIG_DFL);
}

int main(void)
{
    ito_config_t cfg = {.workers = 1};
    CHECK_OK(ito_init(&cfg));
    part(0);                       /* the kernel blocks SIGUSR1 while its handler runs */
    part(SA_NODEFER | SA_ONSTACK); /* nothing blocked: on the worker's alternate stack */
    blocking = 1;
    for (flavour = 0; flavour < ITO_TEST_COOP_FLAVOURS; flavour++) {
        run_pair();
        printf("SIGUSR2 blocked (no handler), %s yield: b counted %ld\n", ito_test_coop_names[flavour], while_blocked);
        CHECK(while_blocked >= 1);
    }
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
