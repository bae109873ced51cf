/* test_io_wait_all_cancel: ito_sys_wait_all and a cancellation kept from before the call.
 *
 * Found by a reviewer (2026-12-03): a ULT that cancelled itself and then called
 * ito_sys_wait_all ran the batch (a pipe WRITE really happened), and the batch's
 * unconditional consumption dropped the cancellation: the next ito_read returned data
 * instead of ECANCELED. Now the batch ends at once with every request -ECANCELED and
 * nothing posted, consuming the cancellation once; a batch that completes with no
 * cancellation leaves a later one for the next call. Both backends, 1 and 2 workers. */
#define _GNU_SOURCE
#include <errno.h>
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
    return NULL;
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
}

int main(void)
{
    ito_test_each_backend(1, round_on);
    ito_test_each_backend(2, round_on);
    TEST_DONE();
}
