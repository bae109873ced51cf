/* wrappers.c: blocking-style system calls for ULTs on top of split-phase requests, and
 * what a waiting ULT is subject to: its I/O deadline, ito_cancel_io, ito_close of its
 * descriptor by another ULT, and finalize.
 *
 * io_uring: the ULT posts its request into its worker's common area with itself as the
 * continuation and parks; the worker's scheduler context flushes the bucket when it has
 * nothing else to run, reaps the completion and wakes the ULT.
 * sync: the ULT tries the call itself without blocking; if it would block, it posts a
 * record that waits for readiness in the worker's epoll (or goes to a helper thread for
 * a regular file) and parks; the record runs the call again when the fd is ready.
 *
 * errno: a ULT that parks may resume on another kernel thread, and a caller's compiled
 * code may keep the address of errno (__errno_location is a const function) from before
 * the call. So a wrapper that fails after it moved goes back to the worker it was called
 * on before it sets errno: `if (ito_read(...) < 0) use(errno)` reads the right errno.
 * Success leaves errno as the caller had it, as read(2) and write(2) do: the sync backend's
 * attempts and its epoll re-arm (EAGAIN, ENOENT) ran in the ULT's context and a
 * successful ito_write or ito_send that had waited returned with errno 11 or 2 (found by
 * an outside tester, h65f, 2026-12-06; tests/test_io_errno_success.c). KEEP_ERRNO reads
 * errno's address anew after the call (the ULT may have moved: see above).
 *
 * The wait (io_park): the ULT's itoi_iowait_t lives on its stack and is published in
 * me->io_wait for ito_cancel_io; the owner worker completes the records, clears io_wait
 * and readies the ULT when the last one is done. A deadline arms the ULT's timer, whose
 * firing cancels the records (the completions then wake the ULT, with ETIMEDOUT unless
 * a request finished first, whose result is then returned). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wsc.h"
#include "../zwt/zwt.h"

#define WAIT_ALL_MAX 1024
/* Runs of a request that io_uring gave up by itself before running it (area.c,
 * itoi_wsc_complete): then EAGAIN (syscall.h). One count for every wrapper. */
#define KERNEL_RERUNS 8


/* The deadline fired while a ULT waits for I/O: cancel what it waits for; the
 * completions wake it (never woken from here: its records still point at its stack). */
static bool io_timeout(itoi_ult_t *t, void *obj)
{
    (void)t;
    itoi_worker_t *w = itoi_self_worker();
    itoi_wsc_cancel_wait(w, itoi_wsc_area_if_ready(w), obj, WHY_TIMEOUT);
    return false;
}

/* Descriptors that ito_close is closing right now. A wait registered on another worker
 * after the closer's pass there (or after the closer found no request there) would
 * otherwise wait on the closed file for ever: io_uring holds the file of a request
 * submitted before close(2). So a ULT about to park looks here after its records are
 * registered, and a closer publishes its fd before its pass: one of the two sees the
 * other (a full fence on each side).
 *
 * The number is withdrawn after close(2) has returned, and in between another thread may
 * get the same number for a new file (socket(2), accept(2)): a wait on that file must not
 * end. So a slot also holds the identity of the file being closed (a hash of st_dev and
 * st_ino, taken before the close; 0 when fstat failed), in one word with the number:
 * bits 0-31 fd + 1 (0: free), bits 32-63 the identity. A waiter that finds its number
 * looks at what the number refers to now: no file (EBADF: closed), or a file of the same
 * identity, is the file being closed; another identity is a new file. (Two files share
 * an identity only if they are the same inode opened twice, or by a 2^-32 hash
 * collision: such a wait ends with EBADF, as a wait on the closed file would.) One order
 * is left to the deadline: a wait whose request entered the kernel on the old file
 * before the close (its post crossed at once), and whose look comes after close(2) and
 * after the number went to a new file, sees the new identity and stays; the user closed
 * a descriptor that another thread was starting to use, and the request ends with data,
 * the peer's close, or the ULT's I/O deadline.
 *
 * Bits 62 (IN_CLOSE) and 63 (CLOSED) tell a waiter where the closer is (the identity
 * keeps 30 bits): neither, its passes, and the number still names the file being closed,
 * so no look is needed; IN_CLOSE, close(2) is running, and the waiter waits (yielding the
 * CPU) for CLOSED, set once close(2) has returned; then its fstat comes after the close
 * (the slot's release and acquire order them). The waiter used to fstat the number while
 * close(2) ran, a race on the descriptor that TSan reports (test_io_poll_close).
 *
 * Bit 61 (OFF) says that the close runs off the closer's worker (a regular file's: see
 * close_off_worker), and the closer is parked until it has ended: a waiter that waited for
 * CLOSED on that worker would keep the worker from ever waking the closer, and one on
 * another worker would stop its worker for as long as the file system's server takes. It
 * looks at what the number names at once instead (29 bits of identity then). Such a close
 * sets CLOSED where close(2) returns (itoi_wsc_closed), and from then on a number that
 * names a file names a descriptor opened since, even one of the same file: that wait goes
 * on (until 2026-12-07 it ended with EBADF, see itoi_wsc_closed). */
#define CLOSING_SLOTS 64
#define OFF_BIT ((uint64_t)1 << 61)
#define IN_CLOSE_BIT ((uint64_t)1 << 62)
#define CLOSED_BIT ((uint64_t)1 << 63)
#define ID_MASK 0x1fffffffu
static _Atomic uint64_t closing[CLOSING_SLOTS];
static _Atomic int closing_n;
/* Closers that found every slot taken park here until a close ends (they used to
 * yield-spin: 36 closers beyond the 64 made about six million switches a second while the
 * closes under way waited for a busy worker's answer). closing_nwait counts the parked
 * and those about to park; a closer raises it before its last look at the slots, and
 * closing_end reads it after freeing a slot (both seq_cst): either the look finds the
 * slot or the end finds the count, takes the lock (held by the closer until it has
 * parked) and wakes one. */
static itoi_spinlock_t closing_lock;
static itoi_queue_t closing_waiters; /* under closing_lock */
static _Atomic int closing_nwait;

uint32_t itoi_wsc_file_identity(int fd)
{
    struct stat st;
    if (itoi_wsc_stat_cached(fd, &st) != 0) return 0;
    uint64_t h = ((uint64_t)st.st_dev * 0x9E3779B97F4A7C15u) ^ ((uint64_t)st.st_ino * 0xC2B2AE3D27D4EB4Fu);
    uint32_t id = (uint32_t)(h >> 32) ^ (uint32_t)h;
    return id ? id : 1;
}

static int closing_take(uint64_t v)
{
    for (int i = 0; i < CLOSING_SLOTS; i++) {
        uint64_t free_slot = 0;
        if (atomic_compare_exchange_strong(&closing[i], &free_slot, v)) return i;
    }
    return -1;
}

/* A slot for fd (the caller is a ULT); parks while 64 closes are under way. */
static int closing_begin(int fd)
{
    uint64_t v = ((uint64_t)(itoi_wsc_file_identity(fd) & ID_MASK) << 32) | ((uint32_t)fd + 1u); /* fd >= 0: no overflow at INT_MAX */
    atomic_fetch_add(&closing_n, 1);
    for (;;) {
        int i = closing_take(v);
        if (i >= 0) return i;
        itoi_worker_t *w = itoi_self_worker();
        itoi_spin_lock(&closing_lock);
        atomic_fetch_add(&closing_nwait, 1);
        i = closing_take(v); /* a slot freed before the end could see the count */
        if (i >= 0) {
            atomic_fetch_sub(&closing_nwait, 1);
            itoi_spin_unlock(&closing_lock);
            return i;
        }
        itoi_queue_push(&closing_waiters, &w->cur->u);
        itoi_park(w, &closing_lock); /* woken by closing_end, which took the count back */
    }
}

static void closing_end(int slot)
{
    atomic_store(&closing[slot], 0);
    atomic_fetch_sub(&closing_n, 1);
    if (ITOI_LIKELY(atomic_load(&closing_nwait) == 0)) return;
    itoi_spin_lock(&closing_lock);
    itoi_ult_t *t = (itoi_ult_t *)itoi_queue_pop(&closing_waiters);
    if (t) atomic_fetch_sub(&closing_nwait, 1);
    itoi_spin_unlock(&closing_lock);
    if (t) itoi_ready(t);
}

static bool on_fd(const itoi_sysrec_t *r, void *ctx);

/* Whether fd, which a closer published with identity id, still names the file it closes
 * (or none): then a wait on it must end. */
static bool same_file(int fd, _Atomic uint64_t *slot, uint64_t v)
{
    if (!(v & (IN_CLOSE_BIT | CLOSED_BIT))) return true; /* not closed yet: the number is still that file */
    uint32_t id = (uint32_t)(v >> 32) & ID_MASK;
    while ((v & (IN_CLOSE_BIT | CLOSED_BIT | OFF_BIT)) == IN_CLOSE_BIT) { /* close(2) is running: a moment */
        sched_yield();
        v = atomic_load_explicit(slot, memory_order_acquire);
        if ((uint32_t)v - 1u != (uint32_t)fd) break; /* the close ended and freed the slot: closed */
    }
    if (!id) return true; /* the closer could not tell: end the wait, as before */
    uint32_t now = itoi_wsc_file_identity(fd);
    /* Off the worker and closed: the number names nothing (closed), or a descriptor opened
     * since, also one of the same file (see itoi_wsc_closed) */
    if ((v & (OFF_BIT | CLOSED_BIT)) == (OFF_BIT | CLOSED_BIT)) return now == 0;
    return now == 0 || (now & ID_MASK) == id;
}

