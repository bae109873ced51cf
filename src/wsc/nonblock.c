/* nonblock.c: running one request in the calling thread, without blocking (the sync
 * backend's first attempt and its retries, and the calls io_uring has no opcode for),
 * or blocking (on a helper thread).
 *
 * How each call is kept from blocking:
 *   read, write, readv, writev, pread, pwrite: preadv2/pwritev2 with RWF_NOWAIT
 *     (sockets and pipes honour it; a regular file not in the page cache answers
 *     EAGAIN or EOPNOTSUPP, and a descriptor that cannot say so answers EOPNOTSUPP:
 *     regular files and block devices then go to a helper thread, and so does a file
 *     read that RWF_NOWAIT cut short before the end of the file; other descriptors are
 *     polled first and then read or written by a helper thread);
 *   send, recv, sendmsg, recvmsg: MSG_DONTWAIT;
 *   accept, connect: the socket is put in O_NONBLOCK mode (as Go's netpoller does);
 *     a connect in progress is finished after POLLOUT by reading SO_ERROR;
 *   poll: poll(2) with a zero timeout;
 *   openat, fsync: they can only block: a helper thread runs them;
 *   close, getpid, nop: they do not wait.
 * -EAGAIN comes with the readiness to wait for in *events. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "wsc.h"

static long neg_errno(long r)
{
    if (r >= 0) return r;
    return errno == EWOULDBLOCK ? -EAGAIN : -errno;
}

/* A file whose calls end by themselves (no readiness to wait for): st from fstat, its
 * st_mode 0 when fstat failed. */
static bool st_is_file(const struct stat *st)
{
    return S_ISREG(st->st_mode) || S_ISBLK(st->st_mode) || S_ISDIR(st->st_mode);
}

/* fstat(2), except that a "regular file" of a kernel pseudo file system whose read waits
 * for an event (/proc/kmsg, tracefs's trace_pipe, debugfs files) is shown as a character
 * device while poll(2) says it is neither readable nor writable: it offers no RWF_NOWAIT,
 * so it then waits for readiness in the worker's epoll and is read by a helper once ready,
 * as a tty is, and ito_cancel_io, a deadline and finalize end that wait. Taken for a file
 * that ends by itself, its read ran blocking on a helper thread that nothing could stop:
 * ito_finalize waited for ever for a ULT reading /proc/kmsg with no kernel message coming,
 * and neither ito_cancel_io nor the ULT's I/O deadline ended the read (found by an outside
 * tester, h68a, 2026-12-06; tests/test_io_proc_event_file.c). Such files say size 0: only
 * then the fstatfs. Other files there (/proc/self/status) poll ready at once (the
 * default mask): files as before. */
/* fstat(2) from what the kernel holds, asking no file system: statx with
 * AT_STATX_DONT_SYNC. A worker looks at a descriptor's type, device and inode before
 * most calls (a regular file's reads at its position, whole writes, the closing check,
 * finalize's probe), and a network or FUSE file system answers a plain fstat(2) with a
 * round trip to its server once its cached attributes have expired (a FUSE mount's
 * attr_timeout, 1 s by default): while that server was slow or had stopped answering,
 * the worker's fstat blocked with it, and every ULT of the worker with it (a FUSE file
 * system whose getattr hung: a ULT's ito_read left the other ULTs of its worker not
 * running until the server answered, on both backends; found by an outside tester, h73e,
 * 2026-12-07; tests/test_io_stat_no_sync.c). The type, device and inode of an open file
 * never change; the size may be the cached one (cut_short, the pseudo-file check below:
 * both on local file systems, which answer from memory anyway). Without statx (ENOSYS, or
 * a seccomp filter's EPERM) it is fstat. */
static _Atomic int statx_refused;

