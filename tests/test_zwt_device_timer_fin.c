/* test_zwt_device_timer_fin: an armed one-shot timer device is live work for ito_finalize:
 * its handler runs before finalize returns (include/ito/thread.h; src/zwt/device.c
 * dev_holds). Found on 2026-12-04 by a finalize tester: finalize returned as soon as no
 * ULT, ZWT or request was live, and a one-shot timer device armed for 300 ms never
 * delivered (its handler ran only when a ULT happened to stay live that long). Here:
 *  1. a one-shot timer device (100 ms) is the only work: finalize returns ITO_OK and the
 *     handler has run once;
 *  2. the same with a periodic timer device open too: a periodic one never ends, so it
 *     is not waited for (finalize returns; the one-shot still delivered);
 *  3. a disarmed timer device and an idle eventfd device: nothing to wait for.
 * With 1 and 2 workers. */
#define _GNU_SOURCE
#include <stdatomic.h>

#include "ito/ito.h"
#include "ito_test.h"

static _Atomic int fired[3];

static void handler(ito_frame_t *f, int entry, uint64_t v)
{
    (void)f;
    (void)v;
    atomic_fetch_add(&fired[entry], 1);
}

static void run(int workers, int part)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = workers}));
    for (int i = 0; i < 3; i++) atomic_store(&fired[i], 0);
    ito_frame_t *f;
    CHECK_OK(ito_frame_create(&f, 3, 0));
    for (int i = 0; i < 3; i++) CHECK_OK(ito_entry_set(f, i, handler, 1, ITO_MODE_USER));
    ito_device_t *once, *periodic, *ev;
    if (part <= 2) {
        CHECK_OK(ito_device_timer(0, f, 0, &once));
        CHECK_OK(ito_device_timer_set(once, 100 * 1000 * 1000, 0));
    }
    if (part == 2) CHECK_OK(ito_device_timer(50 * 1000 * 1000, f, 1, &periodic));
    if (part == 3) {
        CHECK_OK(ito_device_timer(0, f, 0, &once)); /* disarmed */
        CHECK_OK(ito_device_eventfd(f, 2, &ev));
    }
    CHECK_OK(ito_finalize());
    CHECK_EQ(atomic_load(&fired[0]), part <= 2 ? 1 : 0);
    CHECK_EQ(atomic_load(&fired[2]), 0);
}

int main(void)
{
    for (int workers = 1; workers <= 2; workers++)
        for (int part = 1; part <= 3; part++) run(workers, part);
    TEST_DONE();
}