/* A regular file's close(2) that ito_close runs off its worker has returned (on a helper
 * thread, or at the reap of io_uring's close): its slot says CLOSED now, not only once
 * the parked closer runs again. Until then a waiter took a descriptor of the same file
 * that another ULT opened meanwhile (the number is free once close(2) has returned) for
 * the one being closed, and its call on that new descriptor failed with EBADF: each ULT
 * opening the same log or data file, one closing while another opened, lost the other's
 * pwrite or append, more so while the closer's worker was busy (found by an outside
 * tester, h75b, 2026-12-07; tests/test_io_close_same_file.c). Only a slot of fd whose
 * close runs off the worker and has not said CLOSED is marked. Known limit: io_uring's
 * close is marked at its reap, and a flush without a reap (the latency bound's timer)
 * leaves the window open until the worker's next visit of its pollers. */
void itoi_wsc_closed(int fd)
{
    uint64_t want = (uint32_t)fd + 1u;
    for (int i = 0; i < CLOSING_SLOTS; i++) {
        uint64_t v = atomic_load(&closing[i]);
        if ((uint32_t)v == want && (v & (IN_CLOSE_BIT | OFF_BIT | CLOSED_BIT)) == (IN_CLOSE_BIT | OFF_BIT))
            atomic_fetch_or(&closing[i], CLOSED_BIT);
    }
}

/* The first record of wt, not yet cancelled, whose fd a closer is closing; NULL if none. */
static itoi_sysrec_t *on_closing(const itoi_iowait_t *wt)
{
    for (itoi_sysrec_t *r = wt->recs; r; r = r->wnext) {
        if (r->why != WHY_NONE) continue; /* being cancelled already */
        for (int i = 0; i < CLOSING_SLOTS; i++) {
            uint64_t v = atomic_load(&closing[i]);
            int fd = (int)((uint32_t)v - 1u);
            if (fd >= 0 && on_fd(r, &fd) && same_file(fd, &closing[i], v))
                return r; /* (on_fd: only ops that watch their fd) */
        }
    }
    return NULL;
}

/* The records of wt on a descriptor being closed end with EBADF; the others go on (a poll
 * over several descriptors then reports POLLNVAL for the closed one only, and ends the
 * others' waits as any first event does). Until 2026-12-03 the whole wait was cancelled
 * as closed: a poll on {pipe, socket} whose socket another worker closed reported the
 * open pipe POLLNVAL too (found by a chaos test, sync backend, 2 workers). */
static __attribute__((noinline)) void end_closing_waits_slow(itoi_worker_t *w, itoi_wscw_t *a, itoi_iowait_t *wt)
{
    for (itoi_sysrec_t *r; wt->left && (r = on_closing(wt)) != NULL;) itoi_wsc_cancel(w, a, r, WHY_CLOSE);
}
static inline void end_closing_waits(itoi_worker_t *w, itoi_wscw_t *a, itoi_iowait_t *wt)
{
    /* (io_park's fence: the records are registered, then this looks) */
    if (ITOI_LIKELY(atomic_load_explicit(&closing_n, memory_order_relaxed) == 0)) return;
    end_closing_waits_slow(w, a, wt);
}

/* Park the running ULT until every record of wt has completed. Inline: on call_once's
 * path a call of its own saved and restored six registers per request. */
static inline __attribute__((always_inline)) void io_park(itoi_worker_t *w, itoi_wscw_t *a, itoi_iowait_t *wt,
                                                          uint64_t deadline, const char *what)
{
    itoi_ult_t *me = wt->ult;
    if (wt->left == 0) return; /* completed inside the post */
    atomic_store_explicit(&me->io_owner, (int16_t)w->index, memory_order_relaxed);
    atomic_store_explicit(&me->io_wait, wt, memory_order_release);
    /* The wait and its records are published before io_cancel and the closings are read.
     * A canceller stores io_cancel, then the worker it asks (cancel_on_owner) reads
     * io_wait: without a full fence here the load below could pass the store above (x86's
     * store buffer), and a cancellation forwarded to another worker could find no wait
     * while this read found no cancellation: the wait was not ended (seen in review by an
     * outside tester, h68c, 2026-12-06; before, the only fence was end_closing_waits',
     * after this read). One fence, as before. */
    atomic_thread_fence(memory_order_seq_cst);
    if (itoi_io_cancelled(me)) /* came before the park */
        itoi_wsc_cancel_wait(w, a, wt, WHY_CANCEL);
    if (wt->left) end_closing_waits(w, a, wt);
    if (wt->left == 0) {
        atomic_store_explicit(&me->io_wait, NULL, memory_order_relaxed);
        return;
    }
    wt->parked = true;
    me->wait_result = ITO_OK;
    if (ITOI_LIKELY(deadline == ITO_FOREVER)) { /* itoi_block_until's own untimed path */
        me->blocked_on = what;
        itoi_block(w, NULL, NULL);
        me->blocked_on = NULL;
        return;
    }
    me->timer.bounds_wait = true; /* not work for finalize: it cancels the wait (timer.c) */
    itoi_block_until(w, NULL, NULL, deadline, NULL, io_timeout, wt, what);
    me->timer.bounds_wait = false; /* disarmed by itoi_block_until */
}

/* A failing wrapper returns to the kernel thread it was called on (see errno above). */
static long back_home(int home, long r)
{
    if (r < 0) {
        itoi_worker_t *w = itoi_self_worker();
        if (w && w->cur && w->index != home) itoi_migrate(w, home);
    }
    return r;
}

/* MSG_DONTWAIT asks send/recv for one attempt: io_uring honours it, and so does the sync
 * backend (instead of waiting for readiness). */
static bool dontwait(const ito_sysreq_t *q)
{
    switch (q->op) {
    case ITO_SYS_SEND: case ITO_SYS_RECV: case ITO_SYS_SENDMSG: case ITO_SYS_RECVMSG:
        return (q->flags & MSG_DONTWAIT) != 0;
    default:
        return false;
    }
}

static inline __attribute__((always_inline)) long call_once(const ito_sysreq_t *q, const char *what,
                                                            const uint64_t *part);

/* A wrapper call that completes at once (the sync backend's first attempt on a ready
 * socket or pipe, a regular file in the page cache; on io_uring too, an ito_poll that
 * finds a descriptor ready and an ito_close) parks nothing, so it is no scheduling point:
 * a ULT whose calls all completed so, a loop of sends and receives on a busy connection,
 * kept its worker for ever, and the worker's timers (a sleep of main's), the ULTs bound
 * to it and those it had readied waited with it (a `while (!stop) { I/O }` loop never saw
 * the stop that main, asleep on that worker, would have set; outside tester h74c,
 * 2026-12-07: test_io_inline_yield). So every IO_RUN_MAX-th call of a ULT in a row with no
 * scheduling point of its worker in between yields first, as a compiled yield point does;
 * a call that parks, or any switch, starts the count again. Not inside a preemption-safe
 * region (preempt.h), which may hold a kernel lock around calls that complete at once.
 * Two loads and a store a call; the yield returns at once when nothing else is ready or
 * due. */
#define IO_RUN_MAX 16
static inline itoi_worker_t *io_point(itoi_worker_t *w)
{
    itoi_wscw_t *a = (itoi_wscw_t *)w->slot[ITOI_WSLOT_WSC];
    if (ITOI_UNLIKELY(!a)) return w; /* the worker's first I/O call (ito_close sets up none) */
    if (ITOI_LIKELY(w->tick != a->io_tick)) {
        a->io_tick = w->tick;
        a->io_run = 1;
        return w;
    }
    if (ITOI_LIKELY(++a->io_run < IO_RUN_MAX)) return w;
    a->io_run = 0;
    if (ITOI_PSAFE(w->cur) != 0) return w;
    (void)ito_yield();
    return itoi_self_worker(); /* the ULT may go on on another worker */
}

/* One request, waited for by the calling ULT. An error kept from the last whole transfer
 * on the descriptor (whole.c) comes first for a send or write, and in place of end of
 * file for a read or receive. */
static inline __attribute__((always_inline)) long call_kept(const ito_sysreq_t *q, const char *what,
                                                           const uint64_t *part)
{
    long kept = itoi_wsc_kept_error(q, false);
    if (ITOI_UNLIKELY(kept)) return kept;
    long r = call_once(q, what, part);
    if (ITOI_UNLIKELY(r == 0) && (kept = itoi_wsc_kept_error(q, true)) != 0) return kept;
    return r;
}

long itoi_wsc_call(const ito_sysreq_t *q, const char *what) { return call_kept(q, what, NULL); }

/* A part after the first of a whole transfer begun at close generation gen (whole.c,
 * part_pins): as itoi_wsc_call, looking at the generation again where a closer must see it. */
long itoi_wsc_call_part(const ito_sysreq_t *q, const char *what, uint64_t gen) { return call_kept(q, what, &gen); }

/* The sync backend's own attempt; for a later part of a whole transfer (part: its close
 * generation) with its number pinned, if the number was not closed since (-EBADF then:
 * whole.c, part_pins). */