int itoi_wsc_stat_cached(int fd, struct stat *st)
{
    if (!atomic_load_explicit(&statx_refused, memory_order_relaxed)) {
        struct statx sx;
        if (statx(fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STATX_BASIC_STATS, &sx) == 0) {
            memset(st, 0, sizeof *st);
            st->st_mode = sx.stx_mode;
            st->st_ino = sx.stx_ino;
            st->st_dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
            st->st_rdev = makedev(sx.stx_rdev_major, sx.stx_rdev_minor);
            st->st_nlink = sx.stx_nlink;
            st->st_uid = sx.stx_uid;
            st->st_gid = sx.stx_gid;
            st->st_size = (off_t)sx.stx_size;
            st->st_blksize = (blksize_t)sx.stx_blksize;
            st->st_blocks = (blkcnt_t)sx.stx_blocks;
            return 0;
        }
        if (errno != ENOSYS && errno != EPERM) return -1;
        atomic_store_explicit(&statx_refused, 1, memory_order_relaxed);
    }
    return fstat(fd, st);
}

int itoi_wsc_fstat(int fd, struct stat *st)
{
    if (itoi_wsc_stat_cached(fd, st) != 0) return -1;
    if (S_ISREG(st->st_mode) && st->st_size == 0) {
        /* poll first: a FUSE file system answers fstatfs from its server, every time (an
         * empty file's ito_read blocked its worker while the server's statfs hung, h73e),
         * and its files poll ready without asking once the server has said it has no poll */
        struct statfs sf;
        struct pollfd p = {.fd = fd, .events = POLLIN | POLLOUT};
        if (poll(&p, 1, 0) == 0 && fstatfs(fd, &sf) == 0 &&
            (sf.f_type == PROC_SUPER_MAGIC || sf.f_type == TRACEFS_MAGIC || sf.f_type == DEBUGFS_MAGIC))
            st->st_mode = (st->st_mode & ~(mode_t)S_IFMT) | S_IFCHR;
    }
    return 0;
}

static void stat_or_none(int fd, struct stat *st)
{
    if (itoi_wsc_fstat(fd, st) != 0) st->st_mode = 0;
}

static bool is_file(int fd)
{
    struct stat st;
    stat_or_none(fd, &st);
    return st_is_file(&st);
}

static int set_nonblock(int fd, bool must_listen)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0) return -errno;
    if (fl & O_NONBLOCK) return 0;
    int type;
    socklen_t tl = sizeof type; /* not a socket: the call's own error, the mode untouched */
    if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tl) < 0) return -errno;
    /* accept on a socket that does not listen: EINVAL, the mode untouched (a failed call
     * changes nothing; found by a tester, 2026-12-05: a connected socket was left
     * O_NONBLOCK) */
    if (must_listen && (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &type, &tl) < 0 || !type)) return -EINVAL;
    if (fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0) return -errno;
    return 0;
}

/* The vector of a request that moves bytes. */
static const struct iovec *vec_of(const ito_sysreq_t *q, struct iovec *one, int *cnt)
{
    if (q->op == ITO_SYS_READV || q->op == ITO_SYS_WRITEV) {
        *cnt = q->iovcnt;
        return q->iov;
    }
    one->iov_base = q->buf;
    one->iov_len = itoi_wsc_rw_len(q->len);
    *cnt = 1;
    return one;
}

static int64_t offset_of(const ito_sysreq_t *q)
{
    return q->op == ITO_SYS_READ || q->op == ITO_SYS_WRITE ? -1 : q->offset;
}

static size_t vec_total(const struct iovec *iov, int cnt)
{
    size_t t = 0;
    for (int i = 0; i < cnt; i++) t += iov[i].iov_len;
    return t;
}

/* A read of a regular file that RWF_NOWAIT cut short (the part in the page cache) before
 * its end: read(2) would have returned it whole, so a helper reads it all again (from the
 * same offset: a read at the file position moves the position back first). A short count
 * at end of file stays the answer. Until 2026-12-03 the cached part was returned: a 4 MiB
 * pread of a file with only its first pages cached returned 160 KiB. */
