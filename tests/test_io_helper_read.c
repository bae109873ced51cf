/* test_io_helper_read: on the sync backend, ULTs reading one descriptor that is neither a
 * file nor non-blocking-capable for ito (an inotify descriptor: its reads run on helper
 * threads) can all be cancelled and joined.
 *
 * Found by a resource-exhaustion tester (2026-12-03): two helpers that saw the one event
 * both read; the second read(2) blocked for ever in the helper, where no cancellation
 * reaches it, so that ULT's ito_cancel_io, ito_join and ito_finalize never returned (2 of
 * 5 runs of 300 rounds). Now the helpers take their last look and read under one lock.
 * A round that hangs fails here by its join's deadline instead of ctest's timeout.
 * Part 2: the readers that lost the event held the helper pool while they waited for
 * the next one (in slices of poll(2)), so an ito_openat behind them waited out its
 * deadline (23 of 80 runs); now a loser's request goes back to its worker's epoll.
 * Part 3 (found by a reviewer of that fix): a tty in raw mode with VMIN 4 and VTIME 25.5 s
 * is ready at one byte, and a 64-byte read of it waited for VMIN bytes or VTIME in the
 * helper (and, under the one lock of the first fix, held every other helper read); the
 * helper now asks for what FIONREAD says is there and gets the byte at once.
 * Part 4 (found by a second reviewer): the helpers' lock was chosen by descriptor number,
 * so readers of one tty through two numbers (dup) took two locks, both read the one byte
 * and one blocked for ever again (3 of 3 runs); the lock is now the file's. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

#define READERS 8
#define ROUNDS 300

static int ifd;
static _Atomic long bytes;

static void *reader(void *unused)
{
    (void)unused;
    char b[4096] __attribute__((aligned(8)));
    errno = 0;
    ssize_t n = ito_read(ifd, b, sizeof b);
    if (n < 0) CHECK_EQ(errno, ECANCELED);
    else atomic_fetch_add(&bytes, n);
    return NULL;
}

/* Cancels n readers and joins them; a join that has not happened 10 s after the cancel
 * is the hang these parts look for (a hang detector, not a time bound on the work). */
static void cancel_and_join(ito_thread_t *t, int n, const char *part, int round)
{
    for (int i = 0; i < n; i++) { /* a reader that got the event may have ended: ITO_EJOINED */
        int rc = ito_cancel_io(t[i]);
        CHECK(rc == ITO_OK || rc == ITO_EJOINED);
    }
    for (int i = 0; i < n; i++) {
        int rc = ito_join_until(t[i], NULL, ito_deadline_in(10ull * 1000000000ull));
        if (rc != ITO_OK) fprintf(stderr, "%s round %d: reader %d not joined 10 s after its cancel\n", part, round, i);
        CHECK_OK(rc);
    }
}

/* Whatever events the round left behind, without blocking (the flag is ours alone here). */
static void drain(void)
{
    char b[4096] __attribute__((aligned(8)));
    int fl = fcntl(ifd, F_GETFL);
    CHECK(fl >= 0);
    CHECK_EQ(fcntl(ifd, F_SETFL, fl | O_NONBLOCK), 0);
    while (read(ifd, b, sizeof b) > 0) {
    }
    CHECK_EQ(fcntl(ifd, F_SETFL, fl), 0);
}

/* ---- part 3: a tty ready at one byte whose longer read would wait for VMIN ---- */

static int tty_slave;
static ssize_t tty_got;

static void *tty_reader(void *unused)
{
    (void)unused;
    char b[64];
    tty_got = ito_read(tty_slave, b, sizeof b);
    return NULL;
}

/* A pseudo-terminal in raw mode with VMIN and VTIME: its master, *slave its other end;
 * -1 where there is none (the part is skipped). */
static int open_raw_pty(int *slave, int vmin, int vtime)
{
    int m = posix_openpt(O_RDWR | O_NOCTTY);
    if (m < 0 || grantpt(m) != 0 || unlockpt(m) != 0) {
        printf("no pseudo-terminal here: a part skipped\n");
        if (m >= 0) close(m);
        return -1;
    }
    *slave = open(ptsname(m), O_RDWR | O_NOCTTY | O_CLOEXEC);
    CHECK(*slave >= 0);
    struct termios t;
    CHECK_EQ(tcgetattr(*slave, &t), 0);
    cfmakeraw(&t);
    t.c_cc[VMIN] = (cc_t)vmin;
    t.c_cc[VTIME] = (cc_t)vtime;
    CHECK_EQ(tcsetattr(*slave, TCSANOW, &t), 0);
    return m;
}

