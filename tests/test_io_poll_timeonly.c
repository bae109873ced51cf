/* test_io_poll_timeonly: an ito_poll with no descriptor to wait on (nfds 0, or every fd
 * negative, as poll(2) allows to disable entries) and a timeout waits for the time only,
 * and ends as every wrapper wait ends (syscall.h): at its timeout (0), at ito_cancel_io
 * (-1/ECANCELED) and at finalize, which does not wait for a poll's timeout: after the grace
 * period the ULT wakes with ECANCELED and runs to its end. Both backends. Found by an
 * adversarial test (2026-12-03): the wait was a plain sleep, so ito_cancel_io was kept for
 * the ULT's next call and finalize waited the whole timeout (30 s). No time is asserted:
 * with the old sleep the calls below return 0 (their timeout) instead of ECANCELED. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "ito/ito.h"
#include "ito_test.h"

static _Atomic int parked, fin_result = 99, fin_errno;

static void *poll_disabled(void *arg)
{
    (void)arg;
    struct pollfd f[2] = {{.fd = -1, .events = POLLIN}, {.fd = -7, .events = POLLOUT}};
    atomic_fetch_add(&parked, 1);
    errno = 0;
    int r = ito_poll(f, 2, 60000);
    return (void *)(intptr_t)(r < 0 ? -errno : r);
}

static void *poll_none_detached(void *arg)
{
    (void)arg;
    atomic_fetch_add(&parked, 1);
    errno = 0;
    int r = ito_poll(NULL, 0, 60000);
    atomic_store(&fin_errno, errno);
    atomic_store(&fin_result, r);
    return NULL;
}

static void round_on(const char *backend)
{
    (void)backend;
    struct pollfd neg = {.fd = -1, .events = POLLIN};
    CHECK_EQ(ito_poll(&neg, 1, 5), 0);   /* the timeout */
    CHECK_EQ(ito_poll(NULL, 0, 5), 0);
    CHECK_EQ(ito_poll(&neg, 1, 0), 0);   /* a look */
    CHECK_EQ(ito_poll(&neg, 1, -1), -1); /* for ever, with nothing to end it */
    CHECK_EQ(errno, EINVAL);
    /* ito_cancel_io ends it at once */
    for (int w = 0; w < 2; w++) {
        ito_attr_t at;
        ito_attr_init(&at);
        at.worker = w;
        atomic_store(&parked, 0);
        ito_thread_t t;
        CHECK_OK(ito_create(&t, poll_disabled, NULL, &at));
        while (!atomic_load(&parked)) CHECK_OK(ito_sleep_ns(1000000));
        CHECK_OK(ito_sleep_ns(2000000));
        CHECK_OK(ito_cancel_io(t));
        void *rv;
        CHECK_OK(ito_join(t, &rv));
        CHECK_EQ((intptr_t)rv, -ECANCELED);
    }
    /* finalize (its grace shortened) cancels it: the ULT ends before ito_finalize returns */
    atomic_store(&parked, 0);
    atomic_store(&fin_result, 99);
    ito_thread_t t;
    CHECK_OK(ito_create(&t, poll_none_detached, NULL, NULL));
    CHECK_OK(ito_detach(t));
    while (!atomic_load(&parked)) CHECK_OK(ito_sleep_ns(1000000));
}

int main(void)
{
    setenv("ITO_FINALIZE_GRACE_MS", "100", 1);
    for (int b = 0; b < ITO_TEST_NBACKENDS; b++) {
        setenv("ITO_WSC_BACKEND", ito_test_backends[b], 1);
        CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
        round_on(ito_test_backends[b]);
        CHECK_OK(ito_finalize()); /* cancels the detached poll after the grace period */
        CHECK_EQ(atomic_load(&fin_result), -1);
        CHECK_EQ(atomic_load(&fin_errno), ECANCELED);
    }
    TEST_DONE();
}
