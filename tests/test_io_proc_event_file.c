/* test_io_proc_event_file: a read of a "regular file" whose read waits for an event
 * (/proc/kmsg: fstat says S_IFREG, size 0; a read waits for the next kernel log line)
 * is a wait that ito_cancel_io, the ULT's I/O deadline and finalize end, on both
 * backends, with ito_read and ito_pread, and it still returns a line that comes.
 * Before (found by an outside tester, h68a, 2026-12-06), ito took it for a file read that
 * ends by itself: it ran blocking on a helper thread (sync backend, and ito_read at the
 * position on io_uring) or was never cancelled (ito_pread on io_uring), so ito_cancel_io
 * and the deadline did nothing and ito_finalize waited for ever (a klogd-like reader of
 * /proc/kmsg could never shut down; tracefs's trace_pipe is the same case).
 * Needs CAP_SYSLOG (root) to open /proc/kmsg: skipped otherwise. It reads (consumes) the
 * lines /proc/kmsg holds first, as any reader of it does (dmesg and readers of /dev/kmsg
 * lose nothing). A kernel line that comes while a part waits ends that wait with data:
 * the part is tried again (a few times). alarm(): a hang fails the test. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static int kfd;
static long res;
static int err;
static int how; /* 0 ito_read, 1 ito_pread */
static int with_deadline;

static void drain(void)
{
    char b[8192];
    int fl = fcntl(kfd, F_GETFL);
    fcntl(kfd, F_SETFL, fl | O_NONBLOCK);
    while (read(kfd, b, sizeof b) > 0) {}
    fcntl(kfd, F_SETFL, fl);
}

static void *reader(void *arg)
{
    (void)arg;
    char b[4096];
    if (with_deadline) CHECK_OK(ito_io_deadline(ito_now_ns() + 100000000u));
    res = how ? ito_pread(kfd, b, sizeof b, 0) : ito_read(kfd, b, sizeof b);
    err = res < 0 ? errno : 0;
    return NULL;
}

/* One wait ended by `what` (0 ito_cancel_io, 1 the deadline, 2 finalize): 1 if the
 * expected error came, 0 if a kernel line came first (try again). */
static int one(const char *backend, int what)
{
    setenv("ITO_WSC_BACKEND", backend, 1);
    setenv("ITO_FINALIZE_GRACE_MS", "100", 1);
    drain();
    with_deadline = what == 1;
    res = 999;
    err = 0;
    CHECK_OK(ito_init(NULL));
    ito_thread_t t;
    CHECK_OK(ito_create(&t, reader, NULL, NULL));
    CHECK_OK(ito_sleep_ns(50000000));
    if (what == 0) CHECK_OK(ito_cancel_io(t));
    if (what == 2) {
        CHECK_OK(ito_detach(t));
    } else {
        int rc = ito_join_until(t, NULL, ito_now_ns() + 3000000000u);
        if (rc == ITO_ETIMEDOUT) {
            fprintf(stderr, "%s: the read of /proc/kmsg was not ended by %s\n", backend,
                    what ? "its I/O deadline" : "ito_cancel_io");
            exit(1);
        }
        CHECK_OK(rc);
    }
    CHECK_OK(ito_finalize());
    if (res > 0) return 0; /* a kernel line came */
    CHECK_EQ(res, -1);
    CHECK_EQ(err, what == 1 ? ETIMEDOUT : ECANCELED);
    return 1;
}

/* A line written to /dev/kmsg while the ULT waits is read. */
static void *log_line(void *arg)
{
    (void)arg;
    usleep(100000);
    int fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
    if (fd >= 0) {
        static const char m[] = "<6>ito test_io_proc_event_file: a line for the reader\n";
        if (write(fd, m, sizeof m - 1) < 0) {}
        close(fd);
    }
    return NULL;
}

int main(void)
{
    kfd = open("/proc/kmsg", O_RDONLY | O_CLOEXEC);
    if (kfd < 0) {
        printf("skipped: /proc/kmsg: %s (needs CAP_SYSLOG)\n", strerror(errno));
        TEST_DONE();
    }
    alarm(60);
    static const char *const backends[] = {"uring", "sync"};
    for (int b = 0; b < 2; b++) {
        for (how = 0; how < 2; how++) {
            for (int what = 0; what < 3; what++) {
                int k = 0;
                while (!one(backends[b], what)) CHECK(++k < 5);
            }
        }
        /* a line that comes is read (the wait is a readiness wait, not a lost read) */
        setenv("ITO_WSC_BACKEND", backends[b], 1);
        drain();
        CHECK_OK(ito_init(NULL));
        how = 0;
        with_deadline = 0;
        res = 999;
        pthread_t pt;
        CHECK(pthread_create(&pt, NULL, log_line, NULL) == 0);
        ito_thread_t t;
        CHECK_OK(ito_create(&t, reader, NULL, NULL));
        CHECK_OK(ito_join(t, NULL));
        CHECK(pthread_join(pt, NULL) == 0);
        CHECK_OK(ito_finalize());
        CHECK(res > 0);
    }
    unsetenv("ITO_WSC_BACKEND");
    unsetenv("ITO_FINALIZE_GRACE_MS");
    close(kfd);
    TEST_DONE();
}
