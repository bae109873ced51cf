/* test_io_whole_reset_zero: a reset kept from a whole transfer (src/wsc/whole.c
 * keep_error) is not taken by a call of length 0, also a vectored one (src/wsc/wsc.h
 * itoi_wsc_kept_error), both backends, 1 and 2 workers. Found by a reviewer on
 * 2026-12-04: ito_recv(MSG_WAITALL) of 1000 bytes while the peer sends 10 and resets
 * gives 10 and keeps ECONNRESET; readv(2) of 0 bytes then returns 0 and leaves the error
 * for the next receive (the kernel answers an empty read without looking at the
 * socket), but ito_readv of 0 bytes took the kept error (-1 ECONNRESET) and the next
 * receive said 0, end of file. Between them, calls on other numbers (one of the same
 * residue modulo 64) take nothing of it. The sequence is checked against the blocking calls in a
 * pthread's view first: 10, 0, ECONNRESET, 0. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"
#include "ito_test_net.h"

/* Calls on other numbers, one of them a's residue modulo 64 (the wrappers' one-load
 * filter, whole.c kept_mask), take nothing of a's kept error and leave it for a. */
static void other_numbers(int a, int use_ito)
{
    int p[2], same = a + 64;
    char c[2];
    CHECK_EQ(pipe(p), 0);
    CHECK_EQ(fcntl(same, F_GETFD), -1); /* free, so dup2 closes nothing of the test's */
    CHECK_EQ(dup2(p[1], same), same);
    CHECK_EQ(use_ito ? ito_write(same, "y", 1) : write(same, "y", 1), 1);
    CHECK_EQ(use_ito ? ito_write(p[1], "z", 1) : write(p[1], "z", 1), 1);
    CHECK_EQ(use_ito ? ito_read(p[0], c, 2) : read(p[0], c, 2), 2);
    CHECK(c[0] == 'y' && c[1] == 'z');
    close(same);
    close(p[0]);
    close(p[1]);
}

static void sequence(int use_ito, long res[4])
{
    int a, b;
    pthread_t t;
    char buf[1000], z;
    struct iovec iov = {&z, 0};
    ito_test_tcp_pair(&a, &b);
    CHECK_OK(pthread_create(&t, NULL, ito_test_send10_reset, (void *)(intptr_t)b));
    ssize_t r = use_ito ? ito_recv(a, buf, sizeof buf, MSG_WAITALL) : recv(a, buf, sizeof buf, MSG_WAITALL);
    res[0] = r < 0 ? -errno : r;
    r = use_ito ? ito_readv(a, &iov, 1) : readv(a, &iov, 1);
    res[1] = r < 0 ? -errno : r;
    other_numbers(a, use_ito);
    for (int i = 2; i < 4; i++) {
        r = use_ito ? ito_recv(a, buf, sizeof buf, 0) : recv(a, buf, sizeof buf, 0);
        res[i] = r < 0 ? -errno : r;
    }
    CHECK_OK(pthread_join(t, NULL));
    if (use_ito) CHECK_EQ(ito_close(a), 0); else close(a);
}

static long kernel_res[4];

static void round_fn(const char *backend)
{
    (void)backend;
    long res[4];
    sequence(1, res);
    for (int i = 0; i < 4; i++) CHECK_EQ(res[i], kernel_res[i]);
}

int main(void)
{
    sequence(0, kernel_res);
    CHECK_EQ(kernel_res[0], 10);
    CHECK_EQ(kernel_res[1], 0);
    CHECK_EQ(kernel_res[2], -ECONNRESET);
    CHECK_EQ(kernel_res[3], 0);
    for (int workers = 1; workers <= 2; workers++) ito_test_each_backend(workers, round_fn);
    TEST_DONE();
}
