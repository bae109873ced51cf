/* test_io_poll_rerun_closed: ito_poll whose wait io_uring gave up by itself (-ECANCELED
 * that nobody asked for, as while a preemption tick is pending) waits again -- but not on
 * a file that took the number of one of its descriptors after another ULT's ito_close.
 * syscall.h ("Close"): a wait that ito_close ends reports POLLNVAL for that descriptor.
 * ULT W polls a socket (the second request queued to io_uring: ITO_FAULT_URING_CANCEL=2
 * gives it up); ULT C, woken by the same reap just before W, closes the socket with
 * ito_close and makes a pipe with a byte in it, whose read end takes the socket's number.
 * Until 2026-12-05 W's next round polled the pipe and returned 1 with POLLIN; now it
 * returns 1 with POLLNVAL. Found by an outside tester (h62b, 2026-12-05), the same
 * pattern as test_io_uring_rerun_closed; failed every run without the fix. */
#define _GNU_SOURCE
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static int pr[2], sv[2], np[2] = {-1, -1};
static int wres;
static short wrev;

static void *closer(void *arg)
{
    (void)arg;
    char b;
    CHECK_EQ(ito_read(pr[0], &b, 1), 1); /* the first request queued; completes in W's reap */
    CHECK_EQ(ito_close(sv[0]), 0);
    CHECK(pipe(np) == 0);
    CHECK(write(np[1], "y", 1) == 1);
    return NULL;
}

static void *poller(void *arg)
{
    (void)arg;
    struct pollfd p = {.fd = sv[0], .events = POLLIN};
    wres = ito_poll(&p, 1, 5000); /* the second request: given up by "io_uring" */
    wrev = p.revents;
    return NULL;
}

int main(void)
{
    setenv("ITO_WSC_BACKEND", "uring", 1);
    setenv("ITO_FAULT_URING_CANCEL", "2", 1);
    CHECK(pipe(pr) == 0);
    CHECK(write(pr[1], "x", 1) == 1);
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    int rc = ito_init(&(ito_config_t){.workers = 1}); /* C and W queue on one worker, C first */
    if (rc == ITO_ENOSYS) {
        printf("skipped: no io_uring\n");
        TEST_DONE();
    }
    CHECK_OK(rc);
    ito_thread_t c, w;
    CHECK_OK(ito_create(&c, closer, NULL, NULL));
    CHECK_OK(ito_create(&w, poller, NULL, NULL));
    CHECK_OK(ito_join(c, NULL));
    CHECK_OK(ito_join(w, NULL));
    CHECK_OK(ito_finalize());
    fprintf(stderr, "socket %d, new pipe %d: ito_poll %d revents %#x\n", sv[0], np[0], wres, (unsigned)wrev);
    if (np[0] == sv[0]) { /* the case this test is about: the number was taken again */
        CHECK_EQ(wres, 1);
        CHECK_EQ(wrev, POLLNVAL);
    } else {
        CHECK(wres == 1 || wres == 0);
    }
    close(np[0]);
    close(np[1]);
    close(sv[1]);
    close(pr[0]);
    close(pr[1]);
    TEST_DONE();
}
