/* test_io_wait_all_cancel: ito_sys_wait_all and a cancellation kept from before the call.
 *
 * Found by a reviewer (2026-12-03): a ULT that cancelled itself and then called
 * ito_sys_wait_all ran the batch (a pipe WRITE really happened), and the batch's
 * unconditional consumption dropped the cancellation: the next ito_read returned data
 * instead of ECANCELED. Now the batch ends at once with every request -ECANCELED and
 * nothing posted, consuming the cancellation once; a batch that completes with no
 * cancellation leaves a later one for the next call. Both backends, 1 and 2 workers.
 *
 * The second reviewer's cases (same day), in the same rounds:
 *   3. an empty batch leaves a kept cancellation for the next call (it consumed it);
 *   4. a batch whose read ends -EBADF by ito_close, cancelled right after the close,
 *      keeps the cancellation for the next call, as a single call does (io_uring: the
 *      batch consumed it although no request ended by it);
 *   5. finalize after a pre-cancelled batch still waits for a ULT parked in ito_read that
 *      a pthread feeds 300 ms later (the batch's never-posted records were counted as
 *      completed, finalize's count of live work went short, and it returned at once:
 *      main_round, after the runtime's own rounds). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static int p[2];

static void *body(void *unused)
{
    (void)unused;
    /* 1. kept cancellation: the batch (a write and a getpid) ends at once, nothing written */
    CHECK_OK(ito_cancel_io(ito_self()));
    long res[2] = {0, 0};
    ito_sysreq_t q[2] = {
        {.op = ITO_SYS_WRITE, .fd = p[1], .buf = "w", .len = 1, .result = &res[0]},
        {.op = ITO_SYS_GETPID, .result = &res[1]},
    };
    CHECK_OK(ito_sys_wait_all(q, 2));
    if (res[0] != -ECANCELED || res[1] != -ECANCELED) printf("batch: %ld %ld\n", res[0], res[1]);
    CHECK_EQ(res[0], -ECANCELED);
    CHECK_EQ(res[1], -ECANCELED);
    /* consumed once: the next call runs (the pipe is empty: the write was not posted) */
    CHECK_EQ(write(p[1], "x", 1), 1);
    char c = 0;
    CHECK_EQ(ito_read(p[0], &c, 1), 1);
    CHECK_EQ(c, 'x');

    /* 2. a batch that completes, then a cancellation: kept for the next call */
    long r = 0;
    ito_sysreq_t g = {.op = ITO_SYS_GETPID, .result = &r};
    CHECK_OK(ito_sys_wait_all(&g, 1));
    CHECK_EQ(r, (long)getpid());
    CHECK_OK(ito_cancel_io(ito_self()));
    CHECK_OK(ito_sys_wait_all(&g, 1));
    CHECK_EQ(r, -ECANCELED);
    CHECK_OK(ito_sys_wait_all(&g, 1)); /* consumed by the one before */
    CHECK_EQ(r, (long)getpid());

    /* 3. an empty batch does not take it */
    CHECK_OK(ito_cancel_io(ito_self()));
    CHECK_OK(ito_sys_wait_all(NULL, 0));
    errno = 0;
    CHECK_EQ(ito_getpid(), -1);
    CHECK_EQ(errno, ECANCELED);
    return NULL;
}

/* 4. */
static int cp[2], data[2];
static ito_thread_t victim;
static _Atomic int cancel_made;

static void *victim_body(void *unused)
{
    (void)unused;
    long r = 0;
    char c;
    ito_sysreq_t q = {.op = ITO_SYS_READ, .fd = cp[0], .buf = &c, .len = 1, .result = &r};
    CHECK_OK(ito_sys_wait_all(&q, 1));
    CHECK_EQ(r, -EBADF); /* the close ended it */
    while (!atomic_load(&cancel_made)) CHECK_OK(ito_yield()); /* (2 workers: we may run first) */
    errno = 0;
    CHECK_EQ(ito_read(data[0], &c, 1), -1); /* the cancellation was kept */
    CHECK_EQ(errno, ECANCELED);
    CHECK_EQ(ito_read(data[0], &c, 1), 1);
    return NULL;
}

