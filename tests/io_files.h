/* io_files.h: pattern files for the tests of I/O racing ito_finalize (test_io_finalize,
 * test_io_finalize_race): writer `who` writes chunks of `chunk` bytes, chunk k holding a
 * pattern of (who, k); a check reads every file back, compares every byte, removes it.
 * Include after ito_test.h. */
#ifndef ITO_IO_FILES_H
#define ITO_IO_FILES_H

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ito/ito.h"

#define IO_CHUNK_MAX 4096

__attribute__((unused)) static void io_fill(unsigned char *b, size_t chunk, int who, int k)
{
    for (size_t i = 0; i < chunk; i++) b[i] = (unsigned char)((size_t)who * 31 + (size_t)k * 7 + i);
}

/* All len bytes through ito_write (short counts continue). */
__attribute__((unused)) static void io_write_all(int fd, const unsigned char *b, size_t len)
{
    for (size_t off = 0; off < len;) {
        ssize_t n = ito_write(fd, b + off, len - off);
        CHECK(n > 0);
        off += (size_t)n;
    }
}

/* dir/f<who> holds exactly `chunks` chunks of its pattern; then it is removed. */
__attribute__((unused)) static void io_check_file(const char *dir, int who, int chunks, size_t chunk)
{
    char path[128];
    snprintf(path, sizeof path, "%s/f%d", dir, who);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    CHECK(fd >= 0);
    struct stat st;
    CHECK_EQ(fstat(fd, &st), 0);
    CHECK_EQ(st.st_size, (off_t)chunks * (off_t)chunk);
    unsigned char want[IO_CHUNK_MAX], got[IO_CHUNK_MAX];
    CHECK(chunk <= IO_CHUNK_MAX);
    for (int k = 0; k < chunks; k++) {
        io_fill(want, chunk, who, k);
        CHECK_EQ(pread(fd, got, chunk, (off_t)k * (off_t)chunk), (ssize_t)chunk);
        CHECK(memcmp(want, got, chunk) == 0);
    }
    close(fd);
    unlink(path);
}

#endif
