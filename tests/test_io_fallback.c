/* test_io_fallback: the sync backend never blocks a worker, and waiting costs no CPU.
 *  - one worker, sync backend: a 1 MiB ito_write into a pipe whose reader is a ULT on
 *    the same worker completes (the writer waits for room, the reader runs);
 *  - a ULT waiting 400 ms in ito_recv uses almost no CPU, on both backends;
 *  - finalize with a reader blocked for ever does not spin while it waits its grace
 *    period, and cancels it (both backends);
 *  - regular files on the sync backend (helper threads): openat, pwrite, fsync, pread;
 *  - io_uring refused by the kernel (seccomp: io_uring_setup -> EPERM): ito_init falls
 *    back to the sync backend by itself, and the wrappers work; with
 *    ITO_WSC_BACKEND=uring forced, ito_init fails with ITO_ENOSYS instead. The same
 *    when only io_uring_enter or only io_uring_register is refused (a ring that could
 *    be made but not entered held every request while its worker spun on the submit at
 *    90 % of a CPU; found by a resource-exhaustion tester, 2026-12-03). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ito/ito.h"
#define ITO_TEST_SECCOMP
#include "ito_test.h"

#define MS 1000000ull

/* ---- a pipe between two ULTs of one worker ---- */
#define BIG (1 << 20)
static int pfd[2];
static void *pipe_reader(void *unused)
{
    (void)unused;
    static unsigned char b[65536];
    long total = 0, sum = 0;
    for (;;) {
        ssize_t n = ito_read(pfd[0], b, sizeof b);
        CHECK(n >= 0);
        if (n == 0) break;
        for (ssize_t i = 0; i < n; i++) sum += b[i];
        total += n;
    }
    CHECK_EQ(total, BIG);
    return (void *)sum;
}

static void check_pipe_one_worker(void)
{
    setenv("ITO_WSC_BACKEND", "sync", 1);
    ito_config_t c = {.workers = 1};
    CHECK_OK(ito_init(&c));
    CHECK_EQ(pipe(pfd), 0);
    ito_thread_t r;
    CHECK_OK(ito_create(&r, pipe_reader, NULL, NULL));
    static unsigned char big[BIG];
    long want = 0;
    for (int i = 0; i < BIG; i++) want += big[i] = (unsigned char)(i * 7);
    size_t off = 0;
    while (off < BIG) { /* the pipe holds 64 KiB: the write must wait for the reader */
        ssize_t n = ito_write(pfd[1], big + off, BIG - off);
        CHECK(n > 0);
        off += (size_t)n;
    }
    CHECK_EQ(ito_close(pfd[1]), 0);
    void *sum;
    CHECK_OK(ito_join(r, &sum));
    CHECK_EQ((long)sum, want);
    close(pfd[0]);
    CHECK_OK(ito_finalize());
}

/* ---- idle waiting costs no CPU ---- */
static int sv[2];
static void *recv_one(void *unused)
{
    (void)unused;
    char b[8];
    CHECK_EQ(ito_recv(sv[1], b, sizeof b, 0), 1);
    return NULL;
}

static void check_idle_cpu(const char *backend)
{
    setenv("ITO_WSC_BACKEND", backend, 1);
    CHECK_OK(ito_init(NULL));
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    ito_thread_t t;
    CHECK_OK(ito_create(&t, recv_one, NULL, NULL));
    CHECK_OK(ito_sleep_ns(20 * MS));
    double c0 = ito_test_cpu_seconds();
    CHECK_OK(ito_sleep_ns(400 * MS)); /* main sleeps too: the whole runtime is idle */
    double used = ito_test_cpu_seconds() - c0;
    fprintf(stderr, "%s: %.4f s CPU while a ULT waited 400 ms in ito_recv\n", backend, used);
    CHECK(used < 0.05); /* busy polling would use ~0.4 s or more */
    CHECK_EQ(write(sv[0], "x", 1), 1);
    CHECK_OK(ito_join(t, NULL));
    close(sv[0]);
    close(sv[1]);
    CHECK_OK(ito_finalize());
}

/* A reader nobody feeds: finalize cancels it after the grace period. */
static void *recv_cancelled(void *unused)
{
    (void)unused;
    char b[8];
    errno = 0;
    CHECK_EQ(ito_recv(sv[1], b, sizeof b, 0), -1);
    CHECK_EQ(errno, ECANCELED);
    return NULL;
}