static bool cut_short(const ito_sysreq_t *q, long r, const struct iovec *iov, int cnt, int64_t off)
{
    struct stat st;
    if (r <= 0 || (size_t)r >= vec_total(iov, cnt) || itoi_wsc_fstat(q->fd, &st) != 0 || !S_ISREG(st.st_mode)) return false;
    int64_t end = off >= 0 ? off + r : (int64_t)lseek(q->fd, 0, SEEK_CUR);
    if (end < 0 || end >= (int64_t)st.st_size) return false; /* at end of file: short is right */
    return off >= 0 || lseek(q->fd, -(off_t)r, SEEK_CUR) >= 0;
}

/* Reads of a regular file at its file position, as read(2) does them under the file's
 * position lock. The attempt below reads the cached part with RWF_NOWAIT and, when that
 * is short of the end of the file, moves the position back for a helper to read it all
 * (cut_short): between the two another ULT's read of the same file (a worker's attempt,
 * or a helper's readv) saw the position moved, so two readers read the same bytes and
 * skipped others (4 ULTs reading 8 KiB at a time from a file with every other page
 * cached: 447 of 4000 chunks read twice and 447 never; found by an outside tester, h65d,
 * 2026-12-06; tests/test_io_file_pos_partial_cache.c). So ito's reads at a regular
 * file's position hold a lock of the file (a stripe by device and inode) over the
 * attempt and its move back, and a helper's read at the position holds it over its
 * readv; a worker never waits for it (a held lock sends its read to a helper). A plain
 * read(2) by a thread outside ito may still come between the attempt and the move back
 * (known limit). */
#define POS_STRIPES 64
static pthread_mutex_t pos_locks[POS_STRIPES];
static pthread_once_t pos_once = PTHREAD_ONCE_INIT;

static void pos_init(void)
{
    for (int i = 0; i < POS_STRIPES; i++) pthread_mutex_init(&pos_locks[i], NULL);
}

/* The lock of st's file if it is a regular file, else NULL. */
static pthread_mutex_t *pos_lock(const struct stat *st)
{
    if (!S_ISREG(st->st_mode)) return NULL;
    pthread_once(&pos_once, pos_init);
    uint64_t h = ((uint64_t)st->st_dev * 0x9E3779B97F4A7C15u) ^ ((uint64_t)st->st_ino * 0xC2B2AE3D27D4EB4Fu);
    return &pos_locks[(h >> 32) % POS_STRIPES];
}

/* Whether a socket that a receive (or accept) found empty after its readiness event has
 * its receive side shut down (shutdown(2) SHUT_RD or SHUT_RDWR, by this process or, for
 * a stream, by the peer's close). The blocking call then returns at once: recv(2) 0 (end
 * of file), accept(2) -1/EINVAL; io_uring answers the same. But the non-blocking calls of
 * some sockets say EAGAIN there (a unix listener's accept4, a unix or UDP datagram
 * socket's recv) while epoll reports them readable (EPOLLIN, EPOLLRDHUP) for ever: the
 * worker tried again at every event, a CPU burnt, and the ULT never returned (found by an
 * outside tester, h65d, 2026-12-06: shutdown(SHUT_RD) of a UDP socket, the usual way to
 * stop a thread blocked in recvfrom, and of a unix listener; tests/test_io_accept_shutdown.c,
 * tests/test_io_recv_shutdown.c). Only after an event that found nothing: a poll(2) of the
 * rare path. */
static bool rcv_shut(int fd)
{
    struct pollfd p = {.fd = fd, .events = POLLIN | POLLRDHUP};
    return poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP));
}

