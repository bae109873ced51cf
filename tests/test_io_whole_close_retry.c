/* test_io_whole_close_retry: the rest of a whole ito_send never goes to a file that took
 * the number after an ito_close. On io_uring each send is one attempt (MSG_DONTWAIT); one
 * that finds no room completes with EAGAIN and wakes its ULT, which then tries again
 * itself and waits for room. Between that completion and the ULT's run the request is no
 * longer live, so an ito_close of the number in between ended nothing, and once a new
 * socket had taken the number the ULT's try sent the rest of the transfer into it, where
 * write(2) keeps its file for the whole call (found by an outside tester, h74a,
 * 2026-12-07: in a churn of sockets closed under their senders, a socket just made
 * received 222,720 bytes from offset 219,264 of another connection's transfer). Checked
 * with one worker, so that the order is fixed: the sender's first part fills the socket,
 * its second part's attempt completes with EAGAIN while the closer runs (it waits for that
 * completion in the split-phase counters), and the closer closes the number, has a new
 * socket take it and lets the sender run. The new socket must receive nothing and the
 * call must return what its first part moved. On the sync backend the try is the ULT's
 * own call with no wait before it: the same steps must give the same result. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

#define BIG (4 << 20)

static int x[2];
static char *big;
static _Atomic int started;
static ssize_t sent;

static void *sender(void *arg)
{
    (void)arg;
    atomic_store(&started, 1);
    sent = ito_send(x[0], big, BIG, MSG_NOSIGNAL);
    return NULL;
}

static void round_(const char *backend)
{
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, x), 0);
    atomic_store(&started, 0);
    ito_wsc_stats_t s0, s;
    CHECK_OK(ito_wsc_stats(&s0));
    ito_thread_t t;
    CHECK_OK(ito_create(&t, sender, NULL, NULL));
    while (!atomic_load(&started)) CHECK_OK(ito_yield());
    /* the first part (which fills the socket) and the second's attempt (EAGAIN) have
     * completed; on the sync backend the sender waits for room by now */
    for (int i = 0; i < 1000000; i++) {
        CHECK_OK(ito_wsc_stats(&s));
        if (s.completed - s0.completed >= 2) break;
        CHECK_OK(ito_yield());
    }
    CHECK(s.completed - s0.completed >= 2 || strcmp(backend, "sync") == 0);
    int n = x[0];
    CHECK_EQ(ito_close(n), 0);
    int y[2];
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, y), 0);
    int reader = y[0] == n ? y[1] : y[0], dup = -1; /* the end the number does not name */
    if (y[0] != n && y[1] != n) CHECK_EQ(dup = dup2(y[1], n), n); /* the number names the new socket */
    CHECK_OK(ito_join(t, NULL));
    char c;
    errno = 0;
    CHECK_EQ(recv(reader, &c, 1, MSG_DONTWAIT), -1); /* nothing of the old transfer */
    CHECK_EQ(errno, EAGAIN);
    CHECK(sent > 0 && sent < BIG); /* the count its first part moved */
    if (dup >= 0) close(dup);
    close(y[0]);
    close(y[1]);
    close(x[1]);
}

int main(void)
{
    big = calloc(1, BIG);
    CHECK(big != NULL);
    ito_test_each_backend(1, round_);
    free(big);
    TEST_DONE();
}
