/* io_test.h: helpers of the I/O tests. Include after ito_test.h.
 *  - io_each_backend: run a test body once per WSC backend (uring, sync), each in a fresh
 *    runtime, on the main ULT and/or on a new ULT;
 *  - pattern files (test_io_finalize, test_io_finalize_race): writer `who` writes chunks of
 *    `chunk` bytes, chunk k holding a pattern of (who, k); io_check_file reads a file back,
 *    compares every byte, and removes it. */
#ifndef ITO_IO_TEST_H
#define ITO_IO_TEST_H

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ito/ito.h"

#define IO_CHUNK_MAX 4096

/* fn(arg) on every backend: arg is (void *)1 for uring, (void *)0 for sync; on the main ULT
 * if on_main, and on a new ULT, joined; then the runtime is finalized. */
__attribute__((unused)) static void io_each_backend(void *(*fn)(void *), int on_main)
{
    for (int b = 0; b < ITO_TEST_NBACKENDS; b++) {
        setenv("ITO_WSC_BACKEND", ito_test_backends[b], 1);
        CHECK_OK(ito_init(NULL));
        void *arg = (void *)(intptr_t)(b == 0);
        if (on_main) fn(arg);
        ito_thread_t t;
        CHECK_OK(ito_create(&t, fn, arg, NULL));
        CHECK_OK(ito_join(t, NULL));
        CHECK_OK(ito_finalize());
    }
    unsetenv("ITO_WSC_BACKEND");
}

__attribute__((unused)) static void io_fill(unsigned char *b, size_t chunk, int who, int k)
{
    for (size_t i = 0; i < chunk; i++) b[i] = (unsigned char)((size_t)who * 31 + (size_t)k * 7 + i);
}

/* dir/f<who>, created (truncated) for writing through ito_openat with extra `flags`. */
__attribute__((unused)) static int io_open_writer(const char *dir, int who, int flags)
{
    char path[128];
    snprintf(path, sizeof path, "%s/f%d", dir, who);
    int fd = ito_openat(AT_FDCWD, path, O_WRONLY | O_CREAT | O_TRUNC | flags, 0644);
    CHECK(fd >= 0);
    return fd;
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
