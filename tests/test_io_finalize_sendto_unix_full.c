/* test_io_finalize_sendto_unix_full: ito_finalize while a ULT waits in ito_sendmsg to a
 * unix address (an unconnected unix datagram socket) whose receiver's queue is full and
 * who never reads, on both backends. syscall.h: such a send waits by time (attempts with
 * MSG_DONTWAIT 1, 2, 4 ... 64 ms apart) and "the deadline, ito_cancel_io and finalize end
 * the wait as any": after the grace period finalize cancels it, the ULT gets ECANCELED
 * and finalize returns ITO_OK. On io_uring each attempt was a request whose completion
 * (-EAGAIN, nothing sent) woke the ULT and counted as progress, so the grace period never
 * ran out and finalize waited for ever (7 of 8 runs hung; the sync backend's attempts
 * run in the ULT and were fine). Found by an outside tester, h67b, 2026-12-06. An alarm
 * ends a hung run (the test fails instead of hanging). */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"
#include "ito_test_net.h"

static int rcv, snd;
static struct sockaddr_un to;
static socklen_t to_len;
static atomic_int sent, full, ended, err;

static void *sender(void *a)
{
    (void)a;
    struct iovec iv = {"x", 1};
    struct msghdr m = {.msg_name = &to, .msg_namelen = to_len, .msg_iov = &iv, .msg_iovlen = 1};
    for (;;) {
        /* fill the receiver's queue (max_dgram_qlen): from then on the call waits */
        ssize_t k = sendmsg(snd, &m, MSG_DONTWAIT);
        if (k == 1) { atomic_fetch_add(&sent, 1); continue; }
        CHECK(k < 0 && errno == EAGAIN);
        break;
    }
    atomic_store(&full, 1);
    ssize_t r = ito_sendmsg(snd, &m, 0); /* waits: the receiver never reads */
    atomic_store(&err, r < 0 ? errno : 0);
    atomic_store(&ended, 1);
    return NULL;
}

/* After the round's ito_finalize: the sender was cancelled, and nothing more was sent
 * (no empty datagram either). */
static void check_ended(void)
{
    CHECK_EQ(atomic_load(&ended), 1);
    CHECK_EQ(atomic_load(&err), ECANCELED);
    int hello;
    CHECK_EQ(ito_test_drain_x_hello(rcv, &hello), atomic_load(&sent));
    close(rcv);
    close(snd);
}

static int rounds;

static void round_(const char *backend)
{
    (void)backend;
    if (rounds++) check_ended(); /* the previous backend's round */
    rcv = socket(AF_UNIX, SOCK_DGRAM, 0);
    snd = socket(AF_UNIX, SOCK_DGRAM, 0);
    CHECK(rcv >= 0 && snd >= 0);
    memset(&to, 0, sizeof to);
    to.sun_family = AF_UNIX;
    snprintf(to.sun_path + 1, sizeof to.sun_path - 1, "ito-fin-sendto-%d", (int)getpid()); /* abstract */
    to_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(to.sun_path + 1));
    CHECK_EQ(bind(rcv, (struct sockaddr *)&to, to_len), 0);
    atomic_store(&sent, 0);
    atomic_store(&full, 0);
    atomic_store(&ended, 0);
    atomic_store(&err, 0);
    ito_attr_t a;
    CHECK_OK(ito_attr_init(&a));
    a.flags = ITO_ATTR_DETACHED;
    CHECK_OK(ito_create(NULL, sender, NULL, &a));
    while (!atomic_load(&full)) CHECK_OK(ito_sleep_ns(1000000));
    CHECK_OK(ito_sleep_ns(200000000)); /* it waits: several attempts have been made */
    CHECK_EQ(atomic_load(&ended), 0);
    /* ito_test_each_backend calls ito_finalize now */
}

int main(void)
{
    alarm(15); /* a hung finalize fails the test (SIGALRM) instead of hanging it */
    ito_test_each_backend(2, round_); /* each round ends in ito_finalize */
    check_ended();
    TEST_DONE();
}
