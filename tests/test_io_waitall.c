/* test_io_waitall: MSG_WAITALL as recv(2) gives it, on both backends (src/wsc/whole.c).
 * Found by a chaos test of the wrappers (2026-12-03):
 *  1. on message sockets (unix datagram and seqpacket, UDP) a receive is one message: the
 *     whole-transfer loop glued "hello" and "world!" into 11 bytes, and with nothing more
 *     coming it waited for ever for the rest of the 64 bytes;
 *  2. MSG_PEEK|MSG_WAITALL never returns the same bytes twice (it gave "abcabc" for "abc");
 *  3. ito_recvmsg with MSG_WAITALL on a stream loses no passed descriptor: the parts after
 *     the first were received without the control buffer, and the kernel dropped the
 *     descriptors they carried. Here the first part carries none and a later one carries
 *     one; and two parts that each carry one are received in two calls, as recvmsg(2)
 *     stops after a message that carries descriptors.
 * A deadline bounds every call, so a regression fails instead of hanging. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"
#include "io_test.h"

#define BOUND_NS (3000ull * 1000 * 1000)

static void two_messages(int type)
{
    int sv[2];
    CHECK_EQ(socketpair(AF_UNIX, type, 0, sv), 0);
    CHECK_EQ(send(sv[1], "hello", 5, 0), 5);
    CHECK_EQ(send(sv[1], "world!", 6, 0), 6);
    char b[64] = {0};
    CHECK_OK(ito_io_deadline(ito_deadline_in(BOUND_NS)));
    CHECK_EQ(ito_recv(sv[0], b, sizeof b, MSG_WAITALL), 5);
    CHECK(!memcmp(b, "hello", 5));
    CHECK_EQ(ito_recv(sv[0], b, sizeof b, MSG_WAITALL), 6);
    CHECK(!memcmp(b, "world!", 6));
    CHECK_OK(ito_io_deadline(ITO_FOREVER));
    close(sv[0]);
    close(sv[1]);
}

static void udp_messages(void)
{
    int u = socket(AF_INET, SOCK_DGRAM, 0);
    CHECK(u >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    CHECK_EQ(bind(u, (struct sockaddr *)&a, sizeof a), 0);
    socklen_t l = sizeof a;
    CHECK_EQ(getsockname(u, (struct sockaddr *)&a, &l), 0);
    CHECK_EQ(sendto(u, "hello", 5, 0, (struct sockaddr *)&a, l), 5);
    CHECK_EQ(sendto(u, "world!", 6, 0, (struct sockaddr *)&a, l), 6);
    char b[64];
    CHECK_OK(ito_io_deadline(ito_deadline_in(BOUND_NS)));
    CHECK_EQ(ito_recv(u, b, sizeof b, MSG_WAITALL), 5);
    CHECK_EQ(ito_recv(u, b, sizeof b, MSG_WAITALL), 6);
    CHECK_OK(ito_io_deadline(ITO_FOREVER));
    close(u);
}

static void peek_waitall(void)
{
    int sv[2];
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    CHECK_EQ(send(sv[1], "abc", 3, 0), 3);
    char b[8] = {0};
    CHECK_OK(ito_io_deadline(ito_deadline_in(BOUND_NS)));
    ssize_t n = ito_recv(sv[0], b, 6, MSG_PEEK | MSG_WAITALL);
    CHECK_OK(ito_io_deadline(ITO_FOREVER));
    CHECK_EQ(n, 3); /* what is there, once (recv(2) would wait for 6; documented) */
    CHECK(!memcmp(b, "abc", 3));
    CHECK_EQ(b[3], 0);
    CHECK_EQ(ito_recv(sv[0], b, 3, 0), 3); /* the peek consumed nothing */
    close(sv[0]);
    close(sv[1]);
}

static int send_part(int s, const char *data, int fd)
{
    struct iovec iov = {(void *)data, 4};
    union {
        char b[CMSG_SPACE(sizeof(int))];
        struct cmsghdr a;
    } u;
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
    if (fd >= 0) {
        m.msg_control = u.b;
        m.msg_controllen = sizeof u.b;
        struct cmsghdr *c = CMSG_FIRSTHDR(&m);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), &fd, sizeof fd);
    }
    return (int)sendmsg(s, &m, 0);
}

/* Receives 8 bytes with ito_recvmsg(MSG_WAITALL) calls; the descriptors that came with
 * them (closed again); the calls it took in *calls. */
static int recv_8(int s, int *calls)
{
    char buf[8];
    size_t total = 0;
    int fds = 0;
    *calls = 0;
    CHECK_OK(ito_io_deadline(ito_deadline_in(BOUND_NS)));
    while (total < 8) {
        union {
            char b[CMSG_SPACE(sizeof(int) * 4)];
            struct cmsghdr a;
        } u;
        struct iovec iov = {buf + total, 8 - total};
        struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.b, .msg_controllen = sizeof u.b};
        ssize_t n = ito_recvmsg(s, &m, MSG_WAITALL);
        CHECK(n > 0);
        (*calls)++;
        total += (size_t)n;
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
                int k = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
                for (int i = 0; i < k; i++) {
                    int fd;
                    memcpy(&fd, CMSG_DATA(c) + (size_t)i * sizeof fd, sizeof fd);
                    close(fd);
                }
                fds += k;
            }
    }
    CHECK_OK(ito_io_deadline(ITO_FOREVER));
    CHECK_EQ(total, 8);
    return fds;
}

typedef struct {
    int s;
    int fds, calls;
} rx_t;

static void *rx(void *arg)
{
    rx_t *x = arg;
    x->fds = recv_8(x->s, &x->calls);
    return NULL;
}

static void passed_fds(void)
{
    int sv[2], calls;
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    /* both parts carry a descriptor: two calls, both descriptors */
    CHECK_EQ(send_part(sv[1], "AAAA", 0), 4);
    CHECK_EQ(send_part(sv[1], "BBBB", 1), 4);
    CHECK_EQ(recv_8(sv[0], &calls), 2);
    CHECK_EQ(calls, 2);
    /* the first part carries none, the second (sent while the call waits) one */
    CHECK_EQ(send_part(sv[1], "CCCC", -1), 4);
    rx_t x = {.s = sv[0]};
    ito_thread_t t;
    CHECK_OK(ito_create(&t, rx, &x, NULL));
    CHECK_OK(ito_sleep_ns(20 * 1000 * 1000));
    CHECK_EQ(send_part(sv[1], "DDDD", 2), 4);
    CHECK_OK(ito_join(t, NULL));
    CHECK_EQ(x.fds, 1);
    close(sv[0]);
    close(sv[1]);
}

static void *body(void *arg)
{
    (void)arg;
    two_messages(SOCK_DGRAM);
    two_messages(SOCK_SEQPACKET);
    udp_messages();
    peek_waitall();
    passed_fds();
    return NULL;
}

int main(void)
{
    io_each_backend(body, 0);
    TEST_DONE();
}
