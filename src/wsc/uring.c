/* uring.c: the io_uring backend. The submission ring is the common area: a request is
 * written into an SQE when posted, and one io_uring_enter per bucket crosses into the
 * kernel for all of them. Completions are reaped without a system call (peek), and the
 * ring's eventfd lets an idle worker sleep until one arrives.
 *
 * Ring set-up: the ring is created by its worker's own thread (at ito_init, watched from
 * the worker's first post), and only that thread submits, so it asks for
 * IORING_SETUP_SINGLE_ISSUER and COOP_TASKRUN (the kernel runs completion work when the
 * worker next enters it instead of interrupting it; TASKRUN_FLAG tells the poller when
 * such work waits, and only then does it enter the kernel to collect it), and registers
 * the ring fd (each enter skips the fd lookup). Older kernels refuse flags they do not
 * know: the set-up retries with fewer. A kernel whose io_uring lacks an operation that
 * ito's requests use (before Linux 5.6, which brought them all and the probe to ask) gets
 * no ring: its workers run the sync backend (ring_lacks_op). Cancellation is IORING_OP_ASYNC_CANCEL by the
 * record's address (user_data); the cancel's own completion carries the record's address
 * with CANCEL_TAG set.
 *
 * A cancel that finds nothing (-ENOENT) is not always a request that has ended: a request
 * whose poll found its file ready at once (IO_APOLL_READY) is queued as task work to be
 * issued again, and in that window it is neither in the poll table nor in io-wq. If the
 * data is then taken by another reader, the reissued request arms its poll again and
 * waits with its cancellation lost: a ULT whose read on a socket had a deadline already
 * passed waited for ever (found by fuzz_io in the clean-clone CI, about 1 run in 6;
 * diagnosed by an outside tester, h67a, 2026-12-06; tests/test_io_uring_cancel_enoent.c).
 * So a record whose cancel said -ENOENT and that is still in the kernel after the reap
 * (its completion did not come in the same pass) gets its cancel again. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "wsc.h"

#if defined(ITOI_HAVE_URING)

#define RING_ENTRIES 256
#define CANCEL_TAG ((uint64_t)1) /* in the user_data of an ASYNC_CANCEL, with its record (aligned) */

/* The completion eventfd is on only while the worker sleeps: writing it costs the
 * kernel about 165 ns per crossing (measured), which a busy worker does not need since
 * its poller peeks at the completion ring anyway. */
static bool uring_before_sleep(itoi_worker_t *w)
{
    itoi_wscw_t *a = itoi_wsc_area_if_ready(w);
    if (!a || !a->uring) return false;
    io_uring_cq_eventfd_toggle(&a->ring, true);
    /* The toggle is a plain store and the look at the ring's tail below a load: without a
     * full fence the load may pass the store (x86 store buffer), the kernel may post a
     * completion in between and still read the eventfd as disabled, and the worker then
     * sleeps with a completion in its ring that nobody signals. */
    atomic_thread_fence(memory_order_seq_cst);
    /* Arrived before the toggle, or completion work waiting for us to enter: no sleep. */
    return io_uring_cq_ready(&a->ring) != 0 ||
           (IO_URING_READ_ONCE(*a->ring.sq.kflags) & (IORING_SQ_TASKRUN | IORING_SQ_CQ_OVERFLOW));
}

static void uring_after_sleep(itoi_worker_t *w)
{
    itoi_wscw_t *a = itoi_wsc_area_if_ready(w);
    if (!a || !a->uring) return;
    io_uring_cq_eventfd_toggle(&a->ring, false);
    uint64_t v; /* drain the (level-triggered) eventfd; EAGAIN: it was empty */
    if (read(a->efd, &v, sizeof v) < 0) {
    }
}

/* While an idle worker spins: completions in the ring, or completion work waiting in
 * the kernel for us to enter (COOP_TASKRUN sets IORING_SQ_TASKRUN), end the spin. */
