/* wsc.h: internals of split-phase system calls, shared by the files of src/wsc:
 *   area.c     the common area of each worker: records, posting, the flush policy,
 *              completion, the poller, finalize's cancellation, statistics;
 *   uring.c    the io_uring backend (the submission ring is the common area);
 *   ready.c    readiness waits in the worker's epoll (the sync backend's netpoller);
 *   helpers.c  helper threads for calls that can only block (regular files, fsync);
 *   nonblock.c running one request without blocking (the sync backend, thin calls);
 *   wrappers.c blocking wrappers for ULTs, deadlines, cancellation, close, poll;
 *   whole.c    whole transfers: the rest of a short write or MSG_WAITALL receive.
 *
 * Who touches what (the invariants of the I/O path):
 *  - Every worker owns its common area (itoi_wscw_t) and the records of its pool. Only
 *    code running on that worker touches them: posts come from the ULT or ZWT running
 *    there, flushes, completions and cancellations run there (completions of helper
 *    threads and requests from other threads arrive as itoi_worker_call()s). So none of
 *    it needs a lock. A record's `owner` never changes. The worker's slot
 *    ITOI_WSLOT_WSC points to its area from the area's setup (by the worker itself) to
 *    the teardown at ito_finalize (after the workers stopped); other threads find areas
 *    through area.c's table, never through the slot.
 *  - A record is FREE (in its pool), BUCKET (buffered, run by the flusher), URING (an
 *    SQE prepared or in flight), READY (waiting for readiness in the worker's epoll),
 *    POOL (handed to a helper thread) or, briefly, SETTLING (taken off its fd's list by
 *    the readiness poller) or DONE. Every record that is not FREE is
 *    on the area's live list, so finalize and ito_close can find it.
 *  - A ULT that waits for records does so through an itoi_iowait_t on its own stack; the
 *    ULT's io_wait points to it and io_owner names the worker, whose completion path
 *    clears io_wait before it readies the ULT. Only the owning worker dereferences
 *    io_wait (the ULT stays parked, so its stack is valid, until the owner readies it).
 *  - Cancellation (deadline, ito_cancel_io, ito_close, finalize) sets a record's `why`
 *    and ends it: a BUCKET, READY or unstarted POOL record completes at once with
 *    -ECANCELED; an io_uring request gets an ASYNC_CANCEL and completes when the kernel
 *    says (with -ECANCELED, or with its real result if it finished first). `why` turns
 *    -ECANCELED into the caller's error (ETIMEDOUT, ECANCELED, EBADF). */
#ifndef ITO_WSC_INTERNAL_H
#define ITO_WSC_INTERNAL_H

#include "ito/syscall.h"
#include "../core/itoi.h"
#include "../zwt/zwt.h"

#if defined(ITOI_HAVE_URING)
#include <liburing.h>
#endif

/* REC_TIME: a record in no backend, the time-only wait of an ito_poll with no descriptor
 * to wait on; only its deadline, ito_cancel_io or finalize ends it (itoi_wsc_cancel). */
enum { REC_FREE, REC_BUCKET, REC_URING, REC_READY, REC_SETTLING, REC_POOL, REC_DONE, REC_TIME };
enum { WHY_NONE, WHY_TIMEOUT, WHY_CANCEL, WHY_CLOSE, WHY_FINALIZE, WHY_SIBLING, WHY_SHUTDOWN };

struct itoi_sysrec;

/* What a ULT waits for: its records (one for a wrapper, several for ito_sys_wait_all or
 * ito_poll). With `any`, the first completion cancels the others (poll). */
typedef struct itoi_iowait {
    itoi_ult_t *ult;
    struct itoi_sysrec *recs;   /* linked through wnext */
    size_t left;                /* not yet completed */
    bool any, fired;
    bool parked;                /* the ULT has parked (else it finds left == 0 itself) */
    bool cancelling;            /* iowait_done is cancelling the others (poll) */
    bool cancelled;             /* a record ended -ECANCELED by ito_cancel_io (ito_sys_wait_all
                                 * consumes the cancellation then, else keeps it) */
    bool moved;                 /* a record ended otherwise than by the wait's own bound (its
                                 * deadline or poll timeout): the wake-up is progress */
    bool kernel_cancelled;      /* a record ended -ECANCELED that ito never asked to cancel:
                                 * io_uring gave up on it before it ran (call_once runs it again) */
    uint32_t id_at;             /* a single call's record that io_uring gave up: its number's file
                                 * identity when it was reaped (call_once posts it again only on
                                 * that file) */
    uint32_t *again_id;         /* the same for a batch, by `bidx` (ito_poll: its own array, every
                                 * record's file at the give-up; a batch: 1024 entries, allocated at the
                                 * first give-up; ito_sys_wait_all frees it) */
    uint64_t *again;            /* ito_sys_wait_all on io_uring: a bit per request (the record's
                                 * `bidx`) that io_uring gave up that way; its result and
                                 * continuation are not delivered, the batch posts it again */
} itoi_iowait_t;