static inline __attribute__((always_inline)) long attempt(const ito_sysreq_t *q, const uint64_t *part,
                                                          uint32_t *events)
{
    if (ITOI_LIKELY(!part)) return itoi_wsc_run_nonblocking(q, false, events);
    if (!itoi_wsc_part_pin(q->fd, *part)) return -EBADF;
    long r = itoi_wsc_run_nonblocking(q, false, events);
    itoi_wsc_part_unpin(q->fd);
    return r;
}

/* Whether the number of a request that io_uring gave up names another file now than when
 * it was reaped (id: itoi_wsc_file_identity then; 0: not known): an ito_close came in
 * between, and the request must not run again on what took the number (a rare path: a
 * system call). */
static bool rerun_elsewhere(const ito_sysreq_t *q, uint32_t id)
{
    return q->op != ITO_SYS_NOP && q->op != ITO_SYS_GETPID && q->fd >= 0 && id && itoi_wsc_file_identity(q->fd) != id;
}

/* Whether q reads or writes a regular file (or directory) at its file position. read(2)
 * and write(2) there hold the file's position lock (f_pos_lock: POSIX says they are
 * atomic with respect to the position); io_uring's requests at offset -1 take no lock,
 * and two workers' requests read the same position: ULTs writing one file overwrote each
 * other's chunks, ULTs reading it read chunks twice, every call returning its full count
 * (found by an outside tester, h65d, 2026-12-06; a plain liburing program with two
 * threads shows it; tests/test_io_file_pos_shared.c). So on io_uring such a call runs as
 * on the sync backend (RWF_NOWAIT at once, else a helper thread's readv/writev, which
 * hold the lock). Costs an fstat per ito_read/ito_write (and readv/writev at the
 * position) on io_uring; requests posted with ito_sys_post are io_uring's as before. */
static bool at_file_position(const ito_sysreq_t *q)
{
    switch (q->op) {
    case ITO_SYS_READ: case ITO_SYS_WRITE:
        break;
    case ITO_SYS_READV: case ITO_SYS_WRITEV:
        if (q->offset != -1) return false;
        break;
    default:
        return false;
    }
    struct stat st;
    return itoi_wsc_stat_cached(q->fd, &st) == 0 && (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode));
}

/* A vector of no entries: readv(2) and writev(2) return 0 without reaching the file
 * (after their checks of the descriptor and its access mode), but io_uring's READV and
 * WRITEV call the file's read or write with nothing: an eventfd or a timerfd said
 * EINVAL where readv(2) says 0, and a datagram socket sent an empty message (found by an
 * outside tester, h78b, 2026-12-08; tests/test_io_empty_vector.c). So such a call is the
 * ULT's own attempt on both backends: preadv2/pwritev2 of no entries, which never waits. */
static inline bool empty_vector(const ito_sysreq_t *q)
{
    return (q->op == ITO_SYS_READV || q->op == ITO_SYS_WRITEV) && q->iovcnt == 0;
}

/* part: a later part of a whole transfer (its close generation: whole.c), else NULL. */
static inline __attribute__((always_inline)) long call_once(const ito_sysreq_t *q, const char *what,
                                                            const uint64_t *part)
{
    itoi_worker_t *w = itoi_self_worker();
    if (ITOI_UNLIKELY(!w || !w->cur)) return -EPERM;
    w = io_point(w);
    itoi_ult_t *me = w->cur;
    if (ITOI_UNLIKELY(itoi_io_cancel_take(me)))
        return -ECANCELED;
    itoi_wscw_t *a = itoi_wsc_area(w);
    if (ITOI_UNLIKELY(!a)) return -itoi_wsc_area_errno();
    /* Once finalize has cancelled, a call on a socket or pipe still runs if it can
     * without waiting (a last reply, a log line to a pipe); only a wait ends at once.
     * (Until 2026-12-04 every such call failed with ECANCELED unattempted; found by a
     * finalize tester.) */
    bool fin = ITOI_UNLIKELY(itoi_wsc_finalizing(q));
    if (fin && (q->op == ITO_SYS_ACCEPT || q->op == ITO_SYS_CONNECT))
        return -ECANCELED; /* an attempt would change the socket's mode (O_NONBLOCK) and
                            * start a connect reported as cancelled (found by a reviewer) */
    /* A deadline already passed makes the call a try (ito/time.h). A call that ends by
     * itself (a regular file, fsync, an openat of a file) has nothing to wait for, as
     * O_NONBLOCK means nothing for a regular file: it runs to its end. (Until 2026-12-04
     * such calls failed with ETIMEDOUT unattempted, and an openat did on the sync backend
     * only; found by a finalize tester.) */
    uint64_t deadline = me->io_deadline;
    if (ITOI_UNLIKELY(deadline != ITO_FOREVER) && itoi_now_ns() >= deadline && itoi_wsc_ends_by_itself(q))
        deadline = ITO_FOREVER;
    long res = 0, first = 0;
    uint32_t events = 0;
    bool as_sync = !a->uring || fin || empty_vector(q) || at_file_position(q); /* (see at_file_position) */
    if (as_sync) { /* sync: the first attempt is the ULT's own */
        first = attempt(q, part, &events);
        ITOI_BUMP(a->st.crossings);
        if (first != -EAGAIN && first != ITOI_WSC_BLOCKING) return first;
        if (first == -EAGAIN && dontwait(q)) return first; /* one attempt, as asked (io_uring: the kernel says EAGAIN) */
        if (fin) return -ECANCELED;
        if (deadline != ITO_FOREVER && itoi_now_ns() >= deadline) {
            /* passed during the first attempt: a try, as above (until 2026-12-04 an
             * fsync with a deadline 1-3 us ahead was refused unattempted, one already
             * passed was run; found by a reviewer) */
            if (first != ITOI_WSC_BLOCKING || !itoi_wsc_ends_by_itself(q)) return -ETIMEDOUT;
            deadline = ITO_FOREVER;
        }
    }
    /* A send on io_uring is one attempt (MSG_DONTWAIT in the request only, not in the
     * call's flags, which the whole transfer reads): when the socket has no room the call
     * waits for POLLOUT in the worker's epoll and sends itself, as the sync backend does.
     * io_uring's own wait and retry sent an EMPTY datagram and answered 0 on a unix
     * datagram socket whose receiver's queue was full (a syslog client of /dev/log; Linux
     * 6.18, a plain liburing program shows it; found by an outside tester, h65d,
     * 2026-12-06: test_io_send_unix_dgram_full). No cost while there is room: the flag
     * only. */
    bool once = !as_sync && (q->op == ITO_SYS_SEND || q->op == ITO_SYS_SENDMSG) && !(q->flags & MSG_DONTWAIT);
    int home = w->index;
    for (int tries = 0;; tries++) {
        itoi_iowait_t wt = {.ult = me};
        if (!as_sync) { /* (the request's flags with MSG_DONTWAIT for a send's one attempt) */
            int more = once ? MSG_DONTWAIT : 0;
            if (ITOI_UNLIKELY(!(part ? itoi_wsc_post_part(w, a, q, more, &res, &wt, *part)
                                     : itoi_wsc_post_wait(w, a, q, more, &res, &wt))))
                return back_home(home, -ENOMEM);
        } else {
            itoi_sysrec_t *r = itoi_wsc_rec_get(w, a);
            if (ITOI_UNLIKELY(!r)) return back_home(home, -ENOMEM);
            itoi_wsc_rec_fill(a, r, q);
            r->result = &res;
            r->frame = NULL;
            itoi_wsc_wait_add(&wt, r);
            r->req = *q;
            if (ITOI_LIKELY(!part) || !itoi_wsc_part_refused(w, a, r, *part)) /* (whole.c, part_pins) */
                itoi_wsc_submit_retry(w, a, r, first, events);
        }
        io_park(w, a, &wt, deadline, what);
        if (ITOI_UNLIKELY(res == -EAGAIN) && once && !as_sync) { /* no room: as the sync backend (above) */
            /* An ito_close between the reap and now, and the number may name a new file:
             * the try ends as a wait that a close ended (area.c, complete_odd) */
            if (rerun_elsewhere(q, wt.id_at)) {
                res = -EBADF;
                break;
            }
            as_sync = true;
            res = 0;
            w = itoi_self_worker();
            a = itoi_wsc_area(w);
            if (ITOI_UNLIKELY(!a)) return back_home(home, -itoi_wsc_area_errno());
            /* One attempt of its own first, as the sync backend's: the attempt that said
             * EAGAIN ran in the kernel before this ULT ran again, and an ito_shutdown's pass
             * of this worker in between found no wait to end (the wait registered after it
             * would never end: no event comes for the program's own SHUT_WR). Costs a
             * system call per wait for room, beside the epoll_ctl of the wait. */
            first = attempt(q, part, &events);
            ITOI_BUMP(a->st.crossings);
            if (first != -EAGAIN) {
                res = first;
                break;
            }
            continue;
        }
        /* Cancelled by io_uring itself, not by ito (area.c, itoi_wsc_complete): it never ran;
         * run it again, a few times (a worker thread that can never be started, as under
         * RLIMIT_NPROC, fails as the sync backend's helpers do: EAGAIN). */
        if (ITOI_LIKELY(!(res == -ECANCELED && wt.kernel_cancelled && a->uring))) break;
        /* Another ULT's ito_close may have come between the reap and now (the record was
         * done, so its pass did not see it) and a new open taken the number: the request
         * is not run again on that file, it ends as a wait that a close ended (EBADF).
         * Until 2026-12-05 it was, and an ito_pwrite went into the new file (found by an
         * outside tester, h62b; tests/test_io_uring_rerun_closed.c). */
        if (rerun_elsewhere(q, wt.id_at)) {
            res = -EBADF;
            break;
        }
        if (tries == KERNEL_RERUNS - 1) {
            res = -EAGAIN;
            break;
        }
        w = itoi_self_worker();
        a = itoi_wsc_area(w);
        if (ITOI_UNLIKELY(!a)) return back_home(home, -itoi_wsc_area_errno());
        res = 0;
    }
    if (res == -ECANCELED) atomic_store(&me->io_cancel, 0); /* consumed */
    return back_home(home, res);
}