static bool uring_probe(itoi_worker_t *w)
{
    itoi_wscw_t *a = itoi_wsc_area_if_ready(w);
    if (!a || !a->uring || !a->inflight) return false;
    return io_uring_cq_ready(&a->ring) != 0 ||
           (IO_URING_READ_ONCE(*a->ring.sq.kflags) & (IORING_SQ_TASKRUN | IORING_SQ_CQ_OVERFLOW));
}

/* Registered once per process (itoi_mech_register), at a worker's first I/O (before its
 * eventfd is watched): each does nothing on a worker whose area is not set up yet. Until
 * 2026-12-07 they were added after every ring's setup and a refusal was ignored: had the
 * sleep table been full (its four places were exactly the four mechanisms' pairs), the
 * eventfd would have stayed off through every sleep, and a completion would have woken
 * no one. */
static itoi_mech_hooks_t uring_hooks = {.probe = uring_probe, .presleep = uring_before_sleep,
                                        .postsleep = uring_after_sleep};

/* The operations of ito's requests (wsc.h, itoi_uring_prep) and of their cancellation. */
static const struct {
    unsigned char op;
    const char *name;
} needed_ops[] = {
#define NEEDED(op) {IORING_OP_##op, "IORING_OP_" #op}
    NEEDED(NOP),     NEEDED(READ),    NEEDED(WRITE),    NEEDED(READV),   NEEDED(WRITEV),   NEEDED(SEND),
    NEEDED(RECV),    NEEDED(SENDMSG), NEEDED(RECVMSG),  NEEDED(ACCEPT),  NEEDED(CONNECT),  NEEDED(CLOSE),
    NEEDED(POLL_ADD), NEEDED(OPENAT), NEEDED(FSYNC),    NEEDED(ASYNC_CANCEL),
#undef NEEDED
};

static _Atomic(const char *) lacked_op; /* for the forced backend's message (area.c) */

/* NULL if the ring's kernel has every operation ito's requests use, else the first one it
 * lacks. A kernel that io_uring_setup accepts but that has no such operation (Linux
 * 5.1-5.5: READ, WRITE, SEND, RECV, OPENAT and CLOSE came with 5.6, and with them the probe)
 * failed those requests with EINVAL whenever one came, an ito_recv or an ito_close of a
 * file (found in review, 2026-12-07; test_io_uring_lacks_op). One probe per worker at
 * ito_init: a system call and a small allocation. */
static const char *ring_lacks_op(struct io_uring *ring)
{
    struct io_uring_probe *probe = io_uring_get_probe_ring(ring);
    if (!probe) return "IORING_REGISTER_PROBE"; /* a kernel before 5.6, or no memory for the answer */
    const char *lacked = NULL;
    for (size_t i = 0; i < sizeof needed_ops / sizeof needed_ops[0] && !lacked; i++)
        if (!io_uring_opcode_supported(probe, needed_ops[i].op)) lacked = needed_ops[i].name;
    io_uring_free_probe(probe);
    return lacked;
}

const char *itoi_uring_lacked_op(void) { return atomic_load(&lacked_op); }

/* At ito_init, on the worker's thread (area.c, itoi_wsc_worker_open): the ring and its
 * eventfd, entered once and registered, but not yet watched. 0, or -errno: -EOPNOTSUPP
 * for a kernel without an operation ito needs (itoi_uring_lacked_op names it). */
int itoi_uring_open(itoi_wscw_t *a)
{
    static const unsigned flag_sets[] = {
        IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG,
        IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG,
        0,
    };
    int rc = -ENOSYS;
    for (size_t i = 0; i < sizeof flag_sets / sizeof flag_sets[0]; i++) {
        rc = io_uring_queue_init(RING_ENTRIES, &a->ring, flag_sets[i]);
        if (rc != -EINVAL) break;
    }
    if (rc < 0) return rc; /* -EPERM (seccomp, io_uring_disabled), -ENOSYS, -ENOMEM, -EMFILE */
    /* A ring that can be made but not entered (a seccomp filter that denies only
     * io_uring_enter) would hold every request for ever while the worker retried its
     * submit at every pass (90 % of a CPU): enter once now, so that such a kernel is a
     * refusal like any other (the sync backend, or the forced backend's error). */
    rc = io_uring_get_events(&a->ring);
    const char *lacked = rc < 0 ? NULL : ring_lacks_op(&a->ring);
    if (rc < 0 || lacked) {
        io_uring_queue_exit(&a->ring);
        if (!lacked) return rc;
        atomic_store(&lacked_op, lacked);
        return -EOPNOTSUPP;
    }
    io_uring_register_ring_fd(&a->ring); /* best effort: an older kernel says no */
    a->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    rc = a->efd < 0 ? -errno : io_uring_register_eventfd(&a->ring, a->efd);
    if (rc < 0) {
        itoi_uring_close(a);
        return rc;
    }
    io_uring_cq_eventfd_toggle(&a->ring, false);
    return 0;
}

