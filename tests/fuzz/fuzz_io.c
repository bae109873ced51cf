/* fuzz_io: libFuzzer harness for the blocking I/O wrappers (clang-19,
 * -fsanitize=fuzzer,address,undefined; built in the ASan tree).
 *
 * Each input picks a backend (io_uring or sync), 1 or 2 workers and a WSC threshold, and
 * runs up to 8 actor ULTs and 2 foreign pthreads over two pipes, a socket pair and a
 * memfd: reads, writes, vectored and message variants, pread/pwrite, fsync, poll, each
 * with an I/O deadline of at most 1 ms (ito_io_deadline), ito_cancel_io from the main ULT
 * and from foreign threads, ito_close of pipe and socket ends while others wait on them, bad descriptors,
 * and an end that either joins every actor or detaches them and calls ito_finalize at
 * once. A wrapper returns a count no larger than asked or -1 with errno set; a crash, a
 * sanitizer report or a hang (libFuzzer's -timeout) is a finding, and so is a lost or
 * invented byte: for every pipe and direction of the socket pair whose reading end stays
 * open, the bytes written (the counts the wrappers returned, plus a foreign feeder's)
 * equal the bytes read plus what is left in it at the end ("a read or write may still
 * have moved bytes before [a deadline or cancellation]: the count is returned then, not
 * the error", syscall.h).
 *
 * The harness's descriptors are moved to numbers >= 900, so that the descriptors the
 * runtime opens lazily (rings, eventfds, epoll) never take the number of one the harness
 * closed: an actor that still names a closed end then gets EBADF, never another file. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "fuzz_util.h"

#define NACT 8
#define NFOR 2
#define SCRIPT 10
#define NCH 4 /* byte channels: pipe A, pipe B, socket 0->1, socket 1->0 */


/* fd roles: 0 A.r, 1 A.w, 2 B.r, 3 B.w, 4 S0, 5 S1, 6 memfd */
static int fd[7];
static _Atomic int closed[7];
static _Atomic long wrote[NCH], got[NCH];
static ito_thread_t act[NACT];
static _Atomic int nact_live;
static int a_nb; /* pipe A's write end opened again, O_NONBLOCK, for the foreign feeders */

typedef struct {
    uint8_t op[SCRIPT];
    int n;
} script_t;

/* The channel a write on role r feeds, or a read on role r drains (-1: none). */
static int chan_of_write(int r) { return r == 1 ? 0 : r == 3 ? 1 : r == 4 ? 2 : r == 5 ? 3 : -1; }
static int chan_of_read(int r) { return r == 0 ? 0 : r == 2 ? 1 : r == 5 ? 2 : r == 4 ? 3 : -1; }

static void count(_Atomic long *c, int ch, ssize_t n, size_t len)
{
    require(n == -1 || (n >= 0 && (size_t)n <= len));
    if (n == -1) require(errno > 0);
    if (n > 0 && ch >= 0) atomic_fetch_add(&c[ch], (long)n);
}

static void io_action(unsigned op, unsigned k)
{
    static const uint64_t dl[4] = {0, 20000, 200000, 1000000};
    unsigned char buf[8192];
    int r = (int)(k % 7);
    int f = k & 0x80 ? (k & 0x40 ? -1 : 4000) : fd[r]; /* sometimes a bad descriptor */
    size_t len = 1 + (op * 131u + k * 37u) % sizeof buf;
    ssize_t n;
    memset(buf, (int)op, sizeof buf);
    /* every call has a deadline (0: already due): a pipe may fill up, nobody may write */
    check(ito_io_deadline(ito_deadline_in(dl[(op ^ k) & 3])));
    switch ((op >> 2) % 12) {
    case 0: n = ito_write(f, buf, len); count(wrote, f == fd[r] ? chan_of_write(r) : -1, n, len); break;
    case 1: n = ito_read(f, buf, len); count(got, f == fd[r] ? chan_of_read(r) : -1, n, len); break;
    case 2: {
        struct iovec iov[3] = {{buf, len / 3}, {buf + len / 3, 0}, {buf + len / 3, len - len / 3}};
        n = k & 1 ? ito_writev(f, iov, 3) : ito_readv(f, iov, 3);
        count(k & 1 ? wrote : got, f == fd[r] ? (k & 1 ? chan_of_write(r) : chan_of_read(r)) : -1, n, len);
        break;
    }
    case 3: n = ito_send(f, buf, len, MSG_NOSIGNAL); count(wrote, f == fd[r] ? chan_of_write(r) : -1, n, len); break;
    case 4: n = ito_recv(f, buf, len, 0); count(got, f == fd[r] ? chan_of_read(r) : -1, n, len); break;
    case 5: {
        struct iovec iov = {buf, len};
        struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
        n = k & 1 ? ito_sendmsg(f, &m, MSG_NOSIGNAL) : ito_recvmsg(f, &m, 0);
        count(k & 1 ? wrote : got, f == fd[r] ? (k & 1 ? chan_of_write(r) : chan_of_read(r)) : -1, n, len);
        break;
    }
    case 6: n = ito_pwrite(fd[6], buf, len, (off_t)(k * 512)); count(wrote, -1, n, len); break;
    case 7: n = ito_pread(fd[6], buf, len, (off_t)(k * 512)); count(got, -1, n, len); break;
    case 8: require(ito_fsync(f) == 0 || errno > 0); break;
    case 9: {
        struct pollfd p[3] = {{fd[0], POLLIN, 0}, {fd[5], POLLIN | POLLOUT, 0}, {f, (short)k, 0}};
        int rc = ito_poll(p, 3, (int)(k & 1));
        require(rc == -1 ? errno > 0 : rc <= 3);
        break;
    }
    case 10: /* close one end of B or of the socket pair, once (A stays open: foreign threads feed it) */
        if (r >= 2 && r <= 5 && !atomic_exchange(&closed[r], 1)) require(ito_close(fd[r]) == 0);
        break;
    default: check(ito_yield()); break;
    }
}

