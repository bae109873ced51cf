/* test_zwt_device_handle_order: the handle ito_device_timer / ito_device_open_fd stores in
 * *out is ordered before the device's first delivery, also for ThreadSanitizer.
 *
 * The first expiry of a periodic timer device reaches the handler through the kernel
 * (timerfd, epoll), which TSan does not see; the poller takes the device's lock, but the
 * handle was stored after open_dev had released it. A handler that acks its device through
 * the handle the opener stored (the usual pattern) was reported as a data race with
 * open_dev's store on every TSan run (found by an outside tester, h68g, 2026-12-06). Fails
 * only in a TSan tree (ITO_SANITIZE=thread): there, without the fix, every run. */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

#define D 32
static ito_device_t *dv[D];
static _Atomic int runs[D];

static void handler(ito_frame_t *f, int e, uint64_t v)
{
    (void)f;
    CHECK(v >= 1);
    atomic_fetch_add(&runs[e], 1);
    int rc = ito_device_ack(dv[e]); /* the handle the opener stored */
    CHECK(rc == ITO_OK || rc == ITO_EINVAL);
}

int main(void)
{
    CHECK_OK(ito_init(NULL));
    ito_frame_t *f;
    CHECK_OK(ito_frame_create(&f, D, 0));
    for (int i = 0; i < D; i++) {
        CHECK_OK(ito_entry_set(f, i, handler, 1, ITO_MODE_USER));
        CHECK_OK(ito_device_timer(20000, f, i, &dv[i]));
    }
    for (int k = 0; k < 200; k++) {
        int all = 1;
        for (int i = 0; i < D; i++) all &= atomic_load(&runs[i]) >= 3;
        if (all) break;
        CHECK_OK(ito_sleep_ns(1000000));
    }
    for (int i = 0; i < D; i++) CHECK(atomic_load(&runs[i]) >= 1);
    for (int i = 0; i < D; i++) CHECK_OK(ito_device_close(dv[i]));
    int rc, k = 0;
    while ((rc = ito_frame_destroy(f)) == ITO_EBUSY && k++ < 10000) ito_sleep_ns(100000);
    CHECK_OK(rc);
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
