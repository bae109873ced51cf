/* test_io_waitall_ctl: an ito_recvmsg with MSG_WAITALL and a control buffer whose later
 * part ends without data reports no ancillary data that never came.
 *
 * Found by a server tester (2026-12-03): the first part brought 10 bytes and no control
 * data; the later part, ended by the I/O deadline, ito_cancel_io or a reset, left the
 * caller's msg_controllen at the buffer's whole size, and CMSG_FIRSTHDR then parsed
 * whatever the buffer held (every run, both backends, 1 and 2 workers). Each round: a
 * unix stream pair with 10 bytes waiting, a receive of 100 with MSG_WAITALL ended by
 * (a) its deadline, (b) ito_cancel_io, (c) the peer's shutdown (the kernel's own 0: the
 * control case); the call returns the 10 bytes with msg_controllen 0 and no header. And
 * (d) descriptors that do come in a later part still reach the caller.
 *
 * And MSG_CTRUNC (found by a reviewer, 2026-12-03): with a control buffer too small for a
 * descriptor the kernel says msg_controllen 0 and MSG_CTRUNC, and the call went on past
 * that part with the flag lost (the kernel's recvmsg: 3 bytes and MSG_CTRUNC; ito: 4 and
 * no flag). (e) "ab", then "c" with a descriptor, then "d": 3 bytes and MSG_CTRUNC;
 * (f) the descriptor with the first part: 1 byte and MSG_CTRUNC. (g), (h): the same with
 * no control buffer at all (msg_control NULL; a later reviewer: the call went on past
 * the descriptor there, io_uring's own MSG_WAITALL retry or ito's parts). (i), (j): with
 * SO_PASSCRED every part carries credentials. A fourth reviewer found such receives ended
 * after their first part; the next fix went on, and a fifth found that this lost a
 * descriptor on io_uring (the part that brought it was not the one looked at), leaked
 * pidfds and merged two writers' bytes under the last one's credentials. Now the call ends
 * after the first part with control data (documented limit): 10 bytes waiting, 10 more
 * 30 ms later: 10, then the next call gets the other 10; and "ab", then "c" with a
 * descriptor: the descriptor reaches the caller, on both backends. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

#define MS 1000000ull

static int sv[2];
static int how;

typedef union {
    char b[CMSG_SPACE(sizeof(int) * 4)];
    struct cmsghdr align;
} ctl_t;

static void *receiver(void *unused)
{
    (void)unused;
    char buf[100];
    ctl_t u;
    memset(u.b, 0xab, sizeof u.b); /* what the caller's buffer held before */
    struct iovec v = {buf, sizeof buf};
    struct msghdr m = {.msg_iov = &v, .msg_iovlen = 1, .msg_control = u.b, .msg_controllen = sizeof u.b};
    if (how == 0) CHECK_OK(ito_io_deadline(ito_deadline_in(50 * MS)));
    ssize_t r = ito_recvmsg(sv[1], &m, MSG_WAITALL);
    CHECK_OK(ito_io_deadline(ITO_FOREVER));
    if (how == 3) {
        /* the descriptor came with the second part: the call ends there, with it */
        CHECK_EQ(r, 15);
        CHECK(m.msg_controllen > 0);
        struct cmsghdr *c = CMSG_FIRSTHDR(&m);
        CHECK(c != NULL && c->cmsg_type == SCM_RIGHTS);
        int got;
        memcpy(&got, CMSG_DATA(c), sizeof got);
        CHECK(got >= 0);
        close(got);
        return NULL;
    }
    if (r != 10 || m.msg_controllen != 0)
        printf("how %d: %zd, msg_controllen %zu of %zu\n", how, r, (size_t)m.msg_controllen, sizeof u.b);
    CHECK_EQ(r, 10);
    CHECK_EQ(memcmp(buf, "0123456789", 10), 0);
    CHECK_EQ((long)m.msg_controllen, 0);
    CHECK(CMSG_FIRSTHDR(&m) == NULL);
    return NULL;
}

/* Send `data` with a descriptor (SCM_RIGHTS) on fd. */
static void send_with_fd(int fd, const char *data)
{
    int pass = dup(0);
    CHECK(pass >= 0);
    ctl_t u;
    memset(&u, 0, sizeof u);
    struct iovec v = {(void *)data, strlen(data)};
    struct msghdr m = {.msg_iov = &v, .msg_iovlen = 1, .msg_control = u.b, .msg_controllen = CMSG_SPACE(sizeof(int))};
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &pass, sizeof pass);
    CHECK_EQ(sendmsg(fd, &m, 0), (ssize_t)strlen(data));
    close(pass);
}

static int nobuf;

/* (e) to (h): the receive of 4 with MSG_WAITALL into a control buffer with no room for a
 * descriptor ends after the part that brought it, with MSG_CTRUNC. */
