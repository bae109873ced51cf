/* area.c: the common area of each worker: posting, the flush policy, completions.
 *
 * Flush policy (what makes a bucket cross into the kernel):
 *   threshold  K requests are buffered (K = 1..64, ito_wsc_set_threshold);
 *   idle       the worker's scheduler context runs its poller, i.e. no thread is
 *              ready to run: buffered requests never stall an idle runtime;
 *   latency    the oldest buffered request has waited longer than the bound;
 *   explicit   ito_wsc_flush().
 * Posted requests count as side work that is queued until completed, so ito_finalize
 * waits for them; what is still outstanding when the workers stop gets -ECANCELED. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wsc.h"

_Atomic int itoi_wsc_k = 1;
_Atomic unsigned itoi_wsc_latency_us;

static _Atomic(itoi_wscw_t *) areas; /* one per worker, published once per ito_init */
static itoi_spinlock_t setup_lock;
static int forced_backend = -1;  /* from ITO_WSC_BACKEND */
static _Atomic int backend_used = -1;

static size_t wsc_poll(itoi_worker_t *w, size_t budget);

static void wsc_teardown(void)
{
    itoi_wscw_t *all = atomic_load(&areas);
    if (!all) return;
    for (int i = 0; i < itoi_rt.nworkers; i++) {
        itoi_wscw_t *a = &all[i];
        if (!a->init) continue;
        /* Outstanding requests are cancelled: their result says so; none is lost. */
        for (itoi_sysrec_t *r = a->bucket; r; r = r->next)
            if (r->req.result) *r->req.result = -ECANCELED;
        for (itoi_sysrec_t *r = a->retry; r; r = r->next)
            if (r->req.result) *r->req.result = -ECANCELED;
        if (a->uring) itoi_uring_teardown(&itoi_rt.workers[i], a);
        while (a->free) {
            itoi_sysrec_t *r = a->free;
            a->free = r->next;
            free(r);
        }
    }
    free(all);
    atomic_store(&areas, NULL);
    atomic_store(&backend_used, -1);
}

static int areas_setup(void)
{
    if (atomic_load_explicit(&areas, memory_order_acquire)) return ITO_OK;
    int rc = ITO_OK;
    itoi_spin_lock(&setup_lock);
    if (!atomic_load(&areas)) {
        const char *b = getenv("ITO_WSC_BACKEND"), *k = getenv("ITO_WSC_THRESHOLD"),
                   *l = getenv("ITO_WSC_LATENCY_US");
        forced_backend = !b ? -1 : !strcmp(b, "uring") ? ITO_WSC_URING : !strcmp(b, "sync") ? ITO_WSC_SYNC : -2;
        if (k) atomic_store(&itoi_wsc_k, atoi(k) >= 1 && atoi(k) <= 64 ? atoi(k) : 1);
        if (l) atomic_store(&itoi_wsc_latency_us, (unsigned)atoi(l));
        itoi_wscw_t *p = itoi_calloc((size_t)itoi_rt.nworkers, sizeof *p);
        if (forced_backend == -2) rc = ITO_EINVAL;
        else if (!p || itoi_poller_add(wsc_poll) != ITO_OK || itoi_fini_add(wsc_teardown) != ITO_OK) rc = ITO_ENOMEM;
        if (rc == ITO_OK) atomic_store_explicit(&areas, p, memory_order_release);
        else free(p);
    }
    itoi_spin_unlock(&setup_lock);
    return rc;
}

itoi_wscw_t *itoi_wsc_area(itoi_worker_t *w)
{
    if (areas_setup() != ITO_OK) return NULL;
    itoi_wscw_t *a = &atomic_load_explicit(&areas, memory_order_relaxed)[w->index];
    if (ITOI_LIKELY(a->init)) return a;
    a->efd = -1;
    a->uring = 0;
    if (forced_backend != ITO_WSC_SYNC) {
        int rc = itoi_uring_setup(w, a);
        if (rc == 0) a->uring = 1;
        else if (forced_backend == ITO_WSC_URING) return NULL; /* forced and unavailable */
    }
    int expect = -1;
    atomic_compare_exchange_strong(&backend_used, &expect, a->uring);
    a->init = 1;
    return a;
}

