/* test_io_cancel_once: one ito_cancel_io ends exactly one wrapper call.
 *
 * Found by a misuse tester (2026-12-03): a cancellation made while the ULT was not in a
 * wrapper was consumed by its next call (ECANCELED at once, as documented), but the
 * cross-worker call that ito_cancel_io had queued ran later, found the ULT parked in a
 * second call and cancelled that one too: a read that a pthread fed 50 ms later failed
 * with ECANCELED, 10 of 10 runs, both backends, 1 and 2 workers. Now the queued call does
 * nothing once the cancellation is consumed.
 *
 * Each round, on each backend, with 1 and 2 workers:
 *   1. the ULT cancels itself, then ito_getpid fails with ECANCELED, then an ito_read of a
 *      pipe that a pthread fills 50 ms later returns the byte;
 *   2. the same with the cancellation made by a pthread while the ULT computes;
 *   3. a cancellation of a ULT parked in ito_read ends that read, and its next read waits
 *      for its byte. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static int p[2];
static ito_thread_t target;
static _Atomic int phase;

static void *feed_later(void *unused)
{
    (void)unused;
    usleep(50 * 1000);
    CHECK_EQ(write(p[1], "x", 1), 1);
    return NULL;
}

static void *cancel_while_computing(void *unused)
{
    (void)unused;
    while (atomic_load(&phase) == 0) usleep(100);
    CHECK_OK(ito_cancel_io(target));
    atomic_store(&phase, 2);
    return NULL;
}

/* After one cancellation is pending: the first call takes it, the second waits for data. */
static void take_then_wait(void)
{
    pthread_t f;
    CHECK_EQ(pthread_create(&f, NULL, feed_later, NULL), 0);
    errno = 0;
    CHECK_EQ(ito_getpid(), -1);
    CHECK_EQ(errno, ECANCELED);
    char c = 0;
    errno = 0;
    ssize_t r = ito_read(p[0], &c, 1);
    if (r != 1) printf("second call: %zd, errno %d\n", r, errno);
    CHECK_EQ(r, 1);
    CHECK_EQ(c, 'x');
    CHECK_EQ(pthread_join(f, NULL), 0);
}

static void *self_cancel(void *unused)
{
    (void)unused;
    CHECK_OK(ito_cancel_io(ito_self()));
    take_then_wait();
    return NULL;
}

static void *foreign_cancel(void *unused)
{
    (void)unused;
    atomic_store(&phase, 1);
    while (atomic_load(&phase) != 2) ito_yield(); /* not in a wrapper */
    take_then_wait();
    return NULL;
}

static void *parked_cancel(void *unused)
{
    (void)unused;
    char c;
    errno = 0;
    CHECK_EQ(ito_read(p[0], &c, 1), -1); /* ended by the cancellation below */
    CHECK_EQ(errno, ECANCELED);
    pthread_t f;
    CHECK_EQ(pthread_create(&f, NULL, feed_later, NULL), 0);
    CHECK_EQ(ito_read(p[0], &c, 1), 1);
    CHECK_EQ(pthread_join(f, NULL), 0);
    return NULL;
}

static void round_on(const char *backend)
{
    (void)backend;
    CHECK_EQ(pipe(p), 0);

    CHECK_OK(ito_create(&target, self_cancel, NULL, NULL));
    CHECK_OK(ito_join(target, NULL));

    atomic_store(&phase, 0);
    pthread_t c;
    CHECK_OK(ito_create(&target, foreign_cancel, NULL, NULL));
    CHECK_EQ(pthread_create(&c, NULL, cancel_while_computing, NULL), 0);
    CHECK_OK(ito_join(target, NULL));
    CHECK_EQ(pthread_join(c, NULL), 0);

    CHECK_OK(ito_create(&target, parked_cancel, NULL, NULL));
    CHECK_OK(ito_sleep_ns(20 * 1000000ull)); /* it parks in its first read */
    CHECK_OK(ito_cancel_io(target));
    CHECK_OK(ito_join(target, NULL));

    close(p[0]);
    close(p[1]);
}

int main(void)
{
    ito_test_each_backend(1, round_on);
    ito_test_each_backend(2, round_on);
    TEST_DONE();
}
