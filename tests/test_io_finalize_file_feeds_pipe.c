/* test_io_finalize_file_feeds_pipe: a regular-file request in flight is work that will
 * progress by itself (thread.h, the finalize rule: "a sleep or timed wait ..., an armed
 * timer device, a request on a regular file"), so while one runs the grace period does
 * not run out and nothing is cancelled. A writer ULT makes a long O_DSYNC write to a file
 * and then feeds a pipe that a reader ULT waits on; main finalizes at once. The reader
 * must get its byte, as it does when the writer sleeps instead of writing (the control
 * case below), on both backends, with ITO_FINALIZE_GRACE_MS=0 (a grace that any long
 * file write outlasts). Found by an outside tester, h64b, 2026-12-06: the cancel pass ran
 * while the file write was in flight and the reader got ECANCELED. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

#define LEN (32u << 20)

static char path[] = "/tmp/ito_file_feeds_pipe_XXXXXX";
static int pfd[2];
static int use_sleep;
static atomic_int reader_got; /* 1 the byte, 2 ECANCELED, 3 other */
static atomic_long written;

static void *writer(void *arg)
{
    (void)arg;
    if (use_sleep) {
        ito_sleep_ns(100000000); /* 100 ms: a sleep is work, finalize waits it out */
    } else {
        void *buf = mmap(NULL, LEN, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        CHECK(buf != MAP_FAILED);
        int fd = ito_openat(AT_FDCWD, path, O_WRONLY | O_TRUNC | O_DSYNC, 0);
        CHECK(fd >= 0);
        long n = 0;
        for (int rep = 0; rep < 3; rep++) {
            for (long k = 0; k < (long)LEN;) {
                ssize_t r = ito_pwrite(fd, (char *)buf + k, LEN - (size_t)k, (off_t)k);
                CHECK(r > 0);
                k += r;
                n += r;
            }
            CHECK_EQ(ito_fsync(fd), 0);
        }
        CHECK_EQ(ito_close(fd), 0);
        munmap(buf, LEN);
        atomic_store(&written, n);
    }
    CHECK_EQ(ito_write(pfd[1], "x", 1), 1);
    return NULL;
}

static void *reader(void *arg)
{
    (void)arg;
    char c = 0;
    ssize_t n = ito_read(pfd[0], &c, 1);
    atomic_store(&reader_got, n == 1 && c == 'x' ? 1 : (n < 0 && errno == ECANCELED) ? 2 : 3);
    return NULL;
}

static void round_(const char *backend, int sleep_instead)
{
    setenv("ITO_WSC_BACKEND", backend, 1);
    use_sleep = sleep_instead;
    atomic_store(&reader_got, 0);
    atomic_store(&written, 0);
    CHECK(pipe(pfd) == 0);
    CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
    ito_attr_t a;
    ito_attr_init(&a);
    a.flags = ITO_ATTR_DETACHED;
    CHECK_OK(ito_create(NULL, reader, NULL, &a));
    CHECK_OK(ito_create(NULL, writer, NULL, &a));
    CHECK_OK(ito_finalize());
    if (atomic_load(&reader_got) != 1)
        fprintf(stderr, "%s, writer %s: the reader got %s\n", backend, sleep_instead ? "sleeping" : "writing a file",
                atomic_load(&reader_got) == 2 ? "ECANCELED" : "something else");
    CHECK_EQ(atomic_load(&reader_got), 1);
    if (!sleep_instead) CHECK_EQ(atomic_load(&written), 3L * LEN);
    close(pfd[0]);
    close(pfd[1]);
}

int main(int argc, char **argv)
{
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    setenv("ITO_FINALIZE_GRACE_MS", "0", 1);
    for (int b = 0; b < ITO_TEST_NBACKENDS; b++) {
        if (argc > 1 && strcmp(argv[1], ito_test_backends[b]) != 0) continue; /* one backend only */
        round_(ito_test_backends[b], 1); /* control: a sleeping writer */
        round_(ito_test_backends[b], 0);
    }
    unlink(path);
    unsetenv("ITO_WSC_BACKEND");
    unsetenv("ITO_FINALIZE_GRACE_MS");
    TEST_DONE();
}