static void *actor(void *arg)
{
    script_t *s = arg;
    for (int i = 0; i < s->n; i++) io_action(s->op[i], s->op[i] * 73u + (unsigned)i);
    atomic_fetch_sub(&nact_live, 1);
    return NULL;
}

/* A foreign thread: feeds pipe A without ever blocking (a blocking write after a poll
 * that said POLLOUT could block for ever: an actor may fill the pipe in between), cancels actors' I/O, and finds the
 * wrappers refused (they are for ULTs: -1 with EPERM). */
static void *foreign(void *arg)
{
    script_t *s = arg;
    unsigned char buf[512];
    memset(buf, 0x5a, sizeof buf);
    for (int i = 0; i < s->n; i++) {
        unsigned k = s->op[i];
        switch (k % 4) {
        case 0: { /* on its own non-blocking description: an actor may fill the pipe */
            ssize_t n = write(a_nb, buf, 1 + k % sizeof buf); /* <= PIPE_BUF: all or nothing */
            if (n > 0) atomic_fetch_add(&wrote[0], (long)n);
            break;
        }
        case 1: check(ito_cancel_io(act[k % NACT])); break; /* NULL slots: ITO_EINVAL */
        case 2: require(ito_read(fd[0], buf, sizeof buf) == -1 && errno == EPERM); break;
        default: usleep(50); break;
        }
    }
    return NULL;
}

static void read_script(script_t *s)
{
    s->n = (int)(byte() % (SCRIPT + 1));
    for (int i = 0; i < s->n; i++) s->op[i] = (uint8_t)byte();
}

static int high(int f, int at)
{
    int h = fcntl(f, F_DUPFD_CLOEXEC, at);
    require(h >= at);
    close(f);
    return h;
}

/* What is left in the channel read by role r (the runtime may be gone: plain reads). */
static long drain(int r)
{
    long n = 0;
    unsigned char buf[4096];
    int fl = fcntl(fd[r], F_GETFL);
    fcntl(fd[r], F_SETFL, fl | O_NONBLOCK);
    for (;;) {
        ssize_t k = read(fd[r], buf, sizeof buf);
        if (k <= 0) break;
        n += k;
    }
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_begin(data, size);
    signal(SIGPIPE, SIG_IGN);
    unsigned cfgb = byte();
    setenv("ITO_WSC_BACKEND", cfgb & 1 ? "uring" : "sync", 1);
    ito_config_t cfg = {.workers = 1 + (int)((cfgb >> 1) & 1)};
    if (ito_init(&cfg) != ITO_OK) abort();
    check(ito_wsc_set_threshold(1 + (int)((cfgb >> 2) % 32)));
    int p[2], q[2], sp[2];
    require(pipe(p) == 0 && pipe(q) == 0 && socketpair(AF_UNIX, SOCK_STREAM, 0, sp) == 0);
    int mf = memfd_create("fuzz_io", MFD_CLOEXEC);
    require(mf >= 0);
    int raw[7] = {p[0], p[1], q[0], q[1], sp[0], sp[1], mf};
    for (int i = 0; i < 7; i++) {
        fd[i] = high(raw[i], 900 + 10 * i);
        atomic_store(&closed[i], 0);
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd[1]);
    a_nb = high(open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC), 980);
    for (int i = 0; i < NCH; i++) atomic_store(&wrote[i], 0), atomic_store(&got[i], 0);
    memset(act, 0, sizeof act);

    static script_t scripts[NACT], fscripts[NFOR];
    pthread_t ft[NFOR];
    int nact = 0, nfor = 0;
    atomic_store(&nact_live, 0);
    for (int steps = 0; steps < 40 && in_at < in_n; steps++) {
        unsigned op = byte(), k = byte();
        if (op < 48 && nact < NACT) {
            read_script(&scripts[nact]);
            atomic_fetch_add(&nact_live, 1);
            int rc = ito_create(&act[nact], actor, &scripts[nact], NULL);
            check(rc);
            if (rc == ITO_OK) nact++;
            else atomic_fetch_sub(&nact_live, 1);
        } else if (op < 56 && nfor < NFOR) {
            read_script(&fscripts[nfor]);
            if (pthread_create(&ft[nfor], NULL, foreign, &fscripts[nfor]) == 0) nfor++;
        } else if (op < 72 && nact > 0) {
            check(ito_cancel_io(act[k % (unsigned)nact]));
        } else {
            io_action(op, k);
        }
    }
    check(ito_io_deadline(ITO_FOREVER));
    int detach = byte() & 1;
    for (int i = 0; i < nact; i++) check(detach ? ito_detach(act[i]) : ito_join(act[i], NULL));
    for (int i = 0; i < nfor; i++) pthread_join(ft[i], NULL);
    /* detached: finalize waits for the actors (their I/O has deadlines or ends) */
    if (ito_finalize() != ITO_OK) abort();
    require(atomic_load(&nact_live) == 0);

    static const int reader[NCH] = {0, 2, 5, 4};
    for (int c = 0; c < NCH; c++) {
        if (atomic_load(&closed[reader[c]])) continue; /* its bytes went with it */
        long left = drain(reader[c]);
        require(atomic_load(&wrote[c]) == atomic_load(&got[c]) + left);
    }
    for (int i = 0; i < 7; i++)
        if (!atomic_load(&closed[i])) close(fd[i]);
    close(a_nb);
    return 0;
}
