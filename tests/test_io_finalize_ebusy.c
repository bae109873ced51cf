/* test_io_finalize_ebusy: ito_finalize's ITO_EBUSY and its cancel pass once split-phase
 * calls have been used (src/core/runtime.c ito_finalize, src/wsc/area.c), both backends,
 * 1 and 2 workers. Found on 2026-12-04 by a finalize tester:
 *  1. once any wrapper had been used, finalize never returned ITO_EBUSY: its cancel pass
 *     waited for the workers with sleeps whose wake-ups counted as progress, so each pass
 *     restarted the grace period (12 of 12 runs hung, with no CPU used). Here a detached
 *     ULT waits on a semaphore nobody posts and another is parked in ito_read on a pipe
 *     nobody writes; main has used ito_getpid. Finalize (ITO_FINALIZE_GRACE_MS=50) cancels
 *     the read (ECANCELED) and returns ITO_EBUSY.
 *  2. after that ITO_EBUSY the runtime goes on, and so do waits on pipes: the cancel
 *     flag stayed up until the next ito_init, so such a wait ended at once with
 *     ECANCELED. Here a ULT reads a pipe that a foreign thread writes 30 ms later: it
 *     gets the byte. Then the semaphore is posted and finalize returns ITO_OK.
 *  3. after finalize's cancel pass, a call on a pipe or socket that need not wait still
 *     runs: every such call failed with ECANCELED unattempted (a last reply to a client
 *     or a log line to a pipe was lost). The ULT whose read the pass cancelled writes to a
 *     pipe with room, reads a pipe holding data and sends on a socket with room (the
 *     peer gets the bytes); a read of an empty pipe and an ito_poll of it still end with
 *     ECANCELED instead of waiting.
 * Found by a reviewer of those fixes:
 *  4. ito_accept and ito_connect after the cancel pass end at once untried: the attempt
 *     had put the user's sockets in O_NONBLOCK mode (io_uring) and started a connect that
 *     it reported as cancelled (the peer got the connection);
 *  5. a ULT waiting on a pipe that main then closes with close(2) (not ito_close) is still
 *     cancelled: the sync backend's epoll had dropped the number, and the cancel pass took
 *     its POLLNVAL for "ready", so finalize waited for ever. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static ito_sem_t sem;
static int idle[2], feed[2], room[2], full[2], sv[2];
static _Atomic int parked, sem_done;
static _Atomic long rd_res, rd_err, late_res;
/* part 3's results: write with room, read with data, send with room, read empty, poll empty */
static long r3[7];
static int e3[7];
static int lsock, csock;
static struct sockaddr_in laddr;

static void *sem_waiter(void *arg)
{
    (void)arg;
    CHECK_OK(ito_sem_wait(&sem));
    atomic_store(&sem_done, 1);
    return NULL;
}

static void *reader(void *arg)
{
    int after = arg != NULL;
    char b[8];
    atomic_fetch_add(&parked, 1);
    long r = ito_read(idle[0], b, sizeof b);
    atomic_store(&rd_err, r < 0 ? errno : 0);
    atomic_store(&rd_res, r);
    if (!after) return NULL;
    /* part 3: finalize has cancelled; what need not wait still runs */
    r3[0] = ito_write(room[1], "abcd", 4), e3[0] = errno;
    r3[1] = ito_read(full[0], b, sizeof b), e3[1] = errno;
    r3[2] = ito_send(sv[0], "wxyz", 4, 0), e3[2] = errno;
    r3[3] = ito_read(idle[0], b, sizeof b), e3[3] = errno;
    struct pollfd p = {.fd = idle[0], .events = POLLIN};
    r3[4] = ito_poll(&p, 1, -1), e3[4] = errno;
    r3[5] = ito_accept(lsock, NULL, NULL), e3[5] = errno; /* part 4 */
    r3[6] = ito_connect(csock, (struct sockaddr *)&laddr, sizeof laddr), e3[6] = errno;
    return NULL;
}

static void *late_reader(void *arg)
{
    (void)arg;
    char b;
    atomic_store(&late_res, ito_read(feed[0], &b, 1) == 1 && b == 'L' ? 1 : -errno);
    return NULL;
}

static void *late_writer(void *arg)
{
    (void)arg;
    struct timespec ts = {0, 30 * 1000 * 1000};
    nanosleep(&ts, NULL);
    CHECK_EQ(write(feed[1], "L", 1), 1);
    return NULL;
}

static void wait_parked(int n)
{
    while (atomic_load(&parked) < n) CHECK_OK(ito_yield());
    ito_sleep_ns(5 * 1000 * 1000); /* into its wait */
}

