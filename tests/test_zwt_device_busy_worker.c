/* test_zwt_device_busy_worker: device events reach their handler on a worker that is never
 * idle (ULTs always ready): the device poller looks at the devices every 8th scheduler round
 * then (src/zwt/device.c dev_poll). A poller that skipped the devices whenever units were
 * queued never delivered: an eventfd signalled from a yielding ULT was never handled while
 * it yielded, and no test saw it (found by mutation testing, h60e, 2026-12-05). One worker,
 * two ULTs yielding to each other; the handler must run within a second. */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdio.h>

#include "ito/ito.h"
#include "ito_test.h"

static _Atomic uint64_t sum;
static _Atomic int stop;

static void handler(ito_frame_t *f, int e, uint64_t v)
{
    (void)f;
    (void)e;
    atomic_fetch_add(&sum, v);
}

static void *other(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop)) CHECK_OK(ito_yield());
    return NULL;
}

static ito_device_t *dev;

static void *signaller(void *arg)
{
    (void)arg;
    for (uint64_t k = 1; k <= 3; k++) {
        uint64_t before = atomic_load(&sum);
        CHECK_OK(ito_device_signal(dev, k));
        uint64_t t0 = ito_test_now_ns();
        while (atomic_load(&sum) == before && ito_test_now_ns() - t0 < 1000000000ull) CHECK_OK(ito_yield());
        if (atomic_load(&sum) == before) fprintf(stderr, "signal %llu not delivered in 1 s on a busy worker\n", (unsigned long long)k);
        CHECK_EQ(atomic_load(&sum), before + k);
        int rc;
        while ((rc = ito_device_ack(dev)) == ITO_EBUSY) CHECK_OK(ito_yield());
        CHECK(rc == ITO_OK || rc == ITO_ESTATE);
    }
    atomic_store(&stop, 1);
    return NULL;
}

int main(void)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 1}));
    ito_frame_t *fr;
    CHECK_OK(ito_frame_create(&fr, 1, 0));
    CHECK_OK(ito_entry_set(fr, 0, handler, 1, ITO_MODE_USER));
    CHECK_OK(ito_device_eventfd(fr, 0, &dev));
    ito_thread_t a, b;
    CHECK_OK(ito_create(&a, other, NULL, NULL));
    CHECK_OK(ito_create(&b, signaller, NULL, NULL));
    CHECK_OK(ito_join(b, NULL));
    CHECK_OK(ito_join(a, NULL));
    CHECK_EQ(atomic_load(&sum), 6u);
    CHECK_OK(ito_device_close(dev));
    int rc;
    while ((rc = ito_frame_destroy(fr)) == ITO_EBUSY) CHECK_OK(ito_yield());
    CHECK_OK(rc);
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
