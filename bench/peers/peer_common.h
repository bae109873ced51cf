/* peer_common.h: what every peer benchmark program (bench_<peer>) shares.
 *
 * A peer program measures one or more of the side-by-side benchmarks (switch, yield,
 * create_join, create_1m) for one system and prints, per benchmark and system, one line
 *     RESULT benchmark=<b> system=<s> median_ns=<x> trials=<n>
 * on stdout; the lab (`ito-lab bench`) parses exactly that.
 *
 * Invariants every program keeps:
 *   - a trial is timed with CLOCK_MONOTONIC around the whole batch of operations, and the
 *     per-operation time is (elapsed / operations): the timer is read twice per trial,
 *     never per operation, so its ~20 ns cost is swamped by >= 1e5 operations (or by
 *     microseconds-long operations for pthreads);
 *   - one untimed warm-up trial runs first (faults in stacks, pools, caches);
 *   - the printed number is the median of the timed trials.
 * Command line: [--trials N] [--quick] [--only BENCH] (BENCH: one of the four names). */
#ifndef PEER_COMMON_H
#define PEER_COMMON_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct peer_opts {
    int trials;       /* timed trials per benchmark (default 31) */
    int quick;        /* --quick: one tenth of the operations, 100,000 threads for create_1m */
    const char *only; /* --only BENCH, or NULL for every benchmark of the program */
} peer_opts;

/* Parses the command line; prints usage and exits 2 on anything it does not know. */
peer_opts peer_parse_args(int argc, char **argv);
/* The same, but --only takes any name of [a-z0-9_] (the synchronization benchmarks: a
 * program prints nothing for a benchmark it does not measure, as bench_ito does). */
peer_opts peer_parse_args_any(int argc, char **argv);

/* Whether benchmark `name` should run under these options. */
int peer_wants(const peer_opts *o, const char *name);

/* Operations per trial: `full`, or full/10 under --quick (never below 1). */
long peer_ops(const peer_opts *o, long full);

/* Trials of the create_1m benchmark: at most 5, each trial is a million threads. */
int peer_trials_1m(const peer_opts *o);

/* Threads created per create_1m trial: 1,000,000, or 100,000 under --quick. */
long peer_threads_1m(const peer_opts *o);

/* CLOCK_MONOTONIC in nanoseconds. */
double peer_now_ns(void);

/* Sorts v[0..n) in place and prints its median as a RESULT line (flushes stdout). */
void peer_report(const char *bench, const char *system, double *v, int n);

/* Runs body(n) once to warm up, then o->trials times, each timed around the whole call,
 * and prints the median of elapsed / (per * n) as a RESULT line of `bench`/`system`. */
void peer_measure(const peer_opts *o, const char *bench, const char *system, long n, double per,
                  void (*body)(long n));

/* A zeroed array of n doubles for the trial samples; exits on out of memory. */
double *peer_samples(int n);

/* The first CPU in the calling thread's affinity mask (what `taskset -c K` chose). */
int peer_first_cpu(void);

/* Number of CPUs in the calling thread's affinity mask. */
int peer_cpu_count(void);

#ifdef __cplusplus
}
#endif

#endif
