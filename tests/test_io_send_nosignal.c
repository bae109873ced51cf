/* test_io_send_nosignal: ito_send and ito_sendmsg to a peer that has gone give -1/EPIPE
 * and raise no SIGPIPE, on both backends (they send with MSG_NOSIGNAL: syscall.h); the
 * tester who found it undocumented (2026-12-04) checked that send(2) raises it. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static atomic_int pipes;

static void on_pipe(int sig)
{
    (void)sig;
    atomic_fetch_add(&pipes, 1);
}

static void *body(void *arg)
{
    (void)arg;
    int sv[2];
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    CHECK_EQ(close(sv[1]), 0);
    errno = 0;
    CHECK_EQ(ito_send(sv[0], "x", 1, 0), -1);
    CHECK_EQ(errno, EPIPE);
    struct iovec v = {.iov_base = "y", .iov_len = 1};
    struct msghdr m = {.msg_iov = &v, .msg_iovlen = 1};
    errno = 0;
    CHECK_EQ(ito_sendmsg(sv[0], &m, 0), -1);
    CHECK_EQ(errno, EPIPE);
    CHECK_EQ(ito_close(sv[0]), 0);
    return NULL;
}

int main(void)
{
    struct sigaction sa = {.sa_handler = on_pipe};
    CHECK_EQ(sigaction(SIGPIPE, &sa, NULL), 0);
    ito_test_each_backend_ult(2, body);
    CHECK_EQ(atomic_load(&pipes), 0);
    int sv[2]; /* the check can fail: send(2) itself raises it */
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    CHECK_EQ(close(sv[1]), 0);
    CHECK_EQ(send(sv[0], "z", 1, 0), -1);
    CHECK_EQ(atomic_load(&pipes), 1);
    close(sv[0]);
    TEST_DONE();
}