/* read/write family: RWF_NOWAIT, then what the descriptor allows. */
static long rw_nonblocking(const ito_sysreq_t *q, bool wr, bool again, uint32_t *events)
{
    if (wr && q->op == ITO_SYS_WRITE && q->len == 0) {
        /* write(2) of nothing on a datagram or seqpacket socket sends an empty message
         * (io_uring's WRITE does too), but a vector of nothing (pwritev2 below, writev(2))
         * sends none: a UDP keep-alive written with ito_write never left on the sync
         * backend (found by an outside tester, h75d, 2026-12-07). A socket gets send(2)
         * without waiting (the flags write(2) uses, and EAGAIN waits for room as any
         * send); anything else (ENOTSOCK) goes on as before: pwritev2 of nothing is 0. */
        *events = POLLOUT;
        long r = neg_errno(send(q->fd, q->buf, 0, MSG_DONTWAIT));
        if (r != -ENOTSOCK) return r;
    }
    struct iovec one;
    int cnt;
    const struct iovec *iov = vec_of(q, &one, &cnt);
    int64_t off = offset_of(q);
    struct stat st;
    st.st_mode = 0;
    bool known = !wr && off < 0; /* st holds fd's type */
    if (known) { /* at the file position: see pos_lock */
        stat_or_none(q->fd, &st);
        pthread_mutex_t *m = pos_lock(&st);
        if (m) {
            if (pthread_mutex_trylock(m) != 0) return ITOI_WSC_BLOCKING; /* a helper reads it now */
            long r = neg_errno(preadv2(q->fd, iov, cnt, -1, RWF_NOWAIT));
            bool back = cut_short(q, r, iov, cnt, off);
            pthread_mutex_unlock(m);
            *events = POLLIN;
            return back || r == -EAGAIN || r == -EOPNOTSUPP ? ITOI_WSC_BLOCKING : r;
        }
    }
    long r = wr ? pwritev2(q->fd, iov, cnt, off, RWF_NOWAIT) : preadv2(q->fd, iov, cnt, off, RWF_NOWAIT);
    r = neg_errno(r);
    *events = wr ? POLLOUT : POLLIN;
    if (!wr && cut_short(q, r, iov, cnt, off)) return ITOI_WSC_BLOCKING;
    if (r != -EAGAIN && r != -EOPNOTSUPP) return r;
    if (known ? st_is_file(&st) : is_file(q->fd)) return ITOI_WSC_BLOCKING; /* not cached, or no NOWAIT support: a helper reads it */
    if (r == -EAGAIN) return again && !wr && rcv_shut(q->fd) ? 0 : r; /* (see rcv_shut) */
    /* Not a file, and no RWF_NOWAIT (a tty, inotify, some character devices): wait for
     * readiness, then a helper thread makes the call. Not the worker: another reader (a
     * ULT on another worker, another process) may take the data between the readiness
     * and the call, which then blocks (found by a chaos test: a worker's kernel thread
     * stuck in readv on an inotify descriptor that two ULTs read). */
    struct pollfd p = {.fd = q->fd, .events = (short)*events};
    if (poll(&p, 1, 0) == 0) return -EAGAIN;
    return ITOI_WSC_BLOCKING;
}

/* A blocking connect(2) ends with the socket connected (or unconnected after an error).
 * A non-blocking one leaves it "connecting" until connect is called again, so the outcome
 * is taken by calling it again once POLLOUT came, not from SO_ERROR: it says 0 (now
 * connected), the error (the socket unconnected again, so that a later connect tries
 * anew), or EALREADY (still under way: wait more). With SO_ERROR the socket stayed
 * "connecting": a later ito_connect on it said 0 where connect(2) says EISCONN, and
 * ECONNABORTED where it tries again (found by a server tester, 2026-12-04). */
