/* test_io_recv_shutdown: ito_recv, ito_recvmsg and ito_read waiting on a datagram socket
 * (unix, UDP) that another ULT shuts down for reading (shutdown(2) SHUT_RD: the usual way
 * to stop a thread blocked in recvfrom), on both backends, also shut down before the call.
 * recv(2) blocked in a thread returns 0 then, and so does io_uring. The sync backend's
 * non-blocking receive says EAGAIN on such a socket while epoll reports it readable for
 * ever (EPOLLIN, EPOLLRDHUP): the worker tried again at every event (0.6-0.8 s of CPU a
 * second) and the ULT never returned; only its deadline or ito_cancel_io ended it.
 * Found by an outside tester, h65d, 2026-12-06. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

#define MS 1000000ull

static int fd, how;
static long res;
static const char *backend;

static void *receiver(void *a)
{
    (void)a;
    char b[8];
    struct iovec iv = {b, sizeof b};
    struct msghdr m = {.msg_iov = &iv, .msg_iovlen = 1};
    res = how == 0 ? ito_recv(fd, b, sizeof b, 0) : how == 1 ? ito_recvmsg(fd, &m, 0) : ito_read(fd, b, sizeof b);
    if (res < 0) res = -errno;
    return NULL;
}

static void *body(void *a)
{
    backend = getenv("ITO_WSC_BACKEND");
    (void)a;
    for (int udp = 0; udp < 2; udp++)
        for (how = 0; how < 3; how++)
            for (int before = 0; before < 2; before++) {
                int other = -1;
                if (udp) {
                    fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
                    CHECK(fd >= 0);
                    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
                    CHECK_EQ(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
                } else {
                    int sv[2];
                    CHECK_EQ(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv), 0);
                    fd = sv[1];
                    other = sv[0];
                }
                res = -12345;
                if (before) (void)shutdown(fd, SHUT_RD); /* (UDP: ENOTCONN, but the side is shut) */
                ito_thread_t t;
                CHECK_OK(ito_create(&t, receiver, NULL, NULL));
                if (!before) {
                    CHECK_OK(ito_sleep_ns(50 * MS)); /* it waits */
                    (void)shutdown(fd, SHUT_RD);
                }
                if (ito_join_until(t, NULL, ito_deadline_in(5000 * MS)) != ITO_OK) {
                    fprintf(stderr, "%s: %s how %d before %d: still waiting 5 s after shutdown(SHUT_RD)\n", backend,
                            udp ? "udp" : "unix", how, before);
                    CHECK_OK(ito_cancel_io(t));
                    CHECK_OK(ito_join(t, NULL));
                    CHECK(0);
                }
                CHECK_EQ(res, 0); /* end of file, as recv(2) */
                close(fd);
                if (other >= 0) close(other);
            }
    return NULL;
}

int main(void)
{
    ito_test_each_backend_ult(0, body);
    TEST_DONE();
}
