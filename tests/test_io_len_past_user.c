/* test_io_len_past_user: a buffer whose length runs past the top of user space (a length
 * such as (size_t)-1, a negative count cast to size_t) is EFAULT for ito_read, ito_write,
 * ito_pread, ito_pwrite and ito_send, as read(2), write(2), pread(2), pwrite(2) and send(2)
 * say it (the kernel's access_ok, before anything moves), on both backends, and a bad
 * request for ito_sys_wait_all (ITO_EINVAL, nothing posted). Until 2026-12-07 the length was
 * clamped to 0x7ffff000 first: ito_pread wrote the file's bytes past the buffer (here into
 * a sentinel page after it; in the outside tester's program, over its heap: a crash), and
 * ito_write to /dev/null went on in parts of the clamp for hours, claiming 2^64 bytes
 * (here cut by an I/O deadline, so that a regression fails instead of hanging). recv(2)
 * clamps first and asks nothing: ito_recv keeps its short count (test_io_len). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"
#include "io_test.h"

#define PAGE 4096

static void *past(void *arg)
{
    (void)arg;
    /* page 0: the buffer (its last 64 bytes); page 1: a sentinel the kernel must not touch */
    char *m = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(m != MAP_FAILED);
    char *buf = m + PAGE - 64;
    memset(m, 's', 2 * PAGE);
    char path[] = "/tmp/ito_len_past_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    unlink(path);
    char blk[2 * PAGE];
    memset(blk, 'x', sizeof blk);
    CHECK_EQ(write(fd, blk, sizeof blk), (ssize_t)sizeof blk);
    /* a regression must end, not hang: every call below ends within the deadline */
    CHECK_OK(ito_io_deadline(ito_deadline_in(2000000000ull)));
    const size_t lens[] = {SIZE_MAX, (size_t)-4096, (size_t)SSIZE_MAX + 1, (size_t)1 << 62};
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        size_t len = lens[i];
        errno = 0;
        CHECK_EQ(ito_pread(fd, buf, len, 0), -1);
        CHECK_EQ(errno, EFAULT);
        lseek(fd, 0, SEEK_SET);
        errno = 0;
        CHECK_EQ(ito_read(fd, buf, len), -1);
        CHECK_EQ(errno, EFAULT);
        CHECK_EQ(lseek(fd, 0, SEEK_CUR), 0); /* nothing read */
        for (int k = 0; k < 2 * PAGE; k++) CHECK(m[k] == 's'); /* nothing written anywhere */
        errno = 0;
        CHECK_EQ(ito_pwrite(fd, buf, len, 0), -1);
        CHECK_EQ(errno, EFAULT);
        struct stat st;
        CHECK_EQ(fstat(fd, &st), 0);
        CHECK_EQ(st.st_size, 2 * PAGE);

        int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
        CHECK(null >= 0);
        errno = 0;
        CHECK_EQ(ito_write(null, buf, len), -1); /* was: parts of 0x7ffff000 until the deadline */
        CHECK_EQ(errno, EFAULT);
        close(null);

        int p[2];
        CHECK_EQ(pipe(p), 0);
        CHECK_EQ(write(p[1], "hello", 5), 5);
        errno = 0;
        CHECK_EQ(ito_read(p[0], buf, len), -1);
        CHECK_EQ(errno, EFAULT);
        char got[8];
        CHECK_EQ(read(p[0], got, sizeof got), 5); /* still in the pipe */
        close(p[0]);
        close(p[1]);

        int sv[2];
        CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
        errno = 0;
        CHECK_EQ(ito_send(sv[0], buf, len, 0), -1);
        CHECK_EQ(errno, EFAULT);
        ito_close(sv[0]);
        ito_close(sv[1]);

        long res = 12345;
        ito_sysreq_t q = {.op = ITO_SYS_PREAD, .fd = fd, .buf = buf, .len = len, .offset = 0, .result = &res};
        CHECK_EQ(ito_sys_wait_all(&q, 1), ITO_EINVAL);
        CHECK_EQ(res, 12345); /* nothing posted */
        for (int k = 0; k < 2 * PAGE; k++) CHECK(m[k] == 's');
    }
    /* lengths the kernel takes are clamped as before: a short count (test_io_len) */
    CHECK_EQ(ito_pread(fd, buf, (size_t)1 << 32, 2 * PAGE - 10), 10);
    CHECK_OK(ito_io_deadline(ITO_FOREVER));
    close(fd);
    munmap(m, 2 * PAGE);
    return NULL;
}

int main(void)
{
    io_each_backend(past, 1);
    TEST_DONE();
}