/* errno's address, looked up at every call (the ULT may have moved to another kernel
 * thread meanwhile): the worker's own record of it (w->errnop, ultstate.h), read through
 * the thread pointer afresh (itoi_self_worker's volatile asm); outside a worker
 * __errno_location, not inlined, and the empty asm keeps the compiler from taking it for a
 * const function whose result it may reuse. */
__attribute__((noinline)) static int *errno_foreign(void)
{
    int *p = __errno_location();
    __asm__ volatile("" : "+r"(p));
    return p;
}
static inline int *errno_here(void)
{
    itoi_worker_t *w = itoi_self_worker();
    return ITOI_LIKELY(w != NULL) ? w->errnop : errno_foreign();
}
#define KEEP_ERRNO(expr)                                                                   \
    __extension__({                                                                        \
        int keep_e_ = *errno_here();                                                       \
        long keep_r_ = (expr);                                                             \
        if (keep_r_ >= 0) *errno_here() = keep_e_;                                         \
        keep_r_;                                                                           \
    })

static long ret(long r)
{
    if (r < 0) {
        errno = (int)-r;
        return -1;
    }
    return r;
}


ssize_t ito_read(int fd, void *buf, size_t len)
{
    ito_sysreq_t q = {.op = ITO_SYS_READ, .fd = fd, .buf = buf, .len = len};
    return itoi_wsc_op_ok(&q) ? ret(KEEP_ERRNO(itoi_wsc_call(&q, "read"))) : ret(itoi_wsc_op_errno(&q));
}

ssize_t ito_write(int fd, const void *buf, size_t len)
{
    ito_sysreq_t q = {.op = ITO_SYS_WRITE, .fd = fd, .buf = (void *)buf, .len = len};
    return itoi_wsc_op_ok(&q) ? ret(KEEP_ERRNO(itoi_wsc_whole(&q, "write"))) : ret(itoi_wsc_op_errno(&q));
}

ssize_t ito_pread(int fd, void *buf, size_t len, off_t offset)
{
    ito_sysreq_t q = {.op = ITO_SYS_PREAD, .fd = fd, .buf = buf, .len = len, .offset = offset};
    return itoi_wsc_op_ok(&q) ? ret(KEEP_ERRNO(itoi_wsc_call(&q, "pread"))) : ret(itoi_wsc_op_errno(&q));
}

ssize_t ito_pwrite(int fd, const void *buf, size_t len, off_t offset)
{
    ito_sysreq_t q = {.op = ITO_SYS_PWRITE, .fd = fd, .buf = (void *)buf, .len = len, .offset = offset};
    return itoi_wsc_op_ok(&q) ? ret(KEEP_ERRNO(itoi_wsc_call(&q, "pwrite"))) : ret(itoi_wsc_op_errno(&q));
}

ssize_t ito_readv(int fd, const struct iovec *iov, int iovcnt)
{
    ito_sysreq_t q = {.op = ITO_SYS_READV, .fd = fd, .iov = iov, .iovcnt = iovcnt, .offset = -1};
    return itoi_wsc_op_ok(&q) ? ret(KEEP_ERRNO(itoi_wsc_call(&q, "readv"))) : ret(itoi_wsc_op_errno(&q));
}

ssize_t ito_writev(int fd, const struct iovec *iov, int iovcnt)
{
    ito_sysreq_t q = {.op = ITO_SYS_WRITEV, .fd = fd, .iov = iov, .iovcnt = iovcnt, .offset = -1};
    return itoi_wsc_op_ok(&q) ? ret(KEEP_ERRNO(itoi_wsc_whole(&q, "writev"))) : ret(itoi_wsc_op_errno(&q));
}

ssize_t ito_send(int fd, const void *buf, size_t len, int flags)
{
    ito_sysreq_t q = {.op = ITO_SYS_SEND, .fd = fd, .buf = (void *)buf, .len = len, .flags = flags};
    return itoi_wsc_op_ok(&q) ? ret(KEEP_ERRNO(itoi_wsc_whole(&q, "send"))) : ret(itoi_wsc_op_errno(&q));
}

ssize_t ito_recv(int fd, void *buf, size_t len, int flags)
{
    if (flags & MSG_ERRQUEUE) flags |= MSG_DONTWAIT; /* recv(2) never waits for the error queue */
    ito_sysreq_t q = {.op = ITO_SYS_RECV, .fd = fd, .buf = buf, .len = len, .flags = flags};
    return itoi_wsc_op_ok(&q) ? ret(KEEP_ERRNO(itoi_wsc_whole(&q, "recv"))) : ret(itoi_wsc_op_errno(&q));
}

/* Blocking sendmsg to a unix address (an unconnected unix datagram socket, sendto(2)
 * style) whose receiver's queue is full (max_dgram_qlen): no event says when the receiver
 * has room (the sender polls writable at once: unix_dgram_poll looks at the receiver only
 * for a connected socket), so the sync backend tried again at every event (0.2-0.3 s of
 * CPU a second of waiting), and io_uring's own retry after its poll wake-up sent an EMPTY
 * datagram and answered 0 (the bytes lost; Linux 6.18, a plain liburing program shows
 * it), while sendmsg(2) on a blocking socket sleeps until the receiver reads (found by an
 * outside tester, h65d, 2026-12-06; tests/test_io_sendto_unix_full.c). So such a send
 * makes one attempt at a time (MSG_DONTWAIT: io_uring answers EAGAIN without its retry)
 * and waits by time in between (1, 2, 4 ... 64 ms, as ito_connect waits for a full unix
 * backlog). The ULT's deadline, ito_cancel_io and finalize end the wait as any
 * (ETIMEDOUT, ECANCELED). A connected unix datagram socket on io_uring is not asked for
 * (its type would cost two getsockopt calls on every send of every socket): syscall.h's
 * known limit. The address is in the message: asking costs nothing. */
static bool to_unix_address(const struct msghdr *msg)
{
    return msg->msg_name && msg->msg_namelen >= sizeof(sa_family_t) &&
           ((const struct sockaddr *)msg->msg_name)->sa_family == AF_UNIX;
}

static long send_in_tries(ito_sysreq_t *q, const char *what)
{
    q->flags |= MSG_DONTWAIT;
    long r = itoi_wsc_whole(q, what);
    for (int pause_ms = 1; r == -EAGAIN; pause_ms = pause_ms < 64 ? 2 * pause_ms : 64) {
        if (ito_poll(NULL, 0, pause_ms) < 0) return -errno; /* ETIMEDOUT, ECANCELED */
        r = itoi_wsc_whole(q, what);
    }
    return r;
}

ssize_t ito_sendmsg(int fd, const struct msghdr *msg, int flags)
{
    ito_sysreq_t q = {.op = ITO_SYS_SENDMSG, .fd = fd, .msg = (struct msghdr *)msg, .flags = flags};
    if (!itoi_wsc_op_ok(&q)) return ret(itoi_wsc_op_errno(&q));
    if (!(flags & MSG_DONTWAIT) && ITOI_UNLIKELY(to_unix_address(msg))) /* (see send_in_tries) */
        return ret(KEEP_ERRNO(send_in_tries(&q, "sendmsg")));
    return ret(KEEP_ERRNO(itoi_wsc_whole(&q, "sendmsg")));
}

ssize_t ito_recvmsg(int fd, struct msghdr *msg, int flags)
{
    if (flags & MSG_ERRQUEUE) flags |= MSG_DONTWAIT; /* recvmsg(2) never waits for the error queue */
    ito_sysreq_t q = {.op = ITO_SYS_RECVMSG, .fd = fd, .msg = msg, .flags = flags};
    return itoi_wsc_op_ok(&q) ? ret(KEEP_ERRNO(itoi_wsc_whole(&q, "recvmsg"))) : ret(itoi_wsc_op_errno(&q));
}

int ito_accept4(int fd, struct sockaddr *addr, socklen_t *addrlen, int flags)
{
    ito_sysreq_t q = {.op = ITO_SYS_ACCEPT, .fd = fd, .addr = addr, .addrlen = addrlen, .flags = flags};
    return (int)(itoi_wsc_op_ok(&q) ? ret(KEEP_ERRNO(itoi_wsc_call(&q, "accept"))) : ret(itoi_wsc_op_errno(&q)));
}

int ito_accept(int fd, struct sockaddr *addr, socklen_t *addrlen) { return ito_accept4(fd, addr, addrlen, 0); }

/* EAGAIN from io_uring's connect: a unix listener's backlog is full and the program made
 * the socket O_NONBLOCK itself (io_uring's worker thread runs connect with the socket's
 * own flags; a blocking socket waits there). The wrappers wait whatever the mode
 * (syscall.h), as the sync backend does (EALREADY, below): so does this one (until
 * 2026-12-07 it returned EAGAIN on io_uring only; found by an outside tester, h77a;
 * tests/test_io_connect_unix_nonblock_full.c). Another EAGAIN (io_uring gave the request
 * up, see syscall.h) on a blocking socket stays the caller's. */
