/* test_io_whole_reset: a connection reset that ends a whole transfer after a part moved
 * comes back on the next call, as with recv(2)/send(2) on a blocking socket (src/wsc/
 * whole.c keep_error), both backends, 1 and 2 workers. Found on 2026-12-04 by a server
 * tester: the part that failed read the socket's pending error, which the kernel reports
 * once, and the wrapper dropped it with the count so far:
 *  1. ito_recv(MSG_WAITALL) of 1000 bytes while the peer sends 10 and resets: POSIX gives
 *     10, then -1 ECONNRESET, then 0; ito gave 10, 0, 0 (a reset looked like an orderly
 *     end of file; io_uring's own retry of MSG_WAITALL dropped the error in the kernel);
 *  2. ito_send of 16 MiB while the peer reads 100 kB and resets: POSIX gives a partial
 *     count, ECONNRESET, then EPIPE; ito gave the count, then EPIPE twice.
 * Found by a reviewer of the fix:
 *  3. the kept reset came back before data still queued: the peer sends 13 bytes, reads
 *     100 kB of our 16 MiB ito_send and resets; recv(2) gives the 13 bytes, then
 *     ECONNRESET, then 0; ito gave ECONNRESET first (a server never saw the last reply);
 *  4. the error was dropped when another number sharing the descriptor's close-generation
 *     slot (fd + 4096, a dup) was closed with ito_close: the next receive said 0.
 * Each sequence is checked against the blocking calls in a pthread, and against the
 * expected results themselves. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"
#include "ito_test_net.h"

#define BIG (16u << 20)

static void *read_reset(void *p)
{
    int fd = (int)(intptr_t)p;
    char b[4096];
    long n = 0;
    while (n < 100000) {
        ssize_t r = recv(fd, b, sizeof b, 0);
        if (r <= 0) break;
        n += r;
    }
    usleep(20000);
    ito_test_reset(fd);
    return NULL;
}

static char big[BIG];

static void *reply_read_reset(void *p)
{
    int fd = (int)(intptr_t)p;
    CHECK_EQ(send(fd, "413 too large", 13, 0), 13);
    return read_reset(p);
}

/* The three results of each sequence: a count (>0 as 1 for a partial send) or -errno;
 * reply_res: part 3 (send, then three receives); dup_res: part 4 (a receive after the
 * dup's close, then one more). */
static long reply_res[4], dup_res[2];
static void sequences(int use_ito, long recv_res[3], long send_res[3])
{
    int a, b;
    pthread_t t;
    char buf[1000];
    ito_test_tcp_pair(&a, &b);
    CHECK_OK(pthread_create(&t, NULL, ito_test_send10_reset, (void *)(intptr_t)b));
    for (int i = 0; i < 3; i++) {
        ssize_t r = use_ito ? ito_recv(a, buf, sizeof buf, MSG_WAITALL) : recv(a, buf, sizeof buf, MSG_WAITALL);
        recv_res[i] = r < 0 ? -errno : r;
    }
    CHECK_OK(pthread_join(t, NULL));
    if (use_ito) CHECK_EQ(ito_close(a), 0); else close(a);
    ito_test_tcp_pair(&a, &b);
    CHECK_OK(pthread_create(&t, NULL, read_reset, (void *)(intptr_t)b));
    for (int i = 0; i < 3; i++) {
        ssize_t r = use_ito ? ito_send(a, big, BIG, 0) : send(a, big, BIG, MSG_NOSIGNAL);
        send_res[i] = r < 0 ? -errno : r > 0 && (size_t)r < BIG ? 1 : r;
    }
    CHECK_OK(pthread_join(t, NULL));
    if (use_ito) CHECK_EQ(ito_close(a), 0); else close(a);
    /* part 3 */
    ito_test_tcp_pair(&a, &b);
    CHECK_OK(pthread_create(&t, NULL, reply_read_reset, (void *)(intptr_t)b));
    ssize_t r = use_ito ? ito_send(a, big, BIG, 0) : send(a, big, BIG, MSG_NOSIGNAL);
    reply_res[0] = r < 0 ? -errno : r > 0 && (size_t)r < BIG ? 1 : r;
    CHECK_OK(pthread_join(t, NULL));
    for (int i = 1; i < 4; i++) {
        r = use_ito ? ito_recv(a, buf, sizeof buf, 0) : recv(a, buf, sizeof buf, 0);
        reply_res[i] = r < 0 ? -errno : r;
    }
    if (use_ito) CHECK_EQ(ito_close(a), 0); else close(a);
    /* part 4 */
    ito_test_tcp_pair(&a, &b);
    CHECK_OK(pthread_create(&t, NULL, ito_test_send10_reset, (void *)(intptr_t)b));
    r = use_ito ? ito_recv(a, buf, sizeof buf, MSG_WAITALL) : recv(a, buf, sizeof buf, MSG_WAITALL);
    CHECK_EQ(r, 10);
    CHECK_OK(pthread_join(t, NULL));
    int d = dup2(a, a + 4096);
    CHECK_EQ(d, a + 4096);
    if (use_ito) CHECK_EQ(ito_close(d), 0); else close(d);
    for (int i = 0; i < 2; i++) {
        r = use_ito ? ito_recv(a, buf, sizeof buf, 0) : recv(a, buf, sizeof buf, 0);
        dup_res[i] = r < 0 ? -errno : r;
    }
    if (use_ito) CHECK_EQ(ito_close(a), 0); else close(a);
}

static long posix_recv[3], posix_send[3], posix_reply[4], posix_dup[2];
static void *posix(void *arg)
{
    (void)arg;
    sequences(0, posix_recv, posix_send);
    memcpy(posix_reply, reply_res, sizeof reply_res);
    memcpy(posix_dup, dup_res, sizeof dup_res);
    return NULL;
}

static void *body(void *arg)
{
    (void)arg;
    long r[3], s[3];
    sequences(1, r, s);
    for (int i = 0; i < 3; i++) {
        CHECK_EQ(r[i], posix_recv[i]);
        CHECK_EQ(s[i], posix_send[i]);
    }
    for (int i = 0; i < 4; i++) CHECK_EQ(reply_res[i], posix_reply[i]);
    for (int i = 0; i < 2; i++) CHECK_EQ(dup_res[i], posix_dup[i]);
    return NULL;
}

int main(void)
{
    pthread_t t;
    CHECK_OK(pthread_create(&t, NULL, posix, NULL));
    CHECK_OK(pthread_join(t, NULL));
    /* what the kernel does, so that the comparison means something */
    CHECK(posix_recv[0] == 10 && posix_recv[1] == -ECONNRESET && posix_recv[2] == 0);
    CHECK(posix_send[0] == 1 && posix_send[1] == -ECONNRESET && posix_send[2] == -EPIPE);
    CHECK(posix_reply[0] == 1 && posix_reply[1] == 13 && posix_reply[2] == -ECONNRESET && posix_reply[3] == 0);
    CHECK(posix_dup[0] == -ECONNRESET && posix_dup[1] == 0);
    for (int workers = 1; workers <= 2; workers++) ito_test_each_backend_ult(workers, body);
    TEST_DONE();
}
