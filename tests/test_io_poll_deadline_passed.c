/* test_io_poll_deadline_passed: ito_poll under a ULT I/O deadline that has passed already
 * fails with ETIMEDOUT (syscall.h: "the ULT's I/O deadline applies as well (then
 * -1/ETIMEDOUT)"), whatever its own timeout, and returns 0 only for its own timeout. Only
 * the deadline that ends the wait was tested: returning 0 (a timeout) for a deadline found
 * passed before the wait passed every test (found by mutation testing, h60e, 2026-12-05).
 * A ready descriptor still answers. Both backends. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito/syscall.h"
#include "ito_test.h"

static void *body(void *arg)
{
    (void)arg;
    int p[2];
    CHECK_EQ(pipe(p), 0);
    struct pollfd fd = {.fd = p[0], .events = POLLIN};
    CHECK_OK(ito_io_deadline(ito_now_ns() - 1)); /* passed */
    int timeouts[] = {-1, 1000, 1};
    for (int i = 0; i < 3; i++) {
        errno = 0;
        CHECK_EQ(ito_poll(&fd, 1, timeouts[i]), -1);
        CHECK_EQ(errno, ETIMEDOUT);
    }
    errno = 0;
    CHECK_EQ(ito_poll(NULL, 0, 1000), -1); /* time only */
    CHECK_EQ(errno, ETIMEDOUT);
    CHECK_EQ(ito_poll(&fd, 1, 0), 0); /* no wait: a look, not a wait the deadline ends */
    CHECK_EQ(write(p[1], "x", 1), 1);
    CHECK_EQ(ito_poll(&fd, 1, -1), 1); /* ready: the answer */
    CHECK(fd.revents & POLLIN);
    CHECK_OK(ito_io_deadline(ito_deadline_in(2000000000ull))); /* later than the call's timeout */
    char c;
    CHECK_EQ(read(p[0], &c, 1), 1);
    CHECK_EQ(ito_poll(&fd, 1, 5), 0); /* its own timeout: 0 */
    CHECK_OK(ito_io_deadline(ITO_FOREVER));
    close(p[0]);
    close(p[1]);
    return NULL;
}

int main(void)
{
    ito_test_each_backend_ult(1, body);
    TEST_DONE();
}