static long connect_nonblocking(const ito_sysreq_t *q, bool again, uint32_t *events)
{
    *events = POLLOUT;
    if (!again) {
        int rc = set_nonblock(q->fd, false);
        if (rc < 0) return rc;
    } else {
        /* The attempt ended with an error (a refusal, a reset, a shutdown(2) by another
         * thread that aborted it): connect(2) on a blocking socket returns that error. A
         * shutdown leaves the socket SS_UNCONNECTED, and calling connect again there
         * started a NEW attempt that could succeed (0 instead of ECONNRESET). So take the
         * pending error first, and leave the socket unconnected (AF_UNSPEC), as a failed
         * blocking connect does, so that a later call tries anew. */
        int err = 0;
        socklen_t el = sizeof err;
        if (getsockopt(q->fd, SOL_SOCKET, SO_ERROR, &err, &el) == 0 && err != 0) {
            struct sockaddr un = {.sa_family = AF_UNSPEC};
            (void)connect(q->fd, &un, sizeof un);
            return -err;
        }
    }
    long r = neg_errno(connect(q->fd, q->addr, q->addr_len));
    if (again && r == -EISCONN) return 0; /* connected by another caller meanwhile */
    /* EAGAIN after POLLOUT: a unix listener's backlog is full, and no event on this
     * socket says when it has room (POLLOUT is there at once: waiting for it again would
     * spin). Handed to ito_connect, which waits by time (wrappers.c). */
    if (again && r == -EAGAIN) return -EALREADY;
    return r == -EINPROGRESS || (again && r == -EALREADY) ? -EAGAIN : r;
}

long itoi_wsc_run_nonblocking(const ito_sysreq_t *q, bool again, uint32_t *events)
{
    *events = POLLIN;
    switch (q->op) {
    case ITO_SYS_NOP: return 0;
    case ITO_SYS_GETPID: return syscall(SYS_getpid);
    case ITO_SYS_READ: case ITO_SYS_PREAD: case ITO_SYS_READV: return rw_nonblocking(q, false, again, events);
    case ITO_SYS_WRITE: case ITO_SYS_PWRITE: case ITO_SYS_WRITEV: return rw_nonblocking(q, true, again, events);
    case ITO_SYS_SEND:
        *events = POLLOUT;
        return neg_errno(send(q->fd, q->buf, itoi_wsc_rw_len(q->len), q->flags | MSG_DONTWAIT | MSG_NOSIGNAL));
    case ITO_SYS_RECV: {
        long r = neg_errno(recv(q->fd, q->buf, itoi_wsc_rw_len(q->len), q->flags | MSG_DONTWAIT));
        return r == -EAGAIN && again && rcv_shut(q->fd) ? 0 : r; /* (see rcv_shut) */
    }
    case ITO_SYS_SENDMSG:
        *events = POLLOUT;
        return neg_errno(sendmsg(q->fd, q->msg, q->flags | MSG_DONTWAIT | MSG_NOSIGNAL));
    case ITO_SYS_RECVMSG: {
        long r = neg_errno(recvmsg(q->fd, q->msg, q->flags | MSG_DONTWAIT));
        return r == -EAGAIN && again && rcv_shut(q->fd) ? 0 : r; /* (see rcv_shut) */
    }
    case ITO_SYS_ACCEPT: {
        int rc = set_nonblock(q->fd, true);
        if (rc < 0) return rc;
        long r = neg_errno(accept4(q->fd, q->addr, q->addrlen, q->flags));
        if (r == -EAGAIN && again && rcv_shut(q->fd)) return -EINVAL; /* (see rcv_shut) */
        return r;
    }
    case ITO_SYS_CONNECT: return connect_nonblocking(q, again, events);
    case ITO_SYS_CLOSE: return neg_errno(close(q->fd));
    case ITO_SYS_POLL: {
        *events = (uint32_t)(uint16_t)q->events;
        struct pollfd p = {.fd = q->fd, .events = q->events};
        long r = poll(&p, 1, 0);
        if (r < 0) return -errno;
        return r == 0 ? -EAGAIN : p.revents;
    }
    case ITO_SYS_OPENAT: case ITO_SYS_FSYNC: return ITOI_WSC_BLOCKING;
    default: return -EINVAL;
    }
}

/* A helper's read or write of a descriptor that is not a file (no RWF_NOWAIT: a tty,
 * inotify): its readiness first, in slices of poll(2), until the record is abandoned (a
 * cancellation). A write after it can still block if another writer fills the room
 * first, as a blocking write(2) by two threads does; reads see helper_read. */
