/* test_io_ops: the system-call surface beyond read/write/send/recv, on both backends:
 * readv/writev, pread/pwrite, sendmsg/recvmsg, openat/fsync, ito_poll (one and several
 * descriptors, timeout, negative fds), ito_sys_wait_all (several requests of one ULT in
 * one crossing, results in order, bad input), split-phase POLL with a ZWT continuation,
 * and bad arguments (EBADF, EINVAL, and EFAULT for NULL pointers as the kernel says it:
 * until 2026-12-03 readv/writev/poll said EINVAL there while the others said EFAULT, and
 * the header promised EINVAL for all, found by a misuse tester). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdatomic.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"
#include "io_test.h"

#define MS 1000000ull

static void check_vectors(void)
{
    int sv[2];
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    char a[] = "hello ", b[] = "world";
    struct iovec out[2] = {{a, 6}, {b, 5}};
    CHECK_EQ(ito_writev(sv[0], out, 2), 11);
    char x[4], y[16];
    struct iovec in[2] = {{x, 4}, {y, sizeof y}};
    CHECK_EQ(ito_readv(sv[1], in, 2), 11);
    CHECK(memcmp(x, "hell", 4) == 0 && memcmp(y, "o world", 7) == 0);

    /* sendmsg/recvmsg */
    struct iovec mo = {a, 6};
    struct msghdr mh = {.msg_iov = &mo, .msg_iovlen = 1};
    CHECK_EQ(ito_sendmsg(sv[0], &mh, 0), 6);
    char r[16];
    struct iovec mi = {r, sizeof r};
    struct msghdr mr = {.msg_iov = &mi, .msg_iovlen = 1};
    CHECK_EQ(ito_recvmsg(sv[1], &mr, 0), 6);
    CHECK(memcmp(r, "hello ", 6) == 0);
    errno = 0;
    CHECK_EQ(ito_sendmsg(sv[0], NULL, 0), -1);
    CHECK_EQ(errno, EFAULT);
    errno = 0;
    CHECK_EQ(ito_readv(sv[1], in, -1), -1);
    CHECK_EQ(errno, EINVAL);
    CHECK_EQ(ito_close(sv[0]), 0);
    CHECK_EQ(ito_close(sv[1]), 0);
}

static void check_files(void)
{
    char path[] = "/tmp/ito_ops_XXXXXX";
    int tmp = mkstemp(path);
    CHECK(tmp >= 0);
    close(tmp);
    int fd = ito_openat(AT_FDCWD, path, O_RDWR, 0);
    CHECK(fd >= 0);
    CHECK_EQ(ito_pwrite(fd, "0123456789", 10, 100), 10);
    CHECK_EQ(ito_fsync(fd), 0);
    char b[10];
    CHECK_EQ(ito_pread(fd, b, 10, 100), 10);
    CHECK(memcmp(b, "0123456789", 10) == 0);
    CHECK_EQ(ito_pread(fd, b, 4, 0), 4); /* the hole reads as zeros */
    CHECK(b[0] == 0 && b[3] == 0);
    errno = 0;
    CHECK_EQ(ito_pread(fd, b, 4, -1), -1);
    CHECK_EQ(errno, EINVAL);
    CHECK_EQ(ito_write(fd, "ab", 2), 2); /* at the file position (0) */
    CHECK_EQ(ito_pread(fd, b, 2, 0), 2);
    CHECK(memcmp(b, "ab", 2) == 0);
    CHECK_EQ(ito_close(fd), 0);
    errno = 0;
    CHECK_EQ(ito_fsync(fd), -1);
    CHECK_EQ(errno, EBADF);
    unlink(path);
}

static int psv[2], psv2[2];
static void *late_writer(void *unused)
{
    (void)unused;
    CHECK_OK(ito_sleep_ns(15 * MS));
    CHECK_EQ(write(psv2[0], "!", 1), 1);
    return NULL;
}

static void check_poll(void)
{
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, psv), 0);
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, psv2), 0);
    struct pollfd p[3] = {{psv[1], POLLIN, 0}, {-1, POLLIN, 0}, {psv2[1], POLLIN, 0}};
    uint64_t t0 = ito_now_ns();
    CHECK_EQ(ito_poll(p, 3, 10), 0); /* timeout */
    CHECK(ito_now_ns() >= t0 + 10 * MS);
    CHECK_EQ(ito_poll(p, 3, 0), 0);
    ito_thread_t t;
    CHECK_OK(ito_create(&t, late_writer, NULL, NULL));
    CHECK_EQ(ito_poll(p, 3, -1), 1); /* the second descriptor wakes it */
    CHECK_EQ(p[0].revents, 0);
    CHECK_EQ(p[1].revents, 0);
    CHECK(p[2].revents & POLLIN);
    CHECK_OK(ito_join(t, NULL));
    struct pollfd w = {psv[0], POLLOUT, 0};
    CHECK_EQ(ito_poll(&w, 1, -1), 1);
    CHECK(w.revents & POLLOUT);
    /* the I/O deadline applies to poll too */
    CHECK_OK(ito_io_deadline(ito_deadline_in(5 * MS)));
    errno = 0;
    CHECK_EQ(ito_poll(p, 1, -1), -1);
    CHECK_EQ(errno, ETIMEDOUT);
    CHECK_OK(ito_io_deadline(ITO_FOREVER));
    errno = 0;
    CHECK_EQ(ito_poll(NULL, 1, 0), -1);
    CHECK_EQ(errno, EFAULT); /* as poll(2) */
    ito_close(psv[0]);
    ito_close(psv[1]);
    ito_close(psv2[0]);
    ito_close(psv2[1]);
}

