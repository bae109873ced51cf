/* ready.c: readiness waits in the worker's own epoll: the sync backend's netpoller.
 *
 * A record in READY waits until its fd is ready for r->events (POLLIN, POLLOUT, ...):
 * a POLL request then completes with the revents; a request that would have blocked
 * (r->retry) is run again without blocking, and completes or waits again.
 *
 * Each worker has an epoll instance (created at ito_init, watched by the worker's idle
 * sleep from its first I/O, so a worker with nothing to run sleeps until an fd is ready and uses no CPU) and
 * a table indexed by fd of the records waiting for it. An fd is registered with
 * EPOLLONESHOT for the union of its waiters' events, re-armed (EPOLL_CTL_MOD) after
 * each event while waiters remain and for each new waiter (with `armed` plus its events:
 * the number may name a new file since the last wait). Several workers may wait on one fd: each has its own
 * registration. Everything here is owned by the worker (see wsc.h). A descriptor epoll
 * refuses (a regular file: EPERM) is always ready: a POLL completes with its events, a
 * request goes to a helper thread. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "wsc.h"

/* The worker's epoll: made at ito_init (itoi_ready_open, area.c's itoi_wsc_worker_open)
 * on the sync backend, so that no I/O call needs a descriptor of the runtime's own (a
 * first wait, or a first I/O, with the process out of descriptors failed with EMFILE
 * where recv(2) never does; found by outside testers, h63c 2026-12-06 and 2026-12-07);
 * watched by the worker's idle sleep from its first I/O (itoi_ready_setup). An io_uring
 * worker's too, beside its ring (until 2026-12-07 made at its first readiness wait, for
 * one descriptor per worker fewer: but every send that finds no room waits here on
 * io_uring, and such a send at RLIMIT_NOFILE failed with EMFILE; h77a,
 * test_io_send_nofile). */
int itoi_ready_open(itoi_wscw_t *a)
{
    if (a->rep >= 0) return 0;
    a->rep = epoll_create1(EPOLL_CLOEXEC);
    return a->rep < 0 ? -errno : 0;
}

/* The epoll made (if it was not) and watched: 0, or -errno (EMFILE, ENFILE; ENOMEM). */
int itoi_ready_setup(itoi_worker_t *w, itoi_wscw_t *a)
{
    if (ITOI_LIKELY(a->rep_watched)) return 0;
    int rc = itoi_ready_open(a);
    if (rc != 0) return rc;
    if (itoi_worker_watch_fd(w, a->rep) != ITO_OK) return -ENOMEM;
    a->rep_watched = true;
    return 0;
}

static int ensure_fd(itoi_worker_t *w, itoi_wscw_t *a, int fd)
{
    int rc = itoi_ready_setup(w, a);
    if (rc != 0) return rc;
    if ((size_t)fd >= a->nfds) {
        size_t n = a->nfds ? a->nfds : 64;
        while (n <= (size_t)fd) n *= 2;
        itoi_rfd_t *t = itoi_malloc(n * sizeof *t);
        if (!t) return -ENOMEM;
        if (a->nfds) memcpy(t, a->fds, a->nfds * sizeof *t);
        memset(t + a->nfds, 0, (n - a->nfds) * sizeof *t);
        free(a->fds);
        a->fds = t;
        a->nfds = n;
    }
    return 0;
}

/* Register (or re-arm) fd for `want` (the union of its waiters' events); -errno on
 * failure. */
static int arm_for(itoi_wscw_t *a, int fd, uint32_t want)
{
    itoi_rfd_t *e = &a->fds[fd];
    if (!want) return 0;
    struct epoll_event ev = {.events = want | EPOLLONESHOT, .data.fd = fd};
    /* The table may be stale (the fd was closed and reused): fall back either way. */
    int rc = epoll_ctl(a->rep, EPOLL_CTL_MOD, fd, &ev);
    if (rc != 0 && errno == ENOENT) rc = epoll_ctl(a->rep, EPOLL_CTL_ADD, fd, &ev);
    if (rc != 0) return -errno;
    e->armed = want;
    return 0;
}

