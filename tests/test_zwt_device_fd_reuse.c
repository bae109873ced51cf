/* test_zwt_device_fd_reuse: the program closes a watched fd before its device (nothing in
 * zwt.h or syscall.h forbids it; ito_device_close does not close it), the number is reused
 * by a new fd that a second device watches: the first device's ack and close must not act
 * on the second (its events are not lost, nor delivered to the first's handler).
 * Found by an outside tester, h65a, 2026-12-06: ito_device_close(d1) deleted d2's epoll
 * registration by number (d2 never delivered again), ito_device_ack(d1) re-armed it under
 * d1's key (d2's events went to d1's handler). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdatomic.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

int main(void)
{
    CHECK_OK(ito_init(NULL));
    ito_frame_t *f;
    CHECK_OK(ito_frame_create(&f, 2, 0));
    CHECK_OK(ito_entry_set(f, 0, NULL, 1, ITO_MODE_USER)); /* d1's handler */
    CHECK_OK(ito_entry_set(f, 1, NULL, 1, ITO_MODE_USER)); /* d2's handler */
    int p1[2], p2[2];
    CHECK(pipe2(p1, O_NONBLOCK) == 0);
    ito_device_t *d1, *d2;
    CHECK_OK(ito_device_open_fd(p1[0], f, 0, &d1));
    CHECK(write(p1[1], "x", 1) == 1);
    CHECK_OK(ito_frame_wait(f, 0)); /* delivered: d1 masked */
    int num = p1[0];
    close(p1[0]); /* before ito_device_close(d1) */
    close(p1[1]);
    CHECK(pipe2(p2, O_NONBLOCK) == 0);
    CHECK_EQ(p2[0], num); /* the number is reused */
    CHECK_OK(ito_device_open_fd(p2[0], f, 1, &d2));
    CHECK_OK(ito_rearm(f, 0, 0));
    int rc = ito_device_ack(d1); /* its file is gone: refused, d2 untouched */
    CHECK(rc == ITO_EIO);
    CHECK(write(p2[1], "y", 1) == 1);
    CHECK_OK(ito_frame_wait_until(f, 1, ito_deadline_in(2000000000))); /* d2 delivers */
    CHECK_EQ(ito_frame_wait_until(f, 0, ito_deadline_in(20000000)), ITO_ETIMEDOUT); /* not to d1 */
    char b[8];
    CHECK(read(p2[0], b, sizeof b) == 1);
    CHECK_OK(ito_device_ack(d2));
    CHECK_OK(ito_device_close(d1)); /* frees d1, does not stop d2 */
    CHECK_EQ(ito_device_close(d1), ITO_EINVAL);
    CHECK(write(p2[1], "z", 1) == 1);
    CHECK_OK(ito_frame_wait_until(f, 1, ito_deadline_in(2000000000)));
    uint64_t del = 0;
    CHECK_OK(ito_device_stats(d2, &del, NULL));
    CHECK_EQ(del, 2);
    CHECK_OK(ito_device_close(d2));
    close(p2[0]);
    close(p2[1]);

    /* the number taken by an eventfd that ito makes for a new device */
    CHECK_OK(ito_rearm(f, 0, 0));
    CHECK_OK(ito_rearm(f, 1, 0));
    int p3[2];
    ito_device_t *d3, *d4;
    CHECK(pipe2(p3, O_NONBLOCK) == 0);
    CHECK_OK(ito_device_open_fd(p3[0], f, 0, &d3));
    CHECK(write(p3[1], "x", 1) == 1);
    CHECK_OK(ito_frame_wait(f, 0)); /* d3 masked */
    CHECK_OK(ito_rearm(f, 0, 0));
    num = p3[0];
    close(p3[1]);
    close(p3[0]); /* num is the lowest free number again */
    CHECK_OK(ito_device_eventfd(f, 1, &d4));
    CHECK_EQ(ito_device_fd(d4), num);
    CHECK_EQ(ito_device_ack(d3), ITO_EIO); /* not a re-arm of d4's registration under d3's key */
    CHECK_OK(ito_device_signal(d4, 4));
    CHECK_OK(ito_frame_wait_until(f, 1, ito_deadline_in(2000000000)));
    CHECK_EQ(ito_frame_wait_until(f, 0, ito_deadline_in(20000000)), ITO_ETIMEDOUT);
    CHECK_OK(ito_device_close(d3));
    CHECK_OK(ito_device_ack(d4));
    CHECK_OK(ito_device_signal(d4, 1));
    CHECK_OK(ito_frame_wait_until(f, 1, ito_deadline_in(2000000000)));
    CHECK_OK(ito_device_close(d4));
    CHECK_OK(ito_frame_destroy(f));
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