/* At the worker's first I/O: its idle sleep watches the ring's eventfd from now on.
 * 0, or -ENOMEM (the kernel had no memory for the watch). */
int itoi_uring_setup(itoi_worker_t *w, itoi_wscw_t *a)
{
    if (itoi_mech_register(&uring_hooks) != ITO_OK) return -ENOMEM;
    if (itoi_worker_watch_fd(w, a->efd) != ITO_OK) return -ENOMEM;
    a->efd_watched = true;
    return 0;
}

void itoi_uring_close(itoi_wscw_t *a)
{
    if (a->efd >= 0) close(a->efd);
    a->efd = -1;
    io_uring_queue_exit(&a->ring);
}

void itoi_uring_teardown(itoi_worker_t *w, itoi_wscw_t *a)
{
    if (a->efd_watched) itoi_worker_unwatch_fd(w, a->efd);
    a->efd_watched = false;
    itoi_uring_close(a);
}

/* The ring is full: this is a bucket too. Out of line, so that the common post through
 * itoi_uring_queue (wsc.h) calls nothing and saves no registers. */
__attribute__((noinline, cold)) struct io_uring_sqe *itoi_uring_sqe_full(itoi_worker_t *w, itoi_wscw_t *a)
{
    itoi_uring_submit(w, a);
    return itoi_uring_sqe_try(a);
}

void itoi_uring_cancel(itoi_wscw_t *a, itoi_sysrec_t *r)
{
    itoi_worker_t *w = a->w;
    struct io_uring_sqe *sqe = itoi_uring_sqe(w, a);
    if (!sqe) return; /* a refused ring (ring_refused): the request ends by itself */
    io_uring_prep_cancel64(sqe, (uint64_t)(uintptr_t)r, 0);
#ifdef ITOI_FAULT_INJECTION
    if (ITOI_UNLIKELY(itoi_fault_cancel_miss())) { /* ITO_FAULT_CANCEL_MISS (fault.c) */
        io_uring_prep_nop(sqe);
        sqe->rw_flags = 1u;              /* nop_flags: IORING_NOP_INJECT_RESULT (kernel 6.10) */
        sqe->len = (uint32_t)-ENOENT;    /* the answer of a cancel that found nothing */
    }
#endif
    io_uring_sqe_set_data64(sqe, (uint64_t)(uintptr_t)r | CANCEL_TAG);
    a->sq_pending++;
    itoi_uring_submit(w, a); /* a cancellation should not wait for the bucket */
}

/* Whether io_uring_enter failed for good: a seccomp filter (or an LSM) that refuses it
 * was installed after ito_init, which checked it. EINTR, EAGAIN and EBUSY (completions
 * to reap first) pass; ENOMEM may too. */
static bool enter_refused(int err)
{
    switch (err) {
    case EPERM: case EACCES: case ENOSYS: case EBADF: case EFAULT: case EINVAL: case EOPNOTSUPP:
        return true;
    default:
        return false;
    }
}

/* The kernel refuses io_uring_enter for good (found by a tester, 2026-12-05: the worker
 * retried the submit for ever at 100 % CPU, and ito_write and ito_finalize never
 * returned). The SQEs it has not taken never will be: their requests fail with the
 * refusal's errno, and from now on this worker runs new requests itself, as the sync
 * backend does (itoi_uring_queue sends them to the flusher's bucket). Requests the kernel
 * took before complete as before (their completions need no entry: COOP_TASKRUN's work
 * runs at the worker's next return from any system call), but can no longer be cancelled
 * (syscall.h). */
