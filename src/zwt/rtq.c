/* rtq.c: the ready thread queue (RTQ) of each worker, and the poller that runs ZWTs.
 *
 * A ZWT that becomes ready on a worker goes to that worker's private FIFO (no lock, no
 * atomic RMW), or, while some worker wants work, to its shared FIFO, from which idle
 * workers steal half. Entries made ready by threads that are not workers go to a
 * worker's inbox. The worker's scheduler context runs ZWTs through itoi_zwt_poll(), on
 * its own stack, between ULTs (see itoi_poller_add in src/core/itoi.h). */
#include "zwt.h"

static inline void zq_push(itoi_zq_t *q, itoi_zentry_t *e)
{
    e->next = NULL;
    if (q->tail) q->tail->next = e; else q->head = e;
    q->tail = e;
    q->n++;
}

static inline itoi_zentry_t *zq_pop(itoi_zq_t *q)
{
    itoi_zentry_t *e = q->head;
    if (e) {
        q->head = e->next;
        if (!q->head) q->tail = NULL;
        q->n--;
    }
    return e;
}

static void zq_move(itoi_zq_t *dst, itoi_zq_t *src, size_t k)
{
    while (k-- && src->head) zq_push(dst, zq_pop(src));
}

static void wake_a_sleeper(int self)
{
    for (int i = 0; i < itoi_rt.nworkers; i++) {
        if (i == self) continue;
        itoi_worker_t *v = &itoi_rt.workers[i];
        if (atomic_load(&v->sleep_state) == 1) {
            itoi_wake_worker(v);
            return;
        }
    }
}

void itoi_zwt_make_ready(itoi_zentry_t *e)
{
    atomic_store_explicit(&e->queued, 1, memory_order_relaxed);
    itoi_worker_t *w = itoi_self_worker();
    if (ITOI_LIKELY(w != NULL)) {
        itoi_zworker_t *zw = itoi_zwt_worker(w);
        ITOI_BUMP(w->n_side_queued);
        /* In the scheduler context (a ZWT or a poller running), the worker runs its RTQ
         * next: only the surplus is shared, so that a chain does not bounce between
         * workers through the shared queue while another worker idles. A ULT shares all. */
        if (ITOI_UNLIKELY(atomic_load_explicit(&itoi_rt.want_work, memory_order_relaxed) > 0) &&
            (zw->rtq.head || w->cur)) {
            itoi_spin_lock(&zw->shared_lock);
            zq_push(&zw->shared, e);
            atomic_store(&zw->shared_n, zw->shared.n);
            itoi_spin_unlock(&zw->shared_lock);
            atomic_fetch_add(&itoi_rt.side_shared, 1);
            wake_a_sleeper(w->index);
            return;
        }
        zq_push(&zw->rtq, e);
        w->side_ready++;
        return;
    }
    /* From a thread that is not a worker: worker 0's inbox. */
    itoi_worker_t *to = &itoi_rt.workers[0];
    itoi_zworker_t *zw = itoi_zwt_worker(to);
    itoi_spin_lock(&zw->inbox_lock);
    zq_push(&zw->inbox, e);
    itoi_spin_unlock(&zw->inbox_lock);
    /* Counted as queued on the target: side_inbox covers it until drained. */
    atomic_fetch_add(&to->side_inbox, 1);
    itoi_wake_worker(to);
}

static void drain_inbox(itoi_worker_t *w, itoi_zworker_t *zw)
{
    itoi_spin_lock(&zw->inbox_lock);
    size_t n = zw->inbox.n;
    while (zw->inbox.head) zq_push(&zw->rtq, zq_pop(&zw->inbox));
    itoi_spin_unlock(&zw->inbox_lock);
    for (size_t i = 0; i < n; i++) ITOI_BUMP(w->n_side_queued); /* before side_inbox drops */
    atomic_fetch_sub(&w->side_inbox, n);
    w->side_ready += n;
}

static size_t take_shared(itoi_worker_t *w, itoi_zworker_t *into, itoi_zworker_t *from, int whole)
{
    if (atomic_load_explicit(&from->shared_n, memory_order_relaxed) == 0) return 0;
    if (!itoi_spin_trylock(&from->shared_lock)) return 0;
    size_t k = whole ? from->shared.n : (from->shared.n + 1) / 2;
    zq_move(&into->rtq, &from->shared, k);
    atomic_store(&from->shared_n, from->shared.n);
    itoi_spin_unlock(&from->shared_lock);
    if (k) {
        atomic_fetch_sub(&itoi_rt.side_shared, (int64_t)k);
        w->side_ready += k;
    }
    return k;
}

static inline void run(itoi_worker_t *w, itoi_zentry_t *e)
{
    atomic_store_explicit(&e->queued, 0, memory_order_relaxed);
    w->zwt_cur = e;
    e->code(e->frame, e->index, atomic_load_explicit(&e->value, memory_order_relaxed));
    w->zwt_cur = NULL;
    ITOI_BUMP(w->n_side_run);
}

size_t itoi_zwt_poll(itoi_worker_t *w, size_t budget)
{
    itoi_zworker_t *zws = NULL;
    if (ITOI_UNLIKELY(itoi_zwt_setup() != ITO_OK)) return 0;
    zws = itoi_zwt_worker(w);
    if (atomic_load_explicit(&w->side_inbox, memory_order_relaxed)) drain_inbox(w, zws);
    /* Fairness: every 8th poll, take back what this worker published and nobody stole.
     * Without it, ZWTs that keep re-queueing themselves (the paper's trylock retry idiom)
     * keep the private RTQ non-empty for ever, and a ZWT in the shared RTQ (e.g. the one
     * holding the lock they wait for) starves while the other workers are busy too. */
    if (ITOI_UNLIKELY((++zws->polls & 7) == 0) && atomic_load_explicit(&zws->shared_n, memory_order_relaxed))
        take_shared(w, zws, zws, 1);
    if (!zws->rtq.head && atomic_load_explicit(&itoi_rt.side_shared, memory_order_relaxed) > 0) {
        if (!take_shared(w, zws, zws, 1)) {
            for (int i = 1; i < itoi_rt.nworkers; i++) {
                itoi_zworker_t *v = itoi_zwt_worker(&itoi_rt.workers[(w->index + i) % itoi_rt.nworkers]);
                size_t k = take_shared(w, zws, v, 0);
                if (k) {
                    atomic_fetch_add_explicit(&zws->stolen, k, memory_order_relaxed);
                    break;
                }
            }
        }
    }
    size_t ran = 0;
    while (ran < budget) {
        itoi_zentry_t *e = zq_pop(&zws->rtq);
        if (!e) break;
        w->side_ready--;
        run(w, e);
        ran++;
    }
    if (ran) atomic_store_explicit(&zws->fired, atomic_load_explicit(&zws->fired, memory_order_relaxed) + ran,
                                   memory_order_relaxed);
    return ran;
}

int ito_zwt_stats(uint64_t *fired, uint64_t *stolen)
{
    if (!fired && !stolen) return ITO_EINVAL;
    if (atomic_load(&itoi_rt.state) != 1) return ITO_ESTATE;
    uint64_t f = 0, s = 0;
    if (itoi_zwt_setup() == ITO_OK) {
        for (int i = 0; i < itoi_rt.nworkers; i++) {
            itoi_zworker_t *zw = itoi_zwt_worker(&itoi_rt.workers[i]);
            f += atomic_load_explicit(&zw->fired, memory_order_relaxed);
            s += atomic_load_explicit(&zw->stolen, memory_order_relaxed);
        }
    }
    if (fired) *fired = f;
    if (stolen) *stolen = s;
    return ITO_OK;
}
