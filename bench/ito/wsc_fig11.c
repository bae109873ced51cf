/* wsc_fig11: CEFOS Fig. 11 on ito: 128 thin system calls issued by split-phase threads
 * through Wrapped System Calls at thresholds K = 1, 2, 4, ..., versus the same 128 calls
 * made as ordinary system calls.
 *
 * What is timed (one "trial" = 128 calls, wall-clock ns, CLOCK_MONOTONIC):
 *   plain getpid     128 x syscall(SYS_getpid) in a loop: the paper's denominator;
 *   raw uring nop b  128 io_uring NOPs, b per io_uring_submit, without ito (the kernel
 *                    floor of a batched crossing; b = 1 is "a NOP as an ordinary call");
 *   floor b          the same NOPs through a ZWT per call written by hand, without ito
 *                    (floor_trial: the sync counts, run queue and continuations that the
 *                    design needs at the least; ito's WSC minus the floor is ito's own cost);
 *   wsc              ito: 128 issuer ZWTs each post one request whose continuation is a
 *                    receiver ZWT; the receivers continue to a join entry the main ULT
 *                    waits on. Timed from the first firing to the main ULT's wake-up, so
 *                    thread firing, posting, buffering, crossing, completion and the
 *                    continuations are all inside. Issuer "main": the main ULT posts the
 *                    128 requests itself (continuations as above), no issuer ZWTs.
 * Operations batched: the NOP on the uring backend (one io_uring_enter per bucket of K);
 * getpid on the sync backend (io_uring has no getpid opcode: the flusher runs each one
 * as its own syscall, so K buys nothing there and the ratio shows the machinery's cost).
 *
 * Noise: the series of a backend (raw, floor and both WSC issuers on uring) run in the
 * same rounds, interleaved K by K, and every trial has its own plain baseline measured
 * right before it; the ratio reported is the median over rounds of (trial / adjacent
 * plain). (Until 2026-12-03 raw and floor ran in a phase of their own before ito's: the
 * cost of getpid drifts by up to a third between phases on a VM, which made their ratios
 * and ito's not comparable.) One worker, so that a bucket is one worker's (pin the
 * process with taskset for stable numbers).
 *
 * Correctness (fatal if violated, every trial): each of the 128 receivers fires exactly
 * once, with the value the kernel returned (0 for NOP, the pid for getpid), and the
 * result address holds the same value; the crossings counted by ito_wsc_stats are never
 * fewer than the bucket arithmetic says (uring NOP: 128 / K; getpid: 128). More are
 * legal (the flush policy's latency bound sends a partial bucket when the issuing thread
 * was descheduled by the kernel, as on a loaded machine): each RESULT line counts the
 * trials that had more (extra_trials=), so a reader sees how often the buckets broke up.
 *
 * Output: RESULT lines (parsed by lab/ito_lab/experiments/wsc.py). */
#define _GNU_SOURCE
#include <errno.h>
#include <liburing.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ito/ito.h"

#define NCALLS 128
#define JOIN (2 * NCALLS)

static int ks[] = {1, 2, 4, 8, 16, 32, 64};
static int NK = (int)(sizeof ks / sizeof ks[0]);
/* --k K and --series S (raw, floor, zwt, main) narrow a run to one threshold and one series,
 * for counting one series' instructions per request under callgrind. */
static const char *only_series;

static ito_sysop_t cur_op;
static long results[NCALLS];
static int fired[NCALLS];
static long expect_val;