/* A request's record. Its first cache line holds all that an io_uring request touches
 * from its post to its continuation (the SQE holds the arguments); the whole request is
 * copied into `req` only when ito runs it itself (the flusher's bucket, a readiness wait,
 * a helper thread). Records are 64-byte aligned. */
typedef struct itoi_sysrec {
    _Alignas(64) struct itoi_sysrec *next; /* pool, bucket or readiness list */
    struct itoi_sysrec *lprev, *lnext;   /* the area's live list */
    itoi_iowait_t *wait;                 /* the ULT waiting for it, or NULL */
    long *result;                        /* req.result: where the result goes, or NULL */
    ito_frame_t *frame;                  /* req.frame and req.entry: the continuation */
    int entry;
    int fd;                              /* req.fd */
    int16_t owner;                       /* worker index, fixed */
    uint8_t op;                          /* req.op */
    uint8_t state, why;
    bool cancel_sent : 1;                /* io_uring: ASYNC_CANCEL submitted */
    bool cancel_missed : 1;              /* io_uring: a cancel of this request found nothing (-ENOENT) */
    bool cancel_late : 1;                /* io_uring: its cancel is sent again by the area's recancel_timer */
    bool retry : 1;                      /* sync: a readiness wait before running req again */
    _Atomic uint8_t abandon;             /* a helper waiting for a descriptor's readiness stops
                                          * (set by a cancellation of a started POOL record) */
    /* second line on: waits, readiness, helpers */
    struct itoi_sysrec *wnext;           /* the iowait's list */
    uint32_t events;                     /* readiness wanted (POLL*), while READY */
    uint16_t bidx;                       /* its index in an ito_sys_wait_all batch (wait->again) or
                                          * among an ito_poll's records (wait->again_id) */
    uint8_t reruns;                      /* a batch's request: runs io_uring gave up (area.c,
                                          * batch_rerun; set to 0 by the batch's post) */
    long res;
    itoi_call_t call;                    /* a helper thread's completion, back to the owner */
    ito_sysreq_t req;                    /* the whole request, when ito runs it itself */
} itoi_sysrec_t;
_Static_assert(offsetof(itoi_sysrec_t, wnext) <= 64, "an io_uring request's fields fit one cache line");

/* A batch's request that io_uring gives up is queued again at once this many times before
 * the batch itself posts it again (area.c, batch_rerun). */
#define ITOI_WSC_BATCH_RERUNS 7

/* Per fd, the records waiting for its readiness on this worker (ready.c). */
typedef struct itoi_rfd {
    itoi_sysrec_t *waiters;
    uint32_t armed;                      /* events registered in the epoll (0: not registered) */
} itoi_rfd_t;

typedef struct itoi_wsc_counters {
    _Atomic uint64_t posted, completed, crossings, cancelled;
    _Atomic uint64_t flush_threshold, flush_idle, flush_latency, flush_explicit;
} itoi_wsc_counters_t;

#define ITOI_WSC_DIRECT 64 /* continuations run by the poller after one reap (more: queued) */
#define ITOI_WSC_FD_SLOTS 65536u /* itoi_wscw_t.fdlive: 256 KiB per worker, touched only where fds are */

