/* test_io_write_empty: ito_write of 0 bytes on a datagram or seqpacket socket sends an
 * empty message, as write(2) does (and io_uring's WRITE); on a pipe, a stream socket or a
 * regular file it returns 0 and moves nothing. The sync backend wrote with pwritev2, a
 * vector, and a vector of nothing sends no message: the empty datagram never left (found
 * by an outside tester, h75d, 2026-12-07: a UDP keep-alive written with ito_write). Both
 * backends; main checks write(2) itself. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"
#include "ito_test_net.h"

/* Whether a message (of length 0) is waiting on fd; takes it. */
static int empty_message_there(int fd)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    if (poll(&p, 1, 2000) != 1) return 0;
    char b[4];
    return recv(fd, b, sizeof b, MSG_DONTWAIT) == 0;
}

static void *body(void *arg)
{
    (void)arg;
    char b[1] = {0};
    int tx, rx;
    ito_test_udp_pair(&tx, &rx);
    CHECK_EQ(ito_write(tx, b, 0), 0);
    CHECK(empty_message_there(rx));
    CHECK_EQ(ito_write(tx, "ab", 2), 2); /* and the next datagram is the next one */
    char r[4];
    CHECK_EQ(ito_recv(rx, r, sizeof r, 0), 2);
    CHECK_OK(ito_close(tx));
    CHECK_OK(ito_close(rx));

    static const int types[] = {SOCK_DGRAM, SOCK_SEQPACKET};
    for (size_t i = 0; i < sizeof types / sizeof *types; i++) {
        int sv[2];
        CHECK_EQ(socketpair(AF_UNIX, types[i], 0, sv), 0);
        CHECK_EQ(ito_write(sv[0], b, 0), 0);
        CHECK(empty_message_there(sv[1]));
        CHECK_OK(ito_close(sv[0]));
        CHECK_OK(ito_close(sv[1]));
    }

    /* elsewhere nothing moves: a pipe stays empty, a stream socket too */
    int pp[2];
    CHECK_EQ(pipe(pp), 0);
    CHECK_EQ(ito_write(pp[1], b, 0), 0);
    struct pollfd p = {.fd = pp[0], .events = POLLIN};
    CHECK_EQ(poll(&p, 1, 0), 0);
    CHECK_OK(ito_close(pp[0]));
    CHECK_OK(ito_close(pp[1]));
    int x, y;
    ito_test_tcp_pair(&x, &y);
    CHECK_EQ(ito_write(x, b, 0), 0);
    p.fd = y;
    CHECK_EQ(poll(&p, 1, 0), 0);
    CHECK_OK(ito_close(x));
    CHECK_OK(ito_close(y));
    /* a regular file: 0, the position and size unchanged */
    char path[] = "/tmp/ito_write_emptyXXXXXX";
    int f = mkstemp(path);
    CHECK(f >= 0);
    unlink(path);
    CHECK_EQ(ito_write(f, b, 0), 0);
    CHECK_EQ(lseek(f, 0, SEEK_CUR), 0);
    CHECK_OK(ito_close(f));
    /* a closed number: EBADF, as write(2) */
    errno = 0;
    CHECK_EQ(ito_write(f, b, 0), -1);
    CHECK_EQ(errno, EBADF);
    return NULL;
}

int main(void)
{
    int tx, rx; /* write(2) itself sends the empty datagram */
    ito_test_udp_pair(&tx, &rx);
    char b[1];
    CHECK_EQ(write(tx, b, 0), 0);
    CHECK(empty_message_there(rx));
    close(tx);
    close(rx);
    ito_test_each_backend_ult(2, body);
    TEST_DONE();
}
