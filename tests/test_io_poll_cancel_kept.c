/* test_io_poll_cancel_kept: an ito_poll that nothing could end (no descriptor to wait on,
 * every fd negative or nfds 0, and no timeout) is refused with EINVAL, like the other calls
 * its arguments refuse, and leaves a cancellation kept by ito_cancel_io for the next call
 * (syscall.h, ito_cancel_io: "A call that its arguments refuse before anything is posted
 * ... fails with that error and leaves the cancellation kept"). Found by a misuse fuzzer
 * (2026-12-04): the poll consumed the kept cancellation and failed with ECANCELED. Both
 * backends. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static int p[2];

static void *body(void *arg)
{
    (void)arg;
    struct pollfd none[2] = {{.fd = -1, .events = POLLIN}, {.fd = -3, .events = POLLIN}};
    char c;
    for (int k = 0; k < 2; k++) {
        CHECK_OK(ito_cancel_io(ito_self())); /* kept: this ULT waits in no wrapper */
        errno = 0;
        CHECK_EQ(k ? ito_poll(NULL, 0, -1) : ito_poll(none, 2, -1), -1);
        CHECK_EQ(errno, EINVAL);
        /* still kept: the next wrapper call fails at once, the byte stays in the pipe */
        errno = 0;
        CHECK_EQ(ito_read(p[0], &c, 1), -1);
        CHECK_EQ(errno, ECANCELED);
        CHECK_EQ(ito_read(p[0], &c, 1), 1); /* consumed once */
        CHECK_EQ(write(p[1], "x", 1), 1);
    }
    return NULL;
}

int main(void)
{
    CHECK_EQ(pipe(p), 0);
    CHECK_EQ(write(p[1], "x", 1), 1);
    ito_test_each_backend_ult(2, body);
    TEST_DONE();
}