static void *truncating(void *arg)
{
    long want = (long)(intptr_t)arg;
    char buf[4];
    union {
        struct cmsghdr h;
        char b[sizeof(struct cmsghdr)];
    } u;
    struct iovec v = {buf, sizeof buf};
    struct msghdr m = {.msg_iov = &v, .msg_iovlen = 1, .msg_control = nobuf ? NULL : u.b,
                       .msg_controllen = nobuf ? 0 : sizeof u.b};
    ssize_t r = ito_recvmsg(sv[1], &m, MSG_WAITALL);
    if (r != want || !(m.msg_flags & MSG_CTRUNC))
        printf("truncating: %zd (want %ld), flags %#x\n", r, want, (unsigned)m.msg_flags);
    CHECK_EQ(r, want);
    CHECK(m.msg_flags & MSG_CTRUNC);
    return NULL;
}

static void one_truncating(int first)
{
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    if (first) {
        send_with_fd(sv[0], "a");
        CHECK_EQ(write(sv[0], "bcd", 3), 3);
    } else {
        CHECK_EQ(write(sv[0], "ab", 2), 2);
    }
    ito_thread_t t;
    CHECK_OK(ito_create(&t, truncating, (void *)(intptr_t)(first ? 1 : 3), NULL));
    CHECK_OK(ito_sleep_ns(20 * MS));
    if (!first) {
        send_with_fd(sv[0], "c");
        CHECK_EQ(write(sv[0], "d", 1), 1);
    }
    CHECK_OK(ito_join(t, NULL));
    close(sv[0]);
    close(sv[1]);
}

static void one(int mode)
{
    how = mode;
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    CHECK_EQ(write(sv[0], "0123456789", 10), 10); /* no descriptors with these */
    ito_thread_t t;
    CHECK_OK(ito_create(&t, receiver, NULL, NULL));
    CHECK_OK(ito_sleep_ns(20 * MS)); /* its first part has come back; the second waits */
    if (mode == 1) CHECK_OK(ito_cancel_io(t));
    if (mode == 2) CHECK_EQ(shutdown(sv[0], SHUT_WR), 0);
    if (mode == 3) send_with_fd(sv[0], "abcde");
    CHECK_OK(ito_join(t, NULL));
    close(sv[0]);
    close(sv[1]);
}

static int cred_buf;

static void *cred_receiver(void *unused)
{
    (void)unused;
    char buf[20];
    union {
        struct cmsghdr h;
        char b[256];
    } u;
    struct iovec v = {buf, sizeof buf};
    struct msghdr m = {.msg_iov = &v, .msg_iovlen = 1, .msg_control = cred_buf ? u.b : NULL,
                       .msg_controllen = cred_buf ? sizeof u.b : 0};
    ssize_t r = ito_recvmsg(sv[1], &m, MSG_WAITALL);
    if (r != 10) printf("credentials, buffer %d: %zd, flags %#x\n", cred_buf, r, (unsigned)m.msg_flags);
    CHECK_EQ(r, 10); /* ends after the first part: it carried credentials */
    CHECK_EQ(memcmp(buf, "0123456789", 10), 0);
    v = (struct iovec){buf + 10, 10};
    m = (struct msghdr){.msg_iov = &v, .msg_iovlen = 1, .msg_control = cred_buf ? u.b : NULL,
                        .msg_controllen = cred_buf ? sizeof u.b : 0};
    CHECK_EQ(ito_recvmsg(sv[1], &m, MSG_WAITALL), 10); /* the rest, nothing lost */
    CHECK_EQ(memcmp(buf, "0123456789abcdefghij", 20), 0);
    /* "ab", then "c" with a descriptor: it reaches the caller (a buffer with room) */
    CHECK_EQ(write(sv[0], "ab", 2), 2);
    send_with_fd(sv[0], "c");
    char out[3];
    size_t got = 0;
    int fds = 0;
    while (got < 3) {
        v = (struct iovec){out + got, 3 - got};
        m = (struct msghdr){.msg_iov = &v, .msg_iovlen = 1, .msg_control = u.b, .msg_controllen = sizeof u.b};
        ssize_t k = ito_recvmsg(sv[1], &m, MSG_WAITALL);
        CHECK(k > 0);
        got += (size_t)k;
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
                int fd;
                memcpy(&fd, CMSG_DATA(c), sizeof fd);
                close(fd);
                fds++;
            }
    }
    CHECK_EQ(memcmp(out, "abc", 3), 0);
    CHECK_EQ(fds, 1);
    return NULL;
}

static void one_credentials(int with_buf)
{
    cred_buf = with_buf;
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    int on = 1;
    CHECK_EQ(setsockopt(sv[1], SOL_SOCKET, SO_PASSCRED, &on, sizeof on), 0);
    CHECK_EQ(write(sv[0], "0123456789", 10), 10);
    ito_thread_t t;
    CHECK_OK(ito_create(&t, cred_receiver, NULL, NULL));
    CHECK_OK(ito_sleep_ns(30 * MS));
    CHECK_EQ(write(sv[0], "abcdefghij", 10), 10);
    CHECK_OK(ito_join(t, NULL));
    close(sv[0]);
    close(sv[1]);
}

static void round_on(const char *backend)
{
    (void)backend;
    for (int mode = 0; mode < 4; mode++) one(mode);
    for (nobuf = 0; nobuf < 2; nobuf++) {
        one_truncating(0);
        one_truncating(1);
    }
    one_credentials(0);
    one_credentials(1);
}

int main(void)
{
    ito_test_each_backend(1, round_on);
    ito_test_each_backend(2, round_on);
    TEST_DONE();
}