static long connect_full(int fd, long r)
{
    if (ITOI_UNLIKELY(r == -EAGAIN)) {
        int fl = fcntl(fd, F_GETFL);
        if (fl >= 0 && (fl & O_NONBLOCK)) return -EALREADY;
    }
    return r;
}

/* EALREADY: a connect on this socket is under way, one that an earlier call gave up on
 * (its deadline, ito_cancel_io) while the kernel went on. connect(2) on a blocking socket
 * then waits for it and returns its outcome: so does ito_connect, by waiting for POLLOUT
 * (with the ULT's deadline and cancellation) and asking again (found by a server tester,
 * 2026-12-04: a retry after ETIMEDOUT failed at once). The sync backend also says
 * EALREADY for a unix listener whose backlog is full (nonblock.c): POLLOUT comes at once
 * there, so from the second round on it also waits 1, 2, 4 ... 64 ms between attempts,
 * where a blocking connect(2) sleeps until there is room. */
static int connect_impl(int fd, const struct sockaddr *addr, socklen_t len)
{
    ito_sysreq_t q = {.op = ITO_SYS_CONNECT, .fd = fd, .addr = (struct sockaddr *)addr, .addr_len = len};
    if (!itoi_wsc_op_ok(&q)) return (int)ret(itoi_wsc_op_errno(&q));
    /* The socket's identity, for the loop below: its pauses wait on no descriptor, so an
     * ito_close of fd meanwhile does not end them, and the loop went on with the socket
     * that took the number (connecting it; found by an outside tester, h62b, 2026-12-05:
     * tests/test_io_connect_closed_loop.c). Taken before the first attempt (connect is
     * no hot path; an fstat beside it). */
    uint32_t id = itoi_wsc_file_identity(fd);
    long r = connect_full(fd, itoi_wsc_call(&q, "connect"));
    for (int pause_ms = 0; r == -EALREADY; pause_ms = pause_ms ? (pause_ms < 64 ? 2 * pause_ms : 64) : 1) {
        struct pollfd p = {.fd = fd, .events = POLLOUT};
        if (pause_ms && ito_poll(NULL, 0, pause_ms) < 0) return -1; /* its errno: ETIMEDOUT, ECANCELED */
        if (itoi_wsc_file_identity(fd) != id) return (int)ret(-EBADF); /* closed meanwhile (ito_close) */
        if (ito_poll(&p, 1, -1) < 0) return -1;
        if ((p.revents & POLLNVAL) || itoi_wsc_file_identity(fd) != id) return (int)ret(-EBADF);
        q = (ito_sysreq_t){.op = ITO_SYS_CONNECT, .fd = fd, .addr = (struct sockaddr *)addr, .addr_len = len};
        r = connect_full(fd, itoi_wsc_call(&q, "connect"));
    }
    return (int)ret(r);
}

int ito_connect(int fd, const struct sockaddr *addr, socklen_t len) { return (int)KEEP_ERRNO(connect_impl(fd, addr, len)); }

int ito_openat(int dirfd, const char *path, int flags, unsigned mode)
{
    ito_sysreq_t q = {.op = ITO_SYS_OPENAT, .fd = dirfd, .path = path, .flags = flags, .mode = mode};
    return (int)(itoi_wsc_op_ok(&q) ? ret(KEEP_ERRNO(itoi_wsc_call(&q, "openat"))) : ret(itoi_wsc_op_errno(&q)));
}

int ito_fsync(int fd)
{
    ito_sysreq_t q = {.op = ITO_SYS_FSYNC, .fd = fd};
    return (int)(itoi_wsc_op_ok(&q) ? ret(KEEP_ERRNO(itoi_wsc_call(&q, "fsync"))) : ret(itoi_wsc_op_errno(&q)));
}

int ito_fdatasync(int fd)
{
    ito_sysreq_t q = {.op = ITO_SYS_FSYNC, .fd = fd, .flags = 1};
    return (int)(itoi_wsc_op_ok(&q) ? ret(KEEP_ERRNO(itoi_wsc_call(&q, "fsync"))) : ret(itoi_wsc_op_errno(&q)));
}

int *ito_errno_location(void) { return __errno_location(); }

long ito_getpid(void)
{
    ito_sysreq_t q = {.op = ITO_SYS_GETPID};
    return ret(KEEP_ERRNO(itoi_wsc_call(&q, "getpid")));
}

/* ---- several requests from one ULT ---- */

/* Posts reqs[i] for every i (only = NULL) or every i marked in `only`, flushes them in one
 * crossing: the records first, so that nothing is posted without memory (ITO_ENOMEM). */
static int batch_post(itoi_worker_t *w, itoi_wscw_t *a, itoi_iowait_t *wt, ito_sysreq_t *reqs,
                      size_t n, const uint64_t *only)
{
    for (size_t i = 0; i < n; i++) {
        if (only && !(only[i / 64] >> (i % 64) & 1)) continue;
        itoi_sysrec_t *r = itoi_wsc_rec_get(w, a);
        if (!r) {
            while (wt->recs) {
                itoi_sysrec_t *x = wt->recs;
                wt->recs = x->wnext;
                itoi_wsc_rec_put(a, x);
            }
            return ITO_ENOMEM; /* the wait is the caller's to drop */
        }
        r->req = reqs[i];
        r->bidx = (uint16_t)i;
        r->reruns = 0;
        itoi_wsc_rec_fill(a, r, &r->req);
        itoi_wsc_wait_add(wt, r);
    }
    /* Post in order (the list is reversed), then cross once. */
    itoi_sysrec_t *order = NULL;
    for (itoi_sysrec_t *r = wt->recs, *next; r; r = next) {
        next = r->wnext;
        r->next = order;
        order = r;
    }
    for (itoi_sysrec_t *r = order, *next; r; r = next) {
        next = r->next;
        itoi_wsc_submit(w, a, r, &r->req);
    }
    itoi_wsc_flush(w, a, FLUSH_EXPLICIT);
    return ITO_OK;
}

/* Ends the requests marked in `marked` with res (result and continuation); says whether any was. */
static bool batch_end(ito_sysreq_t *reqs, size_t n, const uint64_t *marked, long res)
{
    bool any = false;
    for (size_t i = 0; i < n; i++) {
        if (marked && !(marked[i / 64] >> (i % 64) & 1)) continue;
        if (reqs[i].result) *reqs[i].result = res;
        if (reqs[i].frame) itoi_zwt_continue_io(reqs[i].frame, reqs[i].entry, (uint64_t)res);
        any = true;
    }
    return any;
}

int ito_sys_wait_all(ito_sysreq_t *reqs, size_t n)
{
    if (n > WAIT_ALL_MAX) return ITO_ERANGE;
    if (!reqs && n) return ITO_EINVAL;
    for (size_t i = 0; i < n; i++) {
        int rc = itoi_wsc_req_check(&reqs[i]);
        if (rc != ITO_OK) return rc;
    }
    itoi_worker_t *w = itoi_self_worker();
    if (!w || !w->cur) return ITO_ENOTULT;
    w = io_point(w);
    itoi_ult_t *me = w->cur;
    itoi_wscw_t *a = itoi_wsc_area(w);
    if (!a) return itoi_wsc_area_error();
    if (ITOI_UNLIKELY(n > 0 && itoi_io_cancel_take(me))) {
        /* A cancellation kept from before the call: the batch ends at once with nothing
         * posted, every request -ECANCELED (its continuation sent with it), as a single
         * call fails at once. No record is made: nothing is in flight for finalize's
         * count. Until 2026-12-03 the batch ran and the cancellation was dropped (found by
         * a reviewer); an empty batch leaves it for the next call. */
        batch_end(reqs, n, NULL, -ECANCELED);
        return ITO_OK;
    }
    /* io_uring may end a request -ECANCELED that nobody cancelled: it gave up before running
     * it (area.c, itoi_wsc_complete). A single wrapper runs it again (call_once); so does the
     * batch: the completion marks it in `again` instead of delivering its result and
     * continuation, and it is posted again, 8 times at most, then -EAGAIN as call_once.
     * (Until 2026-12-05 its result was -ECANCELED with no ito_cancel_io; found by an outside
     * tester copying files through batches under ITO_FAULT_URING_CANCEL.) */
    uint64_t again[WAIT_ALL_MAX / 64], todo[WAIT_ALL_MAX / 64];
    size_t words = (n + 63) / 64;
    bool cancelled = false;
    for (int tries = 0;; tries++) {
        itoi_iowait_t wt = {.ult = me, .again = a->uring ? again : NULL};
        if (tries) memcpy(todo, again, words * sizeof again[0]);
        if (wt.again) memset(again, 0, words * sizeof again[0]);
        int rc = batch_post(w, a, &wt, reqs, n, tries ? todo : NULL);
        if (rc != ITO_OK) {
            if (tries == 0) return rc;
            batch_end(reqs, n, todo, -ENOMEM); /* nothing left posted: the others are done */
            break;
        }
        io_park(w, a, &wt, me->io_deadline, "sys_wait_all");
        cancelled |= wt.cancelled;
        uint32_t *ids = wt.again_id; /* (set at a give-up's reap; freed on every path) */
        if (ITOI_LIKELY(!wt.kernel_cancelled) || !wt.again) {
            free(ids);
            break;
        }
        /* Not posted again once the batch was cancelled (or a cancellation is kept), nor after
         * 8 tries: those requests end as a single call would. */
        if (cancelled || itoi_io_cancelled(me)) {
            free(ids);
            if (batch_end(reqs, n, again, -ECANCELED)) cancelled = true;
            break;
        }
        if (tries == KERNEL_RERUNS - 1) {
            free(ids);
            batch_end(reqs, n, again, -EAGAIN);
            break;
        }
        /* Not posted again on a file that took the number after an ito_close (see call_once):
         * those end as waits a close ended (until 2026-12-05 they went to the new file; found
         * by an outside tester, h62b). */
        if (ids) {
            uint64_t gone[WAIT_ALL_MAX / 64] = {0};
            bool any = false;
            for (size_t i = 0; i < n; i++) {
                if (!(again[i / 64] >> (i % 64) & 1) || !rerun_elsewhere(&reqs[i], ids[i])) continue;
                gone[i / 64] |= UINT64_C(1) << (i % 64);
                again[i / 64] &= ~(UINT64_C(1) << (i % 64));
                any = true;
            }
            free(ids);
            if (any) batch_end(reqs, n, gone, -EBADF);
            bool left = false;
            for (size_t k = 0; k < words; k++) left |= again[k] != 0;
            if (!left) break;
        }
        w = itoi_self_worker();
        a = itoi_wsc_area(w);
        if (ITOI_UNLIKELY(!a)) {
            batch_end(reqs, n, again, -itoi_wsc_area_errno());
            break;
        }
    }
    /* Consumed if it ended a request of the batch (-ECANCELED); one that came after every
     * request had completed, or found them ending for another reason (a close, the
     * deadline), is kept for the next call, as a single call keeps it. */
    if (cancelled) atomic_store(&me->io_cancel, 0);
    return ITO_OK;
}

