/* test_io_reused_waiter: a wait on a descriptor number that another ULT still waits on
 * under its old file (src/wsc/ready.c itoi_ready_wait), both backends. ULT A waits in
 * ito_read on pipe P at number N; N is taken by pipe Q with dup2 (which closes P under A,
 * as close(2) and a reuse would); ULT B calls ito_read(N), a new call that reads what N
 * names now (syscall.h), and a byte is written to Q. Found by a reviewer on 2026-12-04
 * (sync backend): only a number's first waiter re-armed the worker's epoll, B found A's
 * stale record, skipped it, and never woke although Q held a byte. Finalize then cancels
 * A (ITO_FINALIZE_GRACE_MS=0). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static int N;
static _Atomic long b_res;

static void *reader_a(void *arg)
{
    (void)arg;
    char c;
    (void)ito_read(N, &c, 1); /* its file is closed under it: cancelled at finalize */
    return NULL;
}

static void *reader_b(void *arg)
{
    (void)arg;
    char c = 0;
    long r = ito_read(N, &c, 1);
    atomic_store(&b_res, r == 1 && c == 'x' ? 1 : -2);
    return NULL;
}

static void round_fn(const char *backend)
{
    (void)backend;
    int p[2], q[2];
    CHECK_EQ(pipe(p), 0);
    N = p[0];
    atomic_store(&b_res, -100);
    ito_thread_t a, b;
    CHECK_OK(ito_create(&a, reader_a, NULL, NULL));
    CHECK_OK(ito_detach(a));
    CHECK_OK(ito_sleep_ns(20 * 1000 * 1000)); /* A waits */
    CHECK_EQ(pipe(q), 0);
    CHECK_EQ(dup2(q[0], N), N);
    CHECK_EQ(close(q[0]), 0);
    CHECK_OK(ito_create(&b, reader_b, NULL, NULL));
    CHECK_OK(ito_sleep_ns(20 * 1000 * 1000)); /* B waits */
    CHECK_EQ(write(q[1], "x", 1), 1);
    for (int i = 0; i < 1000 && atomic_load(&b_res) == -100; i++) CHECK_OK(ito_sleep_ns(10 * 1000 * 1000));
    CHECK_EQ(atomic_load(&b_res), 1); /* within 10 s: it woke with the byte */
    CHECK_OK(ito_join(b, NULL));
    close(q[1]);
    close(p[1]);
}

int main(void)
{
    CHECK_OK(setenv("ITO_FINALIZE_GRACE_MS", "0", 1));
    for (int workers = 1; workers <= 2; workers++) ito_test_each_backend(workers, round_fn);
    TEST_DONE();
}
