/* test_io_errno_success: a wrapper that succeeds leaves errno as the caller set it, as
 * read(2), write(2), send(2), recv(2) and poll(2) do (src/wsc/wrappers.c; thread.h: errno
 * belongs to the ULT). Found by an outside tester, h65f, 2026-12-06: on the sync backend
 * a successful ito_write to a pipe, or ito_send on a unix stream socket, that had to wait
 * for room returned the whole count with errno 2 (ENOENT: the epoll re-arm's MOD before
 * its ADD) or 11 (EAGAIN: the non-blocking attempt), both in the ULT's own context; 31 of
 * 40 pipe writes and 8 of 40 sends of 50000 bytes each. io_uring was not affected.
 * Here: on both backends, a writer ULT sends 40 chunks of 50000 bytes through a pipe and
 * a unix stream socketpair to a reader ULT (which also waits in ito_poll first), each
 * call preceded by errno = 4242; every successful call must leave errno at 4242. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

#define CHUNK 50000
#define CHUNKS 40

static int fds[2];
static int sock;
static int bad_w, bad_r;
static char wbuf[CHUNK], rbuf[CHUNK];

static void *reader(void *arg)
{
    (void)arg;
    long got = 0;
    while (got < (long)CHUNK * CHUNKS) {
        struct pollfd p = {.fd = sock ? fds[1] : fds[0], .events = POLLIN};
        errno = 4242;
        CHECK_EQ(ito_poll(&p, 1, -1), 1);
        if (errno != 4242) bad_r++;
        errno = 4242;
        ssize_t r = sock ? ito_recv(fds[1], rbuf, sizeof rbuf, 0) : ito_read(fds[0], rbuf, sizeof rbuf);
        CHECK(r > 0);
        if (r <= 0) break;
        if (errno != 4242) bad_r++;
        got += r;
    }
    return NULL;
}

static void run(const char *backend, int use_sock)
{
    CHECK_OK(setenv("ITO_WSC_BACKEND", backend, 1));
    CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
    sock = use_sock;
    if (sock) CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
    else CHECK_EQ(pipe(fds), 0);
    bad_w = bad_r = 0;
    ito_thread_t t;
    CHECK_OK(ito_create(&t, reader, NULL, NULL));
    for (int i = 0; i < CHUNKS; i++) {
        errno = 4242;
        ssize_t r = sock ? ito_send(fds[0], wbuf, CHUNK, 0) : ito_write(fds[1], wbuf, CHUNK);
        CHECK_EQ(r, CHUNK);
        if (errno != 4242) bad_w++;
    }
    CHECK_OK(ito_join(t, NULL));
    CHECK_EQ(bad_w, 0);
    CHECK_EQ(bad_r, 0);
    close(fds[0]);
    close(fds[1]);
    CHECK_OK(ito_finalize());
}

int main(void)
{
    run("sync", 0);
    run("sync", 1);
    run("uring", 0);
    run("uring", 1);
    TEST_DONE();
}
