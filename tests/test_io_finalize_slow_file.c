/* test_io_finalize_slow_file: ito_finalize waiting for one long regular-file request
 * (a 256 MiB O_DSYNC write, which ends by itself) costs main next to no CPU, on both
 * backends, with ITO_FINALIZE_GRACE_MS=0 (the grace over at once, as any grace is once
 * the request outlasts it). Before (found by a finalize tester, 2026-12-04), every look
 * without progress ran a cancel pass, which found the request live and made main look
 * again at once: thousands of passes, main at a third of a CPU for the whole write
 * (0.12 s of its CPU in 0.37 s). The write must still be complete on disk afterwards. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

#define LEN (256u << 20)

static char path[] = "/tmp/ito_slow_file_XXXXXX";
static _Atomic long written;

static void *writer(void *arg)
{
    (void)arg;
    /* zero pages read from an anonymous mapping: no memory, the kernel does the copy */
    void *buf = mmap(NULL, LEN, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    CHECK(buf != MAP_FAILED);
    int fd = ito_openat(AT_FDCWD, path, O_WRONLY | O_TRUNC | O_DSYNC, 0);
    CHECK(fd >= 0);
    atomic_store(&written, -1); /* started */
    long n = 0;
    while (n < (long)LEN) { /* a short write is legal: go on (each part is long anyway) */
        ssize_t k = ito_write(fd, (char *)buf + n, LEN - (size_t)n);
        CHECK(k > 0);
        n += k;
    }
    CHECK_EQ(ito_close(fd), 0);
    munmap(buf, LEN);
    atomic_store(&written, n);
    return NULL;
}

int main(void)
{
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    setenv("ITO_FINALIZE_GRACE_MS", "0", 1);
    for (int b = 0; b < ITO_TEST_NBACKENDS; b++) {
        setenv("ITO_WSC_BACKEND", ito_test_backends[b], 1);
        CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
        atomic_store(&written, 0);
        ito_attr_t at;
        CHECK_OK(ito_attr_init(&at));
        at.flags |= ITO_ATTR_DETACHED;
        at.worker = 1; /* main's worker only runs finalize: its thread's CPU is main's */
        ito_thread_t t;
        CHECK_OK(ito_create(&t, writer, NULL, &at));
        while (atomic_load(&written) == 0) CHECK_OK(ito_sleep_ns(1000000));
        uint64_t t0 = ito_test_now_ns(), c0 = ito_test_cpu_ns();
        CHECK_OK(ito_finalize());
        double wall = (double)(ito_test_now_ns() - t0), cpu = (double)(ito_test_cpu_ns() - c0);
        printf("%s: finalize waited %.0f ms, main used %.1f ms of CPU\n", ito_test_backends[b],
               wall / 1e6, cpu / 1e6);
        CHECK_EQ(atomic_load(&written), (long)LEN); /* finalize waited for all of it */
        struct stat st;
        CHECK_EQ(stat(path, &st), 0);
        CHECK_EQ(st.st_size, (long)LEN);
        CHECK(cpu < 0.1 * wall + 5e6); /* before: about a third of the wait */
    }
    unsetenv("ITO_WSC_BACKEND");
    unsetenv("ITO_FINALIZE_GRACE_MS");
    unlink(path);
    TEST_DONE();
}
