/* cefos_io: the I/O chain of CEFOS (the paper's Fig. 7) on ito's zero-wait threads, with
 * simulated devices of a configurable round-trip time (RTT), measured for real.
 *
 *   sender -(trylock gate, retry)-> gate -> syscall -> semaphore -(trylock device, or
 *   enqueue)-> device -(arms the device)-> [device: timerfd, RTT later] -> handler
 *   -> receiver, and handler -> device again when requests are queued.
 *
 * Threads and modes: sender and receiver are user threads, gate a kernel-interface
 * thread, the others kernel threads. Instances: each request slot has its own instance
 * frame {sender, receiver, syscall, semaphore} (simultaneous invocations of the same
 * code use different instance frames, as in the paper); the kernel frame holds the gate
 * and, per device, {device, handler}. A device is an ito timer device: device_thread
 * arms a one-shot timerfd for RTT, and the expiry becomes a continuation to
 * handler_thread (masked until the handler acks).
 *
 * Locks: the gate's and each device's lock bit, used with the paper's trylk/unlk. The
 * semaphore's request queue (4-3) needs one more guard: a semaphore that fails to lock
 * the device must enqueue its request before the handler decides, under the same guard,
 * whether to unlock the device (6-3) or to take the next request; otherwise a request
 * could be enqueued just after the handler found the queue empty and never be served.
 * The guard is a tiny spinlock held for a few instructions.
 *
 * Modes of operation:
 *   throughput (default): each of --senders slots keeps one request in flight (closed
 *     loop) during --period-ms; requests whose receiver fires before the end of the
 *     period are counted. A saturating closed loop measures the same capacity as the
 *     paper's "raise N until completions stop growing".
 *   --check: each slot does --rounds requests; every request must complete exactly once
 *     (per-slot sequence numbers and a checksum), then the program exits 0.
 *   --busy-poll: idle workers keep polling the devices (ito_device_poll_mode) instead
 *     of sleeping in epoll_wait: lower latency, both CPUs busy.
 * Output (one line):
 *   RESULT workload=cefos_io workers=W devices=D rtt_ns=R period_ns=P senders=N
 *          completed=C throughput_per_s=X rtt_measured_ns=M retries=T poll=sleep|busy
 * rtt_measured_ns is the mean time from arming a device to its handler running: the
 * real RTT, timer resolution and wake-up latency included. */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ito/ito.h"

#define MAX_DEV 16
enum { R_SENDER, R_RECEIVER, R_SYSCALL, R_SEMA, R_N };             /* request frame */
enum { K_GATE, K_STOP, K_JOIN, K_DEV0 };                           /* kernel frame */
#define K_DEV(d) (K_DEV0 + 2 * (d))
#define K_HND(d) (K_DEV0 + 2 * (d) + 1)

typedef struct req {
    int slot;
    uint64_t round;        /* the request in flight (1, 2, ...) */
    uint64_t done_rounds;  /* receiver's count: must equal round after each completion */
    struct req *qnext;
    ito_frame_t *frame;
} req_t;

typedef struct device {
    ito_device_t *dev;
    _Atomic int qguard;    /* guards the queue and the device's lock transitions */
    req_t *qhead, *qtail;
    req_t *cur;            /* the request the device is serving (under the device lock) */
    uint64_t armed_ns, rtt_sum, rtt_n;
    char pad[64];
} device_t;

static struct {
    int workers, devices, senders, check, busy;
    uint64_t rtt_ns, period_ns, rounds;
} opt = {2, 1, 64, 0, 0, 2000, 200000000, 0};

static ito_frame_t *kf;
static device_t devs[MAX_DEV];
static req_t **reqs;
static _Atomic int stopping;
static uint64_t t_end;
static _Atomic uint64_t completed_in_period, completed_total, checksum, retries;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#define MUST(call)                                                                   \
    do {                                                                             \
        int rc_ = (call);                                                            \
        if (rc_ != ITO_OK) {                                                         \
            fprintf(stderr, "cefos_io: %s:%d: %s: %s\n", __FILE__, __LINE__, #call,  \
                    ito_strerror(rc_));                                              \
            abort();                                                                 \
        }                                                                            \
    } while (0)