typedef struct itoi_wscw {
    _Atomic int init;           /* 0 not yet, 1 ready: set (release) by the owner once the area
                                 * is set up; other workers (ito_close, finalize) read it
                                 * (acquire) before they read the area's atomics */
    int uring;                  /* this worker's backend */
    itoi_worker_t *w;           /* the owner (its io_pending mirrors nlive) */
#if defined(ITOI_HAVE_URING)
    struct io_uring ring;
#endif
    int efd;                    /* the ring's completion eventfd */
    bool efd_watched;           /* by the worker's idle sleep: from its first I/O */
    itoi_sysrec_t *free;
    itoi_sysrec_t *bucket, *bucket_tail; /* requests run by the flusher itself */
    size_t bucket_n;
    size_t sq_pending;          /* SQEs prepared, not yet submitted */
    unsigned idle_skips;        /* poller visits in a row that left a partial bucket (area.c) */
    size_t inflight;            /* submitted to the ring, not yet completed */
    itoi_sysrec_t live;         /* sentinel of the live list */
    _Atomic size_t nlive;       /* owner-written; others read it as a hint (ito_close) */
    _Atomic uint32_t *fdlive;   /* owner-written: live records per fd slot (fd modulo
                                 * ITOI_WSC_FD_SLOTS, exact below it), counted from the
                                 * record's fill to its return; ito_close reads it (acquire)
                                 * to ask only the workers that may hold a record on its fd.
                                 * NULL when it could not be allocated: nlive stands in */
    /* readiness (ready.c) */
    int rep;                    /* epoll fd (made at ito_init on the sync backend), or -1 */
    bool rep_watched;           /* by the worker's idle sleep: from its first I/O */
    itoi_rfd_t *fds;
    size_t nfds;                /* capacity of fds */
    size_t nwaiting;            /* records in READY */
    bool rep_stale;             /* a DEL failed (its number closed with close(2)): a file a dup
                                 * keeps open may stay registered; consumed before each sleep */
    /* completions reaped by the poller (wsc_poll): while `reaping`, a continuation that
     * makes a ZWT entry ready hands it here, and the poller runs it right after the reap
     * (the paper's receiver continued by the completion itself, no ready queue between);
     * not while a worker is idle, which may steal it from the ready queue instead */
    bool reaping;
    unsigned ndirect;
    itoi_unit_t *direct[ITOI_WSC_DIRECT];
    itoi_zlook_t look;          /* while `reaping`: the look at the frame of the last continuation
                                 * (zwt.h), kept for the next completion of the same frame; closed
                                 * before the taken continuations run */
    /* latency bound (area.c, flush_timer_fire): a timer that ticks every half bound while
     * requests are buffered; a bucket still there at two ticks in a row is flushed */
    itoi_timer_t flush_timer;
    /* io_uring: cancels that found nothing twice for the same request are sent again by
     * this timer, after recancel_ns (doubled while they go on missing; uring.c) */
    itoi_timer_t recancel_timer;
    uint64_t recancel_ns;
    uint64_t flushes;           /* buckets flushed so far: tells one bucket from the next */
    uint32_t io_tick, io_run;   /* wrappers.c (io_point): the worker's tick at the last
                                 * wrapper call, and the calls in a row at that tick */
    uint64_t tick_flushes;      /* `flushes` at the last tick that found a bucket (flushes - 1
                                 * when none has since the timer was armed) */
    itoi_wsc_counters_t st;
} itoi_wscw_t;

enum { FLUSH_THRESHOLD, FLUSH_IDLE, FLUSH_LATENCY, FLUSH_EXPLICIT };

extern _Atomic int itoi_wsc_k;
extern _Atomic unsigned itoi_wsc_latency_us;

/* area.c */
itoi_wscw_t *itoi_wsc_area_setup(itoi_worker_t *w); /* set up on first use (NULL: none) */
/* This worker's area (on the worker itself), set up on first use; NULL: none. Once set
 * up, the worker's slot holds it: one load on the posting path. */
/* The length one request asks the kernel for: Linux moves at most MAX_RW_COUNT bytes
 * (INT_MAX rounded down to a page) in one read or write, and an SQE holds 32 bits, so a
 * longer request is clamped to that, a short count as read(2) gives (both backends: cut
 * modulo 2^32, a 4 GiB read asked for 0 bytes and looked like end of file; past
 * SSIZE_MAX, readv(2) and send(2) said EINVAL where io_uring moved the bytes). */
#define ITOI_WSC_MAX_RW ((size_t)0x7ffff000)
static inline size_t itoi_wsc_rw_len(size_t len) { return len < ITOI_WSC_MAX_RW ? len : ITOI_WSC_MAX_RW; }
/* Whether buf..buf+len lies below the top of user space, as the kernel's access_ok asks
 * before read(2), write(2), pread(2), pwrite(2) and send(2) move anything (EFAULT else;
 * recv(2) clamps first and does not ask). The clamp above must not come first: a length
 * such as (size_t)-1 (a negative count cast) got EFAULT from pread(2) but was clamped to
 * 0x7ffff000 here, and ito_pread wrote the file's bytes past the caller's buffer over its
 * heap (a crash), ito_write to /dev/null went on for hours claiming 2^64 bytes written
 * (outside tester h76a, 2026-12-07). The top: 2^47 - 4096, or 2^56 - 4096 on a CPU with
 * 5-level paging (LA57; a kernel running 4-level there refuses more than this lets by,
 * never less). Lengths up to the clamp are left to the kernel as before. */
bool itoi_wsc_user_range_slow(const void *buf, size_t len); /* area.c */
static inline __attribute__((always_inline)) bool itoi_wsc_user_range(const void *buf, size_t len)
{
    return ITOI_LIKELY(len <= ITOI_WSC_MAX_RW) || itoi_wsc_user_range_slow(buf, len);
}

