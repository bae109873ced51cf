/* whole.c: whole transfers. A wrapper is one request, but write(2) and send(2) on a
 * blocking pipe or stream socket return only when every byte has moved (POSIX: a partial
 * count only when a signal interrupts them), and io_uring and the sync backend's
 * non-blocking attempt move only what fits (a pipe's free space, the socket's buffer). So
 * the write-side wrappers go on with the rest, as the blocking call would, and so do
 * recv/recvmsg with MSG_WAITALL (on both backends the parts are ito's: the flag is taken
 * off the request, since io_uring's own retry dropped a reset's error, 2026-12-04). Regular files and block devices write everything in one
 * call unless a limit stops them (RLIMIT_FSIZE, a full disk): that short count is the
 * answer (a second call would raise SIGXFSZ where write(2) returns the count); pwrite and
 * requests posted with ito_sys_post stay single calls.
 *
 * A part that fails after others moved ends the call with the count so far (its error is
 * for the next call, as after a partial write(2): an error the socket reports only once,
 * a reset, is kept for the next call on the number, see keep_error); so do the ULT's deadline,
 * ito_cancel_io, ito_close and finalize. MSG_DONTWAIT keeps one attempt; a receive stops
 * at end of file (0). MSG_WAITALL applies to stream sockets without MSG_PEEK only
 * (waitall_where_it_applies), and a recvmsg with a control buffer ends after the part that
 * brought ancillary data (passed descriptors), as recvmsg(2) does; later parts keep the
 * control buffer (they used to pass none, and the kernel dropped the descriptors).
 *
 * The file between parts: write(2) holds its file for the whole call; a wrapper holds
 * only a number between two parts, and its ULT may wait in a run queue after one part
 * completed. If another ULT's ito_close ended the file meanwhile and the number was
 * reused (a server accepting the next connection), the next part would go to the new
 * file. So ito_close bumps a close generation of the number (a table indexed by fd
 * modulo GEN_SLOTS) before anything else, and a part after the first goes on only if the generation is
 * still the one the call began with. When it moved, the number's file is
 * compared with the one the rest began on (device and inode, taken before the second
 * part while the generation was still the call's): another file there ends the transfer
 * with the count so far, as an error would, and so does a last close of the number itself
 * (its close(2) may not have run yet: the number still names the file; until 2026-12-07
 * the rest went on there and into the file that took the number next); the same file
 * after a close of another number goes on (a close of another
 * number sharing the slot; until 2026-12-03 that cut the transfer short, and so did an
 * ito_close of a number that named nothing, which now fails with EBADF first). Before the
 * rest begins the identity is not known (it is taken at the rest's start): there the
 * slot's word says which number its last close was, and a single close of another number
 * since the call began (also during the first part's wait, which may be long) lets the
 * call go on. One case is left short: two or more closes of the slot's numbers between
 * the call's start and the rest's: the call returns the count so far, as after an error.
 * Going on there sent the rest to another file when the number itself had been dup2'ed
 * over (test_io_whole part 9); taking the identity at every call's start would cost every
 * write a system call. An ito_close of the number itself ends the waiting part with EBADF
 * (wrappers.c), and so it does a part whose one attempt on io_uring found no room and that
 * the ULT tries again itself: the file the number named at that completion is compared
 * before the try (area.c, complete_odd; before 2026-12-07 the try sent the rest into the
 * socket that took the number, tests/test_io_whole_close_retry.c). Between the look at the
 * generation and the part's request, a part looks again where the closer sees it (part_pins,
 * below; before 2026-12-07 a close and reuse landing there went unseen). */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "wsc.h"

#define GEN_SLOTS ITOI_WSC_GEN_SLOTS
/* A slot's word: the count of ito_closes of its numbers (high 32 bits) and the number the
 * last one closed (low 32 bits), changed together by one compare-and-swap, so that a
 * reader that sees the count moved by exactly one knows which number it was. */
static _Atomic uint64_t close_gen[GEN_SLOTS];

static inline _Atomic uint64_t *gen_of(int fd) { return &close_gen[(unsigned)fd % GEN_SLOTS]; }

/* Whether the slot's word went from `gen` to `now` by one ito_close of a number other than
 * fd: fd itself was not closed since `gen` was read. */
