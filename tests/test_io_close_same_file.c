/* test_io_close_same_file: a ULT's call on a descriptor it opened after another ULT's
 * ito_close of the same number (close(2) done) runs, also when both descriptors name the
 * same file and the closer has not run again yet. ito_close of a regular file runs close(2)
 * off its worker (a helper thread, or io_uring) while the closer parks; the closing set
 * (src/wsc/wrappers.c) said CLOSED only once the closer ran again, and a waiter on the
 * number that found the same file there took it for the file being closed: its call
 * failed with EBADF (found by an outside tester, h75b, 2026-12-07: ULTs each opening the
 * same data file, pwrites lost to EBADF while another ULT closed its descriptor; more so
 * while the closer's worker was busy).
 *
 * Two workers: on worker 0 the closer opens the file and closes it while a ULT beside it
 * keeps the worker (it yields until the number is closed, so that io_uring's close is
 * sent, then spins without a scheduling point), so the closer cannot run again; on worker
 * 1 a ULT opens the same file once the number is free (it gets the number) and pwrites
 * through it, then lets the spinner go. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static char path[] = "/tmp/ito_close_same_XXXXXX";
static _Atomic int num = -1, written;
static _Atomic long result;

static void *spinner(void *arg)
{
    (void)arg;
    while (fcntl(atomic_load(&num), F_GETFD) >= 0) CHECK_OK(ito_yield()); /* the close goes */
    while (!atomic_load(&written)) {
    } /* no scheduling point: the closer stays parked */
    return NULL;
}

static void *closer(void *arg)
{
    (void)arg;
    int fd = ito_openat(AT_FDCWD, path, O_WRONLY | O_CLOEXEC, 0);
    CHECK(fd >= 0);
    atomic_store(&num, fd);
    ito_thread_t s;
    ito_test_create_on(&s, 0, spinner, NULL);
    CHECK_EQ(ito_close(fd), 0);
    CHECK_OK(ito_join(s, NULL));
    return NULL;
}

static void *opener(void *arg)
{
    (void)arg;
    int n;
    while ((n = atomic_load(&num)) < 0 || fcntl(n, F_GETFD) >= 0) CHECK_OK(ito_yield());
    int fd = ito_openat(AT_FDCWD, path, O_WRONLY | O_CLOEXEC, 0);
    CHECK(fd >= 0);
    long r = fd == n ? (long)ito_pwrite(fd, "x", 1, 0) : 1; /* (another number: nothing to see) */
    atomic_store(&result, r < 0 ? -errno : r);
    atomic_store(&written, 1);
    CHECK_EQ(ito_close(fd), 0);
    return NULL;
}

static void round_(const char *backend)
{
    /* io_uring: the close's slot says CLOSED at the reap of its completion, and a worker
     * that sent the close at a flush without a reap (its latency bound's timer) reaps it at
     * its next visit: a spinner there keeps that window open (1 round in about 80 here),
     * so on io_uring one round of four must see the call run; every round on the sync
     * backend, whose helper says CLOSED as close(2) returns. Before 2026-12-07 none did. */
    int ran = 0, rounds = 4;
    for (int i = 0; i < rounds; i++) {
        atomic_store(&num, -1);
        atomic_store(&written, 0);
        ito_thread_t c, o;
        ito_test_create_on(&o, 1, opener, NULL);
        ito_test_create_on(&c, 0, closer, NULL);
        CHECK_OK(ito_join(c, NULL));
        CHECK_OK(ito_join(o, NULL));
        long r = atomic_load(&result);
        CHECK(r == 1 || r == -EBADF);
        ran += r == 1;
    }
    CHECK(strcmp(backend, "sync") == 0 ? ran == rounds : ran > 0); /* (was 0: EBADF) */
}

int main(void)
{
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    ito_test_each_backend(2, round_);
    unlink(path);
    TEST_DONE();
}
