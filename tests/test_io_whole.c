/* test_io_whole: whole transfers through the wrappers, on both backends (syscall.h, "Whole
 * transfers"). write(2) and send(2) on a blocking pipe or stream socket return only when
 * every byte has moved; the wrappers returned what one io_uring request or one
 * non-blocking attempt moved (a 4 MiB ito_write to a pipe gave 65,536: a program that
 * wrote a reply and closed lost the rest). Also: recv with MSG_WAITALL fills the buffer
 * (or stops at end of file) on the sync backend too; MSG_DONTWAIT makes one attempt on
 * both (the sync backend waited for readiness); a deadline after a part returns the count
 * so far, and the next call the error; a regular file's short count (RLIMIT_FSIZE) is
 * returned as write(2) returns it; the rest of a write never goes to another file that took
 * the descriptor's number between two parts. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"
#include "io_test.h"
#include "wsc/wsc.h" /* ITOI_WSC_GEN_SLOTS */

#define BIG ((size_t)4 << 20)

static unsigned char *src, *dst;

typedef struct {
    int fd;
    size_t want, got;
    int by_recv;
    int bump; /* after each read, ito_close an unrelated descriptor (another file's close) */
} sink_t;

/* Reads up to `want` bytes in pieces of 64 KiB (or until end of file). */
static void *sink(void *arg)
{
    sink_t *s = arg;
    while (s->got < s->want) {
        size_t n = s->want - s->got < 65536 ? s->want - s->got : 65536;
        ssize_t r = s->by_recv ? ito_recv(s->fd, dst + s->got, n, 0) : ito_read(s->fd, dst + s->got, n);
        CHECK(r >= 0);
        if (r == 0) break;
        s->got += (size_t)r;
        if (s->bump) {
            int u[2];
            CHECK_EQ(pipe(u), 0);
            CHECK_EQ(ito_close(u[1]), 0);
            close(u[0]);
        }
    }
    return NULL;
}

/* Part 9: while the writer's second part waits, its descriptor number is made to name
 * another pipe (dup2, as a reuse of the number after a close would), and a descriptor
 * that shares the number's close generation (fd + ITOI_WSC_GEN_SLOTS: an ito_close of the
 * number itself would cancel the waiting part, and the window under test is after a part
 * completed) is closed with ito_close; then room is made in the first pipe. */
typedef struct {
    int p1r, p1w, p2w, spare;
} swap_t;

static void *swapper(void *arg)
{
    swap_t *x = arg;
    CHECK_OK(ito_sleep_ns(20 * 1000 * 1000));
    CHECK_EQ(dup2(x->p2w, x->p1w), x->p1w);
    int alias = x->p1w + ITOI_WSC_GEN_SLOTS;
    CHECK_EQ(dup2(x->spare, alias), alias);
    CHECK_EQ(ito_close(alias), 0);
    CHECK_EQ(ito_read(x->p1r, dst, 65536), 65536);
    return NULL;
}

static void start_sink_bump(ito_thread_t *t, sink_t *s, int fd, size_t want, int by_recv, int bump)
{
    *s = (sink_t){.fd = fd, .want = want, .by_recv = by_recv, .bump = bump};
    memset(dst, 0, want);
    CHECK_OK(ito_create(t, sink, s, NULL));
}

static void start_sink(ito_thread_t *t, sink_t *s, int fd, size_t want, int by_recv)
{
    start_sink_bump(t, s, fd, want, by_recv, 0);
}

static void end_sink(ito_thread_t t, sink_t *s, const unsigned char *want)
{
    CHECK_OK(ito_join(t, NULL));
    CHECK_EQ(s->got, s->want);
    CHECK(memcmp(dst, want, s->want) == 0);
}

