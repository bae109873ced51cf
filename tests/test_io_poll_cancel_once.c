/* test_io_poll_cancel_once: ito_cancel_io of a ULT waiting in ito_poll ends that wait with
 * ECANCELED and is consumed by it (syscall.h: "a cancellation is never lost, and consumed
 * once"): the ULT's next wrapper calls run normally. A poll that left the cancellation
 * kept after being ended by it failed the next call with ECANCELED at once, and no test
 * saw it (found by mutation testing, h60e, 2026-12-05). One descriptor and many (the
 * records of a poll of several descriptors end together); both backends. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdatomic.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito/syscall.h"
#include "ito_test.h"

static int p[2], q[2];
static int nfds_now;
static atomic_int waiting;

static void *poller(void *arg)
{
    (void)arg;
    struct pollfd fds[2] = {{.fd = p[0], .events = POLLIN}, {.fd = q[0], .events = POLLIN}};
    atomic_store(&waiting, 1);
    errno = 0;
    CHECK_EQ(ito_poll(fds, (nfds_t)nfds_now, -1), -1);
    CHECK_EQ(errno, ECANCELED);
    /* consumed: the next calls wait and end as usual */
    CHECK_EQ(ito_poll(fds, (nfds_t)nfds_now, 10), 0);
    CHECK_EQ(write(p[1], "x", 1), 1);
    char c;
    CHECK_EQ(ito_read(p[0], &c, 1), 1);
    CHECK_EQ(ito_poll(fds, (nfds_t)nfds_now, 10), 0);
    return NULL;
}

static void *body(void *arg)
{
    (void)arg;
    CHECK_EQ(pipe(p), 0);
    CHECK_EQ(pipe(q), 0);
    for (nfds_now = 1; nfds_now <= 2; nfds_now++) {
        atomic_store(&waiting, 0);
        ito_thread_t t;
        CHECK_OK(ito_create(&t, poller, NULL, NULL));
        while (!atomic_load(&waiting)) CHECK_OK(ito_yield());
        ito_sleep_ns(20000000); /* it waits in the poll */
        CHECK_OK(ito_cancel_io(t));
        CHECK_OK(ito_join(t, NULL));
    }
    close(p[0]);
    close(p[1]);
    close(q[0]);
    close(q[1]);
    return NULL;
}

int main(void)
{
    ito_test_each_backend_ult(2, body);
    TEST_DONE();
}