/* Register (or re-arm) fd for all its waiters' events (walks the list). */
static int arm(itoi_wscw_t *a, int fd)
{
    uint32_t want = 0;
    for (itoi_sysrec_t *r = a->fds[fd].waiters; r; r = r->next) want |= r->events;
    return arm_for(a, fd, want);
}

static void unlink_waiter(itoi_wscw_t *a, itoi_sysrec_t *r)
{
    itoi_sysrec_t **pp = &a->fds[r->fd].waiters;
    while (*pp && *pp != r) pp = &(*pp)->next;
    if (*pp) {
        *pp = r->next;
        a->nwaiting--;
    }
    r->next = NULL;
}

/* The fd cannot be waited for in epoll: settle r now. */
static void not_pollable(itoi_worker_t *w, itoi_wscw_t *a, itoi_sysrec_t *r, int err)
{
    if (err == -EPERM) { /* a regular file (or a directory): always ready */
        if (r->retry) itoi_helpers_run(r);
        else itoi_wsc_complete(w, a, r, (long)(r->events & (POLLIN | POLLOUT | POLLRDNORM | POLLWRNORM)));
        return;
    }
    itoi_wsc_complete(w, a, r, err == -ENOENT ? -EBADF : err);
}

void itoi_ready_wait(itoi_worker_t *w, itoi_wscw_t *a, itoi_sysrec_t *r)
{
    int fd = r->fd;
    int rc = ensure_fd(w, a, fd);
    if (rc != 0) {
        itoi_wsc_complete(w, a, r, rc);
        return;
    }
    r->state = REC_READY;
    r->next = a->fds[fd].waiters;
    a->fds[fd].waiters = r;
    a->nwaiting++;
    /* Every waiter re-arms (MOD, else ADD): the fd may have been closed with close(2)
     * and its number reused since the last wait, which silently removed the old
     * registration from the epoll, also while an earlier waiter (on the old file) is
     * still listed (until 2026-12-04 only a number's first waiter re-armed, and a second
     * one on the new file never woke; found by a reviewer). One epoll_ctl per extra
     * waiter, on the fallback backend only, and no walk of the list (which made N waiters
     * on one fd cost O(N^2)): e->armed already covers the waiters listed. */
    if ((rc = arm_for(a, fd, a->fds[fd].armed | r->events)) != 0) {
        unlink_waiter(a, r);
        not_pollable(w, a, r, rc);
    }
}

static size_t ready_poll_once(itoi_worker_t *w, itoi_wscw_t *a, int *got_n);

void itoi_ready_drop(itoi_wscw_t *a, itoi_sysrec_t *r)
{
    if (r->state != REC_READY) return;
    unlink_waiter(a, r);
    /* The last waiter gone (a cancellation, a deadline): the registration goes too. Left
     * armed, an event that had come already stayed queued in this epoll, which the worker
     * reads only while something waits: its idle sleep, watching the epoll, woke at once
     * for ever (100 % of a CPU; found by a reviewer). The next waiter adds it again. */
    itoi_rfd_t *e = &a->fds[r->fd];
    if (!e->waiters && e->armed) {
        /* A number closed with close(2) (the DEL fails) may leave its file registered if a
         * dup keeps it open: once it is ready, that event sat in the epoll and the idle
         * worker woke for ever (a quarter of a CPU; found by a reviewer, 2026-12-04). The
         * worker consumes such events before it sleeps (one-shot: then disabled). */
        if (epoll_ctl(a->rep, EPOLL_CTL_DEL, r->fd, NULL) != 0) a->rep_stale = true;
        e->armed = 0;
    }
}

/* Before the worker sleeps (area.c): with nothing waiting, the epoll's events are stale
 * registrations' (itoi_ready_drop), taken so that the sleep is not woken by them. */
void itoi_ready_before_sleep(itoi_worker_t *w, itoi_wscw_t *a)
{
    int n;
    if (a->rep_stale && !a->nwaiting && a->rep >= 0) (void)ready_poll_once(w, a, &n);
}

