/* test_io_close_helper_write: on the sync backend, a write (or an openat relative to a
 * directory descriptor) that a helper thread has taken from its queue but not yet passed to
 * the kernel must not land in the file that a later open got the number for, after
 * another ULT's ito_close of the descriptor. syscall.h: ito_close wakes the waiters and
 * cancels the requests on fd before it closes it; only the waits in progress end, and a
 * request the closer did not cancel acts on the file it was posted for. Reads had this
 * guarantee (helpers.c: a duplicate checked against the cancellation, nonblock.c
 * helper_read); writes, fsyncs and openats used the bare number, and ito_close does not
 * wait for a started helper call: the close and a new open could come between the
 * helper's dequeue and its system call, and the write went into the new file (data of one
 * file written into another). Found by an outside tester, h62b, 2026-12-05.
 *
 * The window is a few instructions and an fstat wide; tests/CMakeLists.txt links this
 * test with --wrap for pwritev2 (a refused RWF_NOWAIT attempt sends the write to a helper,
 * as for an O_DSYNC file or a page-cache miss), pwritev, writev and openat (each sleeps
 * once, on the helper, before the call enters the kernel), so the close and the new open
 * come inside it. Without the fix every part failed (3 of 3 runs); with it the call either
 * ran on its own file or ended with EBADF, and the new file is untouched. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

ssize_t __real_pwritev2(int fd, const struct iovec *iov, int cnt, off_t off, int flags);
ssize_t __real_pwritev(int fd, const struct iovec *iov, int cnt, off_t off);
ssize_t __real_writev(int fd, const struct iovec *iov, int cnt);
int __real_openat(int dirfd, const char *path, int flags, ...);
ssize_t __wrap_pwritev2(int fd, const struct iovec *iov, int cnt, off_t off, int flags);
ssize_t __wrap_pwritev(int fd, const struct iovec *iov, int cnt, off_t off);
ssize_t __wrap_writev(int fd, const struct iovec *iov, int cnt);
int __wrap_openat(int dirfd, const char *path, int flags, ...);

static _Atomic int armed;     /* the next helper call is slowed */
static _Atomic int in_window; /* the helper is in it: between its dequeue and the kernel */
static const char *slow_name; /* openat: the path whose open is slowed */

static void window(void)
{
    atomic_store(&in_window, 1);
    usleep(300 * 1000);
}

ssize_t __wrap_pwritev2(int fd, const struct iovec *iov, int cnt, off_t off, int flags)
{
    if (atomic_load(&armed) && (flags & RWF_NOWAIT)) {
        errno = EAGAIN; /* as an O_DSYNC file or a page-cache miss: a helper writes it */
        return -1;
    }
    return __real_pwritev2(fd, iov, cnt, off, flags);
}

ssize_t __wrap_pwritev(int fd, const struct iovec *iov, int cnt, off_t off)
{
    if (atomic_exchange(&armed, 0)) window();
    return __real_pwritev(fd, iov, cnt, off);
}

ssize_t __wrap_writev(int fd, const struct iovec *iov, int cnt)
{
    if (atomic_load(&armed) && iov && cnt == 1 && iov[0].iov_len == 4096 && atomic_exchange(&armed, 0)) window();
    return __real_writev(fd, iov, cnt);
}

int __wrap_openat(int dirfd, const char *path, int flags, ...)
{
    unsigned mode = 0;
    if (flags & (O_CREAT | O_TMPFILE)) {
        va_list ap;
        va_start(ap, flags);
        mode = va_arg(ap, unsigned);
        va_end(ap);
    }
    if (slow_name && path && strcmp(path, slow_name) == 0 && atomic_exchange(&armed, 0)) window();
    return __real_openat(dirfd, path, flags, mode);
}

static char dir[64];
static int fd_a;
static long res;
static int res_errno;
static int part;

static void *writer(void *arg)
{
    (void)arg;
    static char buf[4096];
    memset(buf, 'A', sizeof buf);
    atomic_store(&armed, 1);
    if (part == 0) res = ito_pwrite(fd_a, buf, sizeof buf, 0);
    else if (part == 1) res = ito_write(fd_a, buf, sizeof buf);
    else res = ito_openat(fd_a, "made", O_WRONLY | O_CREAT | O_EXCL, 0644);
    res_errno = errno;
    atomic_store(&armed, 0);
    return NULL;
}

static off_t size_of(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? st.st_size : -1;
}

int main(void)
{
    setenv("ITO_WSC_BACKEND", "sync", 1);
    snprintf(dir, sizeof dir, "/tmp/ito_chw_%d", (int)getpid());
    CHECK(mkdir(dir, 0755) == 0);
    char pa[128], pb[128], da[128], db[128], made_a[160], made_b[160];
    snprintf(pa, sizeof pa, "%s/a", dir);
    snprintf(pb, sizeof pb, "%s/b", dir);
    snprintf(da, sizeof da, "%s/da", dir);
    snprintf(db, sizeof db, "%s/db", dir);
    snprintf(made_a, sizeof made_a, "%s/made", da);
    snprintf(made_b, sizeof made_b, "%s/made", db);
    CHECK(mkdir(da, 0755) == 0);
    CHECK(mkdir(db, 0755) == 0);
    slow_name = "made";
    ito_config_t cfg = {.workers = 2};
    for (part = 0; part < 3; part++) {
        CHECK_OK(ito_init(&cfg));
        fd_a = part < 2 ? open(pa, O_WRONLY | O_CREAT | O_TRUNC, 0644) : open(da, O_RDONLY | O_DIRECTORY);
        CHECK(fd_a >= 0);
        atomic_store(&in_window, 0);
        ito_attr_t at;
        ito_attr_init(&at);
        at.worker = 1; /* the closer (main) is on worker 0 */
        ito_thread_t t;
        CHECK_OK(ito_create(&t, writer, NULL, &at));
        while (!atomic_load(&in_window)) ito_sleep_ns(1000 * 1000);
        CHECK_EQ(ito_close(fd_a), 0);
        int fd_b = part < 2 ? open(pb, O_WRONLY | O_CREAT | O_TRUNC, 0644) : open(db, O_RDONLY | O_DIRECTORY);
        CHECK(fd_b >= 0);
        CHECK_EQ(fd_b, fd_a); /* the number was taken again (the lowest free one) */
        CHECK_OK(ito_join(t, NULL));
        CHECK_OK(ito_finalize());
        close(fd_b);
        if (part < 2) {
            fprintf(stderr, "part %d: result %ld errno %d, a %lld bytes, b %lld bytes\n", part, res, res == -1 ? res_errno : 0,
                    (long long)size_of(pa), (long long)size_of(pb));
            CHECK_EQ(size_of(pb), 0); /* nothing of the writer's in the new file */
            if (res == 4096) CHECK_EQ(size_of(pa), 4096);
            else CHECK(res == -1 && res_errno == EBADF && size_of(pa) == 0);
            unlink(pa);
            unlink(pb);
        } else {
            fprintf(stderr, "part 2: result %ld errno %d, in da %d, in db %d\n", res, res >= 0 ? 0 : res_errno,
                    access(made_a, F_OK) == 0, access(made_b, F_OK) == 0);
            CHECK(access(made_b, F_OK) != 0); /* not created in the other directory */
            if (res >= 0) {
                CHECK(access(made_a, F_OK) == 0);
                close((int)res);
            } else {
                CHECK(res_errno == EBADF && access(made_a, F_OK) != 0);
            }
            unlink(made_a);
            unlink(made_b);
        }
    }
    rmdir(da);
    rmdir(db);
    rmdir(dir);
    TEST_DONE();
}
