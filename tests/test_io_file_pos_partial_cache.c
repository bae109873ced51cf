/* test_io_file_pos_partial_cache: 4 ULTs (2 workers) read one regular file at its shared
 * file position, 8 KiB at a time, while every other 4 KiB page of it is in the page cache
 * (POSIX_FADV_DONTNEED, POSIX_FADV_RANDOM, then the even pages read), on both backends.
 * read(2) is atomic with respect to the position: every chunk must be read exactly once.
 * The sync backend's attempt (also io_uring's for reads at a regular file's position)
 * read the cached page with RWF_NOWAIT and moved the position back for a helper thread
 * to read the whole; another reader came in between: 447 of 4000 chunks read twice and
 * 447 never (3 of 3 rounds). Found by an outside tester, h65d, 2026-12-06. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

#define CH 4096
#define NCH 2000
#define NT 4
#define ROUNDS 3

static int fd;
static atomic_int seen[NCH];

static void *reader(void *a)
{
    (void)a;
    char *b = malloc(2 * CH);
    CHECK(b);
    for (;;) {
        ssize_t r = ito_read(fd, b, 2 * CH);
        CHECK(r >= 0);
        if (r == 0) break;
        CHECK_EQ(r % CH, 0); /* whole chunks: the file holds whole chunks */
        for (ssize_t o = 0; o < r; o += CH) {
            int k;
            memcpy(&k, b + o, sizeof k);
            CHECK(k >= 0 && k < NCH);
            atomic_fetch_add(&seen[k], 1);
        }
    }
    free(b);
    return NULL;
}

static void *body(void *a)
{
    (void)a;
    char path[] = "/tmp/ito_pos_cache_XXXXXX";
    fd = mkstemp(path);
    CHECK(fd >= 0);
    CHECK_EQ(unlink(path), 0);
    char *b = malloc(CH);
    CHECK(b);
    for (int i = 0; i < NCH; i++) {
        memset(b, 'z', CH);
        memcpy(b, &i, sizeof i);
        CHECK_EQ(pwrite(fd, b, CH, (off_t)i * CH), CH);
    }
    CHECK_EQ(fdatasync(fd), 0);
    for (int round = 0; round < ROUNDS; round++) {
        for (int i = 0; i < NCH; i++) atomic_store(&seen[i], 0);
        CHECK_EQ(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
        CHECK_EQ(posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM), 0);
        for (int i = 0; i < NCH; i += 2) CHECK_EQ(pread(fd, b, CH, (off_t)i * CH), CH);
        CHECK_EQ(lseek(fd, 0, SEEK_SET), 0);
        ito_thread_t t[NT];
        for (int i = 0; i < NT; i++) CHECK_OK(ito_create(&t[i], reader, NULL, NULL));
        for (int i = 0; i < NT; i++) CHECK_OK(ito_join(t[i], NULL));
        for (int i = 0; i < NCH; i++) CHECK_EQ(atomic_load(&seen[i]), 1);
    }
    close(fd);
    free(b);
    return NULL;
}

int main(void)
{
    ito_test_each_backend_ult(2, body);
    TEST_DONE();
}