#define HELPER_POLL_MS 20
static long helper_wait_ready(itoi_sysrec_t *r, int fd, const struct stat *st, short events)
{
    if (st_is_file(st)) return 0;
    for (;;) {
        if (atomic_load_explicit(&r->abandon, memory_order_relaxed)) return -ECANCELED;
        struct pollfd p = {.fd = fd, .events = events};
        int n = poll(&p, 1, HELPER_POLL_MS);
        if (n > 0) return 0; /* ready, or an error the call reports */
        if (n < 0 && errno != EINTR) return -errno;
    }
}

/* A helper's read. Of a descriptor that is not a file (a tty, inotify: the worker saw it
 * ready, but a read of it could block), two helpers that saw one readiness must not both
 * read it: the second read(2) blocked for ever, where neither ito_cancel_io, a deadline
 * nor finalize reaches it (found by a resource-exhaustion tester: 8 ULTs reading one
 * inotify descriptor, one event; ito_join and ito_finalize then waited for ever). So a
 * helper takes its last look and reads under one lock, and asks for no more than FIONREAD
 * says is there: a tty in raw mode with VMIN > 1 is ready at one byte but a longer read of
 * it waits for VMIN (Linux's n_tty waits for min(VMIN, length)). Such a read does not
 * block unless a reader outside ito takes the bytes first, as with two threads calling
 * read(2); then the other helper reads wait behind it, in slices that a cancellation
 * ends. The lock is one for all such files: locks per descriptor number, then per inode,
 * each let two helpers read one tty at once (dup; /dev/tty beside /dev/pts/N, two inodes
 * of one terminal), and one blocked for ever again (found by two reviewers). The read
 * uses a duplicate of the number, checked against the record's cancellation after it is
 * taken: ito_close cancels a request before it closes, so a
 * request it did not cancel reads the file it was posted for, never one that a later open
 * got the number for (a request that waited for the lock while its descriptor was closed
 * and the number reused read the new pipe's bytes; found by the second reviewer). A
 * helper that finds the data gone gives the request back to its worker, which waits for
 * the next readiness in its epoll (ITOI_WSC_REWAIT); the epoll reports it ready only once
 * bytes are there again. */
static pthread_mutex_t read_lock = PTHREAD_MUTEX_INITIALIZER;

/* iov cut to at most max bytes, into cut[] (at most IOV_MAX entries, as the request). */
static int iov_cut(const struct iovec *iov, int cnt, size_t max, struct iovec *cut)
{
    int n = 0;
    for (; n < cnt && max > 0; n++) {
        cut[n] = iov[n];
        if (cut[n].iov_len > max) cut[n].iov_len = max;
        max -= cut[n].iov_len;
    }
    return n;
}

/* The helpers' read lock, waited for in slices that r's cancellation ends. The slices are
 * of CLOCK_MONOTONIC, as every timed wait of ito (ito/time.h): pthread_mutex_timedlock's
 * CLOCK_REALTIME made a slice last as long as the wall clock was set back meanwhile (an
 * NTP step, a date(1)), and a reader whose helper waited here behind a read that blocked
 * (a reader outside ito took the bytes) missed its deadline, ito_cancel_io and
 * finalize's cancellation by that much (found by an outside tester, h77c, 2026-12-07:
 * test_io_helper_lock_clock). */
static bool read_lock_take(itoi_sysrec_t *r)
{
    for (;;) {
        if (atomic_load_explicit(&r->abandon, memory_order_relaxed)) return false;
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_nsec += HELPER_POLL_MS * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        if (pthread_mutex_clocklock(&read_lock, CLOCK_MONOTONIC, &until) == 0) {
            if (!atomic_load_explicit(&r->abandon, memory_order_seq_cst)) return true;
            pthread_mutex_unlock(&read_lock); /* cancelled (closed) while it waited */
            return false;
        }
    }
}

