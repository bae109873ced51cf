/* test_io_nowait_yield: blocking wrappers that never have to wait still let the worker's
 * other ULTs run. On the sync backend (and on io_uring for a regular file read at its
 * position) a wrapper's first attempt is the ULT's own non-blocking call, and ito_poll
 * looks at its descriptors before it waits on either backend: a call that succeeded (or
 * failed) at once returned with no scheduling point. A loop of such calls (an accept loop
 * under a flood of connections, a receive loop on a socket the peer keeps full, a retry
 * loop on EMFILE) then ran for as long as the calls kept ending at once, and no other ULT
 * of its worker ran meanwhile, not even the ones it created to handle the connections
 * (found by an outside tester, h74a, 2026-12-07: an echo server on the sync backend under
 * tens of thousands of connections a second held 7,400 accepted connections whose
 * handlers had not started, 10,278 descriptors open, where it otherwise held 40; an accept
 * loop that retried at once on EMFILE would never let the handlers close theirs).
 * Checked on both backends with one worker: a ULT created before a loop of 2,000 calls that
 * all end at once must have run before the loop ends: ito_recv of queued bytes,
 * ito_recv with MSG_DONTWAIT on an empty socket (EAGAIN at once, errno kept),
 * ito_accept of queued connections, ito_poll of a readable descriptor, ito_read of a
 * regular file. (The fix, io_point in src/wsc/wrappers.c, came from h74c, who found the
 * same fault from a `while (!stop)` loop: tests/test_io_inline_yield.c.) */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

#define CALLS 2000

static _Atomic int ran;

/* Starts a ULT that marks `ran`, runs CALLS calls of kind k that all end without
 * waiting, and says whether that ULT ran before the last one returned. */
static int loop_lets_others_run(int k, int fd)
{
    atomic_store(&ran, 0);
    ito_thread_t t;
    CHECK_OK(ito_create(&t, ito_test_mark_ran, &ran, NULL));
    int seen = 0;
    char c;
    for (int i = 0; i < CALLS; i++) {
        switch (k) {
        case 0: CHECK_EQ(ito_recv(fd, &c, 1, 0), 1); break;
        case 1:
            errno = 0;
            CHECK_EQ(ito_recv(fd, &c, 1, MSG_DONTWAIT), -1);
            CHECK_EQ(errno, EAGAIN);
            break;
        case 2: {
            int a = ito_accept(fd, NULL, NULL);
            CHECK(a >= 0);
            close(a);
            break;
        }
        case 3: {
            struct pollfd p = {.fd = fd, .events = POLLIN};
            CHECK_EQ(ito_poll(&p, 1, -1), 1);
            break;
        }
        case 4: CHECK_EQ(ito_pread(fd, &c, 1, 0), 1); CHECK_EQ(ito_read(fd, &c, 1), 1); break;
        }
        if (atomic_load(&ran)) seen = 1;
    }
    CHECK_OK(ito_join(t, NULL));
    return seen;
}

static void round_(const char *backend)
{
    (void)backend;
    int sv[2];
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    char buf[CALLS];
    memset(buf, 'x', sizeof buf);
    CHECK_EQ(write(sv[1], buf, sizeof buf), (ssize_t)sizeof buf);
    CHECK(loop_lets_others_run(0, sv[0])); /* queued bytes */
    CHECK(loop_lets_others_run(1, sv[0])); /* EAGAIN at once */
    CHECK_EQ(write(sv[1], "y", 1), 1);
    CHECK(loop_lets_others_run(3, sv[0])); /* readable */
    close(sv[0]);
    close(sv[1]);

    /* queued connections on a unix listening socket */
    int l = socket(AF_UNIX, SOCK_STREAM, 0);
    CHECK(l >= 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path + 1, sizeof sa.sun_path - 1, "ito-nowait-%d", (int)getpid()); /* abstract */
    socklen_t sl = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(sa.sun_path + 1));
    CHECK_EQ(bind(l, (struct sockaddr *)&sa, sl), 0);
    CHECK_EQ(listen(l, CALLS), 0);
    static int cl[CALLS];
    for (int i = 0; i < CALLS; i++) {
        cl[i] = socket(AF_UNIX, SOCK_STREAM, 0);
        CHECK(cl[i] >= 0);
        CHECK_EQ(connect(cl[i], (struct sockaddr *)&sa, sl), 0);
    }
    CHECK(loop_lets_others_run(2, l));
    for (int i = 0; i < CALLS; i++) close(cl[i]);
    close(l);

    /* a regular file (its reads run as on the sync backend on io_uring too) */
    char path[] = "/tmp/ito-nowait-XXXXXX";
    int f = mkstemp(path);
    CHECK(f >= 0);
    unlink(path);
    CHECK_EQ(write(f, buf, sizeof buf), (ssize_t)sizeof buf);
    CHECK_EQ(lseek(f, 0, SEEK_SET), 0);
    CHECK(loop_lets_others_run(4, f));
    close(f);
}

int main(void)
{
    struct rlimit rl;
    CHECK_EQ(getrlimit(RLIMIT_NOFILE, &rl), 0);
    if (rl.rlim_cur < CALLS + 64) {
        rl.rlim_cur = rl.rlim_max < CALLS + 64 ? rl.rlim_max : CALLS + 64;
        CHECK_EQ(setrlimit(RLIMIT_NOFILE, &rl), 0);
    }
    if (rl.rlim_cur < CALLS + 64) {
        printf("skip: RLIMIT_NOFILE too low\n");
        TEST_DONE();
    }
    ito_test_each_backend(1, round_);
    TEST_DONE();
}