static void guard_lock(device_t *d)
{
    while (atomic_exchange_explicit(&d->qguard, 1, memory_order_acquire))
        while (atomic_load_explicit(&d->qguard, memory_order_relaxed)) __builtin_ia32_pause();
}
static void guard_unlock(device_t *d) { atomic_store_explicit(&d->qguard, 0, memory_order_release); }

/* 1: sender (user). Lock the gate (1-1) and continue to it with the request (1-2);
 * else continue to itself and try again (1-3). */
static void sender_thread(ito_frame_t *f, int e, uint64_t v)
{
    (void)e;
    (void)v;
    req_t *r = ito_frame_data(f);
    if (ito_trylock(kf, K_GATE) != ITO_OK) {
        atomic_fetch_add_explicit(&retries, 1, memory_order_relaxed);
        MUST(ito_zwt_retry());
        return;
    }
    MUST(ito_rearm(f, R_SENDER, 0));
    MUST(ito_continue_value(kf, K_GATE, (uint64_t)(uintptr_t)r));
}

/* 2: gate (kernel interface). Identify the system call (one kind here) and continue to
 * its thread in the request's instance (2-1, 2-2); re-arm and unlock itself. */
static void gate_thread(ito_frame_t *f, int e, uint64_t v)
{
    req_t *r = (req_t *)(uintptr_t)v;
    MUST(ito_rearm(f, e, 0));
    MUST(ito_unlock(f, e));
    MUST(ito_continue_value(r->frame, R_SYSCALL, v));
}

/* 3: syscall (kernel): an I/O call on device slot % devices: to its semaphore. */
static void syscall_thread(ito_frame_t *f, int e, uint64_t v)
{
    MUST(ito_rearm(f, e, 0));
    MUST(ito_continue_value(f, R_SEMA, v));
}

/* 4: semaphore (kernel): lock the device (4-1) and continue to it (4-2), or queue (4-3). */
static void semaphore_thread(ito_frame_t *f, int e, uint64_t v)
{
    req_t *r = (req_t *)(uintptr_t)v;
    int d = r->slot % opt.devices;
    device_t *dv = &devs[d];
    MUST(ito_rearm(f, e, 0));
    guard_lock(dv);
    if (ito_trylock(kf, K_DEV(d)) == ITO_OK) {
        guard_unlock(dv);
        MUST(ito_continue_value(kf, K_DEV(d), v));
        return;
    }
    r->qnext = NULL;
    if (dv->qtail) dv->qtail->qnext = r; else dv->qhead = r;
    dv->qtail = r;
    guard_unlock(dv);
}

/* 5: device (kernel, runs while its lock bit is held): take the request (5-1), issue it
 * to the device (5-2); the device's completion continues to the handler (5-3). */
static void device_thread(ito_frame_t *f, int e, uint64_t v)
{
    int d = (e - K_DEV0) / 2;
    device_t *dv = &devs[d];
    MUST(ito_rearm(f, e, 0));
    dv->cur = (req_t *)(uintptr_t)v;
    dv->armed_ns = now_ns();
    MUST(ito_device_timer_set(dv->dev, opt.rtt_ns, 0));
}

/* 6: handler (kernel), fired by the device: take the result (6-1), continue to the
 * receiver (6-2), then serve the next queued request or unlock the device (6-3). */
static void handler_thread(ito_frame_t *f, int e, uint64_t v)
{
    (void)v;
    int d = (e - K_DEV0 - 1) / 2;
    device_t *dv = &devs[d];
    req_t *r = dv->cur;
    dv->cur = NULL;
    dv->rtt_sum += now_ns() - dv->armed_ns;
    dv->rtt_n++;
    MUST(ito_continue_value(r->frame, R_RECEIVER, r->round));
    guard_lock(dv);
    req_t *next = dv->qhead;
    if (next) {
        dv->qhead = next->qnext;
        if (!dv->qhead) dv->qtail = NULL;
    } else {
        MUST(ito_unlock(f, K_DEV(d)));
    }
    guard_unlock(dv);
    MUST(ito_device_ack(dv->dev)); /* the data is taken: unmask, re-arm the handler */
    if (next) MUST(ito_continue_value(f, K_DEV(d), (uint64_t)(uintptr_t)next));
}