static void run(const char *backend, int workers, int part3, int part5)
{
    CHECK_OK(setenv("ITO_WSC_BACKEND", backend, 1));
    CHECK_OK(setenv("ITO_FINALIZE_GRACE_MS", "50", 1));
    CHECK_OK(ito_init(&(ito_config_t){.workers = workers}));
    CHECK_EQ(pipe(idle), 0);
    CHECK_EQ(pipe(feed), 0);
    CHECK_EQ(pipe(room), 0);
    CHECK_EQ(pipe(full), 0);
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    CHECK_EQ(write(full[1], "12345678", 8), 8);
    lsock = socket(AF_INET, SOCK_STREAM, 0);
    laddr = (struct sockaddr_in){.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    CHECK_EQ(bind(lsock, (struct sockaddr *)&laddr, sizeof laddr), 0);
    CHECK_EQ(listen(lsock, 4), 0);
    socklen_t al = sizeof laddr;
    CHECK_EQ(getsockname(lsock, (struct sockaddr *)&laddr, &al), 0);
    csock = socket(AF_INET, SOCK_STREAM, 0);
    atomic_store(&parked, 0);
    atomic_store(&sem_done, 0);
    atomic_store(&rd_res, 0);
    CHECK(ito_getpid() > 0); /* the split-phase calls are set up */
    ito_thread_t t;
    if (!part3 && !part5) {
        CHECK_OK(ito_sem_init(&sem, 0));
        CHECK_OK(ito_create(&t, sem_waiter, NULL, NULL));
        CHECK_OK(ito_detach(t));
    }
    CHECK_OK(ito_create(&t, reader, part3 && !part5 ? (void *)1 : NULL, NULL));
    CHECK_OK(ito_detach(t));
    wait_parked(1);
    if (part5) {
        CHECK_EQ(close(idle[0]), 0); /* close(2) under the waiting reader */
        idle[0] = -1;
        CHECK_OK(ito_finalize());
        CHECK_EQ(atomic_load(&rd_res), -1);
        CHECK(atomic_load(&rd_err) == ECANCELED || atomic_load(&rd_err) == EBADF);
    } else if (part3) {
        CHECK_OK(ito_finalize());
        CHECK_EQ(atomic_load(&rd_res), -1);
        CHECK_EQ(atomic_load(&rd_err), ECANCELED);
        CHECK_EQ(r3[0], 4);
        CHECK_EQ(r3[1], 8);
        CHECK_EQ(r3[2], 4);
        CHECK(r3[3] == -1 && e3[3] == ECANCELED);
        CHECK(r3[4] == -1 && e3[4] == ECANCELED);
        CHECK(r3[5] == -1 && e3[5] == ECANCELED);
        CHECK(r3[6] == -1 && e3[6] == ECANCELED);
        CHECK_EQ(fcntl(lsock, F_GETFL) & O_NONBLOCK, 0); /* modes untouched */
        CHECK_EQ(fcntl(csock, F_GETFL) & O_NONBLOCK, 0);
        struct sockaddr_in peer;
        socklen_t pl = sizeof peer;
        CHECK_EQ(getpeername(csock, (struct sockaddr *)&peer, &pl), -1); /* never connected */
        char b[8];
        CHECK_EQ(read(room[0], b, sizeof b), 4);
        CHECK_EQ(recv(sv[1], b, sizeof b, MSG_DONTWAIT), 4);
    } else {
        CHECK_EQ(ito_finalize(), ITO_EBUSY); /* part 1 */
        CHECK_EQ(atomic_load(&rd_res), -1);
        CHECK_EQ(atomic_load(&rd_err), ECANCELED);
        CHECK_EQ(ito_initialized(), 1);
        /* part 2: the runtime goes on, and so do waits on pipes */
        atomic_store(&late_res, 0);
        pthread_t pt;
        CHECK_OK(pthread_create(&pt, NULL, late_writer, NULL));
        CHECK_OK(ito_create(&t, late_reader, NULL, NULL));
        CHECK_OK(ito_join(t, NULL));
        CHECK_OK(pthread_join(pt, NULL));
        CHECK_EQ(atomic_load(&late_res), 1);
        CHECK_OK(ito_sem_post(&sem));
        CHECK_OK(ito_finalize());
        CHECK_EQ(atomic_load(&sem_done), 1);
    }
    int fds[] = {idle[0], idle[1], feed[0], feed[1], room[0], room[1], full[0], full[1], sv[0], sv[1], lsock, csock};
    for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++)
        if (fds[i] >= 0) close(fds[i]);
    CHECK_OK(unsetenv("ITO_FINALIZE_GRACE_MS"));
    CHECK_OK(unsetenv("ITO_WSC_BACKEND"));
}

int main(void)
{
    for (int b = 0; b < ITO_TEST_NBACKENDS; b++)
        for (int workers = 1; workers <= 2; workers++)
            for (int part = 0; part <= 2; part++) run(ito_test_backends[b], workers, part == 1, part == 2);
    TEST_DONE();
}
