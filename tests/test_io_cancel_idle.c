/* test_io_cancel_idle: a readiness wait cancelled after its event came leaves no work
 * behind: the idle runtime afterwards uses no CPU (sync backend: the wait is in the
 * worker's epoll).
 *
 * Found by a reviewer (2026-12-03): the event stayed queued in the worker's epoll, which
 * the worker reads only while something waits on it, and its idle sleep, watching that
 * epoll, woke at once for ever: 1.97 s of CPU in 2 s of idling, 3 of 3 runs. Now the last
 * waiter's cancellation removes the descriptor's registration. */
#define _GNU_SOURCE
#include <errno.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static int p[2];
static ssize_t res;
static int err;

static void *reader(void *unused)
{
    (void)unused;
    char b[16];
    res = ito_read(p[0], b, sizeof b);
    err = errno;
    return NULL;
}

static void round_on(const char *backend)
{
    CHECK_EQ(pipe(p), 0);
    ito_thread_t t;
    CHECK_OK(ito_create(&t, reader, NULL, NULL));
    CHECK_OK(ito_sleep_ns(10 * 1000000ull)); /* the reader waits */
    CHECK_EQ(write(p[1], "x", 1), 1);        /* its event comes ... */
    CHECK_OK(ito_cancel_io(t));              /* ... and it is cancelled before the worker polls */
    CHECK_OK(ito_join(t, NULL));
    CHECK(res == 1 || (res == -1 && err == ECANCELED));
    double c0 = ito_test_cpu_seconds();
    CHECK_OK(ito_sleep_ns(500 * 1000000ull)); /* an idle runtime */
    double used = ito_test_cpu_seconds() - c0;
    printf("%s: %.3f s of CPU in 0.5 s of idling\n", backend, used);
    CHECK(used < 0.25); /* (spinning: all of it) */
    close(p[0]);
    close(p[1]);
}

int main(void)
{
    ito_test_each_backend(1, round_on);
    TEST_DONE();
}