static void *whole(void *arg)
{
    (void)arg;
    ito_thread_t t;
    sink_t s;

    /* 1. ito_write of 4 MiB into a pipe (64 KiB of room) */
    int p[2];
    CHECK_EQ(pipe(p), 0);
    start_sink(&t, &s, p[0], BIG, 0);
    CHECK_EQ(ito_write(p[1], src, BIG), (ssize_t)BIG);
    end_sink(t, &s, src);

    /* 2. ito_writev: three pieces, 3 MiB in all, the middle one empty */
    struct iovec v[3] = {{src, 1 << 20}, {src, 0}, {src + (1 << 20), 2 << 20}};
    start_sink(&t, &s, p[0], 3 << 20, 0);
    CHECK_EQ(ito_writev(p[1], v, 3), (ssize_t)(3 << 20));
    end_sink(t, &s, src);
    CHECK(v[0].iov_base == src && v[0].iov_len == (1 << 20)); /* the caller's vector is untouched */
    close(p[0]);
    close(p[1]);

    /* 3. ito_send and ito_sendmsg of 4 MiB on a stream socket */
    int sv[2];
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    start_sink(&t, &s, sv[1], BIG, 1);
    CHECK_EQ(ito_send(sv[0], src, BIG, 0), (ssize_t)BIG);
    end_sink(t, &s, src);
    struct iovec mv[2] = {{src, BIG / 2}, {src + BIG / 2, BIG / 2}};
    struct msghdr m = {.msg_iov = mv, .msg_iovlen = 2};
    start_sink(&t, &s, sv[1], BIG, 1);
    CHECK_EQ(ito_sendmsg(sv[0], &m, 0), (ssize_t)BIG);
    end_sink(t, &s, src);

    /* 4. MSG_DONTWAIT: one attempt on both backends */
    char c;
    errno = 0;
    CHECK_EQ(ito_recv(sv[1], &c, 1, MSG_DONTWAIT), -1);
    CHECK_EQ(errno, EAGAIN);
    ssize_t part = ito_send(sv[0], src, BIG, MSG_DONTWAIT); /* nobody reads: what fits */
    CHECK(part > 0 && (size_t)part < BIG);

    /* 5. recv with MSG_WAITALL gathers the part above in one call, then stops at end of file */
    CHECK_EQ(ito_recv(sv[1], dst, (size_t)part, MSG_WAITALL), part);
    CHECK(memcmp(dst, src, (size_t)part) == 0);
    CHECK_EQ(ito_send(sv[0], src, 1000, 0), 1000);
    CHECK_EQ(shutdown(sv[0], SHUT_WR), 0);
    CHECK_EQ(ito_recv(sv[1], dst, 5000, MSG_WAITALL), 1000);
    CHECK_EQ(ito_recv(sv[1], dst, 5000, MSG_WAITALL), 0);
    ito_close(sv[0]);
    ito_close(sv[1]);

    /* 6. recvmsg with MSG_WAITALL, the sender writing in pieces */
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    struct iovec rv[2] = {{dst, 3000}, {dst + 3000, 5000}};
    struct msghdr rm = {.msg_iov = rv, .msg_iovlen = 2};
    for (int i = 0; i < 8; i++) CHECK_EQ(send(sv[0], src + i * 1000, 1000, 0), 1000);
    CHECK_EQ(ito_recvmsg(sv[1], &rm, MSG_WAITALL), 8000);
    CHECK(memcmp(dst, src, 8000) == 0);
    ito_close(sv[0]);
    ito_close(sv[1]);

    /* 7. a deadline after a part: the count so far, then the error */
    CHECK_EQ(pipe(p), 0);
    CHECK_OK(ito_io_deadline(ito_deadline_in(50 * 1000 * 1000)));
    ssize_t n = ito_write(p[1], src, BIG); /* nobody reads */
    CHECK(n > 0 && (size_t)n < BIG);
    errno = 0;
    CHECK_EQ(ito_write(p[1], src, BIG), -1);
    CHECK_EQ(errno, ETIMEDOUT);
    CHECK_OK(ito_io_deadline(ITO_FOREVER));
    close(p[0]);
    close(p[1]);

    /* 9. (io_uring: the sync backend's readiness retry of a waiting part is by number, and
     * dup2 over a descriptor a ULT waits on is outside what ito_close covers) the rest of a
     * write never goes to a file that took the descriptor's number: the writer stops after
     * the part that was waiting (or, if the swap came first, after the first), and the other
     * pipe receives nothing. The old library sent the third part into it. */
    struct rlimit nofile;
    CHECK_EQ(getrlimit(RLIMIT_NOFILE, &nofile), 0);
    if (nofile.rlim_cur < 2 * ITOI_WSC_GEN_SLOTS && nofile.rlim_max >= 2 * ITOI_WSC_GEN_SLOTS) {
        nofile.rlim_cur = 2 * ITOI_WSC_GEN_SLOTS;
        CHECK_EQ(setrlimit(RLIMIT_NOFILE, &nofile), 0);
    }
    if (ito_wsc_backend() == ITO_WSC_URING && nofile.rlim_cur >= 2 * ITOI_WSC_GEN_SLOTS) {
        int p1[2], p2[2], spare[2];
        CHECK_EQ(pipe(p1), 0);
        CHECK_EQ(pipe(p2), 0);
        CHECK_EQ(pipe(spare), 0);
        swap_t x = {.p1r = p1[0], .p1w = p1[1], .p2w = p2[1], .spare = spare[1]};
        ito_thread_t sw;
        CHECK_OK(ito_create(&sw, swapper, &x, NULL));
        CHECK_OK(ito_io_deadline(ito_deadline_in(3000ull * 1000 * 1000))); /* no hang if it fails */
        ssize_t w = ito_write(p1[1], src, BIG);
        CHECK_OK(ito_io_deadline(ITO_FOREVER));
        CHECK_OK(ito_join(sw, NULL));
        CHECK(w == 65536 || w == 2 * 65536);
        int queued = -1;
        CHECK_EQ(ioctl(p2[0], FIONREAD, &queued), 0);
        CHECK_EQ(queued, 0);
        close(p1[0]);
        close(p1[1]);
        close(p2[0]);
        close(p2[1]);
        close(spare[0]);
    }

    /* 10. other files closed with ito_close between the parts: the same file, it goes on */
    CHECK_EQ(pipe(p), 0);
    start_sink_bump(&t, &s, p[0], BIG, 0, 1);
    CHECK_EQ(ito_write(p[1], src, BIG), (ssize_t)BIG);
    end_sink(t, &s, src);
    close(p[0]);
    close(p[1]);

    /* 8. a regular file's short count (RLIMIT_FSIZE) is the answer: a second part would
     * raise SIGXFSZ (which kills), as a second write(2) by the caller would */
    char path[] = "/tmp/ito_io_whole_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    unlink(path);
    struct rlimit old, lim;
    CHECK_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
    lim = old;
    lim.rlim_cur = 10000;
    CHECK_EQ(setrlimit(RLIMIT_FSIZE, &lim), 0);
    CHECK_EQ(ito_write(fd, src, 20000), 10000);
    CHECK_EQ(setrlimit(RLIMIT_FSIZE, &old), 0);
    close(fd);
    return NULL;
}

int main(void)
{
    src = malloc(BIG);
    dst = malloc(BIG);
    CHECK(src && dst);
    for (size_t i = 0; i < BIG; i++) src[i] = (unsigned char)(i * 7 + (i >> 12));
    io_each_backend(whole, 1);
    free(src);
    free(dst);
    TEST_DONE();
}
