/* test_io_len: lengths of 4 GiB and more in the wrappers and in ito_sys_post, on both
 * backends. Linux moves at most 0x7ffff000 bytes in one read or write and the request is
 * clamped to that (a short count, as read(2) gives); an io_uring SQE holds 32 bits, so an
 * unclamped length was cut modulo 2^32: a 4 GiB read asked for 0 bytes and returned 0,
 * which the caller takes for end of file (regression test). The write wrappers go on after
 * a short count on a descriptor that is not a regular file until every byte has moved
 * (whole transfers, syscall.h), so a 4 GiB write to /dev/null returns 4 GiB in parts of the
 * clamp; pwrite and a request posted alone return the clamp. Nothing here touches more
 * than a few bytes of memory: /dev/null takes a write without reading the buffer (checked
 * on the io_uring backend only, where the cut happened: the sync backend calls write(2),
 * whose sanitizer interceptor would check the whole range the kernel reports written),
 * and a pipe, a socket or a short file give only the bytes they hold. Lengths past
 * SSIZE_MAX (SIZE_MAX): a short count from ito_recv on both backends too, as recv(2)
 * gives (the sync backend passed them to readv(2)/recv(2) unclamped and said EINVAL where
 * io_uring moved the bytes; found by a resource-exhaustion tester, 2026-12-03); read(2) and
 * pread(2) say EFAULT for a range past the top of user space, and so do ito_read and
 * ito_pread since 2026-12-07 (test_io_len_past_user). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"
#include "io_test.h"

#define GIB4 ((size_t)1 << 32)
#define MAX_RW 0x7ffff000L

/* The buffer is static: the kernel may refuse (EFAULT) a range buf..buf+len that runs past
 * the top of user space, which a stack buffer near it (the main thread's, with ASLR) plus
 * 2-4 GiB can do; the program's own data lies low. Bodies run one after the other. */
static char buf[64];

static void *lengths(void *arg)
{
    (void)arg;
    if (ito_wsc_backend() == ITO_WSC_URING) {
        int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
        CHECK(null >= 0);
        CHECK_EQ(ito_write(null, buf, GIB4), (ssize_t)GIB4);
        CHECK_EQ(ito_write(null, buf, GIB4 + 10), (ssize_t)(GIB4 + 10));
        CHECK_EQ(ito_pwrite(null, buf, GIB4, 0), MAX_RW); /* pwrite: one call (files write whole by themselves) */
        CHECK_EQ(ito_write(null, buf, 10), 10);
        long wres = -1;
        ito_sysreq_t wq = {.op = ITO_SYS_WRITE, .fd = null, .buf = buf, .len = GIB4, .result = &wres};
        CHECK_OK(ito_sys_wait_all(&wq, 1));
        CHECK_EQ(wres, MAX_RW);
        close(null);
    }

    int p[2];
    CHECK_EQ(pipe(p), 0);
    CHECK_EQ(write(p[1], "hello", 5), 5);
    CHECK_EQ(ito_read(p[0], buf, GIB4), 5);
    CHECK(memcmp(buf, "hello", 5) == 0);
    CHECK_EQ(write(p[1], "again", 5), 5);
    long res = -1;
    ito_sysreq_t q = {.op = ITO_SYS_READ, .fd = p[0], .buf = buf, .len = GIB4, .result = &res};
    CHECK_OK(ito_sys_wait_all(&q, 1));
    CHECK_EQ(res, 5);
    CHECK_EQ(write(p[1], "third", 5), 5);
    errno = 0;
    CHECK_EQ(ito_read(p[0], buf, SIZE_MAX), -1); /* read(2)'s EFAULT: past the top of user space */
    CHECK_EQ(errno, EFAULT);
    CHECK_EQ(ito_read(p[0], buf, GIB4), 5);
    CHECK(memcmp(buf, "third", 5) == 0);
    close(p[0]);
    close(p[1]);

    int sv[2];
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    CHECK_EQ(ito_send(sv[0], "abc", 3, 0), 3);
    CHECK_EQ(ito_recv(sv[1], buf, GIB4, 0), 3);
    CHECK(memcmp(buf, "abc", 3) == 0);
    CHECK_EQ(ito_send(sv[0], "xyz", 3, 0), 3);
    CHECK_EQ(ito_recv(sv[1], buf, SIZE_MAX, 0), 3);
    CHECK(memcmp(buf, "xyz", 3) == 0);
    ito_close(sv[0]);
    ito_close(sv[1]);

    char path[] = "/tmp/ito_io_len_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    unlink(path);
    CHECK_EQ(write(fd, "0123456789", 10), 10);
    CHECK_EQ(ito_pread(fd, buf, GIB4, 0), 10);
    CHECK(memcmp(buf, "0123456789", 10) == 0);
    CHECK_EQ(ito_pread(fd, buf, GIB4 + 3, 4), 6);
    errno = 0;
    CHECK_EQ(ito_pread(fd, buf, SIZE_MAX, 2), -1); /* pread(2)'s EFAULT */
    CHECK_EQ(errno, EFAULT);
    close(fd);
    return NULL;
}

int main(void)
{
    io_each_backend(lengths, 1);
    TEST_DONE();
}
