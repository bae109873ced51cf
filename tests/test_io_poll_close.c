/* test_io_poll_close: ito_close of one descriptor of an ito_poll reports POLLNVAL for that
 * descriptor only, on both backends (src/wsc/wrappers.c, end_closing_waits). A ULT on
 * worker 1 polls {a pipe that stays open and empty, a socket}; a ULT on worker 0 closes the
 * socket with ito_close after a varying delay, so the close lands before, during and after
 * the poll's registration. Found by a chaos test (2026-12-03): a close that raced the
 * registration cancelled every record of the wait as closed, and the open pipe came back
 * POLLNVAL too (89 of 3000 rounds on the sync backend). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

#if defined(ITOI_TSAN)
/* TSan reports a close(2) that runs while another thread uses the same descriptor (the
 * poll's registration: epoll_ctl, an fstat) as a race on the descriptor, which it is: the
 * program's, here on purpose. The TSan tree closes after the poll has waited a while (the
 * wake-up of a registered wait, on ito's own structures); the release and ASan trees race. */
#define ROUNDS 60
#define CLOSE_AFTER_NS (2 * 1000 * 1000)
#else
#define ROUNDS 600
#define CLOSE_AFTER_NS 0
#endif

static int pp[2], sv[2];
static struct pollfd p[2];
static atomic_int go;

static void *poller(void *arg)
{
    (void)arg;
    p[0] = (struct pollfd){.fd = pp[0], .events = POLLIN};
    p[1] = (struct pollfd){.fd = sv[0], .events = POLLIN};
    atomic_store(&go, 1);
    return (void *)(intptr_t)ito_poll(p, 2, 5000);
}

static void *closer(void *arg)
{
    unsigned spin = (unsigned)(uintptr_t)arg;
    while (!atomic_load(&go)) {
    }
    for (volatile unsigned i = 0; i < spin; i++) {
    }
    if (CLOSE_AFTER_NS) CHECK_OK(ito_sleep_ns(CLOSE_AFTER_NS));
    CHECK_EQ(ito_close(sv[0]), 0);
    return NULL;
}

static void round_on(const char *backend)
{
    /* Worker 1's common area first: set up lazily by its first request, its io_uring and
     * eventfd took the lowest free numbers, i.e. the socket's just closed by a close that
     * came before the poll registered (a wait that begins after ito_close returned uses
     * whatever the number names then: syscall.h), and the poll waited on the ring. */
    ito_test_warm_worker(1);
    int nval = 0;
    for (int it = 0; it < ROUNDS; it++) {
        CHECK_EQ(pipe2(pp, O_CLOEXEC), 0);
        CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
        atomic_store(&go, 0);
        ito_thread_t tp, tc;
        void *rv;
        ito_test_create_on(&tp, 1, poller, NULL);
        ito_test_create_on(&tc, 0, closer, (void *)(uintptr_t)((it % 64) * 50));
        CHECK_OK(ito_join(tc, NULL));
        CHECK_OK(ito_join(tp, &rv));
        if ((intptr_t)rv != 1) fprintf(stderr, "%s round %d: poll %ld revents %#x %#x\n", backend, it, (long)(intptr_t)rv, p[0].revents, p[1].revents);
        CHECK_EQ(p[0].revents, 0); /* the pipe was never closed and never readable */
        CHECK_EQ((intptr_t)rv, 1);
        CHECK_EQ(p[1].revents, POLLNVAL);
        nval++;
        close(pp[0]);
        close(pp[1]);
        close(sv[1]);
    }
    CHECK_EQ(nval, ROUNDS);
}

int main(void)
{
    ito_test_each_backend(2, round_on);
    TEST_DONE();
}
