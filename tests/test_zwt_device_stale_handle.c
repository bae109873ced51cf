/* test_zwt_device_stale_handle: a device handle kept after ito_device_close is refused
 * (ITO_EINVAL, "a closed device", zwt.h) also once a new device took its slot, in this
 * runtime and in a later one (ito_finalize with the device open, ito_init again), and
 * never acts on the new device (closes it, signals it, re-arms its timer, acks it).
 * Found by an outside tester, h65a, 2026-12-06: a device handle was the slot's address
 * alone, so ito_device_close(stale) closed the device opened next in the slot (LIFO
 * free list: the very next open), ito_device_signal(stale) signalled it, and so on. */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static void same_runtime(void)
{
    ito_frame_t *f;
    CHECK_OK(ito_frame_create(&f, 2, 0));
    CHECK_OK(ito_entry_set(f, 0, NULL, 1, ITO_MODE_USER));
    CHECK_OK(ito_entry_set(f, 1, NULL, 1, ITO_MODE_USER));

    ito_device_t *d1, *d2;
    CHECK_OK(ito_device_eventfd(f, 0, &d1));
    CHECK_OK(ito_device_close(d1));
    CHECK_EQ(ito_device_close(d1), ITO_EINVAL); /* double close */
    /* the next open takes the freed slot (or not: the promises are the same) */
    CHECK_OK(ito_device_eventfd(f, 1, &d2));
    int fd2 = ito_device_fd(d2);
    CHECK(fd2 >= 0);
    uint64_t x;
    CHECK_EQ(ito_device_fd(d1), ITO_EINVAL);
    CHECK_EQ(ito_device_stats(d1, &x, NULL), ITO_EINVAL);
    CHECK_EQ(ito_device_signal(d1, 5), ITO_EINVAL);
    CHECK_EQ(ito_device_ack(d1), ITO_EINVAL);
    CHECK_EQ(ito_device_timer_set(d1, 1000, 0), ITO_EINVAL);
    CHECK_EQ(ito_device_close(d1), ITO_EINVAL);
    /* d2 is untouched: open, same fd, nothing delivered, and it still works */
    CHECK_EQ(ito_device_fd(d2), fd2);
    uint64_t del = 9;
    CHECK_OK(ito_device_stats(d2, &del, NULL));
    CHECK_EQ(del, 0);
    CHECK_EQ(ito_frame_wait_until(f, 1, ito_deadline_in(20000000)), ITO_ETIMEDOUT);
    CHECK_OK(ito_device_signal(d2, 3));
    CHECK_OK(ito_frame_wait(f, 1));
    CHECK_OK(ito_device_stats(d2, &del, NULL));
    CHECK_EQ(del, 1);
    CHECK_OK(ito_device_close(d2));

    /* a timer in the slot: a stale handle re-arms nothing */
    ito_device_t *d3, *d4;
    CHECK_OK(ito_device_timer(0, f, 0, &d3));
    CHECK_OK(ito_device_close(d3));
    CHECK_OK(ito_device_timer(0, f, 0, &d4));
    CHECK_EQ(ito_device_timer_set(d3, 1000, 0), ITO_EINVAL);
    CHECK_EQ(ito_device_timer_set(d2, 1000, 0), ITO_EINVAL);
    CHECK_EQ(ito_frame_wait_until(f, 0, ito_deadline_in(20000000)), ITO_ETIMEDOUT);
    CHECK_OK(ito_device_close(d4));
    CHECK_OK(ito_frame_destroy(f));
}

int main(void)
{
    CHECK_OK(ito_init(NULL));
    same_runtime();

    /* across runtimes: handles of devices left open at ito_finalize (it closes them) */
    enum { R = 4 };
    ito_device_t *old[R];
    for (int r = 0; r < R; r++) {
        if (r) CHECK_OK(ito_init(NULL));
        ito_frame_t *f;
        CHECK_OK(ito_frame_create(&f, 1, 0));
        CHECK_OK(ito_entry_set(f, 0, NULL, 1, ITO_MODE_USER));
        CHECK_OK(ito_device_eventfd(f, 0, &old[r]));
        for (int k = 0; k < r; k++) { /* earlier runtimes' handles: closed devices */
            CHECK_EQ(ito_device_signal(old[k], 1), ITO_EINVAL);
            CHECK_EQ(ito_device_close(old[k]), ITO_EINVAL);
        }
        CHECK(ito_device_fd(old[r]) >= 0);
        CHECK_EQ(ito_frame_wait_until(f, 0, ito_deadline_in(10000000)), ITO_ETIMEDOUT);
        CHECK_OK(ito_finalize());
    }
    TEST_DONE();
}
