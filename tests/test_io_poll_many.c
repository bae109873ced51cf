/* test_io_poll_many: ito_poll over more descriptors than it waits for in one batch, on
 * both backends. Only the 80th of 100 pipes (and then only the last of 1024 descriptors)
 * becomes readable, 20 ms after the ULT has started to wait; the wait must end with
 * that event, not at the timeout (regression test: only the first 64 descriptors were
 * waited on, so readiness of a later one was missed until the timeout, or for ever). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"
#include "io_test.h"

#define MS 1000000ull
#define MANY 100
#define MOST 1024

static int wr;    /* the write end the feeder writes to */
static int pairs; /* pipes of the largest case: 512 (1024 descriptors) if the fd limit allows */

static void *feeder(void *arg)
{
    (void)arg;
    struct timespec ts = {0, 20 * 1000000L};
    nanosleep(&ts, NULL);
    CHECK_EQ(write(wr, "x", 1), 1);
    return NULL;
}

/* Wait on n descriptors (pairs of a pipe: read ends polled); the one at `hot` gets data. */
static void wait_for_one(int n, int hot, int timeout_ms)
{
    int (*p)[2] = calloc((size_t)n, sizeof *p);
    struct pollfd *fds = calloc((size_t)n, sizeof *fds);
    CHECK(p && fds);
    for (int i = 0; i < n; i++) {
        CHECK_EQ(pipe2(p[i], O_CLOEXEC), 0);
        fds[i] = (struct pollfd){.fd = p[i][0], .events = POLLIN};
    }
    wr = p[hot][1];
    pthread_t th;
    CHECK_EQ(pthread_create(&th, NULL, feeder, NULL), 0);
    uint64_t t0 = ito_now_ns();
    int r = ito_poll(fds, (nfds_t)n, timeout_ms);
    uint64_t waited = ito_now_ns() - t0;
    CHECK_EQ(r, 1);
    CHECK(fds[hot].revents & POLLIN);
    for (int i = 0; i < n; i++)
        if (i != hot) CHECK_EQ(fds[i].revents, 0);
    /* not a timing assertion on the event itself: only that the wait did not run to the
     * timeout (10 s) before it saw an event that came after 20 ms */
    CHECK(waited < 9000 * MS);
    pthread_join(th, NULL);
    for (int i = 0; i < n; i++) {
        close(p[i][0]);
        close(p[i][1]);
    }
    free(p);
    free(fds);
}

static void *run(void *arg)
{
    (void)arg;
    struct pollfd one = {.fd = 0, .events = POLLIN};
    errno = 0;
    CHECK_EQ(ito_poll(&one, MOST + 1, 0), -1); /* more than the documented 1024 */
    CHECK_EQ(errno, EINVAL);
    wait_for_one(MANY, 79, 10000);
    wait_for_one(MANY, 79, -1);
    wait_for_one(pairs, pairs - 1, 10000); /* 1024 fds of pipes: 512 pairs, if allowed */
    return NULL;
}

int main(void)
{
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    if (rl.rlim_cur < 4 * MOST && rl.rlim_max >= 4 * MOST) {
        rl.rlim_cur = 4 * MOST;
        setrlimit(RLIMIT_NOFILE, &rl);
        getrlimit(RLIMIT_NOFILE, &rl);
    }
    pairs = MOST / 2;
    if (rl.rlim_cur < (rlim_t)(2 * pairs + 64)) pairs = (int)(rl.rlim_cur - 64) / 2;
    CHECK(pairs > MANY);
    io_each_backend(run, 0);
    TEST_DONE();
}
