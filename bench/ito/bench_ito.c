/* bench_ito: ito's numbers for the side-by-side benchmarks (bench/, `ito-lab bench`).
 *
 *   switch       one direction of a ping-pong between two raw contexts, for each
 *                switch flavour (ito-abi, ito-min, ito-full), no scheduler involved
 *                (ito-abi: itoa_switch_abi_np, the ABI switch without a post action,
 *                as the yield fast path uses it);
 *   switch_fp    the ABI ping-pong after both contexts did floating-point work that
 *                left different sticky flags in their MXCSRs (ours inexact, the
 *                peer's invalid), with each way of restoring them: ito-abi (this
 *                CPU's default, ITO_FP_RESTORE=auto), ito-abi-always, ito-abi-lazy;
 *   yield        two ULTs on one worker yielding to each other, per yield;
 *   yield_sites  four ULTs on one worker in a round robin, yielding from four call
 *                sites (ito-4sites) or from one (ito-1site), per yield;
 *   coop_yield   two ULTs on one worker, each taking a compiled yield point whose flag is
 *                set (the slow path a timer's quantum leads to: ito_coop_yield_abi after
 *                ito_coop_flag = 1), per yield; run only when named with --only;
 *   create_join  create + run + join one empty ULT on one worker, per ULT;
 *   create_1m    1,000,000 empty ULTs created and joined on all workers, per ULT
 *                (in batches of 10,000 alive at a time: see bench/README.md).
 * Each trial is timed with CLOCK_MONOTONIC; the median of the trials is printed as
 *   RESULT benchmark=<b> system=<s> median_ns=<x> trials=<n>
 * Usage: bench_ito [--trials N] [--quick] [--only switch|switch_fp|yield|yield_sites|coop_yield|create_join|zwt_chain|psafe|create_1m] */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "arch/x86_64/itoa.h"
#include "bench_util.h"
#include "ito/ito.h"




static void report(const char *bench, const char *sys, double *v, int n)
{
    printf("RESULT benchmark=%s system=%s median_ns=%.3f trials=%d\n", bench, sys, itob_median(v, n), n);
    fflush(stdout);
}

/* ---- raw switch ---- */
static void *main_sp, *peer_sp;

static int peer_fp; /* switch_fp: raise the invalid flag first (0/0) */

/* One peer and one timed loop per flavour, each as tight as Boost.Context's (a jump in a
 * loop): a flavour test inside the loop cost every switch a load and a branch its peer
 * does not pay. */
static void peer_abi(void)
{
    if (peer_fp) {
        volatile double zero = 0.0;
        volatile double nan = zero / zero;
        (void)nan;
    }
    for (;;) itoa_switch_abi_np(&peer_sp, main_sp);
}
static void peer_min(void)
{
    for (;;) ITOA_SWITCH_MIN(&peer_sp, main_sp, NULL, NULL);
}
static void peer_full(void)
{
    for (;;) itoa_switch_full(&peer_sp, main_sp, NULL, NULL);
}

static void bench_switch(int trials, long n)
{
    const char *names[] = {"ito-abi", "ito-min", "ito-full"};
    size_t sz = 256 * 1024;
    char *stk = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    itoa_cpu_init(ITOA_FP_AUTO);
    double *v = calloc((size_t)trials, sizeof *v);
    for (int flavour = 0; flavour < 3; flavour++) { /* 0 abi, 1 min, 2 full */
        peer_sp = itoa_make(stk + sz, flavour == 0 ? peer_abi : flavour == 1 ? peer_min : peer_full);
        for (int t = -1; t < trials; t++) { /* trial -1 warms up */
            double t0 = itob_now_ns();
            if (flavour == 0)
                for (long i = 0; i < n; i++) itoa_switch_abi_np(&main_sp, peer_sp);
            else if (flavour == 1)
                for (long i = 0; i < n; i++) ITOA_SWITCH_MIN(&main_sp, peer_sp, NULL, NULL);
            else
                for (long i = 0; i < n; i++) itoa_switch_full(&main_sp, peer_sp, NULL, NULL);
            double dt = itob_now_ns() - t0;
            if (t >= 0) v[t] = dt / (2.0 * (double)n);
        }
        report("switch", names[flavour], v, trials);
    }
    free(v);
    munmap(stk, sz);
}