/* 7: receiver (user): the system call's result. Count it, then issue the next request
 * or, at the end, continue to the join. */
static void receiver_thread(ito_frame_t *f, int e, uint64_t v)
{
    req_t *r = ito_frame_data(f);
    MUST(ito_rearm(f, e, 0));
    if (v != r->round || r->done_rounds + 1 != v) {
        fprintf(stderr, "cefos_io: slot %d: result of round %llu, expected %llu (done %llu)\n", r->slot,
                (unsigned long long)v, (unsigned long long)r->round, (unsigned long long)r->done_rounds);
        abort();
    }
    r->done_rounds = v;
    atomic_fetch_add_explicit(&completed_total, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&checksum, (uint64_t)r->slot * 1000003u + v, memory_order_relaxed);
    int again;
    if (opt.check) {
        again = r->round < opt.rounds;
    } else {
        if (now_ns() <= t_end) atomic_fetch_add_explicit(&completed_in_period, 1, memory_order_relaxed);
        again = !atomic_load_explicit(&stopping, memory_order_acquire);
    }
    if (again) {
        r->round++;
        MUST(ito_continue(f, R_SENDER));
    } else {
        MUST(ito_continue(kf, K_JOIN));
    }
}

static void usage(const char *p)
{
    fprintf(stderr,
            "usage: %s [--workers W] [--devices D] [--rtt-ns R] [--period-ms P] [--senders N]\n"
            "          [--busy-poll] [--check --rounds K]\n",
            p);
    exit(2);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--check")) { opt.check = 1; continue; }
        if (!strcmp(a, "--busy-poll")) { opt.busy = 1; continue; }
        if (!val) usage(argv[0]);
        long long x = atoll(val);
        i++;
        if (!strcmp(a, "--workers")) opt.workers = (int)x;
        else if (!strcmp(a, "--devices")) opt.devices = (int)x;
        else if (!strcmp(a, "--rtt-ns")) opt.rtt_ns = (uint64_t)x;
        else if (!strcmp(a, "--period-ms")) opt.period_ns = (uint64_t)x * 1000000u;
        else if (!strcmp(a, "--senders")) opt.senders = (int)x;
        else if (!strcmp(a, "--rounds")) opt.rounds = (uint64_t)x;
        else usage(argv[0]);
    }
    if (opt.workers < 1 || opt.devices < 1 || opt.devices > MAX_DEV || opt.senders < 1 || opt.rtt_ns < 1 ||
        opt.period_ns < 1 || (opt.check && opt.rounds < 1))
        usage(argv[0]);

    ito_config_t cfg = {.workers = opt.workers};
    MUST(ito_init(&cfg));
    if (opt.busy && ito_device_poll_mode(ITO_DEVICE_BUSY) < 0) abort();
    MUST(ito_frame_create(&kf, K_DEV0 + 2 * opt.devices, 0));
    MUST(ito_entry_set(kf, K_GATE, gate_thread, 1, ITO_MODE_KERNEL_IF));
    MUST(ito_entry_set(kf, K_STOP, NULL, 1, ITO_MODE_USER));
    MUST(ito_entry_set(kf, K_JOIN, NULL, (uint32_t)opt.senders, ITO_MODE_USER));
    for (int d = 0; d < opt.devices; d++) {
        MUST(ito_entry_set(kf, K_DEV(d), device_thread, 1, ITO_MODE_KERNEL));
        MUST(ito_entry_set(kf, K_HND(d), handler_thread, 1, ITO_MODE_KERNEL));
        MUST(ito_device_timer(0, kf, K_HND(d), &devs[d].dev));
    }
    reqs = calloc((size_t)opt.senders, sizeof *reqs);
    for (int s = 0; s < opt.senders; s++) {
        ito_frame_t *f;
        MUST(ito_frame_create(&f, R_N, sizeof(req_t)));
        MUST(ito_entry_set(f, R_SENDER, sender_thread, 1, ITO_MODE_USER));
        MUST(ito_entry_set(f, R_RECEIVER, receiver_thread, 1, ITO_MODE_USER));
        MUST(ito_entry_set(f, R_SYSCALL, syscall_thread, 1, ITO_MODE_KERNEL));
        MUST(ito_entry_set(f, R_SEMA, semaphore_thread, 1, ITO_MODE_KERNEL));
        req_t *r = ito_frame_data(f);
        r->slot = s;
        r->round = 1;
        r->frame = f;
        reqs[s] = r;
    }
    ito_device_t *stop = NULL;
    uint64_t t0 = now_ns();
    t_end = t0 + opt.period_ns;
    if (!opt.check) MUST(ito_device_timer(0, kf, K_STOP, &stop));
    for (int s = 0; s < opt.senders; s++) MUST(ito_continue(reqs[s]->frame, R_SENDER));
    if (!opt.check) {
        /* This ULT sleeps on a timer device for the period, then stops the senders. */
        MUST(ito_device_timer_set(stop, opt.period_ns, 0));
        MUST(ito_frame_wait(kf, K_STOP));
        atomic_store(&stopping, 1);
    }
    MUST(ito_frame_wait(kf, K_JOIN)); /* every slot's last request has completed */
    uint64_t t1 = now_ns();

    uint64_t want_sum = 0, want_n = 0, rtt_sum = 0, rtt_n = 0;
    int bad = 0;
    for (int s = 0; s < opt.senders; s++) {
        req_t *r = reqs[s];
        if (r->done_rounds != r->round || (opt.check && r->round != opt.rounds)) bad = 1;
        for (uint64_t k = 1; k <= r->done_rounds; k++) want_sum += (uint64_t)s * 1000003u + k;
        want_n += r->done_rounds;
    }
    for (int d = 0; d < opt.devices; d++) {
        rtt_sum += devs[d].rtt_sum;
        rtt_n += devs[d].rtt_n;
    }
    if (want_n != atomic_load(&completed_total) || want_sum != atomic_load(&checksum) || rtt_n != want_n) bad = 1;
    uint64_t done = opt.check ? want_n : atomic_load(&completed_in_period);
    double period = opt.check ? (double)(t1 - t0) : (double)opt.period_ns;
    printf("RESULT workload=cefos_io workers=%d devices=%d rtt_ns=%llu period_ns=%.0f senders=%d completed=%llu "
           "throughput_per_s=%.1f rtt_measured_ns=%.0f retries=%llu poll=%s\n",
           opt.workers, opt.devices, (unsigned long long)opt.rtt_ns, period, opt.senders,
           (unsigned long long)done, (double)done * 1e9 / period, rtt_n ? (double)rtt_sum / (double)rtt_n : 0.0,
           (unsigned long long)atomic_load(&retries), opt.busy ? "busy" : "sleep");
    if (bad) {
        fprintf(stderr, "cefos_io: FAILED: a request was lost or completed twice (completed %llu, expected %llu)\n",
                (unsigned long long)atomic_load(&completed_total), (unsigned long long)want_n);
        return 1;
    }
    if (opt.check) printf("ok cefos_io check: %llu requests, each completed once\n", (unsigned long long)want_n);
    for (int d = 0; d < opt.devices; d++) MUST(ito_device_close(devs[d].dev));
    if (stop) MUST(ito_device_close(stop));
    for (int s = 0; s < opt.senders; s++) MUST(ito_frame_destroy(reqs[s]->frame));
    MUST(ito_frame_destroy(kf));
    free(reqs);
    MUST(ito_finalize());
    return 0;
}