static void vmin_tty(void)
{
    int m = open_raw_pty(&tty_slave, 4, 255);
    if (m < 0) return;
    CHECK_EQ(write(m, "x", 1), 1);
    ito_thread_t r;
    CHECK_OK(ito_create(&r, tty_reader, NULL, NULL));
    /* a hang detector, far below VTIME: the byte is there */
    CHECK_OK(ito_join_until(r, NULL, ito_deadline_in(10ull * 1000000000ull)));
    CHECK_EQ(tty_got, 1);
    close(tty_slave);
    close(m);
}

/* ---- part 4: one tty through two descriptor numbers ---- */

static int two[2];

static void *two_reader(void *arg)
{
    char b[64];
    ssize_t n = ito_read(two[(long)arg & 1], b, sizeof b);
    if (n < 0) CHECK_EQ(errno, ECANCELED);
    return NULL;
}

static void tty_two_numbers(void)
{
    int m = open_raw_pty(&two[0], 1, 0);
    if (m < 0) return;
    two[1] = dup(two[0]);
    CHECK(two[1] >= 0);
    for (int r = 0; r < 200; r++) {
        ito_thread_t t[READERS];
        for (long i = 0; i < READERS; i++) CHECK_OK(ito_create(&t[i], two_reader, (void *)i, NULL));
        CHECK_OK(ito_sleep_ns(2 * 1000000ull));
        CHECK_EQ(write(m, "x", 1), 1);
        CHECK_OK(ito_sleep_ns(5 * 1000000ull));
        cancel_and_join(t, READERS, "part 4", r);
    }
    close(two[1]);
    close(two[0]);
    close(m);
}

int main(void)
{
    setenv("ITO_WSC_BACKEND", "sync", 1);
    char dir[] = "/tmp/ito_helper_read_XXXXXX", path[64];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/f", dir);
    ifd = inotify_init1(IN_CLOEXEC);
    CHECK(ifd >= 0);
    CHECK(inotify_add_watch(ifd, dir, IN_CREATE) >= 0);
    ito_config_t cfg = {.workers = 1};
    CHECK_OK(ito_init(&cfg));
    for (int r = 0; r < ROUNDS; r++) {
        ito_thread_t t[READERS];
        int fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600); /* one event */
        CHECK(fd >= 0);
        close(fd);
        CHECK_EQ(unlink(path), 0);
        for (int i = 0; i < READERS; i++) CHECK_OK(ito_create(&t[i], reader, NULL, NULL));
        CHECK_OK(ito_sleep_ns(5 * 1000000ull));
        cancel_and_join(t, READERS, "part 1", r);
        drain();
    }
    CHECK(atomic_load(&bytes) > 0); /* the events were read, not only cancelled */

    /* part 2: 12 readers, one event, then a file to open (a helper's job) */
    for (int r = 0; r < 10; r++) {
        ito_thread_t t[12];
        int fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
        CHECK(fd >= 0);
        close(fd);
        CHECK_EQ(unlink(path), 0);
        for (int i = 0; i < 12; i++) CHECK_OK(ito_create(&t[i], reader, NULL, NULL));
        CHECK_OK(ito_sleep_ns(20 * 1000000ull));
        CHECK_OK(ito_io_deadline(ito_deadline_in(2000000000ull)));
        int o = ito_openat(AT_FDCWD, "/proc/self/stat", O_RDONLY | O_CLOEXEC, 0);
        if (o < 0) fprintf(stderr, "part 2 round %d: ito_openat: %s\n", r, strerror(errno));
        CHECK(o >= 0);
        close(o);
        CHECK_OK(ito_io_deadline(ITO_FOREVER));
        cancel_and_join(t, 12, "part 2", r);
        drain();
    }
    vmin_tty();
    CHECK_OK(ito_finalize());
    cfg.workers = 2; /* two workers' helpers at once: how the reviewer's runs failed */
    CHECK_OK(ito_init(&cfg));
    tty_two_numbers();
    CHECK_OK(ito_finalize());
    close(ifd);
    rmdir(dir);
    unsetenv("ITO_WSC_BACKEND");
    TEST_DONE();
}
