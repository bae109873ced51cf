/* test_io_send_nofile: a send that finds no room waits for it without a descriptor of its
 * own, in a process out of descriptors (RLIMIT_NOFILE), on both backends and both workers.
 * Found by an outside tester (h77a, 2026-12-07): on io_uring such a send waits for POLLOUT
 * in the worker's readiness epoll, which was made at the worker's first wait there; at
 * RLIMIT_NOFILE a 1 MiB ito_send returned a short count (the part that fitted) and an
 * ito_sendmsg -1/EMFILE, which send(2) never says. Each worker's ULT sends 1 MiB with
 * ito_send, then with ito_sendmsg, to a unix stream socket that a foreign thread drains;
 * every byte must arrive. A deadline bounds the sends (a regression fails, never hangs). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

#define WORKERS 2
#define LIMIT 64
#define BIG (1u << 20)

static int sv[WORKERS][2];

static void *drain(void *arg) /* a foreign thread: reads until end of file */
{
    int i = (int)(intptr_t)arg;
    static char b[WORKERS][65536];
    size_t got = 0;
    for (ssize_t n; (n = read(sv[i][0], b[i], sizeof b[i])) > 0;) got += (size_t)n;
    return (void *)got;
}

static void *sender(void *arg) /* worker `arg`'s first sends, with no descriptor left */
{
    int i = (int)(intptr_t)arg;
    char *data = calloc(1, BIG);
    CHECK(data != NULL);
    CHECK_OK(ito_io_deadline(ito_now_ns() + 30 * 1000000000ull));
    errno = 0;
    ssize_t n = ito_send(sv[i][1], data, BIG, 0);
    if (n != (ssize_t)BIG) fprintf(stderr, "worker %d: ito_send %zd, errno %d (%s)\n", i, n, errno, strerror(errno));
    CHECK_EQ(n, BIG);
    struct iovec iov = {data, BIG};
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
    errno = 0;
    n = ito_sendmsg(sv[i][1], &m, 0);
    if (n != (ssize_t)BIG) fprintf(stderr, "worker %d: ito_sendmsg %zd, errno %d (%s)\n", i, n, errno, strerror(errno));
    CHECK_EQ(n, BIG);
    CHECK_OK(ito_io_deadline(ITO_FOREVER));
    CHECK_EQ(shutdown(sv[i][1], SHUT_WR), 0);
    free(data);
    return NULL;
}

static void round_out_of_fds(const char *backend)
{
    (void)backend;
    pthread_t rd[WORKERS];
    for (int i = 0; i < WORKERS; i++) {
        CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv[i]), 0);
        CHECK_EQ(pthread_create(&rd[i], NULL, drain, (void *)(intptr_t)i), 0);
    }
    ito_test_each_worker_at_fd_limit(WORKERS, LIMIT, sender);
    for (int i = 0; i < WORKERS; i++) {
        void *got;
        CHECK_EQ(pthread_join(rd[i], &got), 0);
        CHECK_EQ((size_t)got, 2 * (size_t)BIG);
        close(sv[i][0]);
        close(sv[i][1]);
    }
}

int main(void)
{
    ito_test_each_backend(WORKERS, round_out_of_fds);
    TEST_DONE();
}