static void bench_switch_fp(int trials, long n)
{
    const char *names[] = {"ito-abi", "ito-abi-always", "ito-abi-lazy"};
    const int modes[] = {ITOA_FP_AUTO, ITOA_FP_ALWAYS, ITOA_FP_LAZY};
    size_t sz = 256 * 1024;
    char *stk = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    double *v = calloc((size_t)trials, sizeof *v);
    peer_fp = 1;
    for (int m = 0; m < 3; m++) {
        itoa_cpu_init(modes[m]);
        uint32_t clean;
        __asm__ volatile("stmxcsr %0" : "=m"(clean));
        clean &= ~0x3fu;
        __asm__ volatile("ldmxcsr %0" ::"m"(clean)); /* no flag: the peer starts clean */
        peer_sp = itoa_make(stk + sz, peer_abi);
        itoa_switch_abi_np(&main_sp, peer_sp); /* the peer raises its flag */
        volatile double one = 1.0, three = 3.0;
        volatile double third = one / three; /* ours: inexact */
        (void)third;
        for (int t = -1; t < trials; t++) {
            double t0 = itob_now_ns();
            for (long i = 0; i < n; i++) itoa_switch_abi_np(&main_sp, peer_sp);
            double dt = itob_now_ns() - t0;
            if (t >= 0) v[t] = dt / (2.0 * (double)n);
        }
        report("switch_fp", names[m], v, trials);
    }
    itoa_cpu_init(ITOA_FP_AUTO);
    peer_fp = 0;
    free(v);
    munmap(stk, sz);
}

/* ---- scheduler benchmarks ---- */
static void *yield_loop(void *a)
{
    long n = (long)(intptr_t)a;
    for (long i = 0; i < n; i++) ito_yield();
    return NULL;
}

/* yield_sites: four ULTs in a round robin, each yielding from a call site of its own
 * (ito-4sites) or all from one (ito-1site). The return jump of the switch goes to a
 * different place on every switch in the first case: it shows whether the indirect
 * predictor follows a repeating order of sites (see switch_x86_64_sysv_elf_gas.S). */
#define SITE_LOOP(k)                                                   \
    static __attribute__((noinline)) void site_loop##k(long n)         \
    {                                                                  \
        for (long i = 0; i < n; i++) {                                 \
            ito_yield();                                               \
            __asm__ volatile("" ::"r"(i + k) : "memory");              \
        }                                                              \
    }
SITE_LOOP(0)
SITE_LOOP(1)
SITE_LOOP(2)
SITE_LOOP(3)
static void (*const site_loops[4])(long) = {site_loop0, site_loop1, site_loop2, site_loop3};
static long sites_n;
static void *sites_body(void *a)
{
    site_loops[(intptr_t)a](sites_n);
    return NULL;
}

static void bench_yield_sites(int trials, long n)
{
    ito_config_t cfg = {.workers = 1};
    ito_init(&cfg);
    double *v = calloc((size_t)trials, sizeof *v);
    sites_n = n / 2;
    for (int distinct = 1; distinct >= 0; distinct--) {
        for (int t = -1; t < trials; t++) {
            ito_thread_t th[4];
            for (int k = 0; k < 4; k++) ito_create(&th[k], sites_body, (void *)(intptr_t)(distinct ? k : 0), NULL);
            double t0 = itob_now_ns();
            for (int k = 0; k < 4; k++) ito_join(th[k], NULL);
            double dt = itob_now_ns() - t0;
            if (t >= 0) v[t] = dt / (4.0 * (double)sites_n);
        }
        report("yield_sites", distinct ? "ito-4sites" : "ito-1site", v, trials);
    }
    ito_finalize();
    free(v);
}

static void *coop_loop(void *a)
{
    long n = (long)(intptr_t)a;
    for (long i = 0; i < n; i++) {
        ito_coop_flag = 1;
        ito_coop_yield_abi();
    }
    return NULL;
}

static void bench_coop_yield(int trials, long n)
{
    ito_config_t cfg = {.workers = 1};
    ito_init(&cfg);
    double *v = calloc((size_t)trials, sizeof *v);
    for (int t = -1; t < trials; t++) {
        ito_thread_t th[2];
        for (int k = 0; k < 2; k++) ito_create(&th[k], coop_loop, (void *)(intptr_t)n, NULL);
        double t0 = itob_now_ns();
        for (int k = 0; k < 2; k++) ito_join(th[k], NULL);
        double dt = itob_now_ns() - t0;
        if (t >= 0) v[t] = dt / (2.0 * (double)n);
    }
    report("coop_yield", "ito", v, trials);
    ito_finalize();
    free(v);
}

static void *empty(void *a) { return a; }

static void bench_yield(int trials, long n)
{
    ito_config_t cfg = {.workers = 1};
    ito_init(&cfg);
    double *v = calloc((size_t)trials, sizeof *v);
    for (int t = -1; t < trials; t++) {
        ito_thread_t th;
        ito_create(&th, yield_loop, (void *)(intptr_t)n, NULL);
        double t0 = itob_now_ns();
        for (long i = 0; i < n; i++) ito_yield();
        ito_join(th, NULL);
        double dt = itob_now_ns() - t0;
        if (t >= 0) v[t] = dt / (2.0 * (double)n);
    }
    report("yield", "ito", v, trials);
    ito_finalize();
    free(v);
}

static void bench_create_join(int trials, long n)
{
    ito_config_t cfg = {.workers = 1};
    ito_init(&cfg);
    double *v = calloc((size_t)trials, sizeof *v);
    for (int t = -1; t < trials; t++) {
        double t0 = itob_now_ns();
        for (long i = 0; i < n; i++) {
            ito_thread_t th;
            ito_create(&th, empty, NULL, NULL);
            ito_join(th, NULL);
        }
        double dt = itob_now_ns() - t0;
        if (t >= 0) v[t] = dt / (double)n;
    }
    report("create_join", "ito", v, trials);
    ito_finalize();
    free(v);
}

