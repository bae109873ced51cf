/* test_io_first_wait_emfile: on the sync backend a worker's readiness epoll is one of the
 * descriptors its first I/O sets up (syscall.h: "EMFILE, ENFILE the worker's first I/O
 * needs descriptors of its own (its io_uring and eventfd, or its epoll)"), not something
 * its first *wait* creates later. Found by an outside tester, h63c, 2026-12-06: a server
 * whose accepts and first receives never had to wait (the data was there) and then ran the
 * process out of descriptors saw a later ito_recv fail with EMFILE, which recv(2) never
 * says: the epoll was created only then. Here one ULT on the sync backend makes a call
 * that needs no wait (ito_send with room), fills the descriptor table, and then waits:
 * ito_recv (deadline 50 ms) must end with ETIMEDOUT and ito_poll with 0, not EMFILE; data
 * written by a foreign thread while the table is full is received. One worker, so the
 * ULT's first call is its worker's first I/O. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static int sv[2];

static void *writer(void *arg)
{
    (void)arg;
    usleep(100000);
    CHECK_EQ(write(sv[0], "late", 4), 4);
    return NULL;
}

static void *body(void *arg)
{
    (void)arg;
    /* The worker's first I/O: needs no wait (the socket has room). */
    CHECK_EQ(ito_send(sv[1], "hi", 2, 0), 2);
    char b[8];
    CHECK_EQ(read(sv[0], b, sizeof b), 2);
    /* Fill the descriptor table. */
    int dups[4096], n = 0;
    for (;;) {
        int d = dup(0);
        if (d < 0) { CHECK_EQ(errno, EMFILE); break; }
        CHECK(n < 4096);
        dups[n++] = d;
    }
    /* Now wait: a receive with a deadline, a poll with a timeout, a receive that data ends. */
    CHECK_OK(ito_io_deadline(ito_deadline_in(50 * 1000000ull)));
    errno = 0;
    ssize_t r = ito_recv(sv[1], b, sizeof b, 0);
    int e = errno;
    CHECK_OK(ito_io_deadline(ITO_FOREVER));
    if (r != -1 || e != ETIMEDOUT) fprintf(stderr, "ito_recv: %zd errno %d (%s)\n", r, e, strerror(e));
    CHECK_EQ(r, -1);
    CHECK_EQ(e, ETIMEDOUT);
    struct pollfd p = {sv[1], POLLIN, 0};
    CHECK_EQ(ito_poll(&p, 1, 30), 0);
    pthread_t t;
    CHECK_EQ(pthread_create(&t, NULL, writer, NULL), 0);
    CHECK_EQ(ito_recv(sv[1], b, sizeof b, 0), 4);
    CHECK(memcmp(b, "late", 4) == 0);
    for (int i = 0; i < n; i++) close(dups[i]);
    CHECK_EQ(pthread_join(t, NULL), 0);
    return NULL;
}

int main(void)
{
    setenv("ITO_WSC_BACKEND", "sync", 1);
    struct rlimit rl;
    CHECK_EQ(getrlimit(RLIMIT_NOFILE, &rl), 0);
    struct rlimit low = {rl.rlim_cur < 256 ? rl.rlim_cur : 256, rl.rlim_max};
    CHECK_EQ(setrlimit(RLIMIT_NOFILE, &low), 0);
    ito_config_t cfg = {.workers = 1};
    CHECK_OK(ito_init(&cfg));
    CHECK_EQ(ito_wsc_backend(), ITO_WSC_SYNC);
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    ito_thread_t t;
    CHECK_OK(ito_create(&t, body, NULL, NULL));
    CHECK_OK(ito_join(t, NULL));
    close(sv[0]);
    close(sv[1]);
    CHECK_OK(ito_finalize());
    CHECK_EQ(setrlimit(RLIMIT_NOFILE, &rl), 0);
    TEST_DONE();
}