/* ---- deadlines and cancellation ---- */

int ito_io_deadline(uint64_t deadline)
{
    itoi_worker_t *w = itoi_self_worker();
    if (!w || !w->cur) return ITO_ENOTULT;
    w->cur->io_deadline = deadline;
    return ITO_OK;
}

static void cancel_on_owner(itoi_worker_t *w, itoi_call_t *c)
{
    itoi_ult_t *t = (itoi_ult_t *)((char *)c - offsetof(itoi_ult_t, io_call));
    atomic_store(&t->io_call_busy, 0);
    /* The descriptor's life now, not the one that posted this node: a node still queued
     * here (a busy worker runs its calls late) when its ULT ended stands for every
     * cancellation asked meanwhile, also those of the descriptor's next life, which found
     * the node busy and did not post it again. Until 2026-12-06 it looked at the poster's
     * life only (io_call_gen) and returned: the next life's ULT, waiting in a wrapper,
     * never saw its ito_cancel_io (found by an outside tester, h64b;
     * tests/test_io_cancel_node_reused.c). An old life's cancellation does not match the
     * new life's generation below, so it ends nothing of the new life. */
    uint16_t gen = atomic_load(&t->gen);
    /* Consumed already: the ULT's next call took it at its entry (ECANCELED at once) before
     * this ran. A wait found now is a later call's, which no cancellation asked to end
     * (until 2026-12-03 it was cancelled too: one ito_cancel_io ended two calls). */
    if (atomic_load_explicit(&t->io_cancel, memory_order_acquire) != gen) return;
    itoi_iowait_t *wt = atomic_load_explicit(&t->io_wait, memory_order_acquire);
    if (!wt) return; /* not waiting: io_cancel stays set for its next call */
    int owner = atomic_load_explicit(&t->io_owner, memory_order_relaxed);
    if (owner != w->index) { /* it waits elsewhere now: forward */
        if (!atomic_exchange(&t->io_call_busy, 1)) itoi_worker_call(&itoi_rt.workers[owner], &t->io_call);
        return;
    }
    itoi_wsc_cancel_wait(w, itoi_wsc_area_if_ready(w), wt, WHY_CANCEL);
}

int ito_cancel_io(ito_thread_t h)
{
    if (!h) return ITO_EINVAL;
    bool foreign = itoi_self_worker() == NULL;
    if (foreign ? itoi_foreign_enter() != ITO_OK : atomic_load(&itoi_rt.state) != 1) return ITO_ESTATE;
    int rc = ITO_OK;
    itoi_ult_t *t = itoi_handle_get(h);
    uintptr_t st = t ? itoi_st_kind(atomic_load(&t->state)) : 0;
    if (!t) {
        rc = itoi_handle_err(h);
    } else if (st == ITOI_DONE || st == ITOI_REAPED) {
        rc = ITO_EJOINED; /* ended (syscall.h): nothing left to cancel */
    } else {
        /* the generation of h's life, not 1: t may have ended and been reused since the
         * check (itoi_io_cancelled) */
        uint16_t g = itoi_handle_gen(h);
        atomic_store(&t->io_cancel, g);
        if (!atomic_exchange(&t->io_call_busy, 1)) {
            atomic_store(&t->io_call_gen, g);
            t->io_call.fn = cancel_on_owner;
            int owner = atomic_load_explicit(&t->io_owner, memory_order_relaxed);
            itoi_worker_call(&itoi_rt.workers[owner >= 0 && owner < itoi_rt.nworkers ? owner : 0], &t->io_call);
        }
    }
    if (foreign) itoi_foreign_exit();
    return rc;
}

/* ---- close: wake the waiters on every worker, then close ---- */

typedef struct close_ctx {
    itoi_call_t call;           /* one per worker asked */
    int fd;
    int why;                    /* WHY_CLOSE (ito_close), WHY_SHUTDOWN (ito_shutdown) */
    bool (*match)(const itoi_sysrec_t *, void *); /* the records it ends (ctx: &fd) */
    _Atomic int *left;          /* workers still to answer, + the closer's own park */
    itoi_ult_t *closer;
} close_ctx_t;

static bool on_fd(const itoi_sysrec_t *r, void *ctx)
{
    return itoi_wsc_watched_fd(r->op, r->fd) == *(const int *)ctx; /* (ctx: an fd >= 0) */
}

/* A record that sends on the descriptor (ito_shutdown's SHUT_WR ends those). */
static bool sends_on_fd(const itoi_sysrec_t *r, void *ctx)
{
    switch (r->op) {
    case ITO_SYS_SEND: case ITO_SYS_SENDMSG: case ITO_SYS_WRITE: case ITO_SYS_WRITEV: case ITO_SYS_PWRITE:
        return r->fd == *(const int *)ctx;
    default:
        return false;
    }
}

static void close_arrive(_Atomic int *left, itoi_ult_t *closer)
{
    if (atomic_fetch_sub(left, 1) == 1) itoi_ready(closer);
}

static void close_on_worker(itoi_worker_t *w, itoi_call_t *c)
{
    close_ctx_t *x = (close_ctx_t *)c;
    itoi_wscw_t *a = itoi_wsc_area_if_ready(w);
    if (a) itoi_wsc_cancel_matching(w, a, x->match, &x->fd, x->why);
    close_arrive(x->left, x->closer);
}

static void close_parked(void *arg)
{
    itoi_ult_t *me = itoi_self_worker()->prev;
    close_arrive(arg, me);
}

/* Ends the records on fd that `match` takes, with reason `why`: on this worker now, and
 * on every other worker that may hold one (each cancels its own; `every`: every worker
 * with a common area, whether it may hold one or not), waiting for them all. Returns the
 * worker the caller runs on afterwards (it may have moved). */
static itoi_worker_t *end_waits_on_fd(itoi_worker_t *w, int fd, bool (*match)(const itoi_sysrec_t *, void *), int why,
                                      bool every)
{
    itoi_wscw_t *a = itoi_wsc_area_if_ready(w);
    if (a && itoi_wsc_may_hold(a, fd)) itoi_wsc_cancel_matching(w, a, match, &fd, why);
    close_ctx_t ctx[64];
    int n = itoi_rt.nworkers, i = 0;
    while (i < n) {
        _Atomic int left = 1; /* the closer's own park */
        int asked = 0;
        for (; i < n && asked < 64; i++) {
            if (i == w->index) continue;
            itoi_wscw_t *o = itoi_wsc_area_if_ready(&itoi_rt.workers[i]);
            if (!o || (!every && !itoi_wsc_may_hold(o, fd))) continue; /* none on this fd there (was: none at all) */
            close_ctx_t *x = &ctx[asked++];
            x->fd = fd;
            x->why = why;
            x->match = match;
            x->left = &left;
            x->closer = w->cur;
            x->call.fn = close_on_worker;
            atomic_fetch_add(&left, 1);
            itoi_worker_call(&itoi_rt.workers[i], &x->call);
        }
        if (asked) {
            itoi_block(w, close_parked, &left);
            w = itoi_self_worker();
        }
    }
    return w;
}

/* Whether ito_close runs close(2) of fd off the worker (close_off_worker): a regular file's
 * (the cached type: itoi_wsc_stat_cached asks no server), on a worker whose common area is
 * set up. A socket's or pipe's close asks no server: on the worker, as before. */
static bool may_close_off(itoi_worker_t *w, int fd)
{
    struct stat st;
    return itoi_wsc_area_if_ready(w) && itoi_wsc_stat_cached(fd, &st) == 0 && S_ISREG(st.st_mode);
}