/* The descriptor a helper's call uses. ito_close cancels (abandons) a request before it
 * closes the number, and a call a helper has started could otherwise come after the close
 * and a new open that took the number: a write went into the new file, an openat relative
 * to a directory created its file in the new directory (found by an outside tester, h62b,
 * 2026-12-05). The helper marks the number busy as it takes the record (helpers.c, under
 * its lock, where the closer's unqueue looks), and ito_close waits until no helper uses
 * the number before it closes it. On a regular file or directory the call then uses the
 * number itself: it ends by itself, and the file it acts on is the one it was posted for.
 * Until 2026-12-06 every call used a duplicate of the number and closed it after: close(2)
 * of any descriptor of a file releases every POSIX record lock (fcntl F_SETLK, lockf) the
 * process holds on that file, so an ito_write, ito_pwrite or ito_fsync (and a read past
 * the page cache) silently dropped the program's locks (found by an outside tester, h66a,
 * 2026-12-06; tests/test_io_helper_keeps_locks.c). Other descriptors (a tty, inotify: a
 * write there may block its helper for ever) still get a duplicate, taken while the
 * number is marked, and the mark is dropped at once, so an ito_close never waits for them;
 * so does an openat's directory (the open of a tty there may wait for ever).
 * A request cancelled before it started sees the abandon mark: -ECANCELED (the closer's
 * reason, EBADF, is reported). Out of descriptors (EMFILE, ENFILE) the bare number is
 * used, as before (the call must not fail where write(2) cannot), and its mark stays
 * until the call returns. `st` (NULL for an openat's directory) gets the number's type. */
static int pin_fd(itoi_sysrec_t *r, int fd, struct stat *st)
{
    if (atomic_load_explicit(&r->abandon, memory_order_seq_cst)) return -ECANCELED; /* cancelled (closed) before it started */
    if (st) { /* a read, write or fsync: fd's type, for the caller too (one fstat) */
        stat_or_none(fd, st);
        if (S_ISREG(st->st_mode) || S_ISDIR(st->st_mode)) return fd; /* ito_close waits for it */
    }
    int d = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (d < 0 && errno != EMFILE && errno != ENFILE) return -errno;
    if (d >= 0) itoi_helpers_release_fd(); /* the duplicate holds the file: the number may go */
    return d < 0 ? fd : d;
}

/* pin_fd, then the test window before the system call (ITO_FAULT_HELPER) */
static int helper_pin(itoi_sysrec_t *r, int fd, struct stat *st)
{
    int d = pin_fd(r, fd, st);
    if (d >= 0) itoi_fault_window_helper();
    return d;
}

/* After the call: the duplicate helper_pin took for the request's number `fd`, if any. */
static void helper_unpin(int pinned, int fd)
{
    if (pinned != fd) close(pinned);
}

static long helper_read(itoi_sysrec_t *r)
{
    const ito_sysreq_t *q = &r->req;
    struct iovec one;
    int cnt;
    const struct iovec *iov = vec_of(q, &one, &cnt);
    int64_t off = offset_of(q);
    /* Everything on a duplicate checked against the cancellation (see above): a regular
     * file at a reused number must not be read either. */
    struct stat st;
    int fd = helper_pin(r, q->fd, &st);
    if (fd < 0) return fd;
    long res;
    if (st_is_file(&st)) {
        pthread_mutex_t *m = off < 0 ? pos_lock(&st) : NULL; /* at the position: see pos_lock */
        if (m) pthread_mutex_lock(m);
        res = neg_errno(off < 0 ? readv(fd, iov, cnt) : preadv(fd, iov, cnt, off));
        if (m) pthread_mutex_unlock(m);
    } else if (read_lock_take(r)) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        res = ITOI_WSC_REWAIT;
        if (poll(&p, 1, 0) > 0) {
            struct iovec cut[1024]; /* WAIT_ALL_MAX: no request has more */
            int avail = 0;
            if (ioctl(fd, FIONREAD, &avail) == 0 && avail > 0 && cnt <= 1024) {
                cnt = iov_cut(iov, cnt, (size_t)avail, cut);
                iov = cut;
            }
            res = neg_errno(off < 0 ? readv(fd, iov, cnt) : preadv(fd, iov, cnt, off));
        }
        pthread_mutex_unlock(&read_lock);
    } else {
        res = -ECANCELED;
    }
    helper_unpin(fd, q->fd);
    return res;
}

