/* peer_common.c: argument parsing, timing, medians and RESULT lines for the peer programs
 * (see peer_common.h for the invariants). */
#define _GNU_SOURCE
#include "peer_common.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const benchmarks[] = {"switch", "switch_fp", "yield", "create_join", "create_1m"};

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s [--trials N] [--quick] [--only BENCHMARK]\n", prog);
    exit(2);
}

static int plain_name(const char *s)
{
    if (!*s) return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_')) return 0;
    return 1;
}

/* any_only: --only takes any plain name (the program prints nothing for names it does
 * not measure), else one of `benchmarks`. */
static peer_opts parse(int argc, char **argv, int any_only)
{
    peer_opts o = {31, 0, NULL};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--trials") && i + 1 < argc) {
            char *end;
            long t = strtol(argv[++i], &end, 10);
            if (*end || t < 1 || t > 100000) usage(argv[0]);
            o.trials = (int)t;
        } else if (!strcmp(argv[i], "--quick")) {
            o.quick = 1;
        } else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
            o.only = argv[++i];
            int known = any_only && plain_name(o.only);
            for (size_t k = 0; k < sizeof benchmarks / sizeof *benchmarks; k++)
                known |= !strcmp(o.only, benchmarks[k]);
            if (!known) usage(argv[0]);
        } else {
            usage(argv[0]);
        }
    }
    return o;
}

peer_opts peer_parse_args(int argc, char **argv) { return parse(argc, argv, 0); }

peer_opts peer_parse_args_any(int argc, char **argv) { return parse(argc, argv, 1); }

int peer_wants(const peer_opts *o, const char *name)
{
    return !o->only || !strcmp(o->only, name);
}

long peer_ops(const peer_opts *o, long full)
{
    long n = o->quick ? full / 10 : full;
    return n < 1 ? 1 : n;
}

int peer_trials_1m(const peer_opts *o)
{
    return o->trials < 5 ? o->trials : 5;
}

long peer_threads_1m(const peer_opts *o)
{
    return o->quick ? 100000 : 1000000;
}

double peer_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void peer_report(const char *bench, const char *system, double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    double med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
    printf("RESULT benchmark=%s system=%s median_ns=%.3f trials=%d\n", bench, system, med, n);
    fflush(stdout);
}

void peer_measure(const peer_opts *o, const char *bench, const char *system, long n, double per,
                  void (*body)(long n))
{
    double *v = peer_samples(o->trials);
    for (int t = -1; t < o->trials; t++) { /* trial -1 warms up */
        double t0 = peer_now_ns();
        body(n);
        double dt = peer_now_ns() - t0;
        if (t >= 0) v[t] = dt / (per * (double)n);
    }
    peer_report(bench, system, v, o->trials);
    free(v);
}

double *peer_samples(int n)
{
    double *v = calloc((size_t)n, sizeof *v);
    if (!v) {
        perror("calloc");
        exit(1);
    }
    return v;
}

int peer_first_cpu(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &set)) return c;
    return 0;
}

int peer_cpu_count(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
    int n = CPU_COUNT(&set);
    return n < 1 ? 1 : n;
}
