/* test_io_helper_lock_clock: on the sync backend, a tty read whose helper waits for the
 * helpers' read lock (behind another helper's read that blocked: a reader outside ito took
 * the bytes) ends at its cancellation within a slice of CLOCK_MONOTONIC, whatever the wall
 * clock does meanwhile. ito/time.h: every timed wait of ito is of CLOCK_MONOTONIC.
 *
 * The lock's slices were of CLOCK_REALTIME (pthread_mutex_timedlock), so a wall clock set
 * back while the helper waited (an NTP step, date(1)) stretched the slice by as much, and
 * the waiting ULT's ito_cancel_io, I/O deadline and finalize's cancellation were not seen
 * for that long. Found by an outside tester, h77c, 2026-12-07.
 *
 * tests/CMakeLists.txt links this test with --wrap for readv (the first helper's read of
 * the tty blocks until the test releases it, as a read whose bytes another reader took)
 * and clock_gettime (the wall clock reads an hour ahead of the kernel's meanwhile: the same
 * as setting the clock back an hour once it was read). Without the fix the cancelled
 * reader was not joined 10 s after its cancel (3 of 3 runs); with it, it ends with
 * ECANCELED. A pseudo-terminal is needed; without one the test is skipped. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/uio.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

ssize_t __real_readv(int fd, const struct iovec *iov, int cnt);
ssize_t __wrap_readv(int fd, const struct iovec *iov, int cnt);
int __real_clock_gettime(clockid_t clk, struct timespec *ts);
int __wrap_clock_gettime(clockid_t clk, struct timespec *ts);

static _Atomic int armed;        /* the next tty readv blocks; the wall clock is an hour ahead */
static _Atomic int blocked;      /* the first helper is in its readv, holding the read lock */
static _Atomic int released;     /* the test lets that readv go on */
static _Atomic int helper_clock; /* a helper read a clock: the second helper waits for the lock */

ssize_t __wrap_readv(int fd, const struct iovec *iov, int cnt)
{
    if (atomic_load(&armed) && isatty(fd) && !atomic_exchange(&blocked, 1)) {
        for (int i = 0; i < 60000 && !atomic_load(&released); i++) usleep(1000); /* bounded: 60 s */
    }
    return __real_readv(fd, iov, cnt);
}

int __wrap_clock_gettime(clockid_t clk, struct timespec *ts)
{
    int rc = __real_clock_gettime(clk, ts);
    if (rc == 0 && atomic_load(&armed)) {
        char name[16] = "";
        pthread_getname_np(pthread_self(), name, sizeof name);
        if (!strcmp(name, "ito-helper")) atomic_store(&helper_clock, 1);
        if (clk == CLOCK_REALTIME) ts->tv_sec += 3600;
    }
    return rc;
}

static int slave;
static ssize_t got[2]; /* of reader 0 (its helper blocks in readv) and reader 1 */
static int err[2];

static void *reader(void *arg)
{
    long i = (long)arg;
    char b[64];
    errno = 0;
    got[i] = ito_read(slave, b, sizeof b);
    err[i] = errno;
    return NULL;
}

/* Waits (bounded: 10 s) until *flag is set. */
static void await(_Atomic int *flag, const char *what)
{
    for (int i = 0; i < 10000 && !atomic_load(flag); i++) CHECK_OK(ito_sleep_ns(1000000));
    if (!atomic_load(flag)) fprintf(stderr, "%s did not happen in 10 s\n", what);
    CHECK(atomic_load(flag));
}

int main(void)
{
    int m = posix_openpt(O_RDWR | O_NOCTTY);
    if (m < 0 || grantpt(m) != 0 || unlockpt(m) != 0) {
        printf("no pseudo-terminal here: skipped\n");
        TEST_DONE();
    }
    slave = open(ptsname(m), O_RDWR | O_NOCTTY | O_CLOEXEC);
    CHECK(slave >= 0);
    struct termios t;
    CHECK_EQ(tcgetattr(slave, &t), 0);
    cfmakeraw(&t);
    t.c_cc[VMIN] = 1;
    t.c_cc[VTIME] = 0;
    CHECK_EQ(tcsetattr(slave, TCSANOW, &t), 0);

    setenv("ITO_WSC_BACKEND", "sync", 1); /* io_uring has no helpers */
    CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
    CHECK_EQ(ito_wsc_backend(), ITO_WSC_SYNC);
    CHECK_EQ(write(m, "x", 1), 1);
    atomic_store(&armed, 1);
    ito_thread_t a, b;
    CHECK_OK(ito_create(&a, reader, (void *)0L, NULL));
    await(&blocked, "the first helper's read");
    atomic_store(&helper_clock, 0);
    CHECK_OK(ito_create(&b, reader, (void *)1L, NULL)); /* the byte is still there: ready */
    await(&helper_clock, "the second helper's wait for the read lock");
    CHECK_OK(ito_cancel_io(b));
    /* a hang detector, not a time bound on the work: the cancel is seen within a slice */
    int rc = ito_join_until(b, NULL, ito_deadline_in(10ull * 1000000000ull));
    if (rc != ITO_OK) {
        fprintf(stderr, "the cancelled reader was not joined 10 s after its cancel\n");
        _exit(1); /* the first helper still blocks: no finalize */
    }
    CHECK_EQ(got[1], -1);
    CHECK_EQ(err[1], ECANCELED);
    atomic_store(&released, 1);
    CHECK_OK(ito_join(a, NULL));
    CHECK_EQ(got[0], 1);
    atomic_store(&armed, 0);
    CHECK_OK(ito_finalize());
    unsetenv("ITO_WSC_BACKEND");
    close(slave);
    close(m);
    TEST_DONE();
}