itoi_wscw_t *itoi_wsc_area_if_ready(itoi_worker_t *w)
{
    itoi_wscw_t *all = atomic_load_explicit(&areas, memory_order_acquire);
    if (!all || !all[w->index].init) return NULL;
    return &all[w->index];
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void itoi_wsc_complete(itoi_worker_t *w, itoi_wscw_t *a, itoi_sysrec_t *r, long res)
{
    ITOI_BUMP(a->st.completed);
    ITOI_BUMP(w->n_side_run);
    if (r->req.result) *r->req.result = res;
    if (r->ult) { /* a blocking wrapper: it reads res and frees the record */
        r->res = res;
        r->done = 1;
        if (r->parked) itoi_ready(r->ult);
        return;
    }
    ito_frame_t *f = r->req.frame;
    int entry = r->req.entry;
    r->next = a->free;
    a->free = r;
    if (f) ito_continue_value(f, entry, (uint64_t)res);
}

/* A request that would block is retried later, unless the caller asked not to wait. */
static int retryable(const ito_sysreq_t *q)
{
    switch (q->op) {
    case ITO_SYS_READ: case ITO_SYS_WRITE: case ITO_SYS_ACCEPT: return 1;
    case ITO_SYS_SEND: case ITO_SYS_RECV: return !(q->flags & MSG_DONTWAIT);
    default: return 0;
    }
}

static void run_bucket(itoi_worker_t *w, itoi_wscw_t *a)
{
    itoi_sysrec_t *r = a->bucket;
    a->bucket = a->bucket_tail = NULL;
    a->bucket_n = 0;
    while (r) {
        itoi_sysrec_t *next = r->next;
        long res = itoi_wsc_run_now(&r->req, 1);
        ITOI_BUMP(a->st.crossings);
        if (res == -EAGAIN && retryable(&r->req)) {
            r->next = a->retry; /* would block: retried by the poller */
            a->retry = r;
            a->retry_n++;
            w->side_ready++;
        } else {
            itoi_wsc_complete(w, a, r, res);
        }
        r = next;
    }
}

void itoi_wsc_flush(itoi_worker_t *w, itoi_wscw_t *a, int why)
{
    if (!a->sq_pending && !a->bucket_n) return;
    switch (why) {
    case FLUSH_THRESHOLD: ITOI_BUMP(a->st.flush_threshold); break;
    case FLUSH_IDLE: ITOI_BUMP(a->st.flush_idle); break;
    case FLUSH_LATENCY: ITOI_BUMP(a->st.flush_latency); break;
    default: ITOI_BUMP(a->st.flush_explicit); break;
    }
    if (a->uring) itoi_uring_submit(a);
    if (a->bucket_n) run_bucket(w, a);
}

static int op_valid(const ito_sysreq_t *q)
{
    if ((unsigned)q->op >= ITO_SYS_OP_COUNT) return 0;
    switch (q->op) {
    case ITO_SYS_READ: case ITO_SYS_WRITE: case ITO_SYS_SEND: case ITO_SYS_RECV:
        return q->fd >= 0 && (q->buf || !q->len);
    case ITO_SYS_ACCEPT: case ITO_SYS_CLOSE: return q->fd >= 0;
    case ITO_SYS_CONNECT: return q->fd >= 0 && q->addr;
    default: return 1;
    }
}

/* Post a request (the caller is on worker w); `ult` waits for it, or NULL. */
int itoi_wsc_post(itoi_worker_t *w, const ito_sysreq_t *req, itoi_ult_t *ult, itoi_sysrec_t **out)
{
    itoi_wscw_t *a = itoi_wsc_area(w);
    if (!a) return forced_backend == -2 ? ITO_EINVAL : ITO_ENOSYS;
    itoi_sysrec_t *r = a->free;
    if (r) a->free = r->next;
    else if (!(r = itoi_malloc(sizeof *r))) return ITO_ENOMEM;
    r->req = *req;
    r->ult = ult;
    r->done = r->parked = 0;
    r->next = NULL;
    if (out) *out = r;
    ITOI_BUMP(a->st.posted);
    ITOI_BUMP(w->n_side_queued);
    if (!a->sq_pending && !a->bucket_n) a->oldest_ns = atomic_load(&itoi_wsc_latency_us) ? now_ns() : 0;
    if (!a->uring || itoi_uring_queue(a, r) != 0) {
        if (a->bucket_tail) a->bucket_tail->next = r; else a->bucket = r;
        a->bucket_tail = r;
        a->bucket_n++;
    }
    size_t buffered = a->sq_pending + a->bucket_n;
    unsigned lat = atomic_load_explicit(&itoi_wsc_latency_us, memory_order_relaxed);
    if (buffered >= (size_t)atomic_load_explicit(&itoi_wsc_k, memory_order_relaxed))
        itoi_wsc_flush(w, a, FLUSH_THRESHOLD);
    else if (lat && now_ns() - a->oldest_ns >= (uint64_t)lat * 1000u)
        itoi_wsc_flush(w, a, FLUSH_LATENCY);
    return ITO_OK;
}

int ito_sys_post(const ito_sysreq_t *req)
{
    if (!req || !op_valid(req)) return ITO_EINVAL;
    if (atomic_load_explicit(&itoi_rt.state, memory_order_relaxed) != 1) return ITO_ESTATE;
    itoi_worker_t *w = itoi_self_worker();
    if (!w) return ITO_ENOTULT; /* the common area belongs to a worker */
    return itoi_wsc_post(w, req, NULL, NULL);
}

static size_t wsc_poll(itoi_worker_t *w, size_t budget)
{
    (void)budget;
    itoi_wscw_t *all = atomic_load_explicit(&areas, memory_order_acquire);
    if (!all) return 0;
    itoi_wscw_t *a = &all[w->index];
    if (!a->init) return 0;
    size_t did = 0;
    if (a->uring && a->inflight) did += itoi_uring_reap(w, a);
    if (a->sq_pending || a->bucket_n) {
        itoi_wsc_flush(w, a, FLUSH_IDLE);
        did++;
    }
    if (a->retry) { /* the sync backend's requests that would have blocked */
        itoi_sysrec_t *r = a->retry;
        a->retry = NULL;
        size_t n = a->retry_n;
        a->retry_n = 0;
        w->side_ready -= n;
        while (r) {
            itoi_sysrec_t *next = r->next;
            long res = itoi_wsc_run_now(&r->req, 1);
            if (res == -EAGAIN) {
                r->next = a->retry;
                a->retry = r;
                a->retry_n++;
                w->side_ready++;
            } else {
                ITOI_BUMP(a->st.crossings);
                itoi_wsc_complete(w, a, r, res);
                did++;
            }
            r = next;
        }
    }
    return did;
}

int ito_wsc_set_threshold(int k)
{
    if (k < 1 || k > 64) return ITO_EINVAL;
    atomic_store(&itoi_wsc_k, k);
    return ITO_OK;
}

int ito_wsc_set_latency_us(unsigned us)
{
    if (us > 1000000u) return ITO_EINVAL;
    atomic_store(&itoi_wsc_latency_us, us);
    return ITO_OK;
}

int ito_wsc_flush(void)
{
    itoi_worker_t *w = itoi_self_worker();
    if (!w) return ITO_ENOTULT;
    itoi_wscw_t *a = itoi_wsc_area(w);
    if (!a) return ITO_ENOSYS;
    itoi_wsc_flush(w, a, FLUSH_EXPLICIT);
    return ITO_OK;
}

int ito_wsc_backend(void)
{
    if (atomic_load(&itoi_rt.state) != 1) return ITO_ESTATE;
    itoi_worker_t *w = itoi_self_worker();
    if (!w) return ITO_ENOTULT;
    itoi_wscw_t *a = itoi_wsc_area(w);
    if (!a) return ITO_ENOSYS;
    return a->uring ? ITO_WSC_URING : ITO_WSC_SYNC;
}

int ito_wsc_stats(ito_wsc_stats_t *out)
{
    if (!out) return ITO_EINVAL;
    if (atomic_load(&itoi_rt.state) != 1) return ITO_ESTATE;
    memset(out, 0, sizeof *out);
    itoi_wscw_t *all = atomic_load_explicit(&areas, memory_order_acquire);
    if (!all) return ITO_OK;
    for (int i = 0; i < itoi_rt.nworkers; i++) { /* owner-written counters: a snapshot */
        itoi_wsc_counters_t *s = &all[i].st;
        out->posted += atomic_load_explicit(&s->posted, memory_order_relaxed);
        out->completed += atomic_load_explicit(&s->completed, memory_order_relaxed);
        out->crossings += atomic_load_explicit(&s->crossings, memory_order_relaxed);
        out->flush_threshold += atomic_load_explicit(&s->flush_threshold, memory_order_relaxed);
        out->flush_idle += atomic_load_explicit(&s->flush_idle, memory_order_relaxed);
        out->flush_latency += atomic_load_explicit(&s->flush_latency, memory_order_relaxed);
        out->flush_explicit += atomic_load_explicit(&s->flush_explicit, memory_order_relaxed);
    }
    return ITO_OK;
}