static inline itoi_wscw_t *itoi_wsc_area(itoi_worker_t *w)
{
    itoi_wscw_t *a = (itoi_wscw_t *)w->slot[ITOI_WSLOT_WSC];
    return ITOI_LIKELY(a != NULL) ? a : itoi_wsc_area_setup(w);
}
itoi_wscw_t *itoi_wsc_area_if_ready(itoi_worker_t *w); /* or NULL if not set up (no side effect) */
int itoi_wsc_area_error(void);                 /* why itoi_wsc_area gave NULL */
int itoi_wsc_area_errno(void);                 /* the same as an errno, for the wrappers */
itoi_sysrec_t *itoi_wsc_rec_get(itoi_worker_t *w, itoi_wscw_t *a); /* NULL: no memory */
void itoi_wsc_rec_put(itoi_wscw_t *a, itoi_sysrec_t *r);           /* back unused */
/* Set r's own fields (op, fd, result, continuation) from q. */
void itoi_wsc_rec_fill(itoi_wscw_t *a, itoi_sysrec_t *r, const ito_sysreq_t *q);
/* The descriptor a record of `op` waits on, as ito_close sees it, or -1: NOP and GETPID
 * name none, OPENAT names a directory only to resolve its path, CLOSE ends the descriptor
 * itself. What fdlive counts and what ito_close cancels. */
static inline int itoi_wsc_watched_fd(int op, int fd)
{
    switch (op) {
    case ITO_SYS_NOP: case ITO_SYS_GETPID: case ITO_SYS_OPENAT: case ITO_SYS_CLOSE: return -1;
    default: return fd;
    }
}
/* Whether area a (any worker's, set up) may hold a live record on fd: false means none
 * was filled before the caller's last full fence (ito_close's Dekker pairing with
 * end_closing_waits: the poster counts, fences, then looks at `closing`). */
static inline bool itoi_wsc_may_hold(itoi_wscw_t *a, int fd)
{
    if (a->fdlive) return atomic_load_explicit(&a->fdlive[(unsigned)fd % ITOI_WSC_FD_SLOTS], memory_order_acquire) != 0;
    return atomic_load_explicit(&a->nlive, memory_order_acquire) != 0;
}
/* Post r (its own fields filled from q) with q's arguments; it completes through
 * itoi_wsc_complete, possibly inside. */
void itoi_wsc_submit(itoi_worker_t *w, itoi_wscw_t *a, itoi_sysrec_t *r, const ito_sysreq_t *q);
/* r joins wt's records (a ULT's wait, wrappers.c). */
static inline void itoi_wsc_wait_add(itoi_iowait_t *wt, itoi_sysrec_t *r)
{
    r->wait = wt;
    r->wnext = wt->recs;
    wt->recs = r;
    wt->left++;
}
/* A waiting wrapper's request posted in one call (rec_get, rec_fill, the result to *res,
 * no continuation, wt's record, itoi_wsc_submit; the three calls it replaces each saved
 * registers and set the record's fields twice): the record, or NULL (no memory). `more`
 * is or-ed into a send's flags (the one attempt of call_once: MSG_DONTWAIT), 0 else. */
itoi_sysrec_t *itoi_wsc_post_wait(itoi_worker_t *w, itoi_wscw_t *a, const ito_sysreq_t *q, int more, long *res,
                                  itoi_iowait_t *wt);
/* The same for a part after the first of a whole transfer (whole.c, part_pins): between
 * the record's registration and its submission, the close generation is looked at again;
 * a close since ends the record at once with EBADF. */
itoi_sysrec_t *itoi_wsc_post_part(itoi_worker_t *w, itoi_wscw_t *a, const ito_sysreq_t *q, int more, long *res,
                                  itoi_iowait_t *wt, uint64_t gen);
/* Whether a later part's record r (registered, not submitted) ends so: then it has. */
bool itoi_wsc_part_refused(itoi_worker_t *w, itoi_wscw_t *a, itoi_sysrec_t *r, uint64_t gen);
/* The same, run by a helper thread (the sync backend's blocking calls: nonblock.c). */
itoi_sysrec_t *itoi_wsc_post_wait_helper(itoi_worker_t *w, itoi_wscw_t *a, const ito_sysreq_t *q, long *res,
                                         itoi_iowait_t *wt);
/* Parks r as a time-only wait (REC_TIME), counted as posted like a submitted request. */
void itoi_wsc_submit_time(itoi_worker_t *w, itoi_wscw_t *a, itoi_sysrec_t *r);
/* The sync backend (r->req whole), after the caller's own first attempt gave `first` (-EAGAIN: wait for
 * `events`, then run again; ITOI_WSC_BLOCKING: a helper thread runs it). */
