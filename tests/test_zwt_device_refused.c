/* test_zwt_device_refused: a device event whose continuation the handler entry refuses
 * (src/zwt/device.c dev_poll) is not lost (zwt.h: "events ... are not lost"). Here the
 * handler is already queued by another continuation, so the device's is refused.
 *  - eventfd: the poller read the count before it continued the handler, and a refused
 *    continuation dropped it, so an eventfd signalled 5 and then 7 delivered 7 (found by
 *    an outside tester, 2026-12-05). Now the count goes back into the eventfd and is
 *    delivered after the ack: the handler receives 12 in all, over one or two deliveries.
 *  - timer: a refused one-shot expiry is carried to the next delivery ("each delivery
 *    carries the expirations since the last one"): the timer armed once more, the next
 *    delivery carries both (2). Dropping the carry, or not adding it, passed every test
 *    (found by mutation testing, h60e, 2026-12-05). */
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

/* A device of the kind asked for, on a handler queued already, and its first event
 * fired: back when that event has been refused (and nothing delivered). */
static ito_device_t *refused_once(ito_frame_t **fr, int timer)
{
    ito_device_t *d;
    atomic_store(&sum, 0);
    atomic_store(&runs, 0);
    CHECK_OK(ito_frame_create(fr, 1, 0));
    CHECK_OK(ito_entry_set(*fr, 0, handler, 1, ITO_MODE_USER));
    if (timer) CHECK_OK(ito_device_timer(0, *fr, 0, &d)); /* disarmed */
    else CHECK_OK(ito_device_eventfd(*fr, 0, &d));
    CHECK_OK(ito_continue_value(*fr, 0, 0)); /* queued by someone else: the device's is refused */
    if (timer) CHECK_OK(ito_device_timer_set(d, 1000000, 0));
    else CHECK_OK(ito_device_signal(d, 5));
    uint64_t delivered = 0, refused = 0;
    for (int i = 0; i < 2000 && (atomic_load(&runs) < 1 || refused == 0); i++) {
        CHECK_OK(ito_sleep_ns(1000 * 1000));
        CHECK_OK(ito_device_stats(d, &delivered, &refused));
    }
    CHECK_EQ(refused, 1);
    CHECK_EQ(delivered, 0);
    CHECK_EQ(atomic_load(&sum), 0); /* the continue_value's 0 */
    CHECK_OK(ito_device_ack(d));     /* masked since the refused event: unmask */
    return d;
}

static void close_all(ito_device_t *d, ito_frame_t *fr)
{
    CHECK_OK(ito_device_close(d));
    int rc;
    while ((rc = ito_frame_destroy(fr)) == ITO_EBUSY) CHECK_OK(ito_yield());
    CHECK_OK(rc);
}

static void eventfd_case(void)
{
    ito_frame_t *fr;
    ito_device_t *d = refused_once(&fr, 0);
    CHECK_OK(ito_device_signal(d, 7));
    for (int i = 0; i < 2000 && atomic_load(&sum) < 12; i++) {
        CHECK_OK(ito_sleep_ns(1000 * 1000));
        int rc = ito_device_ack(d);
        CHECK(rc == ITO_OK || rc == ITO_ESTATE);
    }
    CHECK_EQ(atomic_load(&sum), 12);
    close_all(d, fr);
}

static void timer_case(void)
{
    ito_frame_t *fr;
    ito_device_t *d = refused_once(&fr, 1);
    CHECK_OK(ito_device_timer_set(d, 1000000, 0));
    for (int i = 0; i < 2000 && atomic_load(&runs) < 2; i++) CHECK_OK(ito_sleep_ns(1000 * 1000));
    for (int i = 0; i < 20; i++) CHECK_OK(ito_sleep_ns(1000 * 1000)); /* nothing more comes */
    CHECK_EQ(atomic_load(&runs), 2);
    CHECK_EQ(atomic_load(&sum), 2); /* the refused expiry and the second one */
    uint64_t delivered = 0, refused = 0;
    CHECK_OK(ito_device_stats(d, &delivered, &refused));
    CHECK_EQ(delivered, 1);
    CHECK_EQ(refused, 1);
    close_all(d, fr);
}

int main(void)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 1}));
    eventfd_case();
    timer_case();
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
