/* test_io_wait_all_cancel_parked: ito_cancel_io of a ULT parked in ito_sys_wait_all ends
 * the batch's waiting request with -ECANCELED and is consumed by it (syscall.h: "a
 * cancellation is never lost, and consumed once"): the ULT's next wrapper call runs. Both
 * backends. (Found by mutation testing, h60d: with the batch no longer noting that a request
 * ended by the cancellation, the cancellation stayed kept and the next ito_read failed with
 * ECANCELED at once; test_io_wait_all_cancel covers only cancellations made before or after
 * the batch.) */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static int empty[2], full[2];
static _Atomic int parked;

static void *batch(void *unused)
{
    (void)unused;
    char c;
    long res = 0;
    ito_sysreq_t q = {.op = ITO_SYS_READ, .fd = empty[0], .buf = &c, .len = 1, .result = &res};
    atomic_store(&parked, 1);
    if (ito_sys_wait_all(&q, 1) != ITO_OK) return (void *)(intptr_t)-100;
    if (res != -ECANCELED) return (void *)(intptr_t)(-200 + res);
    errno = 0;
    ssize_t n = ito_read(full[0], &c, 1); /* the cancellation is consumed: this runs */
    if (n != 1) return (void *)(intptr_t)(-300 - errno);
    return (void *)(intptr_t)1;
}

static void run(const char *backend)
{
    setenv("ITO_WSC_BACKEND", backend, 1);
    CHECK_OK(ito_init(NULL));
    CHECK_EQ(pipe(empty), 0);
    CHECK_EQ(pipe(full), 0);
    CHECK_EQ(write(full[1], "x", 1), 1);
    atomic_store(&parked, 0);
    ito_thread_t t;
    CHECK_OK(ito_create(&t, batch, NULL, NULL));
    while (!atomic_load(&parked)) CHECK_OK(ito_yield());
    CHECK_OK(ito_sleep_ns(50ull * 1000 * 1000)); /* parked in the batch */
    CHECK_OK(ito_cancel_io(t));
    void *r = NULL;
    CHECK_OK(ito_join(t, &r));
    if ((intptr_t)r != 1) fprintf(stderr, "%s: the ULT returned %ld\n", backend, (long)(intptr_t)r);
    CHECK_EQ((intptr_t)r, 1);
    close(empty[0]);
    close(empty[1]);
    close(full[0]);
    close(full[1]);
    CHECK_OK(ito_finalize());
}

int main(void)
{
    run("uring");
    run("sync");
    TEST_DONE();
}