void itoi_wsc_submit_retry(itoi_worker_t *w, itoi_wscw_t *a, itoi_sysrec_t *r, long first, uint32_t events);
/* Cancel every record of a ULT's wait; wakes the ULT if that ends the wait. */
void itoi_wsc_cancel_wait(itoi_worker_t *w, itoi_wscw_t *a, itoi_iowait_t *wt, int why);
/* Cancel the live records `match` selects; how many it selected. */
size_t itoi_wsc_cancel_matching(itoi_worker_t *w, itoi_wscw_t *a, bool (*match)(const itoi_sysrec_t *, void *),
                                void *ctx, int why);
void itoi_wsc_flush(itoi_worker_t *w, itoi_wscw_t *a, int why);
/* Its two halves: a waiting wrapper or a reason (why), else a continuation or a result
 * only (area.c). Inline: the reap calls the half it needs (a wrapper's completion was two
 * calls). */
void itoi_wsc_complete_full(itoi_worker_t *w, itoi_wscw_t *a, itoi_sysrec_t *r, long res);
void itoi_wsc_complete_plain(itoi_worker_t *w, itoi_wscw_t *a, itoi_sysrec_t *r, long res);
static inline void itoi_wsc_complete(itoi_worker_t *w, itoi_wscw_t *a, itoi_sysrec_t *r, long res)
{
    if (ITOI_UNLIKELY(r->wait || r->why != WHY_NONE)) itoi_wsc_complete_full(w, a, r, res);
    else itoi_wsc_complete_plain(w, a, r, res);
}
void itoi_wsc_cancel(itoi_worker_t *w, itoi_wscw_t *a, itoi_sysrec_t *r, int why);
/* Whether q's arguments are valid (else itoi_wsc_op_errno says why). Inline: a wrapper
 * whose op is a constant keeps only its own case. */
static inline __attribute__((always_inline)) bool itoi_wsc_op_ok(const ito_sysreq_t *q)
{
    if ((unsigned)q->op >= ITO_SYS_OP_COUNT) return false;
    switch (q->op) {
    case ITO_SYS_READ: case ITO_SYS_WRITE: case ITO_SYS_SEND:
        return q->fd >= 0 && (q->buf || !q->len) && itoi_wsc_user_range(q->buf, q->len);
    case ITO_SYS_RECV: /* MSG_TRUNC: a TCP receive that discards, no buffer needed */
        return q->fd >= 0 && (q->buf || !q->len || (q->flags & MSG_TRUNC));
    case ITO_SYS_PREAD: case ITO_SYS_PWRITE:
        return q->fd >= 0 && (q->buf || !q->len) && q->offset >= 0 && itoi_wsc_user_range(q->buf, q->len);
    case ITO_SYS_READV: case ITO_SYS_WRITEV:
        return q->fd >= 0 && q->iovcnt >= 0 && q->iovcnt <= 1024 && (q->iov || !q->iovcnt) && q->offset >= -1;
    case ITO_SYS_SENDMSG: case ITO_SYS_RECVMSG: return q->fd >= 0 && q->msg;
    case ITO_SYS_ACCEPT: case ITO_SYS_CLOSE: case ITO_SYS_FSYNC: return q->fd >= 0;
    case ITO_SYS_CONNECT: return q->fd >= 0 && (q->addr || !q->addr_len); /* (NULL, 0): the kernel's EINVAL */
    case ITO_SYS_POLL: return q->fd >= 0 && q->events != 0;
    case ITO_SYS_OPENAT: return q->path != NULL;
    default: return true;
    }
}
int itoi_wsc_op_errno(const ito_sysreq_t *q); /* -EBADF, -EFAULT or -EINVAL for an invalid q */
/* A request as ito_sys_post takes it: ITO_OK, ITO_EINVAL (bad arguments, a continuation
 * frame that is not live), ITO_ERANGE (its entry is not in the frame). */
int itoi_wsc_req_check(const ito_sysreq_t *q);
/* Finalize has cancelled what could not complete: a new wait on such an fd ends at once
 * (the wrappers make one attempt that does not wait first; cleared if finalize gives up). */
extern _Atomic int itoi_wsc_fini_cancelling; /* area.c */
bool itoi_wsc_finalizing_slow(const ito_sysreq_t *q);
static inline bool itoi_wsc_finalizing(const ito_sysreq_t *q)
{
    if (ITOI_LIKELY(!atomic_load_explicit(&itoi_wsc_fini_cancelling, memory_order_relaxed))) return false;
    return itoi_wsc_finalizing_slow(q);
}

/* nonblock.c: run a request without blocking: the result, -EAGAIN (wait for readiness:
 * *events says which), or ITOI_WSC_BLOCKING (it can only block: a helper thread runs it). */
