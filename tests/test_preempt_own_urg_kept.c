/* test_preempt_own_urg_kept: a SIGURG handler that the program installs while preemption
 * is on is kept by ito_preempt_disable and ito_finalize. Before, both put back the
 * handler that ito_preempt_enable had replaced, throwing away the one the program had
 * installed since (its socket's out-of-band data then went to a handler it had replaced).
 * The handler ito replaced at enable still comes back when the program installed none
 * (preempt.h). FLAG mode, so it runs in all three trees. */
#define _GNU_SOURCE
#include <signal.h>
#include <string.h>

#include "ito/ito.h"
#include "ito_test.h"

static void first(int sig) { (void)sig; }
static void second(int sig) { (void)sig; }

static void install(void (*fn)(int))
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = fn;
    sigemptyset(&sa.sa_mask);
    CHECK_EQ(sigaction(SIGURG, &sa, NULL), 0);
}

static void (*current(void))(int)
{
    struct sigaction sa;
    CHECK_EQ(sigaction(SIGURG, NULL, &sa), 0);
    return (sa.sa_flags & SA_SIGINFO) ? NULL : sa.sa_handler;
}

int main(void)
{
    ito_preempt_config_t pc = {.quantum_us = 1000, .mode = ITO_PREEMPT_FLAG};
    install(first);
    CHECK_OK(ito_init(NULL));
    /* the program installs none meanwhile: its handler of before comes back */
    CHECK_OK(ito_preempt_enable(&pc));
    CHECK(current() != first); /* ito's, while on */
    CHECK_OK(ito_preempt_disable());
    CHECK(current() == first);
    /* the program replaces ito's while on: disable keeps the program's */
    CHECK_OK(ito_preempt_enable(&pc));
    install(second);
    CHECK_OK(ito_preempt_disable());
    CHECK(current() == second);
    /* the same at finalize, with preemption still on */
    install(first);
    CHECK_OK(ito_preempt_enable(&pc));
    install(second);
    CHECK_OK(ito_finalize());
    CHECK(current() == second);
    signal(SIGURG, SIG_DFL);
    TEST_DONE();
}
