/* test_io_finalize_reused: finalize's cancel pass and a wait whose number was closed with
 * close(2) and taken by another file (src/wsc/area.c fini_cancel_here, fini_match), 1 and
 * 2 workers. A ULT parks in ito_read on an empty pipe (sync backend: a wait in the
 * worker's epoll) or in ito_recv on a socket (both backends); main puts another file on
 * the number with dup2, which closes the old one, and calls ito_finalize.
 *  - Another pipe, holding a byte (found by a reviewer, 2026-12-04): the cancel pass asked
 *    poll(2) about the number, took the wait for "ready now" and left it, and since the
 *    record stayed live every later pass said it had found work: ito_finalize never
 *    returned. Now the pass delivers what the worker's epoll holds and cancels every wait
 *    left; the new pipe's byte is still there.
 *  - A regular file (found by the next reviewer): the pass asked what the number names
 *    now, a file that "ends by itself", and left the wait. Now a readiness wait, a socket
 *    call and a poll are cancelled whatever the number names. (io_uring's ito_read of a
 *    pipe is a documented limit, syscall.h: the ring holds the old file, and a read may
 *    be a regular file's.)
 * The call ends with ECANCELED (or EBADF) and finalize returns ITO_OK. A watchdog fails
 * the test instead of letting it hang. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static int rd_fd, use_recv;
static _Atomic int started, rd_err;
static _Atomic long rd_res;
static _Atomic int finished_all;

static void *reader(void *arg)
{
    (void)arg;
    char b[8];
    atomic_store(&started, 1);
    long r = use_recv ? ito_recv(rd_fd, b, sizeof b, 0) : ito_read(rd_fd, b, sizeof b);
    atomic_store(&rd_err, r < 0 ? errno : 0);
    atomic_store(&rd_res, r);
    return NULL;
}

enum { BY_PIPE, BY_FILE };

static void run(const char *backend, int workers, int recv, int by)
{
    CHECK_OK(setenv("ITO_WSC_BACKEND", backend, 1));
    CHECK_OK(setenv("ITO_FINALIZE_GRACE_MS", "0", 1));
    CHECK_OK(ito_init(&(ito_config_t){.workers = workers}));
    int p[2], q[2] = {-1, -1};
    if (recv) CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, p), 0);
    else CHECK_EQ(pipe(p), 0);
    rd_fd = p[0];
    use_recv = recv;
    atomic_store(&started, 0);
    atomic_store(&rd_res, 1);
    ito_thread_t t;
    CHECK_OK(ito_create(&t, reader, NULL, NULL));
    CHECK_OK(ito_detach(t));
    while (!atomic_load(&started)) CHECK_OK(ito_yield());
    CHECK_OK(ito_sleep_ns(30 * 1000 * 1000)); /* parked in its wait */
    FILE *tf = NULL;
    if (by == BY_PIPE) {
        CHECK_EQ(pipe(q), 0);
        CHECK_EQ(write(q[1], "x", 1), 1);
        CHECK_EQ(dup2(q[0], p[0]), p[0]); /* closes the reader's file under it */
        CHECK_EQ(close(q[0]), 0);
    } else {
        tf = tmpfile();
        CHECK(tf != NULL);
        CHECK_EQ(dup2(fileno(tf), p[0]), p[0]);
    }
    CHECK_OK(ito_finalize());
    CHECK_EQ(atomic_load(&rd_res), -1);
    CHECK(atomic_load(&rd_err) == ECANCELED || atomic_load(&rd_err) == EBADF);
    if (by == BY_PIPE) {
        char c;
        CHECK_EQ(read(p[0], &c, 1), 1); /* the new pipe's byte was not taken */
        CHECK_EQ(c, 'x');
        close(q[1]);
    } else {
        fclose(tf);
    }
    close(p[0]);
    close(p[1]);
    CHECK_OK(unsetenv("ITO_FINALIZE_GRACE_MS"));
    CHECK_OK(unsetenv("ITO_WSC_BACKEND"));
}

int main(void)
{
    ito_test_watchdog(&finished_all, 60, "test_io_finalize_reused: ito_finalize did not return");
    for (int b = 0; b < ITO_TEST_NBACKENDS; b++)
        for (int workers = 1; workers <= 2; workers++) {
            int sync = strcmp(ito_test_backends[b], "sync") == 0;
            for (int by = BY_PIPE; by <= BY_FILE; by++) {
                run(ito_test_backends[b], workers, 1, by);
                if (sync) run(ito_test_backends[b], workers, 0, by);
            }
        }
    atomic_store(&finished_all, 1);
    TEST_DONE();
}
