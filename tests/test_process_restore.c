/* test_process_restore: ito_finalize gives the calling thread and the process back as
 * ito_init found them (thread.h: "a plain kernel thread again").
 *  1. the program's SIGSEGV and SIGBUS handlers are its own again after finalize (before,
 *     ito's overflow handler stayed installed for good: after dlclose of libito it pointed
 *     at unmapped code and the program's next fault killed it instead of reaching its own
 *     handler); a handler the program installs while the runtime runs stays;
 *  2. the program's alternate signal stack is its own again (before: disabled, so a
 *     SA_ONSTACK handler could no longer catch an overflow of the main stack). */
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>

#include "ito/ito.h"
#include "ito_test.h"

static void my_segv(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)si;
    (void)uc;
}

static void my_bus(int sig) { (void)sig; }

static int is(int sig, void *fn)
{
    struct sigaction cur;
    CHECK_EQ(sigaction(sig, NULL, &cur), 0);
    return (cur.sa_flags & SA_SIGINFO) ? (void *)cur.sa_sigaction == fn : (void *)cur.sa_handler == fn;
}

int main(void)
{
    struct sigaction sa = {0};
    sa.sa_sigaction = my_segv;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    CHECK_EQ(sigaction(SIGSEGV, &sa, NULL), 0);
    struct sigaction sb = {0};
    sb.sa_handler = my_bus;
    sigemptyset(&sb.sa_mask);
    CHECK_EQ(sigaction(SIGBUS, &sb, NULL), 0);
    size_t alt_size = 128 * 1024;
    void *alt = malloc(alt_size);
    CHECK(alt != NULL);
    stack_t ss = {.ss_sp = alt, .ss_size = alt_size, .ss_flags = 0}, cur;
    CHECK_EQ(sigaltstack(&ss, NULL), 0);

    for (int round = 0; round < 3; round++) {
        CHECK_OK(ito_init(NULL));
        CHECK(!is(SIGSEGV, (void *)my_segv)); /* ito's, naming overflowing ULTs */
        CHECK_OK(ito_finalize());
        CHECK(is(SIGSEGV, (void *)my_segv));
        CHECK(is(SIGBUS, (void *)my_bus));
        CHECK_EQ(sigaltstack(NULL, &cur), 0);
        CHECK(!(cur.ss_flags & SS_DISABLE));
        CHECK(cur.ss_sp == alt);
        CHECK_EQ(cur.ss_size, alt_size);
    }

    /* 1b: installed by the program while the runtime ran: left alone */
    CHECK_OK(ito_init(NULL));
    sb.sa_handler = SIG_IGN;
    CHECK_EQ(sigaction(SIGBUS, &sb, NULL), 0);
    CHECK_OK(ito_finalize());
    CHECK(is(SIGBUS, (void *)SIG_IGN));
    CHECK(is(SIGSEGV, (void *)my_segv));

    /* 2b: no alternate stack before: none after */
    stack_t off = {.ss_flags = SS_DISABLE};
    CHECK_EQ(sigaltstack(&off, NULL), 0);
    CHECK_OK(ito_init(NULL));
    CHECK_OK(ito_finalize());
    CHECK_EQ(sigaltstack(NULL, &cur), 0);
    CHECK(cur.ss_flags & SS_DISABLE);
    free(alt);
    TEST_DONE();
}
