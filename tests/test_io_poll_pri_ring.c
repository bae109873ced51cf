/* test_io_poll_pri_ring: an ito_poll for POLLPRI alone goes to the worker's epoll on
 * io_uring too (test_io_poll_pri), and the submission queue entry it took first goes back
 * unused (uring.c). Left in the ring, that entry went to the kernel with the next
 * submission holding whatever an earlier request had left in it: an old write done again,
 * an old record completed twice. test_io_poll_pri waits once on a fresh ring, where the
 * entry is zeroed, and passed with the entry left (found by mutation testing, h60e,
 * 2026-12-05). Here the ring's entries have all been used by writes and reads of a pipe
 * before each such poll, and the pipe must hold exactly what was written. Both backends. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>

#include "ito/ito.h"
#include "ito_test.h"
#include "ito_test_net.h"
#include "io_test.h"

static int x, y;

static void *urgent(void *arg)
{
    (void)arg;
    usleep(20 * 1000);
    CHECK_EQ(send(x, "!", 1, MSG_OOB), 1);
    return NULL;
}

static void *body(void *arg)
{
    (void)arg;
    int p[2];
    CHECK_EQ(pipe2(p, O_NONBLOCK), 0);
    ito_test_tcp_pair(&x, &y);
    CHECK_OK(ito_io_deadline(ito_deadline_in(20ull * 1000000000ull)));
    for (int round = 0; round < 4; round++) {
        for (int i = 0; i < 600; i++) { /* every entry of the ring used, more than once */
            char c = (char)('a' + i % 26), d = 0;
            CHECK_EQ(ito_write(p[1], &c, 1), 1);
            CHECK_EQ(ito_read(p[0], &d, 1), 1);
            CHECK_EQ(d, c);
        }
        pthread_t t;
        CHECK_EQ(pthread_create(&t, NULL, urgent, NULL), 0);
        struct pollfd pf = {.fd = y, .events = POLLPRI};
        CHECK_EQ(ito_poll(&pf, 1, -1), 1);
        CHECK(pf.revents & POLLPRI);
        CHECK_EQ(pthread_join(t, NULL), 0);
        char oob;
        CHECK_EQ(recv(y, &oob, 1, MSG_OOB), 1);
        /* one more request through the ring, then nothing extra may be in the pipe */
        char c = 'Z', d = 0;
        CHECK_EQ(ito_write(p[1], &c, 1), 1);
        CHECK_EQ(ito_read(p[0], &d, 1), 1);
        CHECK_EQ(d, 'Z');
        ito_sleep_ns(2000000);
        char extra;
        errno = 0;
        CHECK_EQ(read(p[0], &extra, 1), -1);
        CHECK_EQ(errno, EAGAIN);
    }
    CHECK_OK(ito_io_deadline(ITO_FOREVER));
    close(x);
    close(y);
    close(p[0]);
    close(p[1]);
    return NULL;
}

int main(void)
{
    io_each_backend(body, 0);
    TEST_DONE();
}