#define BATCH 10000
static void *creator(void *a)
{
    long n = (long)(intptr_t)a;
    ito_thread_t *ts = malloc(BATCH * sizeof *ts);
    for (long done = 0; done < n; done += BATCH) {
        long k = n - done < BATCH ? n - done : BATCH;
        for (long i = 0; i < k; i++) ito_create(&ts[i], empty, NULL, NULL);
        for (long i = 0; i < k; i++) ito_join(ts[i], NULL);
    }
    free(ts);
    return NULL;
}

static void bench_create_1m(int trials, long n)
{
    ito_init(NULL);
    int nw = ito_worker_count();
    double *v = calloc((size_t)trials, sizeof *v);
    ito_thread_t *cs = calloc((size_t)nw, sizeof *cs);
    for (int t = -1; t < trials; t++) {
        double t0 = itob_now_ns();
        for (int w = 0; w < nw; w++) {
            ito_attr_t at;
            ito_attr_init(&at);
            at.worker = w; /* one creator per worker: the creation itself runs everywhere */
            ito_create(&cs[w], creator, (void *)(intptr_t)(n / nw), &at);
        }
        for (int w = 0; w < nw; w++) ito_join(cs[w], NULL);
        double dt = itob_now_ns() - t0;
        if (t >= 0) v[t] = dt / (double)n;
    }
    report("create_1m", "ito", v, trials);
    ito_finalize();
    free(cs);
    free(v);
}

/* ---- zero-wait threads: a chain of counter-fired threads on one worker ---- */
static long chain_len;
static void chain_link(ito_frame_t *f, int entry, uint64_t v)
{
    (void)v;
    ito_rearm(f, entry, 1);
    if (entry + 1 < chain_len) ito_continue(f, entry + 1);
    else ito_continue(f, (int)chain_len); /* the waiter */
}

static void bench_zwt_chain(int trials, long n)
{
    ito_config_t cfg = {.workers = 1};
    ito_init(&cfg);
    chain_len = n;
    ito_frame_t *f;
    ito_frame_create(&f, (int)n + 1, 0);
    for (long i = 0; i < n; i++) ito_entry_set(f, (int)i, chain_link, 1, ITO_MODE_USER);
    ito_entry_set(f, (int)n, NULL, 1, ITO_MODE_USER);
    double *v = calloc((size_t)trials, sizeof *v);
    for (int t = -1; t < trials; t++) {
        ito_rearm(f, (int)n, 0);
        double t0 = itob_now_ns();
        ito_continue(f, 0);
        ito_frame_wait(f, (int)n);
        double dt = itob_now_ns() - t0;
        if (t >= 0) v[t] = dt / (double)n;
    }
    report("zwt_chain", "ito", v, trials);
    ito_frame_destroy(f);
    ito_finalize();
    free(v);
}

/* ---- preemption-safe region: one ito_psafe_begin or ito_psafe_end (the paper: a 10.8 us signal) ---- */
static void bench_psafe(int trials, long n)
{
    ito_config_t cfg = {.workers = 1};
    ito_init(&cfg);
    double *v = calloc((size_t)trials, sizeof *v);
    for (int t = -1; t < trials; t++) {
        double t0 = itob_now_ns();
        for (long i = 0; i < n; i++) {
            ito_psafe_begin();
            __asm__ volatile("" ::: "memory");
            ito_psafe_end();
        }
        double dt = itob_now_ns() - t0;
        if (t >= 0) v[t] = dt / (2.0 * (double)n);
    }
    report("psafe", "ito", v, trials);
    ito_finalize();
    free(v);
}

int main(int argc, char **argv)
{
    int trials = 31, quick = 0;
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--trials") && i + 1 < argc) trials = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--trials N] [--quick] [--only BENCH]\n", argv[0]);
            return 2;
        }
    }
    if (trials < 1) trials = 1;
    long n = quick ? 20000 : 200000;
    if (!only || !strcmp(only, "switch")) bench_switch(trials, n * 5);
    if (!only || !strcmp(only, "switch_fp")) bench_switch_fp(trials, n * 5);
    if (!only || !strcmp(only, "yield")) bench_yield(trials, n);
    if (!only || !strcmp(only, "yield_sites")) bench_yield_sites(trials, n);
    if (only && !strcmp(only, "coop_yield")) bench_coop_yield(trials, n);
    if (!only || !strcmp(only, "create_join")) bench_create_join(trials, n);
    if (!only || !strcmp(only, "zwt_chain")) bench_zwt_chain(trials, n);
    if (!only || !strcmp(only, "psafe")) bench_psafe(trials, n * 5);
    if (!only || !strcmp(only, "create_1m")) bench_create_1m(trials < 5 ? trials : 5, quick ? 100000 : 1000000);
    return 0;
}