static void check_wait_all(int uring)
{
    enum { N = 16 };
    ito_sysreq_t q[N];
    long res[N];
    int sv[2];
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    char msg[N][8], got[8 * N];
    for (int i = 0; i < N; i++) {
        snprintf(msg[i], sizeof msg[i], "m%06d", i);
        q[i] = (ito_sysreq_t){.op = ITO_SYS_SEND, .fd = sv[0], .buf = msg[i], .len = 8, .result = &res[i]};
    }
    ito_wsc_stats_t s0, s1;
    CHECK_OK(ito_wsc_stats(&s0));
    CHECK_OK(ito_sys_wait_all(q, N));
    CHECK_OK(ito_wsc_stats(&s1));
    for (int i = 0; i < N; i++) CHECK_EQ(res[i], 8);
    if (uring) CHECK_EQ(s1.crossings - s0.crossings, 1); /* one thread's batch, one crossing */
    size_t have = 0;
    while (have < sizeof got) {
        ssize_t n = ito_recv(sv[1], got + have, sizeof got - have, 0);
        CHECK(n > 0);
        have += (size_t)n;
    }
    for (int i = 0; i < N; i++) CHECK(memcmp(got + 8 * i, msg[i], 8) == 0); /* in order */
    /* a batch with a recv that waits, cut by the I/O deadline: the others complete */
    char rb[4];
    ito_sysreq_t mix[2] = {{.op = ITO_SYS_NOP, .result = &res[0]},
                           {.op = ITO_SYS_RECV, .fd = sv[1], .buf = rb, .len = 4, .result = &res[1]}};
    CHECK_OK(ito_io_deadline(ito_deadline_in(5 * MS)));
    CHECK_OK(ito_sys_wait_all(mix, 2));
    CHECK_OK(ito_io_deadline(ITO_FOREVER));
    CHECK_EQ(res[0], 0);
    CHECK_EQ(res[1], -ETIMEDOUT);
    /* bad input: nothing is posted */
    ito_sysreq_t bad[2] = {{.op = ITO_SYS_NOP}, {.op = ITO_SYS_READ, .fd = -3, .buf = rb, .len = 1}};
    CHECK_EQ(ito_sys_wait_all(bad, 2), ITO_EINVAL);
    CHECK_EQ(ito_sys_wait_all(NULL, 1), ITO_EINVAL);
    CHECK_OK(ito_sys_wait_all(NULL, 0));
    CHECK_EQ(ito_sys_wait_all(q, 5000), ITO_ERANGE);
    ito_close(sv[0]);
    ito_close(sv[1]);
}

/* split-phase POLL: a ZWT continuation receives the revents */
static _Atomic long zwt_got;
static void on_poll(ito_frame_t *f, int entry, uint64_t v)
{
    (void)f;
    (void)entry;
    atomic_store(&zwt_got, (long)v);
}

static void check_split_phase_poll(void)
{
    int sv[2];
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    ito_frame_t *f;
    CHECK_OK(ito_frame_create(&f, 1, 0));
    CHECK_OK(ito_entry_set(f, 0, on_poll, 1, ITO_MODE_USER));
    atomic_store(&zwt_got, -1);
    ito_sysreq_t q = {.op = ITO_SYS_POLL, .fd = sv[1], .events = POLLIN, .frame = f, .entry = 0};
    CHECK_OK(ito_sys_post(&q));
    CHECK_OK(ito_sleep_ns(5 * MS));
    CHECK_EQ(atomic_load(&zwt_got), -1); /* nothing to read yet */
    CHECK_EQ(write(sv[0], "p", 1), 1);
    while (atomic_load(&zwt_got) == -1) ito_yield();
    CHECK(atomic_load(&zwt_got) & POLLIN);
    ito_sysreq_t bad = {.op = ITO_SYS_POLL, .fd = sv[1], .events = 0};
    CHECK_EQ(ito_sys_post(&bad), ITO_EINVAL);
    CHECK_OK(ito_frame_destroy(f));
    ito_close(sv[0]);
    ito_close(sv[1]);
}

