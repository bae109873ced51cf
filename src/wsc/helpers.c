/* helpers.c: a small pool of helper threads for the calls that can only block: regular
 * files without the page cache's help (read, write), openat, fsync, and descriptors that
 * offer no non-blocking mode. Used by the sync backend; io_uring does this itself.
 *
 * A record handed here is POOL. A helper thread runs it blocking, then sends the result
 * back to the record's owner worker as an itoi_worker_call, and the owner completes it
 * (so the record and the waiting ULT are still touched only by their worker). A record
 * that no helper has started can be taken back (a cancellation); a started one ends by
 * itself, except a read or write of a descriptor without RWF_NOWAIT (a tty, inotify):
 * the helper waits for its readiness in slices of poll(2), looking at `abandon` between
 * them, so a cancellation (deadline, ito_cancel_io, ito_close, finalize) ends it. Threads start on demand, up to HELPERS_MAX, and stop at finalize. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>

#include "wsc.h"

#define HELPERS_MAX 4

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static itoi_sysrec_t *head, *tail; /* jobs not started, FIFO */
static int nthreads, nidle, stopping;
static pthread_t threads[HELPERS_MAX];

static void done_on_owner(itoi_worker_t *w, itoi_call_t *c)
{
    itoi_sysrec_t *r = (itoi_sysrec_t *)((char *)c - offsetof(itoi_sysrec_t, call));
    itoi_wscw_t *a = itoi_wsc_area_if_ready(w);
    if (r->res == ITOI_WSC_REWAIT) { /* its readiness was taken by another reader */
        if (!atomic_load_explicit(&r->abandon, memory_order_relaxed)) {
            r->events = POLLIN;
            r->retry = true;
            itoi_ready_wait(w, a, r); /* run again when ready, as a request never tried */
            return;
        }
        r->res = -ECANCELED; /* cancelled while in the pool: its reason is reported */
    }
    itoi_wsc_complete(w, a, r, r->res);
}

static void *helper_main(void *unused)
{
    (void)unused;
    pthread_mutex_lock(&mu);
    for (;;) {
        while (!head && !stopping) {
            nidle++;
            pthread_cond_wait(&cv, &mu);
            nidle--;
        }
        if (!head) break; /* stopping, and nothing left */
        itoi_sysrec_t *r = head;
        head = r->next;
        if (!head) tail = NULL;
        r->next = NULL;
        pthread_mutex_unlock(&mu);
        r->res = itoi_wsc_run_blocking(r);
        r->call.fn = done_on_owner;
        itoi_worker_call(&itoi_rt.workers[r->owner], &r->call);
        pthread_mutex_lock(&mu);
    }
    pthread_mutex_unlock(&mu);
    return NULL;
}

/* On r's owner worker. */
void itoi_helpers_run(itoi_sysrec_t *r)
{
    pthread_mutex_lock(&mu);
    if (nidle == 0 && nthreads < HELPERS_MAX && pthread_create(&threads[nthreads], NULL, helper_main, NULL) == 0)
        nthreads++;
    if (nthreads == 0) {
        /* None could start (RLIMIT_NPROC, a pids cgroup): the request fails with EAGAIN,
         * as the kernel fails a thread it cannot make. Queued, it would wait for ever,
         * and finalize (which waits for regular-file requests) with it. */
        pthread_mutex_unlock(&mu);
        itoi_worker_t *w = &itoi_rt.workers[r->owner];
        itoi_wsc_complete(w, itoi_wsc_area_if_ready(w), r, -EAGAIN);
        return;
    }
    r->state = REC_POOL;
    atomic_store_explicit(&r->abandon, 0, memory_order_relaxed);
    r->next = NULL;
    if (tail) tail->next = r; else head = r;
    tail = r;
    pthread_cond_signal(&cv);
    pthread_mutex_unlock(&mu);
}

bool itoi_helpers_unqueue(itoi_sysrec_t *r)
{
    bool found = false;
    pthread_mutex_lock(&mu);
    itoi_sysrec_t **pp = &head, *prev = NULL;
    while (*pp && *pp != r) {
        prev = *pp;
        pp = &(*pp)->next;
    }
    if (*pp) {
        *pp = r->next;
        if (tail == r) tail = prev;
        r->next = NULL;
        found = true;
    }
    pthread_mutex_unlock(&mu);
    return found;
}

void itoi_helpers_stop(void)
{
    pthread_mutex_lock(&mu);
    stopping = 1;
    pthread_cond_broadcast(&cv);
    int n = nthreads;
    pthread_mutex_unlock(&mu);
    for (int i = 0; i < n; i++) pthread_join(threads[i], NULL);
    pthread_mutex_lock(&mu);
    nthreads = 0;
    stopping = 0;
    head = tail = NULL;
    pthread_mutex_unlock(&mu);
}