/* A waiter whose event came: complete it, or (a request that would have blocked) run it
 * again; true if it keeps waiting. */
static bool settle(itoi_worker_t *w, itoi_wscw_t *a, itoi_sysrec_t *r, uint32_t got)
{
    if (!r->retry) {
        itoi_wsc_complete(w, a, r, (long)(got & (r->events | POLLERR | POLLHUP | POLLNVAL)));
        return false;
    }
    uint32_t ev;
    long res = itoi_wsc_run_nonblocking(&r->req, true, &ev);
    ITOI_BUMP(a->st.crossings);
    if (res == -EAGAIN) {
        r->events = ev;
        return true;
    }
    if (res == ITOI_WSC_BLOCKING) itoi_helpers_run(r);
    else itoi_wsc_complete(w, a, r, res);
    return false;
}

/* Take all of fd's waiters off its list, as SETTLING: a cancellation that reaches one of
 * them meanwhile (a poll's first event ends its siblings) only marks it (`why`), and the
 * loop that holds the list completes it. */
static itoi_sysrec_t *take_all(itoi_wscw_t *a, itoi_rfd_t *e)
{
    itoi_sysrec_t *list = e->waiters;
    e->waiters = NULL;
    for (itoi_sysrec_t *r = list; r; r = r->next) {
        r->state = REC_SETTLING;
        a->nwaiting--;
    }
    return list;
}

static void put_back(itoi_wscw_t *a, itoi_rfd_t *e, itoi_sysrec_t *r)
{
    r->state = REC_READY;
    r->next = e->waiters;
    e->waiters = r;
    a->nwaiting++;
}


size_t itoi_ready_poll(itoi_worker_t *w, itoi_wscw_t *a)
{
    int n;
    return ready_poll_once(w, a, &n);
}

/* Every event the epoll holds now, delivered (finalize's cancel pass, area.c). */
void itoi_ready_drain(itoi_worker_t *w, itoi_wscw_t *a)
{
    int n = 64;
    for (int round = 0; a->nwaiting && a->rep >= 0 && n == 64 && round < 64; round++) (void)ready_poll_once(w, a, &n);
}

static size_t ready_poll_once(itoi_worker_t *w, itoi_wscw_t *a, int *got_n)
{
    struct epoll_event evs[64];
    int n = epoll_wait(a->rep, evs, 64, 0);
    *got_n = n;
    size_t did = 0;
    for (int i = 0; i < n; i++) {
        int fd = evs[i].data.fd;
        if ((size_t)fd >= a->nfds) continue;
        itoi_rfd_t *e = &a->fds[fd];
        e->armed = 0; /* one-shot: disabled until re-armed */
        uint32_t got = evs[i].events;
        itoi_sysrec_t *list = take_all(a, e);
        while (list) {
            itoi_sysrec_t *r = list;
            list = r->next;
            r->next = NULL;
            if (r->why != WHY_NONE) {
                itoi_wsc_complete(w, a, r, -ECANCELED);
            } else if (got & (r->events | POLLERR | POLLHUP | POLLNVAL)) {
                did++;
                r->state = REC_DONE;
                if (settle(w, a, r, got)) put_back(a, e, r);
            } else {
                put_back(a, e, r);
            }
        }
        if (!e->waiters) continue;
        int rc = arm(a, fd);
        if (rc == 0) continue;
        /* The fd went away under its waiters: they end with the error. */
        for (itoi_sysrec_t *l = take_all(a, e), *next; l; l = next) {
            next = l->next;
            l->next = NULL;
            not_pollable(w, a, l, rc);
        }
    }
    return did;
}

void itoi_ready_teardown(itoi_worker_t *w, itoi_wscw_t *a)
{
    if (a->rep_watched) itoi_worker_unwatch_fd(w, a->rep);
    if (a->rep >= 0) close(a->rep);
    a->rep = -1;
    a->rep_watched = false;
    free(a->fds);
    a->fds = NULL;
    a->nfds = a->nwaiting = 0;
}
