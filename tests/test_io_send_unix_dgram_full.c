/* test_io_send_unix_dgram_full: ito_send and ito_sendmsg on a unix datagram socket
 * connected (one way, as a syslog client to /dev/log) to a receiver whose queue is full,
 * on both backends. As send(2) on a blocking socket, the call waits until the receiver
 * reads, then sends the datagram whole and returns its length; the receiver gets exactly
 * it. On io_uring the call returned 0 and the receiver got an EMPTY datagram instead
 * (Linux 6.18's io_uring retries the send after the poll wake-up with the data already
 * consumed; a plain liburing program shows it). ito_cancel_io ends the wait with
 * ECANCELED, and ito_close of the number with EBADF, nothing sent.
 * Found by an outside tester, h65d, 2026-12-06 (fixed: a send on io_uring is one attempt
 * with MSG_DONTWAIT; without room it waits for POLLOUT and sends as the sync backend). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"
#include "ito_test_net.h"

#define MS 1000000ull

static int snd, use_msg;
static long res;
static int err;

static void *sender(void *a)
{
    (void)a;
    struct iovec iv = {"hello", 5};
    struct msghdr m = {.msg_iov = &iv, .msg_iovlen = 1};
    res = use_msg ? ito_sendmsg(snd, &m, 0) : ito_send(snd, "hello", 5, 0);
    err = errno;
    return NULL;
}

static void *body(void *a)
{
    (void)a;
    const char *backend = getenv("ITO_WSC_BACKEND");
    for (int round = 0; round < 4; round++) {
        use_msg = round & 1;
        int rcv = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        CHECK(rcv >= 0);
        struct sockaddr_un to = {.sun_family = AF_UNIX};
        int len = snprintf(to.sun_path + 1, sizeof to.sun_path - 1, "ito-dgram-full-%d-%s-%d", (int)getpid(), backend, round);
        socklen_t to_len = (socklen_t)(sizeof(sa_family_t) + 1 + (size_t)len);
        CHECK_EQ(bind(rcv, (struct sockaddr *)&to, to_len), 0);
        snd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        CHECK(snd >= 0);
        CHECK_EQ(connect(snd, (struct sockaddr *)&to, to_len), 0);
        int queued = 0;
        while (send(snd, "x", 1, MSG_DONTWAIT) == 1) queued++;
        CHECK(queued > 0);
        ito_thread_t t;
        res = -12345;
        CHECK_OK(ito_create(&t, sender, NULL, NULL));
        CHECK_OK(ito_sleep_ns(100 * MS));
        CHECK_EQ(res, -12345); /* waits: the queue is full */
        char b[16];
        if (round < 2) {
            CHECK_EQ(recv(rcv, b, sizeof b, 0), 1); /* room for one */
            CHECK_OK(ito_join(t, NULL));
            CHECK_EQ(res, 5);
        } else {
            if (round == 2) CHECK_OK(ito_cancel_io(t));
            else CHECK_EQ(ito_close(snd), 0);
            CHECK_OK(ito_join(t, NULL));
            CHECK_EQ(res, -1);
            CHECK_EQ(err, round == 2 ? ECANCELED : EBADF);
        }
        int hello, n = ito_test_drain_x_hello(rcv, &hello);
        CHECK_EQ(hello, round < 2 ? 1 : 0);
        CHECK_EQ(n, round < 2 ? queued : queued);
        if (round != 3) close(snd);
        close(rcv);
    }
    return NULL;
}

int main(void)
{
    ito_test_each_backend_ult(0, body);
    TEST_DONE();
}
