/* test_io_whole_close_window: a later part of a whole transfer never goes to a file that
 * took the number after an ito_close that ran between the part's look at the close
 * generation (src/wsc/whole.c, rest) and its request. The part's worker thread may be
 * descheduled there while another worker's ito_close runs to its end and a new socket
 * takes the number; the part then went to the new socket (found by an outside tester,
 * h74a, 2026-12-07, once in a 90 s churn at load 20). The window is opened here without
 * timing, with one worker:
 * - sync backend: the ULT's yield inside the wrapper call (every 16th call of a ULT in a
 *   row that completed at once yields first: wrappers.c, io_point), with a closer ULT
 *   ready; k calls of ito_getpid before the transfer place that yield, and every k in
 *   0..14 is run: k = 14 puts it in the part after the first;
 * - io_uring: the fstat (statx) an ito_write makes before it posts its request, wrapped
 *   (-Wl,--wrap=statx): the k-th one on the transfer's number closes the number and has a
 *   new socket take it, there and then, for every k in 1..4 (4: the part after the first).
 * Whenever the first part went to the old socket (its peer holds data), the new socket
 * must receive nothing: the transfer ends with the count so far. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

#define BIG (4 << 20)

int __real_statx(int dirfd, const char *path, int flags, unsigned mask, struct statx *sx);
int __wrap_statx(int dirfd, const char *path, int flags, unsigned mask, struct statx *sx);

static int x[2], reader = -1, dup_end = -1;
static char big[BIG]; /* (zeros) */
static _Atomic int go, closed, arm_fd = -1, arm_k, seen;

/* ito_close of the number n, then a new socket takes it; reader: the new pair's end that n
 * does not name. */
static void close_and_take(int n)
{
    CHECK_EQ(ito_close(n), 0);
    int y[2];
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, y), 0);
    reader = y[0] == n ? y[1] : y[0];
    if (y[0] != n && y[1] != n) {
        CHECK_EQ(dup2(y[1], n), n);
        dup_end = y[1];
    }
    atomic_store(&closed, 1);
}

int __wrap_statx(int dirfd, const char *path, int flags, unsigned mask, struct statx *sx)
{
    int n = atomic_load(&arm_fd);
    if (n >= 0 && dirfd == n && atomic_fetch_add(&seen, 1) + 1 == atomic_load(&arm_k)) {
        atomic_store(&arm_fd, -1); /* (ito_close looks at the file too) */
        close_and_take(n);
    }
    return __real_statx(dirfd, path, flags, mask, sx);
}

static void *closer(void *arg)
{
    (void)arg;
    while (!atomic_load(&go)) CHECK_OK(ito_yield());
    close_and_take(x[0]);
    return NULL;
}

/* After a transfer whose number was closed under it: nothing of it in the new socket when
 * its first part went to the old one. */
static void check_round(ssize_t sent)
{
    char c;
    bool old_got = recv(x[1], &c, 1, MSG_DONTWAIT) == 1;
    if (atomic_load(&closed) && old_got) {
        errno = 0;
        CHECK_EQ(recv(reader, &c, 1, MSG_DONTWAIT), -1); /* nothing of the old transfer */
        CHECK_EQ(errno, EAGAIN);
        CHECK(sent > 0 && sent < BIG);
    }
    if (reader >= 0) close(reader);
    if (dup_end >= 0) close(dup_end);
    int n = x[0];
    if (atomic_load(&closed)) close(n); /* the new socket's end */
    else CHECK_EQ(ito_close(n), 0);
    close(x[1]);
    reader = dup_end = -1;
}

static void round_(const char *backend)
{
    bool sync = strcmp(backend, "sync") == 0;
    /* (k past these would close the number before the transfer or never: the transfer
     * would then wait for a reader; the deadline only guards against that) */
    for (int k = sync ? 0 : 1; k <= (sync ? 14 : 4); k++) {
        CHECK_OK(ito_io_deadline(ito_now_ns() + 10000000000u));
        CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, x), 0);
        atomic_store(&go, 0);
        atomic_store(&closed, 0);
        atomic_store(&seen, 0);
        ssize_t sent;
        if (sync) {
            ito_thread_t t;
            CHECK_OK(ito_create(&t, closer, NULL, NULL));
            CHECK_OK(ito_yield()); /* the closer runs, and waits for go: the count starts again */
            atomic_store(&go, 1);
            for (int i = 0; i < k; i++) CHECK(ito_getpid() > 0);
            sent = ito_write(x[0], big, BIG);
            CHECK_OK(ito_join(t, NULL)); /* (it closed inside the call, or while the rest waited) */
        } else {
            atomic_store(&arm_k, k);
            atomic_store(&arm_fd, x[0]);
            sent = ito_write(x[0], big, BIG);
            atomic_store(&arm_fd, -1);
        }
        CHECK_OK(ito_io_deadline(ITO_FOREVER));
        check_round(sent);
    }
}

int main(void)
{
    ito_test_each_backend(1, round_);
    TEST_DONE();
}
