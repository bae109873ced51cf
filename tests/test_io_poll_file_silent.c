/* test_io_poll_file_silent: ito_poll with an entry on a regular file whose events such a
 * file never reports (0, POLLPRI, POLLRDHUP), or on a file the kernel cannot poll
 * (/dev/null). poll(2) leaves such an entry silent and sleeps on the others (or until its
 * timeout). ito_poll's wait record for it ended at once with no event (the sync backend's
 * epoll refuses the file: 0; io_uring: -EINVAL or -EAGAIN), and the call polled again
 * without ever parking: a busy loop that burnt the worker, starved the worker's other ULTs
 * (with one worker, main never ran again) and, on io_uring, kept ito_finalize waiting for
 * ever (each round counted as progress). Found by an outside tester, h64f, 2026-12-06
 * (both backends). Checked here, on both backends with one worker (the spinning ULT
 * shares it with main; alarm() turns a hang into a failure):
 *  1. {file POLLPRI, pipe POLLIN}, no timeout: main runs while it waits, few crossings
 *     are made meanwhile, and the pipe's data ends it (1, POLLIN);
 *  2. {file POLLPRI} alone, no timeout: ito_cancel_io ends it with ECANCELED;
 *  3. {/dev/null POLLPRI} alone, no timeout, and {file POLLRDHUP, socket POLLIN} with a
 *     one-minute timeout: ito_finalize cancels both after its grace period (ECANCELED)
 *     and returns ITO_OK;
 *  4. {file POLLPRI} with a 50 ms timeout: returns 0 at the timeout;
 *  5. {file POLLPRI} alone, no timeout: another ULT's ito_close of the number ends it
 *     (1, POLLNVAL), as for any descriptor a wait is on. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static int filefd, nullfd, fd2, pp[2], sp[2];
static _Atomic int started, ended;
static int res[5], err[5];
static short rev[5][2];

static void *poller(void *arg)
{
    int k = (int)(intptr_t)arg;
    struct pollfd p[2];
    nfds_t n = 0;
    int timeout = -1;
    switch (k) {
    case 0:
        p[n++] = (struct pollfd){filefd, POLLPRI, 0};
        p[n++] = (struct pollfd){pp[0], POLLIN, 0};
        break;
    case 1: p[n++] = (struct pollfd){filefd, POLLPRI, 0}; break;
    case 2: p[n++] = (struct pollfd){nullfd, POLLPRI, 0}; break;
    case 4: p[n++] = (struct pollfd){fd2, POLLPRI, 0}; break;
    case 3:
        p[n++] = (struct pollfd){filefd, POLLRDHUP, 0};
        p[n++] = (struct pollfd){sp[0], POLLIN, 0};
        timeout = 60000;
        break;
    }
    atomic_fetch_add(&started, 1);
    errno = 0;
    res[k] = ito_poll(p, n, timeout);
    err[k] = errno;
    for (nfds_t i = 0; i < n; i++) rev[k][i] = p[i].revents;
    atomic_fetch_add(&ended, 1);
    return NULL;
}

static void wait_started(int n)
{
    while (atomic_load(&started) < n) CHECK_OK(ito_sleep_ns(1000000));
    CHECK_OK(ito_sleep_ns(50000000)); /* let them park */
}

static void run(const char *backend)
{
    setenv("ITO_WSC_BACKEND", backend, 1);
    atomic_store(&started, 0);
    atomic_store(&ended, 0);
    CHECK_OK(ito_init(NULL));

    /* 1. a file entry that never fires, and a pipe */
    ito_thread_t t;
    CHECK_OK(ito_create(&t, poller, (void *)(intptr_t)0, NULL));
    wait_started(1);
    ito_wsc_stats_t s0, s1;
    CHECK_OK(ito_wsc_stats(&s0));
    CHECK_OK(ito_sleep_ns(100000000));
    CHECK_OK(ito_wsc_stats(&s1));
    CHECK(s1.crossings - s0.crossings < 1000); /* parked, not polling again and again */
    CHECK_EQ(atomic_load(&ended), 0);
    CHECK_EQ(write(pp[1], "x", 1), 1);
    CHECK_OK(ito_join(t, NULL));
    CHECK_EQ(res[0], 1);
    CHECK_EQ(rev[0][0], 0);
    CHECK_EQ(rev[0][1], POLLIN);
    char c;
    CHECK_EQ(read(pp[0], &c, 1), 1);

    /* 2. the file entry alone: ito_cancel_io ends it */
    atomic_store(&started, 0);
    CHECK_OK(ito_create(&t, poller, (void *)(intptr_t)1, NULL));
    wait_started(1);
    CHECK_OK(ito_cancel_io(t));
    CHECK_OK(ito_join(t, NULL));
    CHECK_EQ(res[1], -1);
    CHECK_EQ(err[1], ECANCELED);

    /* 4. with a timeout: 0 at the timeout */
    struct pollfd p = {filefd, POLLPRI, 0};
    CHECK_EQ(ito_poll(&p, 1, 50), 0);

    /* 5. ito_close of the file's number ends the wait */
    atomic_store(&started, 0);
    fd2 = dup(filefd);
    CHECK(fd2 >= 0);
    CHECK_OK(ito_create(&t, poller, (void *)(intptr_t)4, NULL));
    wait_started(1);
    CHECK_EQ(ito_close(fd2), 0);
    CHECK_OK(ito_join(t, NULL));
    CHECK_EQ(res[4], 1);
    CHECK_EQ(rev[4][0], POLLNVAL);

    /* 3. finalize cancels the waits (it waited for ever on io_uring) */
    atomic_store(&started, 0);
    atomic_store(&ended, 0);
    ito_attr_t a;
    CHECK_OK(ito_attr_init(&a));
    a.flags = ITO_ATTR_DETACHED;
    CHECK_OK(ito_create(NULL, poller, (void *)(intptr_t)2, &a));
    CHECK_OK(ito_create(NULL, poller, (void *)(intptr_t)3, &a));
    wait_started(2);
    CHECK_EQ(atomic_load(&ended), 0);
    CHECK_OK(ito_finalize());
    CHECK_EQ(atomic_load(&ended), 2);
    CHECK_EQ(res[2], -1);
    CHECK_EQ(err[2], ECANCELED);
    CHECK_EQ(res[3], -1);
    CHECK_EQ(err[3], ECANCELED);
}

int main(void)
{
    setenv("ITO_WORKERS", "1", 1);
    setenv("ITO_FINALIZE_GRACE_MS", "200", 1);
    alarm(18); /* a hang (the bug) ends the test as a failure */
    char path[] = "/tmp/ito_poll_file_silent_XXXXXX";
    filefd = mkstemp(path);
    CHECK(filefd >= 0);
    unlink(path);
    CHECK_EQ(write(filefd, "abc", 3), 3);
    nullfd = open("/dev/null", O_RDWR);
    CHECK(nullfd >= 0);
    CHECK_EQ(pipe(pp), 0);
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sp), 0);
    run("uring");
    run("sync");
    TEST_DONE();
}
