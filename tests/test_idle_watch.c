/* test_idle_watch: an idle worker sleeps where its wake-ups arrive when the set of fds
 * it watches grows under it (regression of 2026-11-26): a device opened while worker 1
 * sleeps on its futex (it watched no fd when it went to sleep) watches the devices' epoll
 * fd on every worker and must move that sleeper into epoll_wait. The old code only wrote
 * worker 1's wake eventfd, which a futex sleeper does not read: worker 1 slept on, and
 * the device's events waited for worker 0 (for ever, if worker 0 stays busy).
 *
 * Worker 0 (main's) blocks in plain nanosleep while the timer device fires: only worker 1
 * can take the event. Each round waits at most 3 s, then fails (never hangs). Rounds after
 * the first find the devices' fd watched already: the event must still reach worker 1. */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "ito/ito.h"
#include "ito_test.h"

static _Atomic int fired;

/* Blocks the calling worker's kernel thread (not a ULT wait) until *flag or 3 s. */
static int wait_plain(_Atomic int *flag)
{
    for (int i = 0; i < 3000 && !atomic_load(flag); i++) ito_test_sleep_us(1000);
    return atomic_load(flag);
}

static void on_timer(ito_frame_t *f, int entry, uint64_t v)
{
    (void)f;
    (void)entry;
    (void)v;
    atomic_store(&fired, 1);
}

static void case_open_while_futex_asleep(void)
{
    ito_frame_t *f;
    ito_device_t *d;
    CHECK_OK(ito_frame_create(&f, 1, 0));
    CHECK_OK(ito_entry_set(f, 0, on_timer, 1, ITO_MODE_USER));
    ito_test_sleep_us(30000); /* worker 1 runs out of work and sleeps (nothing watched: on its futex) */
    atomic_store(&fired, 0);
    CHECK_OK(ito_device_timer(0, f, 0, &d));
    CHECK_OK(ito_device_timer_set(d, 5000000, 0)); /* fires in 5 ms */
    CHECK(wait_plain(&fired));                     /* worker 0 is blocked: worker 1 took it */
    CHECK_OK(ito_device_close(d));
    CHECK_OK(ito_frame_destroy(f));
}

int main(void)
{
    ito_config_t cfg = {.workers = 2};
    CHECK_OK(ito_init(&cfg));
    for (int round = 0; round < 3; round++) {
        case_open_while_futex_asleep();
    }
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