static inline bool only_other_closed(uint64_t gen, uint64_t now, int fd)
{
    return (uint32_t)(now >> 32) == (uint32_t)(gen >> 32) + 1u && (uint32_t)now != (uint32_t)fd;
}

/* Errors a socket reports once (its pending error, cleared when read): a part that got one
 * after others moved would lose it, and the next call would see end of file where
 * recv(2) says ECONNRESET (found by a server tester, 2026-12-04). So it is kept for the
 * next wrapper call on the same number while the number still names the same file: a
 * send or write returns it at once, a read or receive only in place of end of file (the
 * kernel reports it to a receive once the queued data is read; found by a reviewer).
 * Persistent errors (EPIPE, EBADF) come again by themselves; the ULT's own cancellation
 * and deadline are not the socket's (ETIMEDOUT is kept only before the deadline). At
 * most KEPT_SLOTS at once (the oldest goes). The wrappers' check is one load and a bit
 * test: itoi_wsc_kept_mask (wsc.h) has bit fd % 64 set while an entry of such a number is
 * kept, so a kept (or stale: closed with close(2), never used again) error costs only the
 * calls on numbers of its residue the lock and the scan (until 2026-12-04 one kept error
 * anywhere sent every wrapper call of the process through them; found by a reviewer). */
#define KEPT_SLOTS 64
static struct kept {
    int fd, err;
    uint32_t id;
    uint64_t age;
} kept[KEPT_SLOTS];
static itoi_spinlock_t kept_lock;
_Atomic uint64_t itoi_wsc_kept_mask; /* (wsc.h, itoi_wsc_kept_any) */
static uint64_t kept_age; /* under kept_lock */

static bool reported_once(long r)
{
    switch (-r) {
    case ECONNRESET: case ECONNABORTED: case ECONNREFUSED: case EHOSTUNREACH: case ENETUNREACH:
    case ENETDOWN: case EHOSTDOWN:
        return true;
    case ETIMEDOUT: { /* TCP's own timeout, unless the ULT's deadline has passed */
        itoi_worker_t *w = itoi_self_worker();
        uint64_t d = w && w->cur ? w->cur->io_deadline : ITO_FOREVER;
        return d == ITO_FOREVER || itoi_now_ns() < d;
    }
    default:
        return false;
    }
}

/* itoi_wsc_kept_mask's bit of fd, made true again (under kept_lock). */
static void mask_fix(int fd)
{
    bool any = false;
    for (int i = 0; i < KEPT_SLOTS && !any; i++) any = kept[i].err && itoi_wsc_kept_bit(kept[i].fd) == itoi_wsc_kept_bit(fd);
    if (any) atomic_fetch_or_explicit(&itoi_wsc_kept_mask, itoi_wsc_kept_bit(fd), memory_order_relaxed);
    else atomic_fetch_and_explicit(&itoi_wsc_kept_mask, ~itoi_wsc_kept_bit(fd), memory_order_relaxed);
}

static void keep_error(int fd, int err)
{
    uint32_t id = itoi_wsc_file_identity(fd);
    itoi_spin_lock(&kept_lock);
    int k = -1, oldest = 0;
    for (int i = 0; i < KEPT_SLOTS && k < 0; i++)
        if (kept[i].err && kept[i].fd == fd) k = i;
    for (int i = 0; i < KEPT_SLOTS && k < 0; i++)
        if (!kept[i].err) k = i;
        else if (kept[i].age < kept[oldest].age) oldest = i;
    if (k < 0) k = oldest;
    int evicted = kept[k].err ? kept[k].fd : -1;
    kept[k] = (struct kept){.fd = fd, .err = err, .id = id, .age = ++kept_age};
    if (evicted >= 0) mask_fix(evicted);
    mask_fix(fd);
    itoi_spin_unlock(&kept_lock);
}

/* The kept entry of fd, taken out (err 0: none). */
static struct kept kept_take(int fd)
{
    struct kept e = {0};
    itoi_spin_lock(&kept_lock);
    for (int i = 0; i < KEPT_SLOTS; i++)
        if (kept[i].err && kept[i].fd == fd) {
            e = kept[i];
            kept[i].err = 0;
            mask_fix(fd);
            break;
        }
    itoi_spin_unlock(&kept_lock);
    return e;
}