static void check_finalize_no_spin(const char *backend)
{
    setenv("ITO_WSC_BACKEND", backend, 1);
    setenv("ITO_FINALIZE_GRACE_MS", "300", 1);
    CHECK_OK(ito_init(NULL));
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    ito_attr_t a;
    CHECK_OK(ito_attr_init(&a));
    a.flags = ITO_ATTR_DETACHED;
    CHECK_OK(ito_create(NULL, recv_cancelled, NULL, &a));
    CHECK_OK(ito_sleep_ns(10 * MS));
    double c0 = ito_test_cpu_seconds();
    uint64_t w0 = ito_now_ns();
    errno = 0;
    CHECK_OK(ito_finalize());
    double used = ito_test_cpu_seconds() - c0, wall = (double)(ito_now_ns() - w0) / 1e9;
    fprintf(stderr, "%s: finalize took %.3f s, %.4f s CPU\n", backend, wall, used);
    CHECK(used < 0.25 * wall);
    close(sv[0]);
    close(sv[1]);
    unsetenv("ITO_FINALIZE_GRACE_MS");
}

/* ---- regular files through helper threads ---- */
static void check_files_sync(void)
{
    setenv("ITO_WSC_BACKEND", "sync", 1);
    CHECK_OK(ito_init(NULL));
    char path[] = "/tmp/ito_fallback_XXXXXX";
    int tmp = mkstemp(path);
    CHECK(tmp >= 0);
    close(tmp);
    int fd = ito_openat(AT_FDCWD, path, O_RDWR | O_TRUNC, 0);
    CHECK(fd >= 0);
    static char buf[200000], back[200000];
    for (size_t i = 0; i < sizeof buf; i++) buf[i] = (char)(i * 13);
    CHECK_EQ(ito_pwrite(fd, buf, sizeof buf, 0), (long)sizeof buf);
    CHECK_EQ(ito_fsync(fd), 0);
    CHECK_EQ(ito_fdatasync(fd), 0);
    CHECK_EQ(ito_pread(fd, back, sizeof back, 0), (long)sizeof back);
    CHECK(memcmp(buf, back, sizeof buf) == 0);
    CHECK_EQ(ito_close(fd), 0);
    errno = 0;
    CHECK_EQ(ito_openat(AT_FDCWD, "/nonexistent/ito", O_RDONLY, 0), -1);
    CHECK_EQ(errno, ENOENT);
    unlink(path);
    CHECK_OK(ito_finalize());
}

/* ---- io_uring refused ---- */
static void *uses_io(void *unused)
{
    (void)unused;
    int s[2];
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, s), 0);
    CHECK_EQ(ito_send(s[0], "hi", 2, 0), 2);
    char b[4];
    CHECK_EQ(ito_recv(s[1], b, sizeof b, 0), 2);
    CHECK_EQ(ito_wsc_backend(), ITO_WSC_SYNC);
    ito_close(s[0]);
    ito_close(s[1]);
    return NULL;
}

static void check_refused(unsigned nr)
{
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        ito_test_deny_syscall(nr);
        unsetenv("ITO_WSC_BACKEND");
        CHECK_OK(ito_init(NULL));
        CHECK_EQ(ito_wsc_backend(), ITO_WSC_SYNC);
        ito_thread_t t;
        CHECK_OK(ito_create(&t, uses_io, NULL, NULL));
        CHECK_OK(ito_join(t, NULL));
        uses_io(NULL);
        CHECK_OK(ito_finalize());
        setenv("ITO_WSC_BACKEND", "uring", 1);
        CHECK_EQ(ito_init(NULL), ITO_ENOSYS); /* forced, and refused: loud */
        CHECK_EQ(ito_initialized(), 0);
        _exit(0);
    }
    int st;
    CHECK_EQ(waitpid(pid, &st, 0), pid);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

int main(void)
{
    check_pipe_one_worker();
    for (int b = 0; b < ITO_TEST_NBACKENDS; b++) {
        check_idle_cpu(ito_test_backends[b]);
        check_finalize_no_spin(ito_test_backends[b]);
    }
    check_files_sync();
    check_refused(__NR_io_uring_setup);
    check_refused(__NR_io_uring_enter);
    check_refused(__NR_io_uring_register);
    unsetenv("ITO_WSC_BACKEND");
    TEST_DONE();
}
