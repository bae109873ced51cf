/* test_io_empty_vector: ito_readv and ito_writev of a vector of no entries return 0 as
 * readv(2) and writev(2) do, which never reach the file then: on io_uring, READV and
 * WRITEV called the file's read or write with nothing, and an eventfd or timerfd said
 * EINVAL, and a unix datagram socket got an empty message (found by an outside tester,
 * h78b, 2026-12-08). The descriptor checks stay the kernel's (EBADF for the access mode,
 * a number that is not open). Both backends; main checks the plain calls first. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

typedef ssize_t (*vec_fn)(int, const struct iovec *, int);

/* The checks, with readv/writev as given (the plain calls, or ito's). */
static void checks(vec_fn rv, vec_fn wv)
{
    char b[8];
    struct iovec none = {b, sizeof b};
    int e = eventfd(3, 0);
    CHECK(e >= 0);
    CHECK_EQ(rv(e, &none, 0), 0);
    CHECK_EQ(wv(e, &none, 0), 0);
    uint64_t v = 0;
    CHECK_EQ(read(e, &v, sizeof v), 8); /* the counter was not touched */
    CHECK_EQ(v, 3);
    CHECK_EQ(close(e), 0);

    int t = timerfd_create(CLOCK_MONOTONIC, 0);
    CHECK(t >= 0);
    CHECK_EQ(rv(t, &none, 0), 0);
    CHECK_EQ(close(t), 0);

    int sv[2];
    CHECK_EQ(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv), 0);
    CHECK_EQ(wv(sv[0], &none, 0), 0);
    CHECK_EQ(send(sv[0], "x", 1, 0), 1);
    CHECK_EQ(recv(sv[1], b, sizeof b, MSG_DONTWAIT), 1); /* no empty message before it */
    CHECK_EQ(close(sv[0]), 0);
    CHECK_EQ(close(sv[1]), 0);

    int pp[2];
    CHECK_EQ(pipe(pp), 0);
    errno = 0;
    CHECK_EQ(rv(pp[1], &none, 0), -1); /* the access mode is still checked */
    CHECK_EQ(errno, EBADF);
    errno = 0;
    CHECK_EQ(wv(pp[0], &none, 0), -1);
    CHECK_EQ(errno, EBADF);
    CHECK_EQ(close(pp[0]), 0);
    CHECK_EQ(close(pp[1]), 0);
    errno = 0;
    CHECK_EQ(rv(pp[0], &none, 0), -1); /* closed */
    CHECK_EQ(errno, EBADF);
}

static void *body(void *arg)
{
    (void)arg;
    checks(ito_readv, ito_writev);
    return NULL;
}

int main(void)
{
    checks(readv, writev);
    ito_test_each_backend_ult(1, body);
    TEST_DONE();
}
