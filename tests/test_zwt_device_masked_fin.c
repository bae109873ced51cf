/* test_zwt_device_masked_fin: ito_finalize with a ULT blocked for ever on a frame entry
 * and a periodic timer device that is masked (its event delivered, never acked) returns
 * ITO_EBUSY after the grace, as thread.h promises for ULTs that stay blocked on ito
 * objects: a masked device delivers nothing by itself, so it is no progress to wait for.
 * Found by an outside tester, h65a, 2026-12-06 (finalize waited for ever: the device's
 * pending hook counted a masked periodic timer as work that progresses by itself). */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdlib.h>

#include "ito/ito.h"
#include "ito_test.h"

static ito_frame_t *f;

static void *blocked(void *arg)
{
    (void)arg;
    int rc = ito_frame_wait(f, 1); /* nobody fires entry 1 */
    return (void *)(intptr_t)rc;
}

int main(void)
{
    static atomic_int done; /* static: the watchdog may read it after main returns */
    ito_test_watchdog(&done, 20, "ito_finalize with a masked periodic timer device never returned");
    CHECK_OK(ito_init(NULL));
    CHECK_OK(ito_frame_create(&f, 2, 0));
    CHECK_OK(ito_entry_set(f, 0, NULL, 1, ITO_MODE_USER)); /* the device's handler */
    CHECK_OK(ito_entry_set(f, 1, NULL, 1, ITO_MODE_USER));
    ito_device_t *d;
    CHECK_OK(ito_device_timer(1000000, f, 0, &d)); /* every 1 ms */
    CHECK_OK(ito_frame_wait(f, 0));                /* delivered: masked from now on, never acked */
    ito_thread_t t;
    CHECK_OK(ito_create(&t, blocked, NULL, NULL));
    for (int i = 0; i < 20; i++) ito_yield();
    CHECK_EQ(ito_finalize(), ITO_EBUSY);
    CHECK_OK(ito_device_close(d));
    CHECK_OK(ito_continue(f, 1)); /* let the ULT end */
    void *r;
    CHECK_OK(ito_join(t, &r));
    CHECK_EQ((intptr_t)r, ITO_OK);
    CHECK_OK(ito_finalize());
    atomic_store(&done, 1);
    TEST_DONE();
}