long itoi_wsc_kept_error_slow(int fd)
{
    itoi_worker_t *w = itoi_self_worker();
    if (!w || !w->cur) return 0; /* not a ULT: the call fails with EPERM, the error stays */
    struct kept e = kept_take(fd);
    if (!e.err || e.id != itoi_wsc_file_identity(fd)) return 0; /* the number names another file now */
    return -e.err;
}

void itoi_wsc_closing(int fd)
{
    _Atomic uint64_t *g = gen_of(fd);
    uint64_t old = atomic_load(g), nw;
    do nw = ((uint64_t)((uint32_t)(old >> 32) + 1u) << 32) | (uint32_t)fd;
    while (!atomic_compare_exchange_weak(g, &old, nw));
    /* the new generation, then the closer's reads of the records (fdlive) and the pins:
     * one of the two sides sees the other (itoi_wsc_part_closed) */
    atomic_thread_fence(memory_order_seq_cst);
    if (itoi_wsc_kept_any(fd)) (void)kept_take(fd); /* the error was the old file's */
}

/* A part after the first, between the look at the generation in rest() and its request
 * (wrappers.c, call_once, which the part's generation reaches as `part`): its worker's
 * kernel thread may be descheduled there, and the ULT yields there (call_once's io_point),
 * while another worker's ito_close of the number runs to its end and a new socket takes
 * the number; the part went to the new socket (seen once by an outside tester, h74a,
 * 2026-12-07, in a churn at load 20; tests/test_io_whole_close_window.c). So the part
 * looks again where an ito_close must see it: after its record is registered (counted in
 * fdlive, which the closer's passes read) and before its request can reach the kernel or
 * the worker's epoll (area.c, itoi_wsc_post_part); and the sync backend's own attempt runs
 * with the number pinned (part_pins: ito_close waits before close(2) while a pin of the
 * number's slot is held), the look coming after the pin. The closer bumps the generation
 * (a seq_cst compare-and-swap, then a full fence) before it reads the records and the
 * pins, the part registers or pins and then (after a full fence) reads the generation:
 * either the closer finds the part (cancels it, or waits for the attempt, both on the old
 * file) or the part finds the close and ends the transfer with the count so far. Only
 * parts after the first pay for it (a fence, and an atomic add for an attempt). */
static _Atomic uint32_t part_pins[GEN_SLOTS];

bool itoi_wsc_part_closed(int fd, uint64_t gen)
{
    atomic_thread_fence(memory_order_seq_cst); /* the registration or the pin, then the look */
    uint64_t now = atomic_load(gen_of(fd));
    return now != gen && !only_other_closed(gen, now, fd);
}

bool itoi_wsc_part_pin(int fd, uint64_t gen)
{
    atomic_fetch_add(&part_pins[(unsigned)fd % GEN_SLOTS], 1u);
    if (!itoi_wsc_part_closed(fd, gen)) return true;
    itoi_wsc_part_unpin(fd);
    return false;
}

void itoi_wsc_part_unpin(int fd) { atomic_fetch_sub(&part_pins[(unsigned)fd % GEN_SLOTS], 1u); }

bool itoi_wsc_part_pinned(int fd) { return atomic_load(&part_pins[(unsigned)fd % GEN_SLOTS]) != 0; }

/* The rules the whole-transfer loop (whole_any) and the fast paths of itoi_wsc_whole
 * share, written once here. Inline and cheap: a fast path whose op is known folds each to
 * one flag test. */
/* A receive asked to wait for all its bytes (MSG_WAITALL): only then may its parts go on
 * (waitall_where_it_applies says whether they do). */
static inline bool waitall_asked(const ito_sysreq_t *q)
{
    return (q->op == ITO_SYS_RECV || q->op == ITO_SYS_RECVMSG) && (q->flags & MSG_WAITALL);
}

/* A TCP Fast Open send: its first part may only start the connect (whole_any). */
static inline bool fastopen_send(const ito_sysreq_t *q)
{
    return (q->flags & MSG_FASTOPEN) && (q->op == ITO_SYS_SEND || q->op == ITO_SYS_SENDMSG);
}

