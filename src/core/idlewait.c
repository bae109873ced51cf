/* idlewait.c: idle workers that sleep on kernel events.
 *
 * Each worker has an epoll instance holding its wake eventfd. While a mechanism has fds
 * watched on the worker (w->watched > 0), the idle worker sleeps in epoll_wait instead
 * of on its futex word, so that a completion (io_uring's eventfd, a device fd) wakes it
 * and its pollers reap the event. A waker that finds the worker asleep writes the wake
 * eventfd as well as waking the futex; the eventfd counter keeps the wake-up even if
 * it comes before the worker reaches epoll_wait, so none is lost. The sleep hooks run
 * around both kinds of sleep (idle() in sched.c calls itoi_sleep_begin/itoi_sleep_end). */
#define _GNU_SOURCE
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "itoi.h"

int itoi_idlewait_setup(itoi_worker_t *w)
{
    w->idle_ep = epoll_create1(EPOLL_CLOEXEC);
    w->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    atomic_store(&w->watched, 0);
    if (w->idle_ep < 0 || w->wake_fd < 0) goto fail;
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = w->wake_fd};
    if (epoll_ctl(w->idle_ep, EPOLL_CTL_ADD, w->wake_fd, &ev) != 0) goto fail;
    return ITO_OK;
fail:;
    /* Out of descriptors or kernel memory is ito_init's documented ITO_ENOMEM (it was an
     * undocumented ITO_EIO), with a line saying which */
    int e = errno;
    itoi_idlewait_teardown(w);
    itoi_say_no_fd(w->index, "epoll instance or eventfd", e);
    return e == EMFILE || e == ENFILE || e == ENOMEM ? ITO_ENOMEM : ITO_EIO;
}

void itoi_say_no_fd(int index, const char *what, int e)
{
    char limit[160] = "";
    struct rlimit rl;
    if (e == EMFILE && getrlimit(RLIMIT_NOFILE, &rl) == 0)
        snprintf(limit, sizeof limit, " (RLIMIT_NOFILE is %llu; ito_init needs up to %d descriptors per worker, %d for %d, besides the program's)",
                 (unsigned long long)rl.rlim_cur, ITOI_FDS_PER_WORKER, ITOI_FDS_PER_WORKER * itoi_rt.nworkers, itoi_rt.nworkers);
    else if (e == ENFILE)
        snprintf(limit, sizeof limit, " (the system's file table is full: fs.file-max)");
    fprintf(stderr, "ito: cannot create worker %d's %s: %s%s\n", index, what, strerror(e), limit);
}

void itoi_idlewait_teardown(itoi_worker_t *w)
{
    if (w->idle_ep >= 0) close(w->idle_ep);
    if (w->wake_fd >= 0) close(w->wake_fd);
    w->idle_ep = w->wake_fd = -1;
}

int itoi_worker_watch_fd(itoi_worker_t *w, int fd)
{
    if (!w || fd < 0) return ITO_EINVAL;
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = fd};
    if (epoll_ctl(w->idle_ep, EPOLL_CTL_ADD, fd, &ev) != 0) return ITO_EIO;
    atomic_fetch_add(&w->watched, 1);
    /* A worker asleep on its futex (it watched nothing when it went to sleep) must move
     * to epoll_wait, or an event of this fd waits for another worker: wake it the way it
     * sleeps. It stores sleep_state before it reads `watched`, this reads sleep_state
     * after raising `watched` (both sequentially consistent): either it sees the fd and
     * sleeps in epoll_wait, or this sees it asleep and wakes it (if another waker took
     * the state first, the sleeper does not sleep at all: sched.c). */
    itoi_wake_worker(w);
    return ITO_OK;
}

int itoi_worker_unwatch_fd(itoi_worker_t *w, int fd)
{
    if (!w || fd < 0) return ITO_EINVAL;
    if (epoll_ctl(w->idle_ep, EPOLL_CTL_DEL, fd, NULL) != 0) return ITO_EIO;
    atomic_fetch_sub(&w->watched, 1);
    return ITO_OK;
}

static itoi_hook_table_t sleep_hooks = {.cap = ITOI_HOOKS_MAX}; /* a: before (presleep), b: after (postsleep) */
static itoi_hook_table_t probes = {.cap = 8};

int itoi_sleep_hooks_add(itoi_presleep_fn before, itoi_postsleep_fn after)
{
    return itoi_hook_add(&sleep_hooks, (itoi_hook_fn)before, (itoi_hook_fn)after);
}

int itoi_idle_probe_add(itoi_probe_fn fn) { return itoi_hook_add(&probes, (itoi_hook_fn)fn, NULL); }

bool itoi_idle_probe(itoi_worker_t *w)
{
    int n = itoi_hook_count(&probes);
    for (int i = 0; i < n; i++)
        if (((itoi_probe_fn)probes.a[i])(w)) return true;
    return false;
}

/* The after hooks that run are those whose before ran (the count taken at the begin): a
 * pair registered while the worker slept saw its after run without its before. */
bool itoi_sleep_begin(itoi_worker_t *w)
{
    int nh = w->sleep_hooks_n = itoi_hook_count(&sleep_hooks);
    bool busy = false;
    for (int i = 0; i < nh; i++) busy |= sleep_hooks.a[i] && ((itoi_presleep_fn)sleep_hooks.a[i])(w);
    return busy;
}

void itoi_sleep_end(itoi_worker_t *w)
{
    int nh = w->sleep_hooks_n;
    for (int i = 0; i < nh; i++)
        if (sleep_hooks.b[i]) ((itoi_postsleep_fn)sleep_hooks.b[i])(w);
}

/* epoll's timeout is not an exact timer: the kernel lets it end late by a slack that grows
 * with its length (select_estimate_accuracy: 0.1 % of it, 0.5 % for a niced thread, at most
 * 100 ms; the thread's timer slack, 50 us, when that is less). Passing the whole time to
 * the deadline woke an idle server's 4 s I/O deadline 4 ms late, 20 ms when niced (outside
 * tester h72e, 2026-12-07). So a sleep longer than 8 ms asks for 1/128 less, which even that
 * slack cannot carry past the deadline, and the worker, woken early, sleeps again for the
 * rest: each round leaves less than 1/128 of the one before, and a rest of 8 ms or less
 * has a slack no larger than the timer slack. A 15 s wait takes three sleeps. */
static uint64_t epoll_timeout_ns(uint64_t d)
{
    return d > 8000000u ? d - (d >> 7) : d;
}

void itoi_idlewait_sleep(itoi_worker_t *w, uint64_t deadline)
{
    struct epoll_event evs[8];
    struct timespec ts, *tp = NULL;
    if (deadline != ITO_FOREVER) {
        uint64_t now = itoi_now_ns(), d = epoll_timeout_ns(deadline > now ? deadline - now : 0);
        ts.tv_sec = (time_t)(d / 1000000000u);
        ts.tv_nsec = (long)(d % 1000000000u);
        tp = &ts;
    }
    int n = epoll_pwait2(w->idle_ep, evs, 8, tp, NULL);
    for (int i = 0; i < n; i++) {
        if (evs[i].data.fd == w->wake_fd) {
            uint64_t v;
            ssize_t r = read(w->wake_fd, &v, sizeof v);
            (void)r;
        }
    }
}

void itoi_idlewait_wake(itoi_worker_t *w)
{
    uint64_t one = 1;
    ssize_t r = write(w->wake_fd, &one, sizeof one);
    (void)r;
}
