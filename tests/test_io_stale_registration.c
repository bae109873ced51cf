/* test_io_stale_registration: an idle worker sleeps (no CPU) after a wait ended on a
 * number closed with close(2) whose file a dup keeps open (src/wsc/ready.c
 * itoi_ready_drop, itoi_ready_before_sleep), both backends. ULT A waits in ito_read on a
 * pipe's read end N (sync backend: registered in the worker's epoll); N is closed with
 * close(2) while a dup M keeps the pipe open, so the epoll keeps the registration and
 * the DEL at A's end fails; A is cancelled (ito_cancel_io) and joined; a byte then makes
 * the pipe ready. Found by a reviewer on 2026-12-04: that event sat in the epoll, which
 * the worker read only while something waited, and the idle worker (watching the epoll)
 * woke for ever: 0.22-0.27 s of CPU per second of idle. Now it consumes such events
 * before it sleeps. Asserted: the process uses under 0.08 s of CPU while main sleeps
 * 1 s (CPU time, not wall-clock). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static int N;

static void *reader(void *arg)
{
    (void)arg;
    char c;
    long r = ito_read(N, &c, 1);
    return (void *)(intptr_t)(r < 0 ? -errno : r);
}

static void round_fn(const char *backend)
{
    int p[2];
    CHECK_EQ(pipe(p), 0);
    N = p[0];
    int m = dup(N);
    CHECK(m >= 0);
    ito_thread_t a;
    CHECK_OK(ito_create(&a, reader, NULL, NULL));
    CHECK_OK(ito_sleep_ns(20 * 1000 * 1000)); /* A waits */
    CHECK_EQ(close(N), 0);
    CHECK_OK(ito_cancel_io(a));
    void *res;
    CHECK_OK(ito_join(a, &res));
    CHECK_EQ((intptr_t)res, -ECANCELED);
    CHECK_EQ(write(p[1], "x", 1), 1);
    double c0 = ito_test_cpu_seconds();
    CHECK_OK(ito_sleep_ns(1000 * 1000 * 1000));
    double used = ito_test_cpu_seconds() - c0;
    printf("%s: %.3f s of CPU during 1 s of idle\n", backend, used);
    CHECK(used < 0.08);
    char c;
    CHECK_EQ(read(m, &c, 1), 1); /* the byte is still there */
    close(m);
    close(p[1]);
}

int main(void)
{
    ito_test_each_backend(1, round_fn);
    TEST_DONE();
}