#define ITOI_WSC_BLOCKING (-1000000L)
/* A helper's answer for a read whose readiness another reader took first: the owner
 * puts the request back to wait in its epoll (helpers.c), no helper is held meanwhile. */
#define ITOI_WSC_REWAIT (-1000001L)
long itoi_wsc_run_nonblocking(const ito_sysreq_t *q, bool again, uint32_t *events);
long itoi_wsc_run_blocking(struct itoi_sysrec *r); /* r->req itself, blocking (a helper thread) */

/* ready.c */
int itoi_ready_open(itoi_wscw_t *a);                    /* the epoll made: 0 or -errno */
int itoi_ready_setup(itoi_worker_t *w, itoi_wscw_t *a); /* ... and watched: 0 or -errno */
void itoi_ready_wait(itoi_worker_t *w, itoi_wscw_t *a, itoi_sysrec_t *r); /* r->events set */
void itoi_ready_drop(itoi_wscw_t *a, itoi_sysrec_t *r);   /* off its fd's list (no completion) */
size_t itoi_ready_poll(itoi_worker_t *w, itoi_wscw_t *a);
void itoi_ready_drain(itoi_worker_t *w, itoi_wscw_t *a); /* every event the epoll holds now */
void itoi_ready_before_sleep(itoi_worker_t *w, itoi_wscw_t *a); /* stale registrations' events */
void itoi_ready_teardown(itoi_worker_t *w, itoi_wscw_t *a);

/* helpers.c */
void itoi_helpers_run(itoi_sysrec_t *r);      /* r->state = POOL; completes on its owner (at once,
                                               * with -EAGAIN, when no helper thread can start) */
bool itoi_helpers_unqueue(itoi_sysrec_t *r);  /* true if it had not started (now removed) */
void itoi_helpers_stop(void);
bool itoi_helpers_busy(int fd);               /* a helper's call uses the number fd now */
void itoi_helpers_release_fd(void);           /* on a helper: its call holds a duplicate now */

/* wrappers.c, whole.c */
long itoi_wsc_call(const ito_sysreq_t *q, const char *what); /* one request, waited for: result or -errno */
long itoi_wsc_whole(ito_sysreq_t *q, const char *what);      /* the same, continued after a short count */
bool itoi_wsc_ends_by_itself(const ito_sysreq_t *q);          /* however slow the device (area.c) */
struct stat;
int itoi_wsc_fstat(int fd, struct stat *st); /* fstat, an event file shown as a character device (nonblock.c) */
int itoi_wsc_stat_cached(int fd, struct stat *st); /* fstat asking no file system server (nonblock.c) */
void itoi_wsc_closing(int fd);                                /* ito_close(fd) begins (whole.c) */
/* A part after the first of a whole transfer begun at close generation `gen` (whole.c,
 * part_pins): itoi_wsc_call_part runs it, and it ends with EBADF (the transfer with the
 * count so far) when the number was closed since, looked at after its record is
 * registered (itoi_wsc_post_part) or its attempt pinned (itoi_wsc_part_pin: true, go on,
 * unpin after the attempt). ito_close waits while itoi_wsc_part_pinned. */
long itoi_wsc_call_part(const ito_sysreq_t *q, const char *what, uint64_t gen);
bool itoi_wsc_part_closed(int fd, uint64_t gen);
bool itoi_wsc_part_pin(int fd, uint64_t gen);
void itoi_wsc_part_unpin(int fd);
bool itoi_wsc_part_pinned(int fd);
/* An error a socket reported once to a part of a whole transfer, kept for the next call on
 * fd (whole.c): -errno, taken out, or 0. `rx`: the call is a receive (it takes the error
 * only in place of its end of file). A call of length 0 takes nothing (read(2) of 0 bytes
 * leaves the socket's error). */
extern _Atomic uint64_t itoi_wsc_kept_mask; /* bit fd % 64: an error may be kept for fd */
static inline uint64_t itoi_wsc_kept_bit(int fd) { return (uint64_t)1 << ((unsigned)fd % 64u); }
static inline bool itoi_wsc_kept_any(int fd) /* one load: maybe an error kept for fd */
{
    return (atomic_load_explicit(&itoi_wsc_kept_mask, memory_order_relaxed) & itoi_wsc_kept_bit(fd)) != 0;
}
long itoi_wsc_kept_error_slow(int fd);
/* Whether a vector moves any byte (a vector of zero total length takes nothing either:
 * until 2026-12-04 an ito_readv of 0 bytes took the kept reset, which readv(2) leaves
 * for the next call; found by a reviewer). */
