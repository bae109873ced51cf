/* test_io_inline_yield: a ULT whose blocking-wrapper calls all complete at once still
 * gives its worker to the rest (src/wsc/wrappers.c, io_point). Found by an outside tester,
 * h74c, 2026-12-07: on the sync backend every call on a ready socket (ito_send, ito_recv,
 * ito_poll, ito_close, ito_pread of a cached file...) returned without a scheduling point,
 * and on io_uring so did ito_poll of a ready descriptor and ito_close: a ULT looping over
 * them never let its worker's timers fire or its other ULTs run, so a `while (!stop)`
 * loop whose stop main set after an ito_sleep_ns on that worker ran for ever.
 * Here, one worker, both backends: for each kind of call a ULT loops until main, asleep
 * for 1 ms, sets a stop flag, or until a cap of LOOPS rounds; main must wake (and the
 * loop see its flag) before the cap. Without the fix every kind reached the cap on the
 * sync backend, and the poll and close kinds on io_uring. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <stdatomic.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

#define LOOPS 20000 /* rounds; the fix yields at least every 16 calls */

enum { K_SENDRECV, K_POLL, K_CLOSE, K_PREAD, K_BATCH, K_NKINDS };
static const char *const kind_name[K_NKINDS] = {"send/recv", "poll", "close", "pread", "wait_all"};
static int kind, sv[2], efd, ffd;
static atomic_int stop;

static void *hot(void *arg)
{
    (void)arg;
    char c = 'x', b[8];
    long i = 0;
    for (; i < LOOPS && !atomic_load(&stop); i++) {
        switch (kind) {
        case K_SENDRECV:
            CHECK_EQ(ito_send(sv[0], &c, 1, 0), 1);
            CHECK_EQ(ito_recv(sv[1], b, 1, 0), 1);
            break;
        case K_POLL: {
            struct pollfd p = {.fd = efd, .events = POLLIN};
            CHECK_EQ(ito_poll(&p, 1, -1), 1);
            break;
        }
        case K_CLOSE: {
            int s[2];
            CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, s), 0);
            CHECK_EQ(ito_close(s[0]), 0);
            CHECK_EQ(ito_close(s[1]), 0);
            break;
        }
        case K_PREAD:
            CHECK_EQ(ito_pread(ffd, b, 1, 0), 1);
            break;
        case K_BATCH: {
            long r = 0;
            ito_sysreq_t q = {.op = ITO_SYS_PREAD, .fd = ffd, .buf = b, .len = 1, .offset = 0, .result = &r};
            CHECK_OK(ito_sys_wait_all(&q, 1));
            CHECK_EQ(r, 1);
            break;
        }
        }
    }
    return (void *)i;
}

static void round_on(const char *backend)
{
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    efd = eventfd(1, EFD_CLOEXEC);
    CHECK(efd >= 0);
    ffd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    CHECK(ffd >= 0);
    CHECK_EQ(pread(ffd, &(char){0}, 1, 0), 1); /* in the page cache */
    for (kind = 0; kind < K_NKINDS; kind++) {
        atomic_store(&stop, 0);
        ito_thread_t t;
        CHECK_OK(ito_create(&t, hot, NULL, NULL));
        CHECK_OK(ito_sleep_ns(1000000)); /* main's timer is on the hot ULT's worker */
        atomic_store(&stop, 1);
        void *rounds;
        CHECK_OK(ito_join(t, &rounds));
        if ((long)rounds >= LOOPS)
            fprintf(stderr, "%s backend, %s: main slept through all %d rounds\n", backend, kind_name[kind], LOOPS);
        CHECK((long)rounds < LOOPS);
    }
    close(sv[0]);
    close(sv[1]);
    close(efd);
    close(ffd);
}

int main(void)
{
    ito_test_each_backend(1, round_on);
    TEST_DONE();
}