/* close(2) of a regular file, off the worker, while the calling ULT parks. On a network or
 * FUSE file system close(2) sends the server a FLUSH and waits for its answer: on the worker,
 * every ULT of the worker stopped until the server answered (found by an outside tester with
 * a FUSE file system, 2026-12-07; tests/test_io_close_off_worker.c). io_uring: a close
 * request (the kernel runs a close whose file has a flush method on its io-wq, not inline);
 * sync backend: a helper thread's close(2) (nonblock.c). The wait is not io_park's: it is
 * not published in io_wait (ito_cancel_io does not see it), has no deadline and does not
 * look at the closings (a close request watches no descriptor: itoi_wsc_watched_fd), and
 * finalize counts the request as work that ends by itself (area.c): close(2) is not
 * restartable, a cancelled close would leave the descriptor open. Without a record, or
 * when the request never ran (io_uring gave it up, no helper thread could start),
 * close(2) runs here. */
static long close_off_worker(itoi_worker_t *w, int fd)
{
    itoi_wscw_t *a = itoi_wsc_area_if_ready(w);
    ito_sysreq_t q = {.op = ITO_SYS_CLOSE, .fd = fd};
    long res = 0;
    itoi_iowait_t wt = {.ult = w->cur};
    bool posted = (a->uring ? itoi_wsc_post_wait(w, a, &q, 0, &res, &wt)
                            : itoi_wsc_post_wait_helper(w, a, &q, &res, &wt)) != NULL;
    if (posted && wt.left) {
        wt.parked = true;
        w->cur->blocked_on = "close";
        itoi_block(w, NULL, NULL);
        w = itoi_self_worker();
        w->cur->blocked_on = NULL;
    }
    /* (-EAGAIN: no helper thread could be started, the close never ran: helpers.c) */
    if (!posted || res == -EAGAIN || (res == -ECANCELED && wt.kernel_cancelled)) res = close(fd) == 0 ? 0 : -errno;
    return res;
}

int ito_close(int fd)
{
    if (fd < 0) return (int)ret(-EBADF);
    itoi_worker_t *w = itoi_self_worker();
    if (!w || !w->cur) return (int)ret(-EPERM);
    w = io_point(w);
    /* A number that names nothing: EBADF before anything else (its close generation was
     * bumped first, which cut short a whole transfer on another descriptor sharing the
     * slot: found by a chaos test). */
    if (fcntl(fd, F_GETFD) < 0) return (int)ret(-errno);
    /* (No common area is set up for a close: a worker without one has no waiters, and a
     * process out of descriptors, where setting one up fails, must still be able to
     * close; found by a reviewer: -1/EMFILE and the descriptor left open.) */
    /* Waiters on this worker: now. The other workers with live requests each cancel
     * their own, and the closer waits for them all before the fd goes (so a request
     * cannot be cancelled by mistake on a new fd of the same number). Waits registered
     * after the pass see the fd in `closing` and end themselves. */
    itoi_wsc_closing(fd); /* first: a whole transfer on fd stops before its next part (whole.c) */
    int home = w->index, slot = closing_begin(fd);
    w = itoi_self_worker(); /* (it parked if 64 closes were under way) */
    w = end_waits_on_fd(w, fd, on_fd, WHY_CLOSE, false);
    itoi_wscw_t *a;
    if ((a = itoi_wsc_area_if_ready(w)) != NULL) ITOI_BUMP(a->st.crossings); /* (it may have moved) */
    /* A call a helper thread started on fd before the passes ends by itself (a regular
     * file's) or at its next look at the abandon mark (a tty's wait for readiness): the
     * number goes only after it, so that the call acts on the file it was posted for
     * (helper_pin in nonblock.c; helpers.c). */
    for (uint64_t ns = 20000; itoi_helpers_busy(fd) || itoi_wsc_part_pinned(fd); ns = ns < 1000000 ? ns * 2 : ns)
        (void)ito_sleep_ns(ns); /* (and a part's own attempt on the number: whole.c, part_pins) */
    w = itoi_self_worker();
    bool off = may_close_off(w, fd);
    /* waiters that find the number wait for the close (or, OFF, look at it at once) */
    atomic_fetch_or(&closing[slot], IN_CLOSE_BIT | (off ? OFF_BIT : 0));
    long r = off ? close_off_worker(w, fd) : close(fd) == 0 ? 0 : -errno;
    atomic_fetch_or(&closing[slot], CLOSED_BIT); /* from now on the number may name a new file */
    closing_end(slot);
    return (int)ret(back_home(home, r));
}

/* ---- shutdown: shutdown(2), then wake the senders it should have ended ---- */

/* A send blocked in send(2) on a unix stream socket ends (EPIPE, or the count sent) when
 * the program shuts the socket down for writing: the kernel wakes it. ito's sends wait for
 * POLLOUT in the worker's epoll (both backends; io_uring's own poll likewise), and a unix
 * stream socket's poll reports nothing for its own SHUT_WR (unix_poll looks at the peer's
 * room only; TCP reports POLLOUT then): such a send waited for ever, only its deadline or
 * ito_cancel_io ended it (found by outside testers, h65/h69b, 2026-12-06;
 * tests/test_io_shutdown_wakes_send.c). So after shutdown(2) the sends waiting on fd, on
 * every worker, end with EPIPE (a whole transfer returns the count it moved before: whole.c),
 * as send(2) does; a send that the kernel completed first keeps its result. Receives need
 * nothing: SHUT_RD makes the socket readable (end of file), which wakes them. The passes
 * are ito_close's, but on EVERY worker with a common area, not only those whose counts say
 * they may hold a record on fd: a send tries before it fills its record, so a send that
 * tried before shutdown(2) (EAGAIN) may fill it after the shutter read the count, and then
 * waited for ever (TSan tree, 1 run in 15 of the test's race). A pass runs at its worker's
 * scheduling point, after shutdown(2), and a send's attempt and the registration of its
 * wait run without one between them (preemption never stops libito's code): the pass comes
 * before the attempt, which then sees the shutdown (EPIPE), or after the registration,
 * and ends the wait. On io_uring the wait that follows the kernel's EAGAIN makes an attempt
 * of its own first, for the same reason (call_once). Costs a call to each worker per
 * ito_shutdown of the sending side. */
int ito_shutdown(int fd, int how)
{
    if (fd < 0) return (int)ret(-EBADF);
    itoi_worker_t *w = itoi_self_worker();
    if (!w || !w->cur) return (int)ret(-EPERM);
    if (shutdown(fd, how) != 0) return (int)ret(-errno);
    if (how == SHUT_WR || how == SHUT_RDWR) (void)end_waits_on_fd(w, fd, sends_on_fd, WHY_SHUTDOWN, true);
    return 0;
}

/* ---- poll ---- */

/* A non-blocking look at the descriptors. poll(2) may fail with EINTR even with a zero
 * timeout when a signal comes: ito's own preemption tick is one, and its EINTR is not
 * the caller's (ito_poll returned -1/EINTR under preemption); look again. */
static int poll_now(struct pollfd *fds, nfds_t nfds)
{
    int r;
    while ((r = poll(fds, nfds, 0)) < 0 && errno == EINTR) {
    }
    return r;
}

/* Whether fd names a file whose readiness never changes, so that poll(2) never reports
 * events it has not reported already (ito_poll's `silent` entries): a regular file,
 * directory or block device, or any file the kernel cannot poll (epoll refuses it with
 * EPERM: /dev/null, /dev/zero). Off the common path: only after a wait record ended with no
 * event of its own. */
static bool poll_never_fires(int fd)
{
    if (itoi_wsc_ends_by_itself(&(ito_sysreq_t){.op = ITO_SYS_POLL, .fd = fd})) return true;
    int ep = epoll_create1(EPOLL_CLOEXEC);
    if (ep < 0) return false; /* (then as before: waited for again) */
    struct epoll_event ev = {.events = EPOLLIN};
    bool refused = epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) != 0 && errno == EPERM;
    close(ep);
    return refused;
}