static inline bool itoi_wsc_iov_any(const struct iovec *iov, size_t n)
{
    for (size_t i = 0; iov && i < n; i++)
        if (iov[i].iov_len) return true;
    return false;
}
static inline long itoi_wsc_kept_error(const ito_sysreq_t *q, bool rx)
{
    if (ITOI_LIKELY(!itoi_wsc_kept_any(q->fd))) return 0;
    switch (q->op) {
    case ITO_SYS_READ: case ITO_SYS_RECV:
        return rx && q->len ? itoi_wsc_kept_error_slow(q->fd) : 0;
    case ITO_SYS_READV:
        return rx && q->iovcnt > 0 && itoi_wsc_iov_any(q->iov, (size_t)q->iovcnt) ? itoi_wsc_kept_error_slow(q->fd) : 0;
    case ITO_SYS_RECVMSG:
        return rx && q->msg && itoi_wsc_iov_any(q->msg->msg_iov, q->msg->msg_iovlen) ? itoi_wsc_kept_error_slow(q->fd) : 0;
    case ITO_SYS_WRITE: case ITO_SYS_SEND:
        return !rx && q->len ? itoi_wsc_kept_error_slow(q->fd) : 0;
    case ITO_SYS_WRITEV:
        return !rx && q->iovcnt > 0 && itoi_wsc_iov_any(q->iov, (size_t)q->iovcnt) ? itoi_wsc_kept_error_slow(q->fd) : 0;
    case ITO_SYS_SENDMSG:
        return !rx && q->msg && itoi_wsc_iov_any(q->msg->msg_iov, q->msg->msg_iovlen) ? itoi_wsc_kept_error_slow(q->fd) : 0;
    default:
        return 0;
    }
}
#define ITOI_WSC_GEN_SLOTS 4096 /* close generations: fd modulo this (whole.c) */
/* A hash of the file fd names (device and inode), never 0; 0 if fd names nothing. */
uint32_t itoi_wsc_file_identity(int fd);
/* close(2) of fd, which ito_close runs off its worker (a regular file's), has returned: the
 * closing set's slot of fd says so at once, before the closer runs again (wrappers.c) */
void itoi_wsc_closed(int fd);

/* uring.c */
int itoi_uring_open(itoi_wscw_t *a);                     /* ito_init: the ring and eventfd */
const char *itoi_uring_lacked_op(void);                  /* the operation a refused ring lacked */
int itoi_uring_setup(itoi_worker_t *w, itoi_wscw_t *a);  /* first I/O: watched */
void itoi_uring_close(itoi_wscw_t *a);
void itoi_uring_teardown(itoi_worker_t *w, itoi_wscw_t *a);
void itoi_uring_submit(itoi_worker_t *w, itoi_wscw_t *a);
size_t itoi_uring_reap(itoi_worker_t *w, itoi_wscw_t *a);
void itoi_uring_cancel(itoi_wscw_t *a, itoi_sysrec_t *r);

#if defined(ITOI_HAVE_URING)
/* The next free SQE of a's ring, or NULL when it is full. liburing's io_uring_get_sqe, for
 * the rings itoi_uring_open makes: never SQPOLL (the kernel takes SQEs only inside our
 * io_uring_enter, so a relaxed read of its head will do) and never SQE128 (64-byte SQEs).
 * A ring the kernel refused looks full for good (uring.c, ring_refused). Inline on the
 * posting path: until 2026-12-06 it tested both flags at every request. */
static inline struct io_uring_sqe *itoi_uring_sqe_try(itoi_wscw_t *a)
{
    struct io_uring_sq *sq = &a->ring.sq;
    unsigned head = IO_URING_READ_ONCE(*sq->khead), tail = sq->sqe_tail;
    if (ITOI_UNLIKELY(tail - head >= sq->ring_entries)) return NULL;
    sq->sqe_tail = tail + 1;
    return &sq->sqes[tail & sq->ring_mask];
}
/* Submits what is prepared, then tries again (out of line, cold). */
struct io_uring_sqe *itoi_uring_sqe_full(itoi_worker_t *w, itoi_wscw_t *a);
static inline struct io_uring_sqe *itoi_uring_sqe(itoi_worker_t *w, itoi_wscw_t *a)
{
    struct io_uring_sqe *sqe = itoi_uring_sqe_try(a);
    if (ITOI_UNLIKELY(!sqe)) sqe = itoi_uring_sqe_full(w, a);
    return sqe;
}

/* Prepare an SQE for record r with q's arguments, `more` or-ed into a send's flags (q->op
 * checked at the post): 0 queued, 1 no opcode for it or no SQE (the caller then buffers it
 * whole). Inline into the posting path (area.c, submit): a call there saved four
 * registers per request. */
