/* test_io_sendto_unix_full: ito_sendmsg to a unix address (an unconnected unix datagram
 * socket, sendto(2)-style) while the receiver's queue is full, on both backends. As
 * sendmsg(2) on a blocking socket, it must wait (costing no CPU) until the receiver reads,
 * then send the datagram whole and return its length; the receiver gets exactly it.
 * io_uring's retry after the sender's (immediate) writability event sent an empty datagram
 * and returned 0: the 5 bytes were lost and the receiver got a datagram of length 0
 * (Linux 6.18's io_uring; a plain liburing program shows it). The sync backend tried
 * again at every such event: 0.2-0.3 s of CPU per second of waiting. A deadline ends the
 * wait with ETIMEDOUT and nothing sent. Found by an outside tester, h65d, 2026-12-06. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"
#include "ito_test_net.h"

#define MS 1000000ull

static int snd;
static struct sockaddr_un to;
static socklen_t to_len;
static long res;
static int err;

static void *sender(void *a)
{
    struct iovec iv = {"hello", 5};
    struct msghdr m = {.msg_name = &to, .msg_namelen = to_len, .msg_iov = &iv, .msg_iovlen = 1};
    if (a) CHECK_OK(ito_io_deadline(ito_deadline_in(100 * MS)));
    res = ito_sendmsg(snd, &m, 0);
    err = errno;
    return NULL;
}

static void *body(void *a)
{
    (void)a;
    const char *backend = getenv("ITO_WSC_BACKEND");
    int rcv = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    CHECK(rcv >= 0);
    to = (struct sockaddr_un){.sun_family = AF_UNIX};
    int len = snprintf(to.sun_path + 1, sizeof to.sun_path - 1, "ito-sendto-full-%d-%s", (int)getpid(), backend);
    to_len = (socklen_t)(sizeof(sa_family_t) + 1 + (size_t)len);
    CHECK_EQ(bind(rcv, (struct sockaddr *)&to, to_len), 0);
    snd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    CHECK(snd >= 0);
    int queued = 0;
    while (sendto(snd, "x", 1, MSG_DONTWAIT, (struct sockaddr *)&to, to_len) == 1) queued++;
    CHECK(queued > 0);
    /* 1. with a deadline: ETIMEDOUT, nothing sent */
    ito_thread_t t;
    CHECK_OK(ito_create(&t, sender, (void *)1, NULL));
    CHECK_OK(ito_join(t, NULL));
    CHECK_EQ(res, -1);
    CHECK_EQ(err, ETIMEDOUT);
    /* 2. waits without CPU, then goes once the receiver reads */
    res = -12345;
    CHECK_OK(ito_create(&t, sender, NULL, NULL));
    double c0 = ito_test_cpu_seconds();
    CHECK_OK(ito_sleep_ns(300 * MS));
    double used = ito_test_cpu_seconds() - c0;
    CHECK_EQ(res, -12345); /* still waiting: the queue is full */
    if (used > 0.1) {
        fprintf(stderr, "%s: %.3f s of CPU while ito_sendmsg waited 0.3 s\n", backend, used);
        CHECK(0);
    }
    char b[16];
    CHECK_EQ(recv(rcv, b, sizeof b, 0), 1); /* room for one */
    CHECK_OK(ito_join(t, NULL));
    CHECK_EQ(res, 5);
    int hello, n = ito_test_drain_x_hello(rcv, &hello);
    CHECK_EQ(n, queued); /* queued - 1 'x' + the hello */
    CHECK_EQ(hello, 1);
    close(snd);
    close(rcv);
    return NULL;
}

int main(void)
{
    ito_test_each_backend_ult(0, body);
    TEST_DONE();
}