/* A helper's openat. open(2) of a FIFO waits for the other end, for ever if none comes,
 * and no cancellation could end it (found by a chaos test: a deadline, ito_cancel_io and
 * finalize all waited for a writer that never came, and the blocked opens held every
 * helper). io_uring's openat does not wait: a reader opens at once, a writer without a
 * reader fails with ENXIO, as with O_NONBLOCK. The sync backend now does the same (then
 * the descriptor gets the mode asked for), so the backends agree. */
static long helper_openat(itoi_sysrec_t *r)
{
    const ito_sysreq_t *q = &r->req;
    struct stat st;
    int at = (q->flags & O_NOFOLLOW) ? AT_SYMLINK_NOFOLLOW : 0;
    /* a directory descriptor (not AT_FDCWD; an absolute path ignores it) is pinned */
    int dir = q->fd;
    bool uses_dir = dir >= 0 && q->path[0] != '/';
    if (uses_dir && (dir = helper_pin(r, q->fd, NULL)) < 0) return dir;
    /* Not used (AT_FDCWD, an absolute path): the number may go. Used bare (no descriptor
     * left for a duplicate): the mark stays until the open has returned, so that an
     * ito_close waits for it, as on a file (until 2026-12-06 it was dropped here too, and
     * a close and a new open could give the open another directory). */
    if (!uses_dir) {
        itoi_helpers_release_fd();
        itoi_fault_window_helper(); /* ITO_FAULT_HELPER (tests), as helper_pin */
    }
    long res;
    if ((q->flags & (O_NONBLOCK | O_PATH)) || fstatat(dir, q->path, &st, at) != 0 || !S_ISFIFO(st.st_mode)) {
        res = neg_errno(openat(dir, q->path, q->flags, q->mode));
    } else {
        int fd = openat(dir, q->path, q->flags | O_NONBLOCK, q->mode);
        res = fd < 0 ? -errno : fd;
        int fl = fd < 0 ? -1 : fcntl(fd, F_GETFL);
        if (fl >= 0) (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    }
    helper_unpin(dir, q->fd);
    return res;
}

long itoi_wsc_run_blocking(itoi_sysrec_t *r)
{
    const ito_sysreq_t *q = &r->req;
    struct iovec one;
    int cnt;
    long w;
    switch (q->op) {
    case ITO_SYS_OPENAT: return helper_openat(r);
    case ITO_SYS_CLOSE: { /* ito_close of a regular file (wrappers.c) */
        long rc = neg_errno(close(q->fd));
        if (rc == 0) itoi_wsc_closed(q->fd);
        return rc;
    }
    case ITO_SYS_FSYNC: {
        struct stat st;
        int fd = helper_pin(r, q->fd, &st);
        if (fd < 0) return fd;
        w = neg_errno(q->flags ? fdatasync(fd) : fsync(fd));
        helper_unpin(fd, q->fd);
        return w;
    }
    case ITO_SYS_READ: case ITO_SYS_PREAD: case ITO_SYS_READV: return helper_read(r);
    case ITO_SYS_WRITE: case ITO_SYS_PWRITE: case ITO_SYS_WRITEV: {
        struct stat st;
        int fd = helper_pin(r, q->fd, &st); /* the file it was posted for (see helper_pin) */
        if (fd < 0) return fd;
        if ((w = helper_wait_ready(r, fd, &st, POLLOUT)) == 0) {
            const struct iovec *iov = vec_of(q, &one, &cnt);
            int64_t off = offset_of(q);
            w = neg_errno(off < 0 ? writev(fd, iov, cnt) : pwritev(fd, iov, cnt, off));
        }
        helper_unpin(fd, q->fd);
        return w;
    }
    default: {
        uint32_t ev;
        return itoi_wsc_run_nonblocking(q, false, &ev);
    }
    }
}