#define EXPECT_ERRNO(call, e)                                                                    \
    do {                                                                                         \
        errno = 0;                                                                               \
        long r_ = (long)(call);                                                                  \
        if (r_ != -1 || errno != (e)) printf("%s: %ld, errno %d (want %d)\n", #call, r_, errno, (e)); \
        CHECK_EQ(r_, -1);                                                                        \
        CHECK_EQ(errno, (e));                                                                    \
    } while (0)

static void check_bad_pointers(void)
{
    int sv[2];
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    EXPECT_ERRNO(ito_read(sv[0], NULL, 4), EFAULT);
    EXPECT_ERRNO(ito_write(sv[0], NULL, 4), EFAULT);
    EXPECT_ERRNO(ito_pread(sv[0], NULL, 4, 0), EFAULT);
    EXPECT_ERRNO(ito_pwrite(sv[0], NULL, 4, 0), EFAULT);
    EXPECT_ERRNO(ito_pread(sv[0], NULL, 4, -1), EINVAL); /* the offset, as pread(2) */
    EXPECT_ERRNO(ito_send(sv[0], NULL, 4, 0), EFAULT);
    EXPECT_ERRNO(ito_recv(sv[0], NULL, 4, 0), EFAULT);
    EXPECT_ERRNO(ito_readv(sv[0], NULL, 2), EFAULT);
    EXPECT_ERRNO(ito_writev(sv[0], NULL, 2), EFAULT);
    EXPECT_ERRNO(ito_readv(sv[0], NULL, -1), EINVAL);
    EXPECT_ERRNO(ito_writev(sv[0], NULL, 1025), EINVAL);
    EXPECT_ERRNO(ito_sendmsg(sv[0], NULL, 0), EFAULT);
    EXPECT_ERRNO(ito_recvmsg(sv[0], NULL, 0), EFAULT);
    EXPECT_ERRNO(ito_connect(sv[0], NULL, 16), EFAULT);
    EXPECT_ERRNO(ito_openat(AT_FDCWD, NULL, O_RDONLY, 0), EFAULT);
    EXPECT_ERRNO(ito_poll(NULL, 2, 0), EFAULT);
    EXPECT_ERRNO(ito_poll(NULL, 1025, 0), EINVAL);
    EXPECT_ERRNO(ito_read(-1, NULL, 4), EBADF); /* the descriptor first, as the kernel */
    EXPECT_ERRNO(ito_readv(-1, NULL, 2), EBADF);
    EXPECT_ERRNO(ito_connect(-1, NULL, 16), EBADF);
    /* in the kernel's order (found by a reviewer, 2026-12-03: ito said EFAULT first) */
    int closed = dup(sv[0]);
    CHECK(closed >= 0);
    close(closed);
    EXPECT_ERRNO(ito_read(closed, NULL, 4), EBADF);        /* the descriptor before the pointer */
    EXPECT_ERRNO(ito_readv(closed, NULL, 2000), EBADF);
    char one;
    EXPECT_ERRNO(ito_pread(-1, &one, 1, -1), EINVAL);      /* the offset before the descriptor */
    EXPECT_ERRNO(ito_connect(sv[0], NULL, 0), EINVAL);     /* (NULL, 0) reaches the kernel */
    CHECK_EQ(ito_read(sv[0], NULL, 0), 0); /* no length: nothing to fault on */
    CHECK_EQ(ito_close(sv[0]), 0);
    CHECK_EQ(ito_close(sv[1]), 0);
}

/* A TCP receive with MSG_TRUNC discards what it reads: a NULL buffer is valid there
 * (ito said EFAULT until 2026-12-03). Also with MSG_WAITALL (the parts' arithmetic). */
static void check_recv_trunc(void)
{
    int l = socket(AF_INET, SOCK_STREAM, 0);
    CHECK(l >= 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t sl = sizeof sa;
    CHECK_EQ(bind(l, (struct sockaddr *)&sa, sizeof sa), 0);
    CHECK_EQ(listen(l, 1), 0);
    CHECK_EQ(getsockname(l, (struct sockaddr *)&sa, &sl), 0);
    int c = socket(AF_INET, SOCK_STREAM, 0);
    CHECK(c >= 0);
    CHECK_EQ(ito_connect(c, (struct sockaddr *)&sa, sizeof sa), 0);
    int s = ito_accept(l, NULL, NULL);
    CHECK(s >= 0);
    CHECK_EQ(ito_write(c, "abcdefgh", 8), 8);
    CHECK_EQ(ito_recv(s, NULL, 3, MSG_TRUNC | MSG_WAITALL), 3);
    char rest[8];
    CHECK_EQ(ito_recv(s, rest, 5, MSG_WAITALL), 5);
    CHECK(memcmp(rest, "defgh", 5) == 0);
    CHECK_EQ(ito_close(s), 0);
    CHECK_EQ(ito_close(c), 0);
    CHECK_EQ(ito_close(l), 0);
}

static void *all(void *arg)
{
    check_bad_pointers();
    check_recv_trunc();
    check_vectors();
    check_files();
    check_poll();
    check_wait_all((int)(intptr_t)arg);
    check_split_phase_poll();
    return NULL;
}

int main(void)
{
    io_each_backend(all, 1);
    TEST_DONE();
}