/* The bytes a buffer transfer asks for, as a count can say them. */
static inline size_t buf_total(const ito_sysreq_t *q) { return q->len < SSIZE_MAX ? q->len : SSIZE_MAX; }

/* Whether a call that moved part of its bytes goes on (see above). */
static bool go_on(const ito_sysreq_t *q, bool waitall)
{
    switch (q->op) {
    case ITO_SYS_SEND: case ITO_SYS_SENDMSG:
        if (q->flags & MSG_DONTWAIT) return false;
        break;
    case ITO_SYS_RECV: case ITO_SYS_RECVMSG:
        return waitall && !(q->flags & MSG_DONTWAIT);
    case ITO_SYS_WRITE: case ITO_SYS_WRITEV:
        break;
    default:
        return false;
    }
    struct stat st; /* writes: not on a regular file or block device */
    return itoi_wsc_stat_cached(q->fd, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode);
}

static size_t iov_bytes(const struct iovec *iov, int n)
{
    size_t sum = 0;
    for (int i = 0; i < n; i++) sum += iov[i].iov_len < SSIZE_MAX - sum ? iov[i].iov_len : SSIZE_MAX - sum;
    return sum;
}

/* The rest of a vector after `done` bytes, in v (a private copy): its first entry's index. */
static int iov_skip(struct iovec *v, int n, size_t done)
{
    int i = 0;
    while (i < n && done >= v[i].iov_len) done -= v[i++].iov_len;
    if (i < n) {
        v[i].iov_base = (char *)v[i].iov_base + done;
        v[i].iov_len -= done;
    }
    return i;
}

/* The loop every kind shares: aim q at the rest after `done` bytes, post it, count,
 * until every byte has moved, a part fails or ends the stream (r <= 0: the count so
 * far), or the number was closed since the call began. */
typedef bool (*aim_fn)(ito_sysreq_t *q, size_t done, void *ctx); /* false: stop here */

/* *last: the result of the part aimed last, 0 if it never ran (aimed, then stopped by a
 * close) or no part was aimed: only a part that moved bytes wrote the private header. */
static long rest(ito_sysreq_t *q, const char *what, size_t done, size_t total, uint64_t gen, aim_fn aim, void *ctx,
                 long *last)
{
    *last = 0;
    uint32_t id = 0; /* the file, taken before the second part (see the top of this file) */
    while (done < total) {
        uint64_t now = atomic_load(gen_of(q->fd));
        if (now != gen) { /* a close of this number, or of another sharing its slot */
            if (!id) {
                /* Before the first part of the rest: the file's identity is not known yet.
                 * One close since the call began, of another number, leaves this one
                 * naming its file: go on (it used to end the call here, also when that
                 * close came during the first part's wait, for room or data: an
                 * ito_close of number fd + 4096 cut a slow client's send short with no
                 * error; found by an outside tester, h63c, 2026-12-06). More than one:
                 * the count so far (the known limit above). */
                if (!only_other_closed(gen, now, q->fd)) break;
            } else if ((uint32_t)now == (uint32_t)q->fd || itoi_wsc_file_identity(q->fd) != id) {
                /* The last close was of this number: the call ends, also while that
                 * ito_close has not reached close(2) yet (its passes, its wait for pins),
                 * where the number still names the file. Going on there took the new
                 * generation for the call's, and the next part, no longer stopped by
                 * part_pins' look, went to the file that took the number after close(2)
                 * (found by an outside tester, h75b, 2026-12-07:
                 * tests/test_io_whole_close_own.c). */
                break;
            }
            gen = now; /* another number's close: the same file, it goes on */
        }
        *last = 0;
        if (!aim(q, done, ctx)) break;
        if (!id) {
            id = itoi_wsc_file_identity(q->fd);
            if (atomic_load(gen_of(q->fd)) != gen) break; /* closed before we looked: id may be another file's */
        }
        long r = itoi_wsc_call_part(q, what, gen); /* (it looks again: see part_pins) */
        *last = r;
        if (r <= 0) {
            if (reported_once(r)) keep_error(q->fd, (int)-r); /* for the next call (above) */
            break;
        }
        done += (size_t)r;
    }
    return (long)done;
}

