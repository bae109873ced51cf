/* test_io_uring_recancel_spin: a deadline that passes while an ito_pread of a regular file
 * not in the page cache waits for its pages costs a bounded number of kernel crossings
 * (both backends; 1 worker).
 *
 * io_uring runs such a read itself (an async buffered read: it waits on the pages' I/O,
 * neither in the poll table nor in io-wq), so its ASYNC_CANCEL answers -ENOENT while the
 * read goes on to its end (syscall.h: one the kernel has begun runs to its end). Since
 * f463ddc a cancel that found nothing is sent again while its request is still in the
 * kernel (uring.c), and it was sent again at every answer: one io_uring_enter each, the
 * worker spinning for as long as the read took (10,644 enters for a 256 MiB cold read of
 * 0.16 s here; on a slow disk, a CPU for seconds). Now the second and later re-sends wait
 * on a timer (1 ms, doubling to 16 ms). Found by an outside tester, h67d, 2026-12-06.
 *
 * The read must return the whole file with the right bytes (or fail with ETIMEDOUT), and
 * the crossings counted while it waited (ito_wsc_stats) stay under 300 + 2 per millisecond
 * of the read (without the fix: 5,600 to 24,000 in 77 to 150 ms here, 7 runs of 7 failed;
 * with it: under 20, 6 runs of 6 passed). The file is evicted from
 * the page cache with POSIX_FADV_DONTNEED after an fsync; a file system that keeps it
 * (tmpfs) makes the read a hit and the test passes trivially. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

#define SZ ((size_t)128 << 20)
#define ROUNDS 3

static int fd;
static char *buf;

static void *reader(void *arg)
{
    (void)arg;
    for (int k = 0; k < ROUNDS; k++) {
        memset(buf, 0xee, SZ);
        CHECK_EQ(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
        ito_wsc_stats_t s0, s1;
        CHECK_OK(ito_wsc_stats(&s0));
        CHECK_OK(ito_io_deadline(ito_deadline_in(1000000))); /* 1 ms: passes during the read */
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        ssize_t n = ito_pread(fd, buf, SZ, 0);
        int e = errno;
        clock_gettime(CLOCK_MONOTONIC, &t1);
        uint64_t ms = (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000u + (uint64_t)(t1.tv_nsec / 1000000) - (uint64_t)(t0.tv_nsec / 1000000);
        /* A few re-sends per millisecond of the read at most (a slow disk makes a long read):
         * without the fix it was one per io_uring_enter, 60 to 150 per ms here. */
        uint64_t bound = 300 + 2 * ms;
        CHECK_OK(ito_io_deadline(ITO_FOREVER));
        CHECK_OK(ito_wsc_stats(&s1));
        uint64_t crossings = s1.crossings - s0.crossings;
        if (n < 0) {
            CHECK_EQ(e, ETIMEDOUT);
        } else {
            CHECK_EQ(n, (ssize_t)SZ);
            size_t bad = 0;
            for (size_t i = 0; i < SZ; i += 4096) bad += buf[i] != (char)(i >> 12) || buf[i + 4095] != (char)(i >> 12);
            CHECK_EQ(bad, 0);
        }
        if (crossings >= bound)
            fprintf(stderr, "a cancelled cold read took %llu crossings in %llu ms\n", (unsigned long long)crossings,
                    (unsigned long long)ms);
        CHECK(crossings < bound);
    }
    return NULL;
}

int main(void)
{
    char path[] = "./test_io_uring_recancel_spin.XXXXXX";
    fd = mkstemp(path);
    CHECK(fd >= 0);
    CHECK_EQ(unlink(path), 0);
    buf = malloc(SZ);
    CHECK(buf != NULL);
    for (size_t i = 0; i < SZ; i += 4096) memset(buf + i, (char)(i >> 12), 4096);
    CHECK_EQ(pwrite(fd, buf, SZ, 0), (ssize_t)SZ);
    CHECK_EQ(fsync(fd), 0);
    ito_test_each_backend_ult(1, reader);
    free(buf);
    close(fd);
    TEST_DONE();
}
