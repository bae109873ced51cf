/* test_io_cancel_ended: ito_cancel_io of a ULT that has ended is ITO_EJOINED
 * (syscall.h), before its join as after it. Found by an API audit (2026-12-05): a
 * finished ULT not yet joined gave ITO_OK (a cancellation sent to nobody). A live ULT
 * that is not waiting still gets ITO_OK, and its next wrapper call fails with ECANCELED. */
#define _GNU_SOURCE
#include <errno.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static void *quick(void *arg) { return arg; }

static atomic_int go;

static void *later(void *arg)
{
    int *p = arg;
    while (!atomic_load(&go)) CHECK_OK(ito_yield());
    char c;
    errno = 0;
    CHECK_EQ(ito_read(p[0], &c, 1), -1); /* the cancellation kept for it */
    CHECK_EQ(errno, ECANCELED);
    return NULL;
}

int main(void)
{
    for (int backend = 0; backend < 2; backend++) {
        CHECK_OK(setenv("ITO_WSC_BACKEND", backend ? "sync" : "uring", 1));
        /* One worker: quick runs to its end (its state DONE) inside main's yield. */
        int rc = ito_init(&(ito_config_t){.workers = 1});
        if (rc == ITO_ENOSYS && !backend) continue; /* no io_uring here */
        CHECK_OK(rc);

        ito_thread_t t;
        CHECK_OK(ito_create(&t, quick, NULL, NULL));
        for (int i = 0; i < 3; i++) CHECK_OK(ito_yield());
        CHECK_EQ(ito_cancel_io(t), ITO_EJOINED); /* ended, not joined */
        CHECK_OK(ito_join(t, NULL));
        CHECK_EQ(ito_cancel_io(t), ITO_EJOINED); /* joined */

        int p[2];
        CHECK_OK(pipe(p));
        CHECK_OK(ito_create(&t, later, p, NULL));
        CHECK_OK(ito_cancel_io(t)); /* live, not waiting: kept */
        atomic_store(&go, 1);
        CHECK_OK(ito_join(t, NULL));
        atomic_store(&go, 0);
        close(p[0]);
        close(p[1]);
        CHECK_OK(ito_finalize());
    }
    TEST_DONE();
}
