/* test_zwt_after_fini_calls: every ZWT and device call before ito_init and after ito_finalize
 * (handles of the ended runtime) returns its documented code and touches nothing.
 * Outside tester h65a, 2026-12-06. */
#define _GNU_SOURCE
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static void all_refused(ito_frame_t *f, ito_device_t *d)
{
    ito_frame_t *nf = NULL;
    ito_device_t *nd = NULL;
    uint64_t a = 0;
    int e;
    CHECK_EQ(ito_frame_create(&nf, 1, 0), ITO_ESTATE);
    CHECK_EQ(ito_frame_destroy(f), ITO_EINVAL);
    CHECK(ito_frame_data(f) == NULL);
    CHECK_EQ(ito_entry_set(f, 0, NULL, 1, 0), ITO_EINVAL);
    CHECK_EQ(ito_continue(f, 0), ITO_EINVAL);
    CHECK_EQ(ito_continue_value(f, 0, 1), ITO_EINVAL);
    CHECK_EQ(ito_rearm(f, 0, 0), ITO_EINVAL);
    CHECK_EQ(ito_trylock(f, 0), ITO_EINVAL);
    CHECK_EQ(ito_unlock(f, 0), ITO_EINVAL);
    CHECK_EQ(ito_zwt_self(&nf, &e), ITO_EPERM);
    CHECK_EQ(ito_zwt_retry(), ITO_EPERM);
    int rc = ito_frame_wait(f, 0);
    CHECK(rc == ITO_EINVAL || rc == ITO_ENOTULT);
    CHECK_EQ(ito_zwt_stats(&a, NULL), ITO_ESTATE);
    CHECK_EQ(ito_device_open_fd(0, f, 0, &nd), ITO_ESTATE);
    CHECK_EQ(ito_device_timer(0, f, 0, &nd), ITO_ESTATE);
    CHECK_EQ(ito_device_eventfd(f, 0, &nd), ITO_ESTATE);
    CHECK_EQ(ito_device_timer_set(d, 1000, 0), ITO_EINVAL);
    CHECK_EQ(ito_device_signal(d, 1), ITO_EINVAL);
    CHECK_EQ(ito_device_ack(d), ITO_EINVAL);
    CHECK_EQ(ito_device_fd(d), ITO_EINVAL);
    CHECK_EQ(ito_device_stats(d, &a, &a), ITO_EINVAL);
    CHECK_EQ(ito_device_close(d), ITO_EINVAL);
    CHECK_EQ(ito_device_poll_mode(ITO_DEVICE_BUSY), ITO_ESTATE);
    CHECK(nd == NULL);
}

int main(void)
{
    all_refused(NULL, NULL);
    all_refused((ito_frame_t *)(uintptr_t)0x1000, (ito_device_t *)(uintptr_t)0x1000);
    for (int r = 0; r < 3; r++) {
        CHECK_OK(ito_init(NULL));
        ito_frame_t *f;
        ito_device_t *d, *t1;
        CHECK_OK(ito_frame_create(&f, 1, 16));
        CHECK_OK(ito_entry_set(f, 0, NULL, 2, ITO_MODE_USER));
        CHECK_OK(ito_device_eventfd(f, 0, &d));
        CHECK_OK(ito_device_timer(1000000, f, 0, &t1)); /* periodic, left open */
        CHECK_OK(ito_device_signal(d, 1));
        CHECK_OK(ito_finalize());
        all_refused(f, d);
        all_refused(f, t1);
    }
    TEST_DONE();
}
