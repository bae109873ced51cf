/* test_zwt_device_busy_fin: ito_finalize with the busy device poll mode and an open
 * device that nothing signals, while a ULT waits on the device's entry, ends with
 * ITO_EBUSY (the ULT is blocked on an ito object with nothing that will fire it), and
 * succeeds once the device is signalled and the ULT has run to its end.
 *
 * Before: busy polling raised the workers' shared-work count, which finalize took for
 * work that progresses by itself: it waited for ever. */
#define _GNU_SOURCE
#include <stdlib.h>

#include "ito/ito.h"
#include "ito_test.h"

static ito_frame_t *f;

static void *waiter(void *arg)
{
    (void)arg;
    CHECK_OK(ito_frame_wait(f, 0));
    return NULL;
}

int main(void)
{
    setenv("ITO_FINALIZE_GRACE_MS", "100", 1);
    CHECK_OK(ito_init(NULL));
    CHECK_EQ(ito_device_poll_mode(ITO_DEVICE_BUSY), ITO_DEVICE_SLEEP);
    CHECK_OK(ito_frame_create(&f, 1, 0));
    CHECK_OK(ito_entry_set(f, 0, NULL, 1, ITO_MODE_USER));
    ito_device_t *dev;
    CHECK_OK(ito_device_eventfd(f, 0, &dev));
    ito_thread_t t;
    CHECK_OK(ito_create(&t, waiter, NULL, &(ito_attr_t){.stack_size = 0, .worker = -1, .flags = ITO_ATTR_DETACHED}));
    for (int i = 0; i < 10; i++) ito_yield(); /* the waiter is parked */
    CHECK_EQ(ito_finalize(), ITO_EBUSY); /* the old library: never returned */
    CHECK_OK(ito_device_signal(dev, 1)); /* the runtime is still up: wake the waiter */
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