typedef struct vec_rest {
    const struct iovec *iov; /* the caller's vector */
    struct iovec *v;         /* a private copy, less what has moved */
    int n;
    struct msghdr *m;        /* sendmsg/recvmsg: the private header, else NULL */
    struct msghdr *user;     /* recvmsg: the caller's header, else NULL */
    size_t ctl_cap;          /* the control buffer's size as the caller gave it */
    int ctl_mode;            /* recvmsg: CTL_* (when ancillary data ends the call) */
    bool later;              /* a part of the rest has run */
} vec_rest_t;

/* When a MSG_WAITALL recvmsg's ancillary data ends it, by the socket (looked up once per
 * call). Only unix sockets pass descriptors; the kernel's unix stream receive stops after
 * a message that carries them. Timestamps (TCP) never end it. A unix socket that passes only descriptors ends after a part with
 * SCM_RIGHTS or a cut (until 2026-12-03 any MSG_CTRUNC did, also where credentials made
 * it). One that also passes credentials, labels or pidfds (SO_PASSCRED, SO_PASSSEC,
 * SO_PASSPIDFD) ends after any part with control data: the kernel stops there too when
 * the writer's credentials change, and a part cannot tell which it was; going on lost
 * descriptors on io_uring, leaked pidfds and merged writers (found by a reviewer). Such a
 * receive may return less than asked with the writer unchanged (syscall.h). */
enum {
    CTL_NEVER,       /* not a unix socket: no descriptors come */
    CTL_RIGHTS,      /* unix, descriptors only: a cut means descriptors did not fit */
    CTL_RIGHTS_MORE, /* unix passing credentials, labels or pidfds too: any control data ends it */
};
#ifndef SO_PASSPIDFD
#define SO_PASSPIDFD 76 /* Linux 6.5; older kernels refuse the option (ENOPROTOOPT: off) */
#endif

/* Whether a received header says ancillary data came: a length, or MSG_CTRUNC alone (the
 * kernel's answer when none of it fitted: msg_controllen 0; until 2026-12-03 such a part
 * was taken for one without, and the call went on past it with the flag lost: found by
 * a reviewer). */
static bool ctl_came(const struct msghdr *m)
{
    return m->msg_controllen > 0 || (m->msg_flags & MSG_CTRUNC);
}

/* Whether a part's header ends the call (mode: CTL_*): descriptors among its control
 * messages, or a cut where only descriptors come. */
static bool ctl_stops(struct msghdr *m, int mode)
{
    if (mode == CTL_NEVER) return false;
    if (mode == CTL_RIGHTS_MORE) return ctl_came(m);
    if (m->msg_control && m->msg_controllen >= sizeof(struct cmsghdr))
        for (struct cmsghdr *c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c))
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) return true;
    return (m->msg_flags & MSG_CTRUNC) && mode == CTL_RIGHTS;
}

/* recvmsg: the last part's ancillary data, if it brought any, is the caller's (its length
 * and MSG_CTRUNC go to the caller's header). */
static void ctl_back(vec_rest_t *x)
{
    if (!x->user || !x->later || !ctl_came(x->m)) return;
    x->user->msg_controllen = x->m->msg_controllen;
    x->user->msg_flags |= x->m->msg_flags & MSG_CTRUNC;
}

static bool aim_vec(ito_sysreq_t *q, size_t done, void *ctx)
{
    vec_rest_t *x = ctx;
    if (x->user) { /* the call ends after a part with descriptors, as recvmsg(2) stops
                    * after a message that carries them */
        if (x->later) {
            x->user->msg_flags |= x->m->msg_flags & MSG_CTRUNC; /* a cut is the caller's to know */
            if (ctl_stops(x->m, x->ctl_mode)) {
                ctl_back(x);
                return false;
            }
        }
        x->later = true;
        x->m->msg_controllen = x->ctl_cap;
        x->m->msg_flags = 0; /* the part's own flags come back here */
    }
    memcpy(x->v, x->iov, (size_t)x->n * sizeof *x->v);
    int i = iov_skip(x->v, x->n, done);
    if (x->m) {
        x->m->msg_iov = x->v + i;
        x->m->msg_iovlen = (size_t)(x->n - i);
    } else {
        q->iov = x->v + i;
        q->iovcnt = x->n - i;
    }
    return true;
}

