/* test_io_shutdown_wakes_send: ito_shutdown(fd, SHUT_WR) ends the sends and writes waiting
 * on fd (a peer that never reads: full buffers), on the shutter's worker and another, on
 * both backends: -1/EPIPE or the count moved before, as shutdown(2) ends a send(2) blocked
 * in another thread. A plain shutdown(2) did not on a unix stream socket (its poll reports
 * nothing for its own SHUT_WR): the ULT waited for ever, only its deadline or
 * ito_cancel_io ended it, on both backends (found by outside testers, h65/h69b,
 * 2026-12-06). A receive waiting on the same socket is not ended by SHUT_WR and still gets
 * the peer's byte; errors are shutdown(2)'s. Then ito_shutdown racing with senders that are
 * just starting on both workers: on io_uring a send's attempt that said EAGAIN in the
 * kernel before shutdown(2), and whose wait for room was registered after the shutter's
 * pass of its worker, waited for ever (about half the rounds left a sender waiting, before
 * the wait made an attempt of its own first); and on either backend a send that tried
 * before shutdown(2) but filled its record after the shutter read its worker's counts was
 * skipped by the passes (TSan tree, about 1 run in 10, before every worker was asked). (An ito_write that io_uring itself runs again
 * when shutdown(2) wakes it raises SIGPIPE, as write(2): counted, not refused.) */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"
#include "ito_test_net.h"

#define MS 1000000ull
#define BIG (8u << 20)

static int fd, op;
static long res;
static int err;
static _Atomic int recv_got;
static char *big;

static _Atomic int sigpipes;
static void on_sigpipe(int sig)
{
    (void)sig;
    atomic_fetch_add(&sigpipes, 1);
}

static void *sender(void *a)
{
    (void)a;
    res = op == 0 ? ito_send(fd, big, BIG, 0) : ito_write(fd, big, BIG);
    err = res < 0 ? errno : 0;
    return NULL;
}

static void *receiver(void *a)
{
    (void)a;
    char b;
    atomic_store(&recv_got, (int)ito_recv(fd, &b, 1, 0));
    return NULL;
}

/* The race: NSEND senders (both workers) start sending as the shutter, after a few yields,
 * shuts the socket down; every one must end. */
#define NSEND 8
#define ROUNDS 40
static int rfd;
static _Atomic int rbad;
static void *race_sender(void *a)
{
    (void)a;
    for (int k = 0; k < 100; k++) {
        long r = ito_send(rfd, big, 256u << 10, 0);
        if (r < 0) {
            if (errno != EPIPE) atomic_fetch_add(&rbad, 1);
            break;
        }
        if (r < (256 << 10)) break; /* the count sent before the shutdown */
    }
    return NULL;
}

static void *race_shutter(void *a)
{
    for (intptr_t i = 0; i < (intptr_t)a; i++) CHECK_OK(ito_yield());
    CHECK_EQ(ito_shutdown(rfd, SHUT_WR), 0);
    return NULL;
}

static void race(const char *backend)
{
    for (int r = 0; r < ROUNDS; r++) {
        int sv[2];
        CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
        int small = 4096;
        CHECK_EQ(setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof small), 0);
        rfd = sv[0];
        ito_thread_t t[NSEND], sh;
        for (int i = 0; i < NSEND; i++) ito_test_create_on(&t[i], i & 1, race_sender, NULL);
        ito_test_create_on(&sh, r & 1, race_shutter, (void *)(intptr_t)(r % 7));
        CHECK_OK(ito_join(sh, NULL));
        for (int i = 0; i < NSEND; i++)
            if (ito_join_until(t[i], NULL, ito_deadline_in(5000 * MS)) != ITO_OK) {
                fprintf(stderr, "%s: round %d: sender %d still waiting 5 s after ito_shutdown\n", backend, r, i);
                CHECK_OK(ito_cancel_io(t[i]));
                CHECK_OK(ito_join(t[i], NULL));
                CHECK(0);
            }
        CHECK_EQ(atomic_load(&rbad), 0);
        close(sv[0]);
        close(sv[1]);
    }
}