static void *closer_body(void *unused)
{
    (void)unused;
    CHECK_OK(ito_sleep_ns(20 * 1000000ull)); /* the victim waits */
    CHECK_EQ(ito_close(cp[0]), 0);
    CHECK_OK(ito_cancel_io(victim));
    atomic_store(&cancel_made, 1);
    return NULL;
}

static void close_then_cancel(void)
{
    CHECK_EQ(pipe(cp), 0);
    CHECK_EQ(pipe(data), 0);
    CHECK_EQ(write(data[1], "d", 1), 1);
    atomic_store(&cancel_made, 0);
    ito_thread_t c;
    CHECK_OK(ito_create(&victim, victim_body, NULL, NULL));
    CHECK_OK(ito_create(&c, closer_body, NULL, NULL));
    CHECK_OK(ito_join(victim, NULL));
    CHECK_OK(ito_join(c, NULL));
    close(cp[1]);
    close(data[0]);
    close(data[1]);
}

/* 5. */
static _Atomic int parked_done;

static void *parked_reader(void *unused)
{
    (void)unused;
    char c = 0;
    CHECK_EQ(ito_read(p[0], &c, 1), 1);
    CHECK_EQ(c, 'z');
    atomic_store(&parked_done, 1);
    return NULL;
}

static void *precancelled_batch(void *unused)
{
    (void)unused;
    CHECK_OK(ito_cancel_io(ito_self()));
    long res[4];
    ito_sysreq_t q[4];
    for (int i = 0; i < 4; i++) q[i] = (ito_sysreq_t){.op = ITO_SYS_GETPID, .result = &res[i]};
    CHECK_OK(ito_sys_wait_all(q, 4));
    for (int i = 0; i < 4; i++) CHECK_EQ(res[i], -ECANCELED);
    return NULL;
}

static void *feed_later(void *unused)
{
    (void)unused;
    usleep(300 * 1000);
    CHECK_EQ(write(p[1], "z", 1), 1);
    return NULL;
}

static void finalize_round(const char *backend, int workers)
{
    setenv("ITO_WSC_BACKEND", backend, 1);
    CHECK_EQ(pipe(p), 0);
    atomic_store(&parked_done, 0);
    CHECK_OK(ito_init(&(ito_config_t){.workers = workers}));
    ito_thread_t a, b;
    CHECK_OK(ito_create(&b, parked_reader, NULL, NULL)); /* detached below: finalize's */
    CHECK_OK(ito_detach(b));
    CHECK_OK(ito_create(&a, precancelled_batch, NULL, NULL));
    CHECK_OK(ito_join(a, NULL));
    CHECK_OK(ito_sleep_ns(20 * 1000000ull)); /* the reader is parked */
    pthread_t f;
    CHECK_EQ(pthread_create(&f, NULL, feed_later, NULL), 0);
    CHECK_OK(ito_finalize());
    if (!atomic_load(&parked_done)) printf("%s, %d workers: finalize returned before the parked read\n", backend, workers);
    CHECK(atomic_load(&parked_done));
    CHECK_EQ(pthread_join(f, NULL), 0);
    close(p[0]);
    close(p[1]);
    unsetenv("ITO_WSC_BACKEND");
}

static void round_on(const char *backend)
{
    (void)backend;
    CHECK_EQ(pipe(p), 0);
    ito_thread_t t;
    CHECK_OK(ito_create(&t, body, NULL, NULL));
    CHECK_OK(ito_join(t, NULL));
    close(p[0]);
    close(p[1]);
    close_then_cancel();
}

int main(void)
{
    ito_test_each_backend(1, round_on);
    ito_test_each_backend(2, round_on);
    for (int b = 0; b < ITO_TEST_NBACKENDS; b++) {
        finalize_round(ito_test_backends[b], 1);
        finalize_round(ito_test_backends[b], 2);
    }
    TEST_DONE();
}
