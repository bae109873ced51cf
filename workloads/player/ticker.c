/* ticker.c: the per-worker timer of ticker.h (see there for the contract).
 *
 * Invariants: the signal goes to exactly one kernel thread (SIGEV_THREAD_ID); the one
 * word the ticking side and the consumer share (pending_since) is set by a compare-and-
 * swap from 0 and taken by an exchange, so it is right whether the ticking side is a
 * handler on the consumer's thread or the helper thread on another core. Counters are each
 * written by one side only. The helper's store to another thread's ito_coop_flag races,
 * by design, with the runtime clearing it: both are plain aligned int stores on x86-64, and
 * a lost tick shows up as a missed deadline.
 *
 * HELPER mode shares nothing per tick but that store, as a hardware timer would: the helper
 * counts its ticks on a line of its own, and the consumer derives pending ticks, misses and
 * latency from the clock (tick k expires at hr.t0 + k * hr.period; both are written before
 * the helper starts and only read after). An earlier version shared pending_since and the
 * counters with the consumer: four or five cache-line transfers between cores per tick,
 * about 0.6-1 us on the 2-vCPU test machine, more than the switch being measured. */
#define _GNU_SOURCE
#include "ticker.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "ito/coop.h"

#define PLY_TICK_SIGNAL (SIGRTMIN + 5)

extern char __executable_start[], etext[]; /* the executable's text, from the linker */

static timer_t tick_timer;
static int tick_on;
static ply_tick_mode_t tick_mode;
static volatile sig_atomic_t tick_preemptible;
static _Atomic uint64_t pending_since; /* expiry time of the unserved tick, 0: none */
static ply_tick_stats_t st;            /* handler: ticks..deferred; consumer: served, latency */
static pthread_t helper;
static uint64_t served_k;              /* HELPER, consumer only: the last tick served */
static struct {                        /* HELPER: what the helper reads; set before it starts */
    _Alignas(64) volatile int *flag;   /* the worker's ito_coop_flag */
    _Atomic int stop;
    _Atomic int running;               /* set by the helper once it runs (t0 is then valid) */
    uint64_t period, t0;               /* tick k expires at t0 + k * period (helper sets t0) */
    int store;                         /* 0: PLY_TICK_SPIN, the helper never stores */
} hr;
static struct {
    _Alignas(64) uint64_t ticks, overruns, fresh; /* HELPER: written by the helper only */
    int disjoint; /* the helper's affinity vs the consumer's (ply_tick_stats_t) */
} hs;
static cpu_set_t consumer_cpus; /* HELPER: the consumer's affinity at start (-1 if unknown) */
static int consumer_cpus_known;

uint64_t ply_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int at_safe_point(const void *ucv)
{
    const ucontext_t *uc = ucv;
    const char *pc = (const char *)uc->uc_mcontext.gregs[REG_RIP];
    return tick_preemptible && pc >= __executable_start && pc < etext;
}

/* One expiry: a new pending tick, or a missed deadline if the last one is still pending. */
static void account_tick(uint64_t overruns)
{
    st.ticks++;
    st.overruns += overruns;
    st.missed += overruns;
    uint64_t none = 0;
    if (!atomic_compare_exchange_strong(&pending_since, &none, ply_now_ns())) st.missed++;
}

static void on_tick(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)si;
    int saved_errno = errno;
    int over = timer_getoverrun(tick_timer);
    account_tick(over > 0 ? (uint64_t)over : 0);
    if (tick_mode == PLY_TICK_FLAG) {
        ito_coop_flag = 1;
    } else if (at_safe_point(uc)) {
        st.preempted++;
        ito_coop_yield_full(); /* returns when this ULT is resumed */
    } else {
        st.deferred++;
    }
    errno = saved_errno;
}

/* Whether the helper may run on a CPU the consumer may run on (the helper's own view). */
static void helper_placement(void)
{
    cpu_set_t mine, both;
    hs.disjoint = -1;
    if (!consumer_cpus_known || sched_getaffinity(0, sizeof mine, &mine) != 0) return;
    CPU_AND(&both, &mine, &consumer_cpus);
    hs.disjoint = CPU_COUNT(&both) == 0;
}

/* The helper: poll the clock (no sleep: a timer wake-up would cost as much as a signal),
 * and at each period store 1 into the worker's flag. */
static void *helper_main(void *arg)
{
    (void)arg;
    helper_placement();
    hr.t0 = ply_now_ns();
    atomic_store_explicit(&hr.running, 1, memory_order_release);
    uint64_t next = hr.t0 + hr.period;
    while (!atomic_load_explicit(&hr.stop, memory_order_relaxed)) {
        uint64_t now = ply_now_ns();
        if (now < next) {
            __builtin_ia32_pause();
            continue;
        }
        uint64_t late = (now - next) / hr.period; /* whole periods slept through */
        next += (late + 1) * hr.period;
        if (!hr.store) continue; /* PLY_TICK_SPIN: the same loop, no tick */
        hs.ticks++;
        hs.overruns += late;
        /* one exchange: the same single ownership request a plain store makes */
        if (__atomic_exchange_n(hr.flag, 1, __ATOMIC_RELAXED) == 0)
            hs.fresh++; /* the consumer took the previous one */
    }
    return NULL;
}

/* The helper gets a CPU the caller is not on, when the process may use one: inheriting a
 * pinned worker's affinity would make the two take turns on one CPU. */