static void round_(const char *backend)
{
    for (int tcp = 0; tcp < 2; tcp++)
        for (op = 0; op < 2; op++)
            for (int where = 0; where < 2; where++)
                for (int how = SHUT_WR; how <= SHUT_RDWR; how++) {
                    int sv[2];
                    if (tcp) {
                        ito_test_tcp_pair(&sv[0], &sv[1]);
                        int small = 4096; /* the peer never reads: the send fills both buffers */
                        CHECK_EQ(setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof small), 0);
                        CHECK_EQ(setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &small, sizeof small), 0);
                    } else {
                        CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
                    }
                    fd = sv[0];
                    res = -12345;
                    err = 0;
                    atomic_store(&recv_got, -12345);
                    ito_thread_t s, r = NULL;
                    ito_test_create_on(&s, where, sender, NULL); /* main's worker (0) or the other */
                    if (how == SHUT_WR) ito_test_create_on(&r, 1 - where, receiver, NULL);
                    CHECK_OK(ito_sleep_ns(100 * MS)); /* both wait */
                    CHECK_EQ(ito_shutdown(fd, how), 0);
                    if (ito_join_until(s, NULL, ito_deadline_in(5000 * MS)) != ITO_OK) {
                        fprintf(stderr, "%s: %s %s on worker %d: still waiting 5 s after ito_shutdown(%d)\n", backend,
                                tcp ? "tcp" : "unix", op ? "ito_write" : "ito_send", where, how);
                        CHECK_OK(ito_cancel_io(s));
                        CHECK_OK(ito_join(s, NULL));
                        CHECK(0);
                    }
                    CHECK(res == -1 ? err == EPIPE : res > 0 && res < (long)BIG); /* EPIPE, or the count sent */
                    CHECK_EQ(ito_send(fd, "x", 1, 0), -1); /* and the next send is refused at once */
                    CHECK_EQ(errno, EPIPE);
                    if (op == 0) CHECK_EQ(atomic_load(&sigpipes), 0); /* ito_send raises none (a write(2)
                                                                         * may: syscall.h) */
                    if (r) {
                        CHECK_OK(ito_sleep_ns(20 * MS));
                        CHECK_EQ(atomic_load(&recv_got), -12345); /* SHUT_WR: a receive goes on waiting */
                        CHECK_EQ(send(sv[1], "y", 1, 0), 1);
                        CHECK_OK(ito_join(r, NULL));
                        CHECK_EQ(atomic_load(&recv_got), 1);
                    }
                    close(sv[0]);
                    close(sv[1]);
                    atomic_store(&sigpipes, 0);
                }
    /* shutdown(2)'s own errors, nothing else done */
    int pp[2];
    CHECK_EQ(pipe(pp), 0);
    CHECK_EQ(ito_shutdown(pp[1], SHUT_WR), -1);
    CHECK_EQ(errno, ENOTSOCK);
    CHECK_EQ(ito_shutdown(-1, SHUT_WR), -1);
    CHECK_EQ(errno, EBADF);
    int u = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    CHECK_EQ(ito_shutdown(u, SHUT_WR), -1);
    CHECK_EQ(errno, ENOTCONN);
    int sv[2];
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    CHECK_EQ(ito_shutdown(sv[0], 7), -1);
    CHECK_EQ(errno, EINVAL);
    close(pp[0]);
    close(pp[1]);
    close(u);
    close(sv[0]);
    close(sv[1]);
    race(backend);
}

int main(void)
{
    signal(SIGPIPE, on_sigpipe);
    big = calloc(1, BIG);
    CHECK(big != NULL);
    ito_test_each_backend(2, round_);
    free(big);
    TEST_DONE();
}