typedef struct buf_rest {
    char *buf;
    size_t len;
} buf_rest_t;

static bool aim_buf(ito_sysreq_t *q, size_t done, void *ctx)
{
    const buf_rest_t *x = ctx;
    q->buf = x->buf ? x->buf + done : NULL; /* (a MSG_TRUNC receive may have none) */
    q->len = x->len - done;
    return true;
}

/* The rest of a vectored transfer after a first part of `done` bytes. */
static long rest_vec(ito_sysreq_t *q, const char *what, size_t done, size_t total, uint64_t gen, size_t ctl_cap,
                     int ctl_mode)
{
    bool msg = q->op == ITO_SYS_SENDMSG || q->op == ITO_SYS_RECVMSG;
    vec_rest_t x = {.iov = msg ? q->msg->msg_iov : q->iov, .n = msg ? (int)q->msg->msg_iovlen : q->iovcnt};
    x.v = itoi_malloc((size_t)x.n * sizeof *x.v);
    if (!x.v) return (long)done; /* the count so far: the rest is for the next call */
    struct msghdr m;
    if (msg) { /* the rest carries no address; a send's ancillary data went with the first
                * part, a receive keeps its control buffer for descriptors still to come */
        m = *q->msg;
        m.msg_name = NULL;
        m.msg_namelen = 0;
        if (q->op == ITO_SYS_RECVMSG && ctl_mode != CTL_NEVER) { /* descriptors may end it */
            x.user = q->msg;
            x.ctl_cap = m.msg_control ? ctl_cap : 0;
            x.ctl_mode = ctl_mode;
        }
        if (!x.ctl_cap) {
            m.msg_control = NULL;
            m.msg_controllen = 0;
        }
        q->msg = x.m = &m;
    }
    long last;
    long r = rest(q, what, done, total, gen, aim_vec, &x, &last);
    /* The last part's, if it moved bytes (again, if aim_vec took it: the same values). A
     * part that failed, was cancelled or never ran left the header as aim_vec set it, the
     * whole capacity: until 2026-12-03 that went back to the caller as ancillary data that
     * never came (a MSG_WAITALL receive ended by its deadline, a cancel or a reset; found
     * by a server tester). */
    if (last > 0) ctl_back(&x);
    free(x.v);
    return r;
}

/* MSG_WAITALL waits for the whole length only on a stream socket and without MSG_PEEK:
 * a datagram or seqpacket receive is one message (recv(2) ignores the flag there; going on
 * glued messages together and could wait for ever), and going on after a peek would peek
 * the same bytes again into the rest of the buffer. io_uring would retry a seqpacket
 * receive itself: the flag is taken off before the first part. Whether the parts go on;
 * *ctl_mode: CTL_* for a recvmsg. */
static bool waitall_where_it_applies(ito_sysreq_t *q, int *ctl_mode)
{
    *ctl_mode = CTL_NEVER;
    if (!waitall_asked(q)) return false;
    int type = 0;
    socklen_t tl = sizeof type;
    if ((q->flags & MSG_PEEK) ||
        (getsockopt(q->fd, SOL_SOCKET, SO_TYPE, &type, &tl) == 0 && type != SOCK_STREAM)) {
        q->flags &= ~MSG_WAITALL;
        return false;
    }
    /* A recvmsg on a unix socket: the parts are ours (aim_vec). io_uring's own retry of
     * the flag dropped descriptors that came after its first part, and went on past a part
     * whose descriptors had no room (MSG_CTRUNC), with or without a control buffer (found
     * by reviewers, 2026-12-03). */
    int dom = 0, on = 0;
    tl = sizeof dom;
    if (q->op == ITO_SYS_RECVMSG && getsockopt(q->fd, SOL_SOCKET, SO_DOMAIN, &dom, &tl) == 0 && dom == AF_UNIX) {
        q->flags &= ~MSG_WAITALL;
        tl = sizeof on;
        bool more = (getsockopt(q->fd, SOL_SOCKET, SO_PASSCRED, &on, &tl) == 0 && on);
        tl = sizeof on;
        more |= (getsockopt(q->fd, SOL_SOCKET, SO_PASSSEC, &on, &tl) == 0 && on);
        tl = sizeof on;
        more |= (getsockopt(q->fd, SOL_SOCKET, SO_PASSPIDFD, &on, &tl) == 0 && on);
        *ctl_mode = more ? CTL_RIGHTS_MORE : CTL_RIGHTS;
    }
    /* The parts are ours on io_uring too: its own retry of the flag returned the count
     * so far after a reset and dropped the error, which then never reached the caller. */
    q->flags &= ~MSG_WAITALL;
    return true;
}

