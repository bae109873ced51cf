/* test_io_deadline_past_file: an I/O deadline already passed makes a wrapper a try
 * (ito/time.h), and a call that ends by itself (on a regular file, ito_fsync, ito_openat
 * of a file) then runs to its end, alike on both backends (src/wsc/wrappers.c
 * call_once). Found by a finalize tester on 2026-12-04: with a past deadline ito_pwrite
 * and ito_fsync of a regular file failed with ETIMEDOUT unattempted on both backends,
 * and ito_openat of a regular file did on the sync backend only (io_uring opened it).
 * A pipe with nothing to read still gives ETIMEDOUT at once, and one with a byte gives
 * the byte. Deadlines 0, 1, a millisecond ago and now; 1 and 2 workers. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static char path[64];

static void one(uint64_t deadline)
{
    char out[4096], in[4096];
    memset(out, 'a' + (int)(deadline % 26), sizeof out);
    CHECK_OK(ito_io_deadline(deadline));
    int fd = ito_openat(AT_FDCWD, path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    CHECK(fd >= 0);
    CHECK_EQ(ito_pwrite(fd, out, sizeof out, 0), (long)sizeof out);
    CHECK_EQ(ito_fsync(fd), 0);
    CHECK_EQ(ito_pread(fd, in, sizeof in, 0), (long)sizeof in);
    CHECK(memcmp(in, out, sizeof in) == 0);
    CHECK_EQ(ito_write(fd, out, 10), 10); /* a whole transfer on a file */
    int p[2];
    CHECK_EQ(pipe(p), 0);
    errno = 0;
    CHECK_EQ(ito_read(p[0], in, 1), -1); /* nothing to read: the try fails */
    CHECK_EQ(errno, ETIMEDOUT);
    CHECK_EQ(write(p[1], "x", 1), 1);
    CHECK_EQ(ito_read(p[0], in, 1), 1);
    CHECK_OK(ito_io_deadline(ITO_FOREVER));
    CHECK_EQ(ito_close(fd), 0);
    CHECK_EQ(ito_close(p[0]), 0);
    CHECK_EQ(ito_close(p[1]), 0);
    struct stat st;
    CHECK_EQ(stat(path, &st), 0);
    CHECK_EQ(st.st_size, 4096);
}

static void *body(void *arg)
{
    (void)arg;
    uint64_t now = ito_now_ns();
    one(0);
    one(1);
    one(now - 1000000);
    one(ito_now_ns());
    return NULL;
}

int main(void)
{
    snprintf(path, sizeof path, "/tmp/ito_past_file_%d", (int)getpid());
    for (int workers = 1; workers <= 2; workers++) ito_test_each_backend_ult(workers, body);
    unlink(path);
    TEST_DONE();
}
