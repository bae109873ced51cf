/* wsc.h: internals of split-phase system calls (area.c, uring.c, sync.c, wrappers.c).
 *
 * Every worker owns its common area: records of requests (a free list), a bucket of
 * requests not yet handed to the kernel, and, with the uring backend, an io_uring whose
 * submission ring holds the bucket itself. Only the owning worker touches its area:
 * requests are posted by the ULT or ZWT running on it, flushed by it, and completions
 * are reaped by its poller. So none of this needs a lock. A ULT waiting in a blocking
 * wrapper parks only after posting, and its record is completed only by its worker's
 * scheduler context (or synchronously inside the post, which the wrapper checks). */
#ifndef ITO_WSC_INTERNAL_H
#define ITO_WSC_INTERNAL_H

#include "ito/syscall.h"
#include "../core/itoi.h"

#if defined(ITOI_HAVE_URING)
#include <liburing.h>
#endif

typedef struct itoi_sysrec {
    struct itoi_sysrec *next;
    ito_sysreq_t req;
    itoi_ult_t *ult;        /* a ULT parked in a blocking wrapper, or NULL */
    long res;
    int done, parked;
} itoi_sysrec_t;

typedef struct itoi_wsc_counters {
    _Atomic uint64_t posted, completed, crossings;
    _Atomic uint64_t flush_threshold, flush_idle, flush_latency, flush_explicit;
} itoi_wsc_counters_t;

typedef struct itoi_wscw {
    int init;               /* 0 not yet, 1 ready */
    int uring;              /* this worker's backend */
#if defined(ITOI_HAVE_URING)
    struct io_uring ring;
#endif
    int efd;                /* the ring's completion eventfd */
    itoi_sysrec_t *free;
    itoi_sysrec_t *bucket, *bucket_tail; /* requests run by the flusher itself */
    size_t bucket_n;
    size_t sq_pending;      /* SQEs prepared, not yet submitted */
    size_t inflight;        /* submitted to the ring, not yet completed */
    itoi_sysrec_t *retry;   /* sync backend: would have blocked; retried by the poller */
    size_t retry_n;
    uint64_t oldest_ns;     /* when the oldest buffered request was posted */
    itoi_wsc_counters_t st;
} itoi_wscw_t;

enum { FLUSH_THRESHOLD, FLUSH_IDLE, FLUSH_LATENCY, FLUSH_EXPLICIT };

extern _Atomic int itoi_wsc_k;
extern _Atomic unsigned itoi_wsc_latency_us;

itoi_wscw_t *itoi_wsc_area(itoi_worker_t *w);  /* this worker's area, set up on first use */
itoi_wscw_t *itoi_wsc_area_if_ready(itoi_worker_t *w); /* or NULL if not set up (no side effect) */
void itoi_wsc_flush(itoi_worker_t *w, itoi_wscw_t *a, int why);
void itoi_wsc_complete(itoi_worker_t *w, itoi_wscw_t *a, itoi_sysrec_t *r, long res);
long itoi_wsc_run_now(const ito_sysreq_t *q, int nonblocking); /* the syscall itself */

/* backends */
int itoi_uring_setup(itoi_worker_t *w, itoi_wscw_t *a);
void itoi_uring_teardown(itoi_worker_t *w, itoi_wscw_t *a);
int itoi_uring_queue(itoi_wscw_t *a, itoi_sysrec_t *r); /* 0 queued, 1 op not supported */
void itoi_uring_submit(itoi_wscw_t *a);
size_t itoi_uring_reap(itoi_worker_t *w, itoi_wscw_t *a);

#endif
