/* test_io_stat_no_sync: a worker never waits for a file system's server to describe a
 * descriptor. A worker looks at a descriptor's type (and device and inode) before its
 * calls: ito_read and ito_write on a regular file, the closing check of ito_close and of
 * completions. With a plain fstat(2), a network or FUSE file system whose cached
 * attributes have expired asks its server; while that server was slow or had stopped
 * answering, the worker blocked in fstat, and so did every other ULT of the worker, on
 * both backends (found by an outside tester with a FUSE file system whose getattr hung,
 * h73e, 2026-12-07: a ticking ULT on the reader's worker did not tick until the server
 * answered). The worker now asks with statx(AT_STATX_DONT_SYNC), which such file systems
 * answer from their cache.
 *
 * An empty file's read also asked the file system's type (fstatfs, which FUSE sends to its
 * server every time) to tell a pseudo file such as /proc/kmsg; it now polls first, and
 * only a file that does not poll ready is asked.
 *
 * No FUSE here: tests/CMakeLists.txt links this test with --wrap for fstat, statx and
 * fstatfs, and a call that would go to the server (fstat, fstatfs, or statx without
 * AT_STATX_DONT_SYNC) on the test's file waits until another ULT of the same worker has run, for at most 2 s. A
 * worker that blocks in it never runs that ULT: the wait times out, and the test fails
 * (without the fix: ito_read, ito_write and the empty file's ito_read, on both backends,
 * 3 of 3 runs; the pread and close parts passed before too). A helper thread may ask the
 * server (it may block): that ULT's run ends its wait. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

int __real_fstat(int fd, struct stat *st);
int __real_statx(int dirfd, const char *path, int flags, unsigned mask, struct statx *sx);
int __wrap_fstat(int fd, struct stat *st);
int __wrap_statx(int dirfd, const char *path, int flags, unsigned mask, struct statx *sx);
int __real_fstatfs(int fd, struct statfs *sf);
int __wrap_fstatfs(int fd, struct statfs *sf);

static _Atomic int slow_fd = -1;  /* the file whose "server" answers late */

/* The server's round trip: wait until the other ULT of the worker has run (ito_test.h). */
static void server_round_trip(int fd)
{
    if (fd < 0 || fd != atomic_load(&slow_fd)) return;
    ito_test_server_round_trip();
}

int __wrap_fstat(int fd, struct stat *st)
{
    server_round_trip(fd);
    return __real_fstat(fd, st);
}

int __wrap_statx(int dirfd, const char *path, int flags, unsigned mask, struct statx *sx)
{
    if (!(flags & AT_STATX_DONT_SYNC) && (flags & AT_EMPTY_PATH) && path && !*path) server_round_trip(dirfd);
    return __real_statx(dirfd, path, flags, mask, sx);
}

int __wrap_fstatfs(int fd, struct statfs *sf)
{
    server_round_trip(fd);
    return __real_fstatfs(fd, sf);
}

static const char *op;
static char path[] = "/tmp/ito_stat_no_sync_XXXXXX";
static char empty[] = "/tmp/ito_stat_no_sync_empty_XXXXXX";

static void *caller(void *arg)
{
    (void)arg;
    char buf[64];
    memset(buf, 'w', sizeof buf);
    int fd = open(strcmp(op, "empty") ? path : empty, O_RDWR);
    CHECK(fd >= 0);
    atomic_store(&slow_fd, fd);
    atomic_store(&ito_test_srv_in_call, 1);
    if (!strcmp(op, "read")) {
        CHECK_EQ(ito_read(fd, buf, sizeof buf), (ssize_t)sizeof buf);
    } else if (!strcmp(op, "write")) {
        CHECK_EQ(ito_write(fd, buf, sizeof buf), (ssize_t)sizeof buf);
    } else if (!strcmp(op, "empty")) { /* a file of size 0: fstatfs tells a pseudo file (nonblock.c) */
        CHECK_EQ(ito_read(fd, buf, sizeof buf), 0);
    } else if (!strcmp(op, "pread")) {
        CHECK_EQ(ito_pread(fd, buf, sizeof buf, 64), (ssize_t)sizeof buf);
    } else {
        atomic_store(&slow_fd, -1); /* only the close's own look */
        CHECK_OK(ito_pwrite(fd, buf, sizeof buf, 0) == (ssize_t)sizeof buf ? ITO_OK : ITO_EINVAL);
        atomic_store(&slow_fd, fd);
        CHECK_EQ(ito_close(fd), 0);
        fd = -1;
    }
    atomic_store(&slow_fd, -1);
    if (fd >= 0) CHECK_EQ(close(fd), 0);
    return NULL;
}

static void round_(const char *backend)
{
    static const char *const ops[] = {"read", "write", "pread", "close", "empty"};
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
        op = ops[i];
        bool stalled = ito_test_server_round(caller);
        if (stalled) fprintf(stderr, "%s: the worker blocked in a server's stat for %s\n", backend, op);
        CHECK(!stalled);
    }
}

int main(void)
{
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    char data[4096];
    memset(data, 'd', sizeof data);
    CHECK_EQ(write(fd, data, sizeof data), (ssize_t)sizeof data);
    CHECK_EQ(close(fd), 0);
    fd = mkstemp(empty);
    CHECK(fd >= 0);
    CHECK_EQ(close(fd), 0);
    ito_test_each_backend(2, round_);
    unlink(path);
    unlink(empty);
    TEST_DONE();
}
