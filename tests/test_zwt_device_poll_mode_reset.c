/* test_zwt_device_poll_mode_reset: each runtime starts in the default device poll mode,
 * ITO_DEVICE_SLEEP (zwt.h), whatever the previous runtime chose. The mode was reset only
 * by the device table's teardown, which runs only once a device was opened (and returned
 * early in later runtimes without one): ito_device_poll_mode(ITO_DEVICE_BUSY) in a runtime
 * that opened no device left the next runtime in busy mode (its first
 * ito_device_poll_mode returned 1, and its idle workers would spin as soon as a device
 * opened). Found by h60b, 2026-12-05. */
#include "ito/ito.h"
#include "ito_test.h"

static void busy_then_finalize(int open_device)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
    CHECK_EQ(ito_device_poll_mode(ITO_DEVICE_BUSY), ITO_DEVICE_SLEEP); /* the default */
    if (open_device) ito_test_device_open_close(NULL);
    CHECK_OK(ito_finalize());
}

int main(void)
{
    busy_then_finalize(0); /* no device in the process yet */
    busy_then_finalize(1); /* a device: the table's teardown is registered */
    busy_then_finalize(0); /* none in this runtime, but teardown registered before */
    CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
    CHECK_EQ(ito_device_poll_mode(ITO_DEVICE_SLEEP), ITO_DEVICE_SLEEP);
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
