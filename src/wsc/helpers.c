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
 * them, so a cancellation (deadline, ito_cancel_io, ito_close, finalize) ends it. Threads start on demand, up to HELPERS_MAX, and stop at finalize.
 * They are named "ito-helper" and block every signal: made by a worker, a helper took
 * that worker's mask of the moment (whatever the ULT running then had blocked or not), so
 * the program's process-directed signals could run its handlers on a helper, in the
 * middle of a blocking call made for a ULT (test_io_helper_sigmask). */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "wsc.h"

#define HELPERS_MAX 4

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static itoi_sysrec_t *head, *tail; /* jobs not started, FIFO */
static int nthreads, nidle, stopping;
static pthread_t threads[HELPERS_MAX];
/* The descriptor number each helper's call uses (-1: none), set as it takes the record
 * from the queue (under mu, so before any closer's unqueue fails): ito_close waits until
 * no helper uses the number before it closes it (itoi_helpers_busy), so a started call
 * acts on the file it was posted for without a duplicate of the descriptor (see
 * helper_pin in nonblock.c). Sequentially consistent on both sides: the helper stores
 * its number and then reads the record's abandon mark; the closer sets the mark and then
 * reads the numbers. Read without the lock (every ito_close reads them). */
static _Atomic int busy_fd[HELPERS_MAX] = {-1, -1, -1, -1};
_Static_assert(HELPERS_MAX == 4, "busy_fd's initializer");
static __thread int self_slot = -1; /* this helper's index in busy_fd */

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

static void *helper_main(void *arg)
{
    int me = (int)(intptr_t)arg;
    self_slot = me;
    pthread_setname_np(pthread_self(), "ito-helper");
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
        atomic_store(&busy_fd[me], r->req.fd);
        pthread_mutex_unlock(&mu);
        r->res = itoi_wsc_run_blocking(r);
        atomic_store(&busy_fd[me], -1); /* done with the number: a closer may close it now */
        r->call.fn = done_on_owner;
        itoi_worker_call(&itoi_rt.workers[r->owner], &r->call);
        pthread_mutex_lock(&mu);
    }
    pthread_mutex_unlock(&mu);
    return NULL;
}

/* A new helper thread, every signal blocked from its first instruction (see the top). */
static int helper_start(int slot)
{
    /* Inherited: the worker blocks everything for the instant of the creation (a tick
     * meanwhile waits until the mask is back). Not pthread_attr_setsigmask_np: the
     * sanitizers' pthread_create does not pass it on. */
    sigset_t all, old;
    sigfillset(&all);
    if (pthread_sigmask(SIG_SETMASK, &all, &old) != 0) return -1;
    int rc = pthread_create(&threads[slot], NULL, helper_main, (void *)(intptr_t)slot);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}

/* On r's owner worker. */
void itoi_helpers_run(itoi_sysrec_t *r)
{
    pthread_mutex_lock(&mu);
    if (nidle == 0 && nthreads < HELPERS_MAX && helper_start(nthreads) == 0) nthreads++;
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

/* On a helper thread: its call no longer uses its request's number (it holds a duplicate). */
void itoi_helpers_release_fd(void)
{
    if (self_slot >= 0) atomic_store(&busy_fd[self_slot], -1);
}

bool itoi_helpers_busy(int fd)
{
    for (int i = 0; i < HELPERS_MAX; i++)
        if (atomic_load(&busy_fd[i]) == fd) return true;
    return false;
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
