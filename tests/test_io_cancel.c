/* test_io_cancel: what ends a blocking wrapper early, on both backends and 1-2 workers.
 *  - ito_close wakes ULTs waiting on the descriptor (accept, recv), on any worker,
 *    with EBADF;
 *  - the ULT's I/O deadline: recv and accept fail with ETIMEDOUT, no earlier than the
 *    deadline; data that arrives in time is returned; ITO_FOREVER clears it;
 *  - ito_cancel_io: a parked recv fails with ECANCELED; a cancel sent while the ULT is
 *    not waiting is kept for its next call (never lost) and consumed once; an accept loop
 *    stops cleanly; bad handles give errors;
 *  - errno is right after a wrapper failed on another kernel thread than it started. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

#define MS 1000000ull

static int listener(struct sockaddr_in *addr)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    CHECK(fd >= 0);
    memset(addr, 0, sizeof *addr);
    addr->sin_family = AF_INET;
    addr->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    CHECK_EQ(bind(fd, (struct sockaddr *)addr, sizeof *addr), 0);
    socklen_t len = sizeof *addr;
    CHECK_EQ(getsockname(fd, (struct sockaddr *)addr, &len), 0);
    CHECK_EQ(listen(fd, 64), 0);
    return fd;
}

/* ---- close wakes waiters ---- */
static _Atomic int woke_errno[4];
typedef struct { int fd, slot, accept; } waiter_arg_t;

static void *fd_waiter(void *p)
{
    waiter_arg_t *a = p;
    char b[16];
    errno = 0;
    long r = a->accept ? ito_accept(a->fd, NULL, NULL) : ito_recv(a->fd, b, sizeof b, 0);
    CHECK_EQ(r, -1);
    atomic_store(&woke_errno[a->slot], errno);
    return NULL;
}

static void check_close(int workers)
{
    struct sockaddr_in addr;
    int lfd = listener(&addr);
    int sv[2];
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    waiter_arg_t args[3] = {{lfd, 0, 1}, {sv[1], 1, 0}, {sv[1], 2, 0}};
    ito_thread_t t[3];
    ito_attr_t at;
    for (int i = 0; i < 3; i++) {
        atomic_store(&woke_errno[i], 0);
        CHECK_OK(ito_attr_init(&at));
        at.worker = i % workers; /* waiters on every worker */
        CHECK_OK(ito_create(&t[i], fd_waiter, &args[i], &at));
    }
    CHECK_OK(ito_sleep_ns(30 * MS)); /* they are parked now */
    CHECK_EQ(ito_close(lfd), 0);
    CHECK_EQ(ito_close(sv[1]), 0);
    for (int i = 0; i < 3; i++) CHECK_OK(ito_join(t[i], NULL));
    for (int i = 0; i < 3; i++) CHECK_EQ(atomic_load(&woke_errno[i]), EBADF);
    close(sv[0]);
    errno = 0;
    CHECK_EQ(ito_close(-1), -1);
    CHECK_EQ(errno, EBADF);
}

/* ---- deadlines ---- */
static void check_deadline(void)
{
    int sv[2];
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    char b[16];
    uint64_t t0 = ito_now_ns();
    CHECK_OK(ito_io_deadline(t0 + 20 * MS));
    errno = 0;
    CHECK_EQ(ito_recv(sv[1], b, sizeof b, 0), -1);
    CHECK_EQ(errno, ETIMEDOUT);
    CHECK(ito_now_ns() >= t0 + 20 * MS);
    /* in time: the data, not the error */
    CHECK_OK(ito_io_deadline(ito_deadline_in(5000 * MS)));
    CHECK_EQ(write(sv[0], "abc", 3), 3);
    CHECK_EQ(ito_recv(sv[1], b, sizeof b, 0), 3);
    /* a deadline in the past makes the call a try */
    CHECK_OK(ito_io_deadline(1));
    errno = 0;
    CHECK_EQ(ito_recv(sv[1], b, sizeof b, 0), -1);
    CHECK_EQ(errno, ETIMEDOUT);
    CHECK_EQ(write(sv[0], "de", 2), 2);
    CHECK_EQ(ito_recv(sv[1], b, sizeof b, 0), 2); /* ready: succeeds even past the deadline */
    /* accept with a deadline */
    struct sockaddr_in addr;
    int lfd = listener(&addr);
    CHECK_OK(ito_io_deadline(ito_deadline_in(10 * MS)));
    errno = 0;
    CHECK_EQ(ito_accept(lfd, NULL, NULL), -1);
    CHECK_EQ(errno, ETIMEDOUT);
    CHECK_OK(ito_io_deadline(ITO_FOREVER));
    CHECK_EQ(ito_close(lfd), 0);
    close(sv[0]);
    close(sv[1]);
}