static __attribute__((cold, noinline)) void ring_refused(itoi_worker_t *w, itoi_wscw_t *a, int err)
{
    if (!enter_refused(err)) return; /* passing: the next flush tries again */
    struct io_uring_sq *sq = &a->ring.sq;
    unsigned head = IO_URING_READ_ONCE(*sq->khead), tail = sq->sqe_tail;
    size_t failed = 0;
    for (unsigned i = head; i != tail; i++) { /* liburing maps SQ slot i to SQE i */
        uint64_t ud = sq->sqes[i & sq->ring_mask].user_data;
        if (ud & CANCEL_TAG) continue;
        itoi_wsc_complete(w, a, (itoi_sysrec_t *)(uintptr_t)ud, -err);
        failed++;
    }
    a->sq_pending = 0;
    /* The ring looks full for good (the kernel takes nothing more without an enter): every
     * later itoi_uring_sqe_try (wsc.h) finds no room, and the request goes to the flusher's bucket,
     * with no test of its own on the posting path. */
    sq->sqe_head = sq->sqe_tail = head + sq->ring_entries;
    char msg[200];
    int len = snprintf(msg, sizeof msg,
                       "ito: io_uring_enter refused (%s) after ito_init: worker %d failed %zu queued requests "
                       "and runs its system calls as the sync backend from now on\n",
                       strerror(err), w->index, failed);
    if (len > 0) (void)!write(2, msg, (size_t)len < sizeof msg ? (size_t)len : sizeof msg - 1);
}

void itoi_uring_submit(itoi_worker_t *w, itoi_wscw_t *a)
{
    if (!a->sq_pending) return;
    int n = io_uring_submit(&a->ring);
    ITOI_BUMP(a->st.crossings);
    if (n > 0) {
        a->inflight += (size_t)n;
        a->sq_pending -= (size_t)n < a->sq_pending ? (size_t)n : a->sq_pending;
    } else if (ITOI_UNLIKELY(n < 0)) {
        ring_refused(w, a, -n);
    }
}

#define RECANCEL_MIN_NS 1000000u  /* the first late re-send, 1 ms after the second miss */
#define RECANCEL_MAX_NS 16000000u /* at most this far apart while they go on missing */

/* The area's recancel_timer: send the cancels marked late again (the live list is walked:
 * a cold path, armed only while a request's cancel goes on finding nothing). */
static void recancel_fire(itoi_worker_t *w, itoi_timer_t *t)
{
    itoi_wscw_t *a = (itoi_wscw_t *)((char *)t - offsetof(itoi_wscw_t, recancel_timer));
    bool any = false;
    for (itoi_sysrec_t *r = a->live.lnext; r != &a->live; r = r->lnext) {
        if (!r->cancel_late) continue;
        r->cancel_late = false;
        if (r->state == REC_URING && r->cancel_sent) {
            itoi_uring_cancel(a, r);
            any = true;
        }
    }
    (void)w;
    /* Missing still after this round: the next one waits twice as long (reset once a
     * round finds nothing more to send). */
    a->recancel_ns = any ? (a->recancel_ns * 2 < RECANCEL_MAX_NS ? a->recancel_ns * 2 : RECANCEL_MAX_NS) : 0;
}

/* A cancel of r found nothing (-ENOENT): if r is still in the kernel with its cancel sent,
 * the cancel came in the window described at the top; send it again. At once the first
 * time; after that by the area's timer, 1 ms later and backing off to 16 ms: a request
 * that ASYNC_CANCEL cannot reach but that ends by itself (a buffered read of a regular
 * file waiting for its pages, an O_DIRECT transfer) otherwise had its cancel sent again at
 * every answer, one io_uring_enter each, the worker spinning for as long as the read took
 * (10,644 enters for a 256 MiB cold read of 0.16 s; found by an outside tester, h67d,
 * 2026-12-06; tests/test_io_uring_recancel_spin.c). */
