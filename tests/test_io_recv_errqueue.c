/* test_io_recv_errqueue: ito_recvmsg and ito_recv with MSG_ERRQUEUE never wait, as
 * recvmsg(2): an empty error queue is EAGAIN at once. Found by a tester (2026-12-05):
 * the usual loop "read the error queue until EAGAIN" (IP_RECVERR, SO_ZEROCOPY
 * completions) waited for ever at its second call, on both backends. */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>

#include "ito/ito.h"
#include "ito_test.h"
#include "ito_test_net.h"
#include "io_test.h"

static void *body(void *arg)
{
    (void)arg;
    /* a UDP port that nobody listens on: bound, then closed */
    struct sockaddr_in dead = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof dead;
    int d = socket(AF_INET, SOCK_DGRAM, 0);
    CHECK_EQ(bind(d, (void *)&dead, sizeof dead), 0);
    CHECK_EQ(getsockname(d, (void *)&dead, &al), 0);
    close(d);

    int s = socket(AF_INET, SOCK_DGRAM, 0);
    int one = 1;
    CHECK_EQ(setsockopt(s, IPPROTO_IP, IP_RECVERR, &one, sizeof one), 0);
    CHECK_OK(ito_io_deadline(ito_deadline_in(3ull * 1000000000ull))); /* the old code: ETIMEDOUT */
    char none[64];
    /* empty at first: EAGAIN at once (recv and recvmsg) */
    errno = 0;
    CHECK_EQ(ito_recv(s, none, sizeof none, MSG_ERRQUEUE), -1);
    CHECK_EQ(errno, EAGAIN);
    CHECK_EQ(sendto(s, "x", 1, 0, (void *)&dead, sizeof dead), 1);
    struct pollfd p = {.fd = s, .events = 0};
    CHECK_EQ(ito_poll(&p, 1, 3000), 1); /* the ICMP error came: POLLERR */
    CHECK(p.revents & POLLERR);
    char data[64], ctl[256];
    struct iovec iov = {.iov_base = data, .iov_len = sizeof data};
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof ctl};
    CHECK(ito_recvmsg(s, &m, MSG_ERRQUEUE) >= 0); /* the error */
    m.msg_controllen = sizeof ctl;
    errno = 0;
    CHECK_EQ(ito_recvmsg(s, &m, MSG_ERRQUEUE), -1); /* drained */
    CHECK_EQ(errno, EAGAIN);
    CHECK_OK(ito_io_deadline(ITO_FOREVER));
    close(s);
    return NULL;
}

int main(void)
{
    io_each_backend(body, 0);
    TEST_DONE();
}