/* ---- ito_cancel_io ---- */
static int csv[2];
static _Atomic int c_state, c_errno;
static void *cancel_target(void *unused)
{
    (void)unused;
    char b[16];
    atomic_store(&c_state, 1);
    errno = 0;
    CHECK_EQ(ito_recv(csv[1], b, sizeof b, 0), -1);
    atomic_store(&c_errno, errno);
    /* the cancellation was consumed: the next call works */
    CHECK_EQ(ito_recv(csv[1], b, sizeof b, 0), 4);
    atomic_store(&c_state, 2);
    /* a cancellation while not waiting: kept for the next call */
    while (atomic_load(&c_state) != 3) ito_yield();
    errno = 0;
    CHECK_EQ(ito_recv(csv[1], b, sizeof b, 0), -1);
    CHECK_EQ(errno, ECANCELED);
    CHECK_EQ(ito_recv(csv[1], b, sizeof b, MSG_DONTWAIT), 2); /* once only */
    return NULL;
}

static void *foreign_cancel(void *h) { return (void *)(intptr_t)ito_cancel_io((ito_thread_t)h); }

/* an accept loop that is stopped from outside */
static _Atomic int accepted;
static void *acceptor(void *arg)
{
    int lfd = (int)(intptr_t)arg;
    for (;;) {
        int c = ito_accept(lfd, NULL, NULL);
        if (c < 0) {
            CHECK_EQ(errno, ECANCELED);
            break;
        }
        atomic_fetch_add(&accepted, 1);
        ito_close(c);
    }
    return NULL;
}

static void check_cancel(void)
{
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, csv), 0);
    atomic_store(&c_state, 0);
    atomic_store(&c_errno, 0);
    ito_thread_t t;
    CHECK_OK(ito_create(&t, cancel_target, NULL, NULL));
    while (atomic_load(&c_state) != 1) ito_yield();
    CHECK_OK(ito_sleep_ns(10 * MS)); /* parked in recv */
    pthread_t th; /* from a foreign thread */
    void *rc;
    CHECK_EQ(pthread_create(&th, NULL, foreign_cancel, t), 0);
    pthread_join(th, &rc);
    CHECK_EQ((intptr_t)rc, ITO_OK);
    while (atomic_load(&c_errno) == 0) ito_yield();
    CHECK_EQ(atomic_load(&c_errno), ECANCELED);
    CHECK_EQ(write(csv[0], "data", 4), 4);
    while (atomic_load(&c_state) != 2) ito_yield();
    CHECK_OK(ito_cancel_io(t)); /* from a ULT, while it does not wait */
    CHECK_EQ(write(csv[0], "zz", 2), 2);
    atomic_store(&c_state, 3);
    CHECK_OK(ito_join(t, NULL));
    CHECK_EQ(ito_cancel_io(t), ITO_EJOINED);
    CHECK_EQ(ito_cancel_io(NULL), ITO_EINVAL);
    close(csv[0]);
    close(csv[1]);

    struct sockaddr_in addr;
    int lfd = listener(&addr);
    atomic_store(&accepted, 0);
    CHECK_OK(ito_create(&t, acceptor, (void *)(intptr_t)lfd, NULL));
    for (int i = 0; i < 5; i++) {
        int c = socket(AF_INET, SOCK_STREAM, 0);
        CHECK_EQ(ito_connect(c, (struct sockaddr *)&addr, sizeof addr), 0);
        close(c);
    }
    while (atomic_load(&accepted) < 5) ito_yield();
    CHECK_OK(ito_cancel_io(t));
    CHECK_OK(ito_join(t, NULL));
    CHECK_EQ(ito_close(lfd), 0);
}

static void run(const char *backend, int workers)
{
    setenv("ITO_WSC_BACKEND", backend, 1);
    ito_config_t cfg = {.workers = workers};
    CHECK_OK(ito_init(&cfg));
    check_close(workers);
    check_deadline();
    check_cancel();
    CHECK_OK(ito_finalize());
    CHECK_EQ(ito_cancel_io((ito_thread_t)&cfg), ITO_ESTATE); /* no runtime */
}

int main(void)
{
    CHECK_EQ(ito_io_deadline(0), ITO_ENOTULT);
    for (int workers = 1; workers <= 2; workers++) {
        run("uring", workers);
        run("sync", workers);
    }
    unsetenv("ITO_WSC_BACKEND");
    TEST_DONE();
}
