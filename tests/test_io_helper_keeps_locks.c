/* test_io_helper_keeps_locks: the file wrappers keep the process's POSIX record locks.
 * A program that holds an fcntl(F_SETLK) lock on a file (a database, a pid file, lockf)
 * and writes it through ito_write, ito_pwrite, ito_writev, ito_fsync or ito_fdatasync
 * must still hold the lock afterwards, as with write(2) and fsync(2). Those calls run on
 * a helper thread (the sync backend; ito_write/ito_writev at the file position on
 * io_uring too), which made its call on a duplicate of the descriptor and closed the
 * duplicate: close(2) of any descriptor of a file releases every POSIX lock the process
 * holds on it, and the lock was silently gone (every call, both backends where the helper
 * is used: the first check failed, 3 of 3 runs). Found by an outside tester, h66a, 2026-12-06. Another
 * process (a fork) asks F_GETLK after each call. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static char path[] = "/tmp/ito_keeps_locks_XXXXXX";

/* 1 if another process sees our write lock on the whole file. */
static int lock_seen(void)
{
    pid_t me = getpid(), p = fork();
    CHECK(p >= 0);
    if (p == 0) {
        int fd = open(path, O_RDWR);
        struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
        if (fd < 0 || fcntl(fd, F_GETLK, &fl) != 0) _exit(2);
        _exit(fl.l_type == F_WRLCK && fl.l_pid == me ? 1 : 0);
    }
    int st;
    CHECK_EQ(waitpid(p, &st, 0), p);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) != 2);
    return WEXITSTATUS(st);
}

static int fd;

static void *body(void *arg)
{
    (void)arg;
    char b[8192];
    memset(b, 'x', sizeof b);
    CHECK_EQ(ito_write(fd, b, sizeof b), (ssize_t)sizeof b);
    CHECK_EQ(lock_seen(), 1);
    CHECK_EQ(ito_pwrite(fd, b, sizeof b, 4096), (ssize_t)sizeof b);
    CHECK_EQ(lock_seen(), 1);
    struct iovec io[2] = {{b, 100}, {b + 100, 900}};
    CHECK_EQ(ito_writev(fd, io, 2), 1000);
    CHECK_EQ(lock_seen(), 1);
    CHECK_EQ(ito_fsync(fd), 0);
    CHECK_EQ(lock_seen(), 1);
    CHECK_EQ(ito_fdatasync(fd), 0);
    CHECK_EQ(lock_seen(), 1);
    (void)posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED); /* a read past the page cache: a helper's */
    CHECK_EQ(ito_pread(fd, b, sizeof b, 0), (ssize_t)sizeof b);
    CHECK_EQ(lock_seen(), 1);
    return NULL;
}

int main(void)
{
    int t = mkstemp(path);
    CHECK(t >= 0);
    close(t);
    fd = open(path, O_RDWR | O_CLOEXEC | O_DSYNC); /* O_DSYNC: no RWF_NOWAIT write, a helper's on any file system */
    CHECK(fd >= 0);
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
    CHECK_EQ(fcntl(fd, F_SETLK, &fl), 0);
    CHECK_EQ(lock_seen(), 1);
    for (int b = 0; b < ITO_TEST_NBACKENDS; b++) {
        setenv("ITO_WSC_BACKEND", ito_test_backends[b], 1);
        ito_test_main_ult(NULL, body);
        CHECK_EQ(lock_seen(), 1);
    }
    close(fd);
    unlink(path);
    TEST_DONE();
}
