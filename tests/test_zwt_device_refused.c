/* test_zwt_device_refused: a device event whose continuation the handler entry refuses
 * (src/zwt/device.c dev_poll). The poller reads an eventfd's count (or a timer's
 * expirations) before it continues the handler; a refused continuation (here: the handler
 * is already queued by another continuation) dropped what it had read, so an eventfd
 * signalled 5 and then 7 delivered 7 (found by an outside tester, 2026-12-05; zwt.h:
 * "events ... are not lost"). Now the count goes back into the eventfd and is delivered
 * after the ack: the handler receives 12 in all, over one or two deliveries. */
#define _GNU_SOURCE
#include <stdatomic.h>

#include "ito/ito.h"
#include "ito_test.h"

static _Atomic uint64_t sum;
static atomic_int runs;

static void handler(ito_frame_t *f, int e, uint64_t v)
{
    (void)f;
    (void)e;
    atomic_fetch_add(&sum, v);
    atomic_fetch_add(&runs, 1);
}

int main(void)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 1}));
    ito_frame_t *fr;
    ito_device_t *d;
    CHECK_OK(ito_frame_create(&fr, 1, 0));
    CHECK_OK(ito_entry_set(fr, 0, handler, 1, ITO_MODE_USER));
    CHECK_OK(ito_device_eventfd(fr, 0, &d));
    CHECK_OK(ito_continue_value(fr, 0, 0)); /* queued by someone else: the device's is refused */
    CHECK_OK(ito_device_signal(d, 5));
    uint64_t delivered = 0, refused = 0;
    for (int i = 0; i < 2000 && (atomic_load(&runs) < 1 || refused == 0); i++) {
        CHECK_OK(ito_sleep_ns(1000 * 1000));
        CHECK_OK(ito_device_stats(d, &delivered, &refused));
    }
    CHECK_EQ(refused, 1);
    CHECK_EQ(atomic_load(&sum), 0);
    CHECK_OK(ito_device_ack(d)); /* masked since the refused event: unmask */
    CHECK_OK(ito_device_signal(d, 7));
    for (int i = 0; i < 2000 && atomic_load(&sum) < 12; i++) {
        CHECK_OK(ito_sleep_ns(1000 * 1000));
        int rc = ito_device_ack(d);
        CHECK(rc == ITO_OK || rc == ITO_ESTATE);
    }
    CHECK_EQ(atomic_load(&sum), 12);
    CHECK_OK(ito_device_close(d));
    int rc;
    while ((rc = ito_frame_destroy(fr)) == ITO_EBUSY) CHECK_OK(ito_yield());
    CHECK_OK(rc);
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