static void helper_attr(pthread_attr_t *a)
{
    cpu_set_t allowed, other;
    int me = sched_getcpu();
    if (me < 0 || sched_getaffinity(0, sizeof allowed, &allowed) != 0) return;
    CPU_ZERO(&other);
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (c != me && CPU_ISSET(c, &allowed)) CPU_SET(c, &other);
    if (CPU_COUNT(&other) == 0) {
        /* the process is pinned to the caller's CPU: any CPU but the caller's */
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        for (int c = 0; c < n && c < CPU_SETSIZE; c++)
            if (c != me) CPU_SET(c, &other);
    }
    if (CPU_COUNT(&other) > 0) pthread_attr_setaffinity_np(a, sizeof other, &other);
}

int ply_ticker_start(uint64_t period_ns, ply_tick_mode_t mode)
{
    if (tick_on || period_ns == 0) {
        errno = EINVAL;
        return -1;
    }
    memset(&st, 0, sizeof st);
    st.helper_disjoint = -1;
    atomic_store(&pending_since, 0);
    tick_mode = mode;
    hr.period = period_ns;
    if (mode == PLY_TICK_HELPER || mode == PLY_TICK_SPIN) {
        hr.flag = &ito_coop_flag;
        hr.store = mode == PLY_TICK_HELPER;
        atomic_store(&hr.stop, 0);
        memset(&hs, 0, sizeof hs);
        served_k = 0;
        consumer_cpus_known = sched_getaffinity(0, sizeof consumer_cpus, &consumer_cpus) == 0;
        atomic_store(&hr.running, 0);
        pthread_attr_t a;
        pthread_attr_init(&a);
        helper_attr(&a);
        int rc = pthread_create(&helper, &a, helper_main, NULL);
        pthread_attr_destroy(&a);
        if (rc == EINVAL) /* the CPU chosen is outside a cpuset: where the kernel likes */
            rc = pthread_create(&helper, NULL, helper_main, NULL);
        if (rc != 0) {
            errno = rc;
            return -1;
        }
        /* Start only once the helper runs: on a loaded machine (ctest -j2 beside other
         * tests) a helper first scheduled after the decode has ended ticked 0 times. */
        while (!atomic_load_explicit(&hr.running, memory_order_acquire)) sched_yield();
        tick_on = 1;
        return 0;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_tick;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(PLY_TICK_SIGNAL, &sa, NULL) != 0) return -1;
    struct sigevent sev;
    memset(&sev, 0, sizeof sev);
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev.sigev_signo = PLY_TICK_SIGNAL;
    sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
    if (timer_create(CLOCK_MONOTONIC, &sev, &tick_timer) != 0) return -1;
    struct itimerspec its;
    its.it_interval.tv_sec = (time_t)(period_ns / 1000000000u);
    its.it_interval.tv_nsec = (long)(period_ns % 1000000000u);
    its.it_value = its.it_interval;
    if (timer_settime(tick_timer, 0, &its, NULL) != 0) {
        timer_delete(tick_timer);
        return -1;
    }
    tick_on = 1;
    return 0;
}

int ply_ticker_stop(ply_tick_stats_t *out)
{
    if (!tick_on) {
        errno = EINVAL;
        return -1;
    }
    if (tick_mode == PLY_TICK_HELPER || tick_mode == PLY_TICK_SPIN) {
        atomic_store(&hr.stop, 1);
        pthread_join(helper, NULL);
        tick_on = 0;
        ito_coop_flag = 0;
        st.ticks = hs.ticks;
        st.overruns = hs.overruns;
        st.fresh = hs.fresh;
        st.helper_disjoint = hs.disjoint;
        if (out) *out = st;
        return 0;
    }
    /* Block the signal while the timer goes away, so no handler runs after this. */
    sigset_t set, old;
    sigemptyset(&set);
    sigaddset(&set, PLY_TICK_SIGNAL);
    pthread_sigmask(SIG_BLOCK, &set, &old);
    timer_delete(tick_timer);
    tick_on = 0;
    struct timespec zero = {0, 0};
    siginfo_t si;
    while (sigtimedwait(&set, &si, &zero) > 0) {} /* drop one still queued */
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    ito_coop_flag = 0;
    if (out) *out = st;
    return 0;
}

/* The consumer's account of a served tick that expired `lat` ns ago. */
static void record_served(uint64_t lat)
{
    st.served++;
    st.sum_latency_ns += lat;
    if (lat > st.max_latency_ns) st.max_latency_ns = lat;
}

int ply_ticker_served(void)
{
    if (tick_mode == PLY_TICK_SPIN) return 0;
    if (tick_mode == PLY_TICK_HELPER) {
        if (!tick_on) return 0;
        uint64_t now = ply_now_ns();
        uint64_t k = (now - hr.t0) / hr.period; /* the last tick expired by now */
        if (k <= served_k) return 0;
        st.missed += k - served_k - 1; /* expired and replaced before the consumer ran */
        served_k = k;
        record_served(now - (hr.t0 + k * hr.period));
        return 1;
    }
    uint64_t since = atomic_exchange_explicit(&pending_since, 0, memory_order_relaxed);
    if (since == 0) return 0;
    record_served(ply_now_ns() - since);
    return 1;
}

void ply_ticker_preemptible(int on)
{
    tick_preemptible = on;
}