static inline __attribute__((always_inline)) int itoi_uring_queue(itoi_wscw_t *a, itoi_sysrec_t *r,
                                                                  const ito_sysreq_t *q, int more)
{
    if (q->op == ITO_SYS_GETPID) return 1; /* ito runs it itself */
    struct io_uring_sqe *sqe = itoi_uring_sqe(a->w, a);
    if (!sqe) return 1; /* also for good once the kernel refused io_uring_enter (ring_refused) */
    switch (q->op) {
    case ITO_SYS_NOP: io_uring_prep_nop(sqe); break;
    case ITO_SYS_READ: io_uring_prep_read(sqe, q->fd, q->buf, (unsigned)itoi_wsc_rw_len(q->len), (uint64_t)-1); break;
    case ITO_SYS_WRITE: io_uring_prep_write(sqe, q->fd, q->buf, (unsigned)itoi_wsc_rw_len(q->len), (uint64_t)-1); break;
    case ITO_SYS_PREAD: io_uring_prep_read(sqe, q->fd, q->buf, (unsigned)itoi_wsc_rw_len(q->len), (uint64_t)q->offset); break;
    case ITO_SYS_PWRITE: io_uring_prep_write(sqe, q->fd, q->buf, (unsigned)itoi_wsc_rw_len(q->len), (uint64_t)q->offset); break;
    case ITO_SYS_READV: io_uring_prep_readv(sqe, q->fd, q->iov, (unsigned)q->iovcnt, (uint64_t)q->offset); break;
    case ITO_SYS_WRITEV: io_uring_prep_writev(sqe, q->fd, q->iov, (unsigned)q->iovcnt, (uint64_t)q->offset); break;
    case ITO_SYS_SEND:
        io_uring_prep_send(sqe, q->fd, q->buf, (unsigned)itoi_wsc_rw_len(q->len), q->flags | more | MSG_NOSIGNAL);
        break;
    case ITO_SYS_RECV: io_uring_prep_recv(sqe, q->fd, q->buf, (unsigned)itoi_wsc_rw_len(q->len), q->flags); break;
    case ITO_SYS_SENDMSG: io_uring_prep_sendmsg(sqe, q->fd, q->msg, (unsigned)(q->flags | more | MSG_NOSIGNAL)); break;
    case ITO_SYS_RECVMSG: io_uring_prep_recvmsg(sqe, q->fd, q->msg, (unsigned)q->flags); break;
    case ITO_SYS_ACCEPT: io_uring_prep_accept(sqe, q->fd, q->addr, q->addrlen, q->flags); break;
    case ITO_SYS_CONNECT: io_uring_prep_connect(sqe, q->fd, q->addr, q->addr_len); break;
    case ITO_SYS_CLOSE: io_uring_prep_close(sqe, q->fd); break;
    case ITO_SYS_POLL:
        /* io_uring's poll is not woken by TCP urgent data when it asks for POLLPRI without
         * POLLIN (Linux 6.18; a plain liburing program shows it; found by a tester,
         * 2026-12-05: ito_poll for POLLPRI returned only at its timeout): such a wait goes
         * to the worker's epoll, as on the sync backend. The SQE goes back unused (it is
         * the ring's last, not yet published). */
        if ((q->events & POLLPRI) && !(q->events & (POLLIN | POLLRDNORM))) {
            a->ring.sq.sqe_tail--;
            return 1;
        }
        io_uring_prep_poll_add(sqe, q->fd, (unsigned)(uint16_t)q->events);
        break;
    case ITO_SYS_OPENAT: io_uring_prep_openat(sqe, q->fd, q->path, q->flags, q->mode); break;
    case ITO_SYS_FSYNC: io_uring_prep_fsync(sqe, q->fd, q->flags ? IORING_FSYNC_DATASYNC : 0); break;
    default: io_uring_prep_nop(sqe); break; /* not reached: ops are checked at post */
    }
#ifdef ITOI_FAULT_INJECTION
    if (ITOI_UNLIKELY(itoi_fault_uring_cancel())) { /* ITO_FAULT_URING_CANCEL (fault.c) */
        io_uring_prep_nop(sqe);
        sqe->rw_flags = 1u;                 /* nop_flags: IORING_NOP_INJECT_RESULT (kernel 6.10) */
        sqe->len = (uint32_t)-ECANCELED;    /* the result the kernel reports */
    }
#endif
    io_uring_sqe_set_data(sqe, r);
    r->state = REC_URING;
    a->sq_pending++;
    return 0;
}
#else
static inline int itoi_uring_queue(itoi_wscw_t *a, itoi_sysrec_t *r, const ito_sysreq_t *q, int more)
{
    (void)more;
    (void)a;
    (void)r;
    (void)q;
    return 1;
}
#endif

#endif
