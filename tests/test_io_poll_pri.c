/* test_io_poll_pri: ito_poll asking for POLLPRI alone wakes when TCP urgent data comes,
 * on both backends, as poll(2). Found by a tester (2026-12-05): on io_uring the wait
 * ended only at its timeout (for ever with -1): io_uring's poll is not woken by urgent
 * data for POLLPRI without POLLIN (a plain liburing program shows it); ito sends such a
 * wait to the worker's epoll. */
#define _GNU_SOURCE
#include <errno.h>
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
    usleep(100 * 1000);
    CHECK_EQ(send(x, "!", 1, MSG_OOB), 1);
    return NULL;
}

static void *body(void *arg)
{
    (void)arg;
    ito_test_tcp_pair(&x, &y);
    pthread_t t;
    CHECK_EQ(pthread_create(&t, NULL, urgent, NULL), 0);
    /* No timeout. The old code's wait ended only at the I/O deadline, where a last look
     * found the byte: so the wake-up must come well before it (a hang detector; the
     * byte comes after 0.1 s). */
    uint64_t deadline = ito_deadline_in(10ull * 1000000000ull);
    CHECK_OK(ito_io_deadline(deadline));
    struct pollfd p = {.fd = y, .events = POLLPRI};
    errno = 0;
    int r = ito_poll(&p, 1, -1);
    if (r != 1) fprintf(stderr, "ito_poll: %d (%s)\n", r, strerror(errno));
    CHECK_EQ(r, 1);
    CHECK(p.revents & POLLPRI);
    if (ito_now_ns() + 5ull * 1000000000ull > deadline) fprintf(stderr, "woken only near the deadline\n");
    CHECK(ito_now_ns() + 5ull * 1000000000ull <= deadline);
    CHECK_OK(ito_io_deadline(ITO_FOREVER));
    CHECK_EQ(pthread_join(t, NULL), 0);
    close(x);
    close(y);
    return NULL;
}

int main(void)
{
    io_each_backend(body, 0);
    TEST_DONE();
}
