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
 * Found by a reviewer of the fix:
 *  4. a handler that acks and re-arms its one-shot device (5 ms) three times: every firing
 *     happens before finalize returns (finalize took a handler as run before it ran, and
 *     could end while one was re-arming its device: ITO_OK with the device armed and the
 *     handler never run again, 3 of 8 runs with 2 workers); 20 runs.
 *  5. a masked device (delivered, not acked) whose expiry came: nobody will take it, so it
 *     does not hold finalize off ITO_EBUSY while a ULT stays blocked on a mutex main
 *     holds (it hung for ever).
 *  6. the same as 4 with 300 re-arms of 1 ms: finalize took a device whose time had come
 *     but whose expiry the kernel had not yet fired (timer slack: no time left, nothing
 *     to read) for done, and ended with the handler still to run (found by the last
 *     reviewer, about 1 finalize in 20 of an endless re-arming handler).
 * With 1 and 2 workers. */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdlib.h>

#include "ito/ito.h"
#include "ito_test.h"

static _Atomic int fired[3];
static ito_device_t *again; /* parts 4 and 6: the device the handler re-arms */
static int rearms, rearm_ns;
static ito_mutex_t mu;

static void handler(ito_frame_t *f, int entry, uint64_t v)
{
    (void)f;
    (void)v;
    int n = atomic_fetch_add(&fired[entry], 1) + 1;
    if (again && n <= rearms) { /* parts 4 and 6 */
        CHECK_OK(ito_device_ack(again));
        CHECK_OK(ito_device_timer_set(again, (uint64_t)rearm_ns, 0));
    }
}

static void *locker(void *arg)
{
    (void)arg;
    CHECK_OK(ito_mutex_lock(&mu)); /* main holds it: blocked until main's second finalize */
    CHECK_OK(ito_mutex_unlock(&mu));
    return NULL;
}

static void run(int workers, int part)
{
    if (part == 5) CHECK_OK(setenv("ITO_FINALIZE_GRACE_MS", "50", 1));
    CHECK_OK(ito_init(&(ito_config_t){.workers = workers}));
    CHECK_OK(unsetenv("ITO_FINALIZE_GRACE_MS"));
    for (int i = 0; i < 3; i++) atomic_store(&fired[i], 0);
    ito_frame_t *f;
    CHECK_OK(ito_frame_create(&f, 3, 0));
    for (int i = 0; i < 3; i++) CHECK_OK(ito_entry_set(f, i, handler, 1, ITO_MODE_USER));
    ito_device_t *once, *periodic, *ev;
    again = NULL;
    rearms = part == 4 ? 3 : 300;
    rearm_ns = part == 4 ? 5 * 1000 * 1000 : 1000 * 1000;
    if (part <= 2 || part == 4 || part == 6) {
        CHECK_OK(ito_device_timer(0, f, 0, &once));
        if (part >= 4) again = once;
        CHECK_OK(ito_device_timer_set(once, (part == 4 ? 5 : 100) * 1000 * 1000, 0));
    }
    if (part == 2) CHECK_OK(ito_device_timer(50 * 1000 * 1000, f, 1, &periodic));
    if (part == 3) {
        CHECK_OK(ito_device_timer(0, f, 0, &once)); /* disarmed */
        CHECK_OK(ito_device_eventfd(f, 2, &ev));
    }
    if (part == 5) {
        CHECK_OK(ito_device_timer(0, f, 0, &once));
        CHECK_OK(ito_device_timer_set(once, 1000 * 1000, 0));
        while (atomic_load(&fired[0]) == 0) ito_sleep_ns(1000 * 1000); /* delivered: masked */
        CHECK_OK(ito_device_timer_set(once, 1000 * 1000, 0));
        ito_sleep_ns(20 * 1000 * 1000); /* its expiry came, not taken */
        CHECK_OK(ito_mutex_init(&mu));
        CHECK_OK(ito_mutex_lock(&mu));
        ito_thread_t t;
        CHECK_OK(ito_create(&t, locker, NULL, NULL));
        CHECK_OK(ito_detach(t));
        CHECK_EQ(ito_finalize(), ITO_EBUSY);
        CHECK_OK(ito_mutex_unlock(&mu));
    }
    CHECK_OK(ito_finalize());
    CHECK_EQ(atomic_load(&fired[0]), part <= 2 ? 1 : part == 4 ? 4 : part == 5 ? 1 : part == 6 ? 301 : 0);
    CHECK_EQ(atomic_load(&fired[2]), 0);
}

int main(void)
{
    for (int workers = 1; workers <= 2; workers++)
        for (int part = 1; part <= 6; part++)
            for (int k = 0; k < (part == 4 ? 20 : 1); k++) run(workers, part);
    TEST_DONE();
}