static int poll_impl(struct pollfd *fds, nfds_t nfds, int timeout_ms)
{
    if (nfds > WAIT_ALL_MAX) return (int)ret(-EINVAL);
    if (!fds && nfds) return (int)ret(-EFAULT); /* as poll(2) */
    itoi_worker_t *w = itoi_self_worker();
    if (!w || !w->cur) return (int)ret(-EPERM);
    w = io_point(w);
    itoi_ult_t *me = w->cur;
    if (timeout_ms < 0) {
        /* Nothing could end the wait (no descriptor, no timeout): refused like the other
         * argument errors, before a kept cancellation is consumed (ito_cancel_io keeps it
         * for the next call; until 2026-12-04 this call consumed it and failed with
         * ECANCELED; found by a misuse fuzzer). */
        nfds_t i = 0;
        while (i < nfds && fds[i].fd < 0) i++;
        if (i == nfds) return (int)ret(-EINVAL);
    }
    if (itoi_io_cancel_take(me)) return (int)ret(-ECANCELED);
    itoi_wscw_t *a = itoi_wsc_area(w);
    if (!a) return (int)ret(-itoi_wsc_area_errno());
    const ito_sysreq_t fin_probe = {.op = ITO_SYS_POLL, .fd = -1}; /* finalize has cancelled */
    uint64_t until = timeout_ms < 0 ? ITO_FOREVER : ito_deadline_in((uint64_t)timeout_ms * 1000000u);
    uint64_t deadline = until < me->io_deadline ? until : me->io_deadline;
    int home = w->index;
    int kernel_cancels = 0; /* waits io_uring gave up by itself (see below) */
    /* Entries on a regular file, directory or block device, or another file the kernel
     * cannot poll (/dev/null), whose events such a file never reports (0, POLLPRI,
     * POLLRDHUP): poll(2) leaves them silent for ever, while their
     * wait record ends at once with no event (the sync backend's epoll refuses the file:
     * 0; io_uring's poll ends with -EINVAL or -EAGAIN). Waited for again every round, they made the
     * call spin without parking: a CPU burnt, the worker's other ULTs starved, and on
     * io_uring finalize never returned (each round counted as progress). Found by an
     * outside tester, h64f, 2026-12-06 (tests/test_io_poll_file_silent.c). Once seen,
     * such an entry is only looked at by poll_now, and its wait
     * gets a time-only record on its number (REC_TIME: no backend runs it), which ends
     * only as any wait does: the timeout or deadline, ito_cancel_io, finalize, and an
     * ito_close of the number (POLLNVAL); so the call sleeps, as poll(2) does. */
    uint64_t silent[(WAIT_ALL_MAX + 63) / 64] = {0}; /* a bit per entry (nfds <= WAIT_ALL_MAX) */
    for (;;) {
        w = itoi_self_worker();
        a = itoi_wsc_area(w);
        int r = poll_now(fds, nfds);
        ITOI_BUMP(a->st.crossings);
        if (r != 0 || timeout_ms == 0) return r < 0 ? (int)ret(back_home(home, -errno)) : r;
        if (itoi_wsc_finalizing(&fin_probe)) return (int)ret(back_home(home, -ECANCELED)); /* only a wait ends */
        if (deadline != ITO_FOREVER && itoi_now_ns() >= deadline)
            return deadline == until ? 0 : (int)ret(back_home(home, -ETIMEDOUT));
        itoi_iowait_t wt = {.ult = me, .any = true};
        /* Every descriptor waits (a readiness missed among many would end the wait only
         * at the timeout): results on the stack for up to 64, else on the heap. */
        long res_small[64], *res = res_small;
        uint32_t ids_small[64], *ids = ids_small; /* the files at a give-up (area.c) */
        if (nfds > 64) {
            if (!(res = itoi_malloc(nfds * (sizeof *res + sizeof *ids)))) return (int)ret(back_home(home, -ENOMEM));
            ids = (uint32_t *)(res + nfds);
        }
        wt.again_id = ids;
        nfds_t done = 0;
        for (nfds_t i = 0; i < nfds; i++) {
            if (fds[i].fd < 0) continue;
            itoi_sysrec_t *rec = itoi_wsc_rec_get(w, a);
            if (!rec) {
                itoi_wsc_cancel_wait(w, a, &wt, WHY_CANCEL);
                io_park(w, a, &wt, ITO_FOREVER, "poll");
                if (res != res_small) free(res);
                return (int)ret(back_home(home, -ENOMEM));
            }
            ids[done] = 0;
            rec->bidx = (uint16_t)done;
            rec->req = (ito_sysreq_t){.op = ITO_SYS_POLL, .fd = fds[i].fd,
                                      .events = (short)(fds[i].events | POLLERR | POLLHUP),
                                      .result = &res[done++]};
            itoi_wsc_rec_fill(a, rec, &rec->req);
            itoi_wsc_wait_add(&wt, rec);
            if (silent[i / 64] >> (i % 64) & 1) itoi_wsc_submit_time(w, a, rec); /* see `silent` */
            else itoi_wsc_submit(w, a, rec, &rec->req);
        }
        if (done == 0) {
            /* Nothing to wait for but the time: one record that no backend runs, so that the
             * deadline, ito_cancel_io and finalize end it as they end any wait (a plain
             * sleep ignored the cancellation and held finalize until the timeout). */
            itoi_sysrec_t *rec = until == ITO_FOREVER ? NULL : itoi_wsc_rec_get(w, a);
            if (!rec) {
                if (res != res_small) free(res);
                return (int)ret(back_home(home, until == ITO_FOREVER ? -EINVAL : -ENOMEM));
            }
            ids[done] = 0;
            rec->bidx = (uint16_t)done;
            rec->req = (ito_sysreq_t){.op = ITO_SYS_POLL, .fd = -1, .result = &res[done++]};
            itoi_wsc_rec_fill(a, rec, &rec->req);
            itoi_wsc_wait_add(&wt, rec);
            itoi_wsc_submit_time(w, a, rec);
        }
        io_park(w, a, &wt, deadline, "poll");
        bool timed = false, cancelled = false, closed = false;
        for (nfds_t i = 0; i < done; i++) {
            timed |= res[i] == -ETIMEDOUT;
            cancelled |= res[i] == -ECANCELED; /* ito_cancel_io or finalize (siblings get -EALREADY) */
            closed |= res[i] == -EBADF;        /* ito_close of one of them */
        }
        if (cancelled && wt.kernel_cancelled && !wt.cancelled) {
            /* A descriptor of the set closed (ito_close) between the give-up's reap and now,
             * its number perhaps taken by a new file: the next round would wait on that file.
             * Such a wait ends as one a close ended (POLLNVAL, below). Until 2026-12-05 the
             * next round polled the new file (found by an outside tester, h62b;
             * test_io_poll_rerun_closed). */
            nfds_t k = 0;
            for (nfds_t i = 0; i < nfds; i++) {
                if (fds[i].fd < 0) continue;
                if (ids[k] && itoi_wsc_file_identity(fds[i].fd) != ids[k]) {
                    res[k] = -EBADF;
                    closed = true;
                }
                k++;
            }
            if (closed) cancelled = false; /* (io_uring's give-up: nobody asked to cancel) */
        }
        if (cancelled && wt.kernel_cancelled && !wt.cancelled) {
            /* Ended by io_uring itself, not by ito_cancel_io (area.c, itoi_wsc_complete):
             * the wait never ran; wait again, as a single wrapper runs such a request
             * again (call_once), 8 times at most, then EAGAIN. Until 2026-12-05 the poll
             * failed with ECANCELED that nobody asked for (found by a tester sweeping
             * ITO_FAULT_URING_CANCEL). Finalize is seen at the top of the loop, a
             * cancellation that came meanwhile here. */
            if (res != res_small) free(res);
            if (itoi_io_cancel_take(me))
                return (int)ret(back_home(home, -ECANCELED));
            if (++kernel_cancels == KERNEL_RERUNS) return (int)ret(back_home(home, -EAGAIN));
            continue;
        }
        if (cancelled) {
            if (res != res_small) free(res);
            atomic_store(&me->io_cancel, 0);
            return (int)ret(back_home(home, -ECANCELED));
        }
        if (closed) {
            /* A wait that a close in progress ended is a scheduling point: the closer may be
             * waiting for its pass on this worker, and a caller that polls the same set again
             * at once would otherwise find the number still closing, end again without
             * parking, and keep the worker (and the close) for ever (found by a server
             * tester, 2026-12-05: sync backend, 2 workers, a 1000-descriptor poll loop). */
            ito_yield();
            /* ito_close wakes the waiters before it closes: polling again now could find
             * the descriptor still open and wait on it for ever after it is closed. The
             * closed ones answer POLLNVAL (as poll(2) on a closed descriptor), with
             * whatever the others have now. */
            if (poll_now(fds, nfds) < 0)
                for (nfds_t i = 0; i < nfds; i++) fds[i].revents = 0;
            nfds_t k = 0;
            for (nfds_t i = 0; i < nfds; i++) {
                if (fds[i].fd < 0) continue;
                if (res[k++] == -EBADF) fds[i].revents = POLLNVAL;
            }
            /* A descriptor listed twice is closed in both entries: the first record's end may
             * have ended its twin as a sibling (-EALREADY) before the close reached it. */
            for (nfds_t i = 0; i < nfds; i++) {
                if (fds[i].revents != POLLNVAL) continue;
                for (nfds_t j = 0; j < nfds; j++)
                    if (fds[j].fd == fds[i].fd) fds[j].revents = POLLNVAL;
            }
            if (res != res_small) free(res);
            r = 0;
            for (nfds_t i = 0; i < nfds; i++) r += fds[i].revents != 0;
            return (int)ret(back_home(home, r));
        }
        if (timed) {
            if (res != res_small) free(res);
            r = poll_now(fds, nfds); /* an event may have come with the deadline */
            if (r != 0) return r < 0 ? (int)ret(back_home(home, -errno)) : r;
            return deadline == until ? 0 : (int)ret(back_home(home, -ETIMEDOUT));
        }
        /* Records that ended with no event of their own and not by a cancellation, close
         * or bound (see `silent` above; io_uring ends a poll of such a file with -EINVAL or
         * -EAGAIN, the sync backend with 0): only a file that never reports those events
         * does so; poll_never_fires (off the common path) decides. */
        for (nfds_t i = 0, k = 0; i < nfds && k < done; i++) {
            if (fds[i].fd < 0) continue;
            long v = res[k++];
            if (silent[i / 64] >> (i % 64) & 1) continue;
            if (v < 0 ? v == -ETIMEDOUT || v == -ECANCELED || v == -EBADF || v == -EALREADY || v == -ENOMEM
                      : (v & (fds[i].events | POLLERR | POLLHUP | POLLNVAL)) != 0)
                continue;
            if (!poll_never_fires(fds[i].fd)) continue;
            silent[i / 64] |= UINT64_C(1) << (i % 64);
        }
        if (res != res_small) free(res);
    }
}

int ito_poll(struct pollfd *fds, nfds_t nfds, int timeout_ms) { return (int)KEEP_ERRNO(poll_impl(fds, nfds, timeout_ms)); }
