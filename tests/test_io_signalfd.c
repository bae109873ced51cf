/* test_io_signalfd: the way syscall.h gives a server to wait for SIGTERM in a ULT. The
 * signal is blocked in the main thread before ito_init (the workers inherit the mask), a
 * ULT waits in ito_read on a signalfd of it, and the main thread sends it to the process:
 * the read returns one signalfd_siginfo with the signal's number, on both backends and
 * with two workers (the signal may be taken by any thread whose mask blocks it, and is
 * pending for the process until the signalfd is read). Nothing is lost: every round's
 * signal is read once. SIGUSR1 stands for SIGTERM here, so that a test runner's timeout
 * (SIGTERM) can still stop a hung run. Written for outside tester h72e's report
 * (2026-12-07). */
#define _GNU_SOURCE
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static int sfd;
static _Atomic int reading;

static void *waiter(void *arg)
{
    (void)arg;
    struct signalfd_siginfo si;
    atomic_store(&reading, 1);
    ssize_t n = ito_read(sfd, &si, sizeof si);
    CHECK_EQ(n, (ssize_t)sizeof si);
    CHECK_EQ((int)si.ssi_signo, SIGUSR1);
    CHECK_EQ((int)si.ssi_pid, (int)getpid());
    return NULL;
}

static void round_(const char *backend)
{
    (void)backend;
    for (int i = 0; i < 20; i++) {
        atomic_store(&reading, 0);
        ito_thread_t t;
        ito_attr_t at;
        CHECK_OK(ito_attr_init(&at));
        at.worker = i % 2;
        CHECK_OK(ito_create(&t, waiter, NULL, &at));
        while (!atomic_load(&reading)) CHECK_OK(ito_yield()); /* main is a ULT of worker 0 */
        if (i % 3) CHECK_OK(ito_sleep_ns(2000000)); /* sometimes while the read waits, sometimes before it */
        CHECK_EQ(kill(getpid(), SIGUSR1), 0);
        CHECK_OK(ito_join(t, NULL));
    }
}

int main(void)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    CHECK_EQ(pthread_sigmask(SIG_BLOCK, &set, NULL), 0);
    sfd = signalfd(-1, &set, SFD_CLOEXEC);
    CHECK(sfd >= 0);
    ito_test_each_backend(2, round_);
    close(sfd);
    TEST_DONE();
}