/* A buffer transfer's rest after a first part that moved `done` bytes, if it goes on (out
 * of line: the common send, whole at once, saves no registers for it). */
static __attribute__((noinline)) long buf_rest(ito_sysreq_t *q, const char *what, long done, size_t total,
                                              uint64_t gen, bool waitall)
{
    if (!go_on(q, waitall)) return done;
    buf_rest_t x = {.buf = q->buf, .len = total};
    long last;
    return rest(q, what, (size_t)done, total, gen, aim_buf, &x, &last);
}

static __attribute__((noinline)) long whole_any(ito_sysreq_t *q, const char *what);

long itoi_wsc_whole(ito_sysreq_t *q, const char *what)
{
    /* The common cases first, as whole_any would run them, by its rules: a receive without
     * MSG_WAITALL is one call (its parts never go on), a send without MSG_FASTOPEN one call
     * and its rest (MSG_WAITALL means nothing to a send). */
    if (q->op == ITO_SYS_RECV && !waitall_asked(q)) return itoi_wsc_call(q, what);
    if (q->op == ITO_SYS_SEND && !fastopen_send(q)) {
        uint64_t gen = atomic_load(gen_of(q->fd));
        size_t total = buf_total(q);
        long r = itoi_wsc_call(q, what);
        if (r <= 0 || (size_t)r >= total) return r;
        return buf_rest(q, what, r, total, gen, false);
    }
    return whole_any(q, what);
}

static long whole_any(ito_sysreq_t *q, const char *what)
{
    int ctl_mode;
    bool waitall = waitall_where_it_applies(q, &ctl_mode);
    uint64_t gen = atomic_load(gen_of(q->fd));
    size_t ctl_cap = q->op == ITO_SYS_RECVMSG ? q->msg->msg_controllen : 0;
    long r = itoi_wsc_call(q, what);
    /* TCP Fast Open (MSG_FASTOPEN on an unconnected socket): the part is one attempt, and
     * without a cookie the kernel starts the connect and answers EINPROGRESS, nothing
     * sent, where sendmsg(2) on a blocking socket waits for the connection and sends every
     * byte. So the call goes on as a plain send once the connect is under way (it waits
     * for the connection as for room: POLLOUT; a refusal is its error, as sendmsg(2)
     * says), and later parts never carry the flag (on the connected socket it is EISCONN).
     * Until 2026-12-06 ito_sendmsg failed with EINPROGRESS and sent nothing (found by an
     * outside tester, h66c: a proxy opening its backend connection with TFO). */
    if (ITOI_UNLIKELY(fastopen_send(q)) && !(q->flags & MSG_DONTWAIT)) {
        q->flags &= ~MSG_FASTOPEN;
        if (r == -EINPROGRESS) return itoi_wsc_whole(q, what);
    }
    if (r <= 0) return r;
    size_t done = (size_t)r, total;
    switch (q->op) {
    case ITO_SYS_WRITEV: total = iov_bytes(q->iov, q->iovcnt); break;
    case ITO_SYS_SENDMSG: case ITO_SYS_RECVMSG: total = iov_bytes(q->msg->msg_iov, (int)q->msg->msg_iovlen); break;
    default: /* a buffer: its rest goes on as a send's (buf_rest) */
        total = buf_total(q);
        return done >= total ? r : buf_rest(q, what, r, total, gen, waitall);
    }
    if (done >= total || !go_on(q, waitall)) return r;
    if (q->op == ITO_SYS_RECVMSG && ctl_stops(q->msg, ctl_mode))
        return r; /* descriptors came with the first part: the call ends there (aim_vec) */
    return rest_vec(q, what, done, total, gen, ctl_cap, ctl_mode);
}