static _Noreturn void die(const char *what, long got, long want)
{
    fprintf(stderr, "wsc_fig11: FATAL: %s (got %ld, want %ld)\n", what, got, want);
    exit(2);
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* ---- the baselines ---- */

static volatile long sink;

static double plain_getpid(void)
{
    uint64_t t0 = now_ns();
    for (int i = 0; i < NCALLS; i++) sink = syscall(SYS_getpid);
    return (double)(now_ns() - t0);
}

static struct io_uring raw_ring;

__attribute__((noinline)) static double raw_uring_nop(int batch)
{
    uint64_t t0 = now_ns();
    for (int done = 0; done < NCALLS; done += batch) {
        for (int j = 0; j < batch; j++) {
            struct io_uring_sqe *sqe = io_uring_get_sqe(&raw_ring);
            if (!sqe) die("raw ring full", 0, 0);
            io_uring_prep_nop(sqe);
        }
        int n = io_uring_submit(&raw_ring);
        if (n != batch) die("raw io_uring_submit", n, batch);
        for (int j = 0; j < batch; j++) {
            struct io_uring_cqe *cqe;
            int rc = io_uring_wait_cqe(&raw_ring, &cqe); /* NOPs complete inline: no wait */
            if (rc < 0 || cqe->res != 0) die("raw NOP completion", rc < 0 ? rc : cqe->res, 0);
            io_uring_cqe_seen(&raw_ring, cqe);
        }
    }
    return (double)(now_ns() - t0);
}

/* ---- the floor: a ZWT per call written by hand, without ito ----
 *
 * What any runtime of the paper's design must do per call at the least, on the same ring
 * as raw_uring_nop: the main thread fires an issuer (its sync count taken with a CAS, as
 * another thread may fire the same entry), the issuer runs from a run queue and prepares
 * one SQE that names its receiver, every `batch` SQEs are submitted; once the run queue is
 * empty the completions are reaped, each fires its receiver with the result (CAS), the
 * receiver runs from the queue, checks the value and fires the join entry (CAS), and the
 * last firing of the join ends the trial. What ito does besides is left out: no request
 * record (the SQE's user data names the receiver), no validation of handles or requests,
 * no statistics, no live list for cancellation or finalize, no latency timer, no context
 * switch of the waiting thread. So the distance from raw_uring_nop to this floor is the
 * design's own cost on this host, and the distance from the floor to ito's WSC is ito's. */
typedef struct floor_entry {
    _Atomic int32_t sync;
    int32_t arg;
    void (*code)(int i, long v);
    long value;
} floor_entry_t;

static floor_entry_t fl[JOIN + 1];
static int fl_rq[2 * NCALLS + 1];
static unsigned fl_head, fl_tail, fl_posted, fl_batch;
static int fl_joined;

static void floor_fire(int i, long v)
{
    floor_entry_t *e = &fl[i];
    e->value = v;
    int32_t s = atomic_load_explicit(&e->sync, memory_order_relaxed);
    do {
        if (s <= 0) die("floor: entry fired beyond its count", i, 0);
    } while (!atomic_compare_exchange_weak_explicit(&e->sync, &s, s - 1, memory_order_acq_rel, memory_order_relaxed));
    if (s > 1) return;
    if (i == JOIN) fl_joined = 1; /* the waiting thread would be woken here */
    else fl_rq[fl_tail++ % (2 * NCALLS + 1)] = i;
}

static void floor_issuer(int i, long v)
{
    (void)v;
    struct io_uring_sqe *sqe = io_uring_get_sqe(&raw_ring);
    if (!sqe) die("floor: ring full", 0, 0);
    io_uring_prep_nop(sqe);
    io_uring_sqe_set_data64(sqe, (uint64_t)(NCALLS + i));
    if (++fl_posted % fl_batch == 0) {
        int n = io_uring_submit(&raw_ring);
        if (n != (int)fl_batch) die("floor: io_uring_submit", n, (long)fl_batch);
    }
}

static void floor_receiver(int i, long v)
{
    int j = i - NCALLS;
    results[j] = v;
    if (v != 0) die("floor: continuation value", v, 0);
    if (fired[j]++) die("floor: a continuation fired twice", fired[j], 1);
    floor_fire(JOIN, 0);
}

__attribute__((noinline)) static double floor_trial(int batch)
{
    fl_batch = (unsigned)batch;
    fl_posted = fl_head = fl_tail = 0;
    fl_joined = 0;
    for (int i = 0; i < NCALLS; i++) {
        fl[i] = (floor_entry_t){.sync = 1, .arg = i, .code = floor_issuer};
        fl[NCALLS + i] = (floor_entry_t){.sync = 1, .arg = NCALLS + i, .code = floor_receiver};
        fired[i] = 0;
    }
    fl[JOIN] = (floor_entry_t){.sync = NCALLS, .arg = JOIN};
    uint64_t t0 = now_ns();
    for (int i = 0; i < NCALLS; i++) floor_fire(i, 0);
    while (!fl_joined) {
        while (fl_head != fl_tail) {
            floor_entry_t *e = &fl[fl_rq[fl_head++ % (2 * NCALLS + 1)]];
            e->code(e->arg, e->value);
        }
        struct io_uring_cqe *cqe;
        unsigned head, n = 0;
        io_uring_for_each_cqe(&raw_ring, head, cqe) {
            floor_fire((int)io_uring_cqe_get_data64(cqe), cqe->res);
            n++;
        }
        if (n == 0 && !fl_joined) die("floor: nothing to run and no completion", (long)fl_posted, NCALLS);
        io_uring_cq_advance(&raw_ring, n);
    }
    uint64_t t1 = now_ns();
    for (int i = 0; i < NCALLS; i++)
        if (fired[i] != 1) die("floor: a continuation did not fire exactly once", fired[i], 1);
    return (double)(t1 - t0);
}

/* ---- the WSC version: issuer and receiver ZWTs ---- */

static void receiver(ito_frame_t *f, int entry, uint64_t v)
{
    int i = entry - NCALLS;
    if ((long)v != expect_val || results[i] != expect_val) die("continuation value", (long)v, expect_val);
    if (fired[i]++) die("a continuation fired twice", fired[i], 1);
    int rc = ito_continue(f, JOIN);
    if (rc != ITO_OK) die("continue to join", rc, 0);
}

static void post_one(ito_frame_t *f, int i)
{
    ito_sysreq_t q = {.op = cur_op, .result = &results[i], .frame = f, .entry = NCALLS + i};
    int rc = ito_sys_post(&q);
    if (rc != ITO_OK) die("ito_sys_post", rc, 0);
}

static void issuer(ito_frame_t *f, int entry, uint64_t v)
{
    (void)v;
    post_one(f, entry);
}

static ito_frame_t *frame;

static void frame_setup(void)
{
    if (ito_frame_create(&frame, JOIN + 1, 0) != ITO_OK) die("ito_frame_create", 0, 0);
    for (int i = 0; i < NCALLS; i++) {
        if (ito_entry_set(frame, i, issuer, 1, ITO_MODE_USER) != ITO_OK ||
            ito_entry_set(frame, NCALLS + i, receiver, 1, ITO_MODE_USER) != ITO_OK)
            die("ito_entry_set", i, 0);
    }
    if (ito_entry_set(frame, JOIN, NULL, NCALLS, ITO_MODE_USER) != ITO_OK) die("join entry", 0, 0);
}

/* One trial: 128 requests of cur_op at threshold k. Returns the ns; *extra: whether the
 * requests took more crossings than the buckets of k. */
__attribute__((noinline)) static double wsc_trial(int k, int zwt_issuers, int *extra)
{
    if (ito_wsc_set_threshold(k) != ITO_OK) die("ito_wsc_set_threshold", k, 0);
    for (int i = 0; i < NCALLS; i++) {
        results[i] = -9999;
        fired[i] = 0;
        if (ito_rearm(frame, i, 0) != ITO_OK || ito_rearm(frame, NCALLS + i, 0) != ITO_OK)
            die("ito_rearm", i, 0);
    }
    if (ito_rearm(frame, JOIN, 0) != ITO_OK) die("ito_rearm join", 0, 0);
    ito_wsc_stats_t s0, s1;
    ito_wsc_stats(&s0);
    uint64_t t0 = now_ns();
    for (int i = 0; i < NCALLS; i++) {
        int rc = zwt_issuers ? ito_continue(frame, i) : (post_one(frame, i), ITO_OK);
        if (rc != ITO_OK) die("ito_continue issuer", rc, 0);
    }
    int rc = ito_frame_wait(frame, JOIN);
    uint64_t t1 = now_ns();
    if (rc != ITO_OK) die("ito_frame_wait", rc, 0);
    ito_wsc_stats(&s1);
    for (int i = 0; i < NCALLS; i++)
        if (fired[i] != 1) die("a continuation did not fire exactly once", fired[i], 1);
    long posted = (long)(s1.posted - s0.posted), completed = (long)(s1.completed - s0.completed);
    if (posted != NCALLS || completed != NCALLS) die("posted/completed", completed, NCALLS);
    long crossings = (long)(s1.crossings - s0.crossings);
    long want = ito_wsc_backend() == ITO_WSC_URING && cur_op == ITO_SYS_NOP ? NCALLS / k : NCALLS;
    if (crossings < want || crossings > NCALLS) die("crossings", crossings, want);
    *extra = crossings != want;
    return (double)(t1 - t0);
}

/* ---- driver ---- */

/* A series of the figure: kind raw / floor (no ito, on raw_ring) or wsc (ito). */
typedef struct variant {
    const char *kind, *op, *issuer;
    ito_sysop_t sysop;
    int zwt_issuers;
} variant_t;

static double variant_trial(const variant_t *v, int k, int *extra)
{
    *extra = 0;
    if (!strcmp(v->kind, "raw")) return raw_uring_nop(k);
    if (!strcmp(v->kind, "floor")) return floor_trial(k);
    cur_op = v->sysop;
    expect_val = cur_op == ITO_SYS_GETPID ? (long)getpid() : 0;
    return wsc_trial(k, v->zwt_issuers, extra);
}

/* Every series of a backend in the same rounds: for each round, each K and each series, a
 * plain baseline right before the trial, so that all ratios of a K share the host's state
 * of that moment (the cost of getpid itself drifts by up to a third between phases of a
 * run on a VM: series measured in separate phases were not comparable). */
static void run_backend(const char *backend, int trials, int warm, int raw)
{
    setenv("ITO_WSC_BACKEND", backend, 1);
    ito_config_t cfg = {.workers = 1};
    if (ito_init(&cfg) != ITO_OK) die("ito_init", 0, 0);
    int want = !strcmp(backend, "uring") ? ITO_WSC_URING : ITO_WSC_SYNC;
    if (ito_wsc_backend() != want) {
        printf("# backend %s unavailable on this machine: skipped\n", backend);
        ito_finalize();
        return;
    }
    frame_setup();
    variant_t vs[4];
    int nv = 0;
    if (want == ITO_WSC_URING) {
        if (raw) {
            int rc = io_uring_queue_init(256, &raw_ring, 0);
            if (rc < 0) {
                printf("# raw io_uring unavailable (%s): skipped\n", strerror(-rc));
                raw = 0;
            }
        }
        if (raw) { /* the kernel floor and the design's floor, beside ito */
            vs[nv++] = (variant_t){"raw", "nop", "none", ITO_SYS_NOP, 0};
            vs[nv++] = (variant_t){"floor", "nop", "zwt", ITO_SYS_NOP, 1};
        }
        vs[nv++] = (variant_t){"wsc", "nop", "zwt", ITO_SYS_NOP, 1};
        vs[nv++] = (variant_t){"wsc", "nop", "main", ITO_SYS_NOP, 0};
    } else {
        /* The sync backend runs a NOP without entering the kernel: nothing to compare. */
        raw = 0;
        vs[nv++] = (variant_t){"wsc", "getpid", "zwt", ITO_SYS_GETPID, 1};
    }
    if (only_series) {
        int kept = 0;
        for (int v = 0; v < nv; v++) {
            const char *name = strcmp(vs[v].kind, "wsc") ? vs[v].kind : vs[v].issuer;
            if (!strcmp(name, only_series)) vs[kept++] = vs[v];
        }
        nv = kept;
    }
    size_t cells = (size_t)nv * NK;
    double *ns = calloc(cells * (size_t)trials, sizeof *ns);
    double *ratio = calloc(cells * (size_t)trials, sizeof *ratio);
    double *plain = calloc(cells * (size_t)trials, sizeof *plain);
    int *extra_trials = calloc(cells, sizeof *extra_trials);
    if (!ns || !ratio || !plain || !extra_trials) die("out of memory", 0, 0);
    for (int t = -warm; t < trials; t++) {
        for (int ki = 0; ki < NK; ki++) {
            for (int v = 0; v < nv; v++) {
                double p = plain_getpid();
                int extra = 0;
                double w = variant_trial(&vs[v], ks[ki], &extra);
                if (t < 0) continue;
                size_t c = (size_t)v * NK + (size_t)ki, at = c * (size_t)trials + (size_t)t;
                extra_trials[c] += extra;
                ns[at] = w;
                ratio[at] = w / p;
                plain[at] = p;
            }
        }
    }
    for (int v = 0; v < nv; v++) {
        for (int ki = 0; ki < NK; ki++) {
            size_t c = (size_t)v * NK + (size_t)ki;
            double mw = median(&ns[c * (size_t)trials], trials);
            double mr = median(&ratio[c * (size_t)trials], trials);
            int crossings = want == ITO_WSC_URING && vs[v].sysop == ITO_SYS_NOP ? NCALLS / ks[ki] : NCALLS;
            printf("RESULT kind=%s backend=%s op=%s issuer=%s k=%d calls=%d median_ns=%.1f ratio=%.4f "
                   "trials=%d crossings=%d",
                   vs[v].kind, backend, vs[v].op, vs[v].issuer, ks[ki], NCALLS, mw, mr, trials, crossings);
            if (!strcmp(vs[v].kind, "wsc")) printf(" extra_trials=%d", extra_trials[c]);
            printf("\n");
        }
    }
    printf("RESULT kind=plain backend=%s op=getpid calls=%d median_ns=%.1f trials=%d\n", backend, NCALLS,
           median(plain, (int)cells * trials), (int)cells * trials);
    ito_wsc_stats_t st;
    ito_wsc_stats(&st);
    printf("# %s: posted %llu completed %llu crossings %llu flushes: threshold %llu idle %llu explicit %llu\n",
           backend, (unsigned long long)st.posted, (unsigned long long)st.completed,
           (unsigned long long)st.crossings, (unsigned long long)st.flush_threshold,
           (unsigned long long)st.flush_idle, (unsigned long long)st.flush_explicit);
    free(ns);
    free(ratio);
    free(plain);
    free(extra_trials);
    if (raw) io_uring_queue_exit(&raw_ring);
    if (ito_finalize() != ITO_OK) die("ito_finalize", 0, 0);
    unsetenv("ITO_WSC_BACKEND");
}

static void usage(void)
{
    fprintf(stderr, "usage: wsc_fig11 [--trials N] [--warmup N] [--backend uring|sync|both] [--no-raw]\n"
                    "                  [--k K] [--series raw|floor|zwt|main]\n");
    exit(1);
}

int main(int argc, char **argv)
{
    int trials = 301, warm = 30, raw = 1;
    const char *backend = "both";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--trials") && i + 1 < argc) trials = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--warmup") && i + 1 < argc) warm = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--backend") && i + 1 < argc) backend = argv[++i];
        else if (!strcmp(argv[i], "--no-raw")) raw = 0;
        else if (!strcmp(argv[i], "--k") && i + 1 < argc) ks[0] = atoi(argv[++i]), NK = 1;
        else if (!strcmp(argv[i], "--series") && i + 1 < argc) only_series = argv[++i];
        else usage();
    }
    if (trials < 1 || warm < 0 || ks[0] < 1 || ks[0] > NCALLS) usage();
    if (strcmp(backend, "uring") && strcmp(backend, "sync") && strcmp(backend, "both")) usage();
    printf("# wsc_fig11: %d calls per trial, %d trials (+%d warm-up), pid %ld\n", NCALLS, trials, warm,
           (long)getpid());
    if (strcmp(backend, "sync")) run_backend("uring", trials, warm, raw);
    if (strcmp(backend, "uring")) run_backend("sync", trials, warm, raw);
    return 0;
}