static void cancel_again(itoi_wscw_t *a, itoi_sysrec_t *r)
{
    if (r->state != REC_URING || !r->cancel_sent) return;
    if (!r->cancel_missed) {
        r->cancel_missed = true;
        itoi_uring_cancel(a, r);
        return;
    }
    if (r->cancel_late) return; /* already due at the timer */
    r->cancel_late = true;
    itoi_worker_t *w = a->w;
    if (!a->recancel_timer.armed) {
        if (!a->recancel_ns) a->recancel_ns = RECANCEL_MIN_NS;
        a->recancel_timer.bounds_wait = true; /* bounds a wait; the request is the work */
        itoi_timer_arm(w, &a->recancel_timer, itoi_now_ns() + a->recancel_ns, recancel_fire);
    }
}

size_t itoi_uring_reap(itoi_worker_t *w, itoi_wscw_t *a)
{
    /* Completion work the kernel keeps for our next entry (COOP_TASKRUN), or completions
     * that overflowed the ring and wait in the kernel: enter to collect them. */
    if (IO_URING_READ_ONCE(*a->ring.sq.kflags) & (IORING_SQ_TASKRUN | IORING_SQ_CQ_OVERFLOW)) {
        io_uring_get_events(&a->ring);
        ITOI_BUMP(a->st.crossings);
    }
    if (io_uring_cq_ready(&a->ring) == 0) return 0;
    size_t n = 0;
    unsigned head, seen = 0;
    bool missed = false; /* a cancel found nothing: looked at after the pass */
    struct io_uring_cqe *cqe;
    io_uring_for_each_cqe(&a->ring, head, cqe) {
        seen++;
        uint64_t ud = io_uring_cqe_get_data64(cqe);
        if (ud & CANCEL_TAG) { /* the cancel's own answer */
            missed |= cqe->res == -ENOENT;
            continue;
        }
        itoi_wsc_complete(w, a, (itoi_sysrec_t *)(uintptr_t)ud, cqe->res);
        n++;
    }
    /* Still in the kernel with its cancel sent (records are pooled until the teardown, so
     * the address is one; a record given back and posted again is cancelled again only if
     * its new request is being cancelled too): the cancel missed it, send it again. The
     * pass's CQEs are read again before they go back (the request's own completion may
     * come after its cancel's answer in the same pass). Each round is one enter, whose
     * task work ends the window (see above); a record missed twice in one pass is due at
     * the timer the second time (at worst one cancel more). */
    if (ITOI_UNLIKELY(missed)) {
        unsigned i = 0;
        io_uring_for_each_cqe(&a->ring, head, cqe) {
            if (i++ == seen) break;
            uint64_t ud = io_uring_cqe_get_data64(cqe);
            if ((ud & CANCEL_TAG) && cqe->res == -ENOENT) cancel_again(a, (itoi_sysrec_t *)(uintptr_t)(ud & ~CANCEL_TAG));
        }
    }
    io_uring_cq_advance(&a->ring, seen);
    a->inflight -= seen; /* once per pass: only wsc_poll and the idle probe read it */
    return n;
}

#else /* no liburing at build time: the sync backend only */

int itoi_uring_open(itoi_wscw_t *a) { (void)a; return -ENOSYS; }
const char *itoi_uring_lacked_op(void) { return NULL; }
int itoi_uring_setup(itoi_worker_t *w, itoi_wscw_t *a) { (void)w; (void)a; return -ENOSYS; }
void itoi_uring_close(itoi_wscw_t *a) { (void)a; }
void itoi_uring_teardown(itoi_worker_t *w, itoi_wscw_t *a) { (void)w; (void)a; }
void itoi_uring_submit(itoi_worker_t *w, itoi_wscw_t *a) { (void)w; (void)a; }
size_t itoi_uring_reap(itoi_worker_t *w, itoi_wscw_t *a) { (void)w; (void)a; return 0; }
void itoi_uring_cancel(itoi_wscw_t *a, itoi_sysrec_t *r) { (void)a; (void)r; }

#endif
