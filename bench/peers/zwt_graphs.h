/* zwt_graphs.h: the three task graphs of the ZWT benchmarks, built identically for ito
 * (bench/ito/bench_zwt.c) and for oneTBB flow_graph (bench/peers/tbb_flow.cpp), and the
 * small command line both programs share.
 *
 * A graph is in CSR form: node i's successors are succ[sstart[i] .. sstart[i+1]) and its
 * fan-in (number of incoming edges) is fanin[i]; sources have fan-in 0. Graphs:
 *   chain   n nodes, i -> i+1 (the counter-fired chain);
 *   diamond 1 source -> w middle nodes -> 1 sink (fan-out, then fan-in w);
 *   dag     `layers` layers of `width` nodes; each node of layer k > 0 has 1..4
 *           predecessors drawn (seeded xorshift) from layer k-1, repeats merged.
 * Benchmarks print `RESULT benchmark=zwt_<graph>_<1w|all> system=<s> median_ns=<x>
 * trials=<n>`: nanoseconds per node fired (one trial runs the whole graph once). */
#ifndef ZWT_GRAPHS_H
#define ZWT_GRAPHS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct zg {
    int n, nsinks;
    int *sstart, *succ, *fanin;
} zg_t;

static inline void *zg_alloc(size_t bytes)
{
    void *p = calloc(1, bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "zwt_graphs: out of memory\n");
        exit(1);
    }
    return p;
}

/* From an edge list (from[k] -> to[k], m edges): CSR, fan-ins, sink count. */
static inline zg_t zg_from_edges(int n, const int *from, const int *to, int m)
{
    zg_t g;
    g.n = n;
    g.sstart = (int *)zg_alloc(sizeof(int) * ((size_t)n + 1));
    g.succ = (int *)zg_alloc(sizeof(int) * ((size_t)m + 1));
    g.fanin = (int *)zg_alloc(sizeof(int) * (size_t)n);
    for (int k = 0; k < m; k++) {
        g.sstart[from[k] + 1]++;
        g.fanin[to[k]]++;
    }
    for (int i = 0; i < n; i++) g.sstart[i + 1] += g.sstart[i];
    int *fill = (int *)zg_alloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++) fill[i] = g.sstart[i];
    for (int k = 0; k < m; k++) g.succ[fill[from[k]]++] = to[k];
    free(fill);
    g.nsinks = 0;
    for (int i = 0; i < n; i++) g.nsinks += g.sstart[i] == g.sstart[i + 1];
    return g;
}

static inline zg_t zg_chain(int n)
{
    int *f = (int *)zg_alloc(sizeof(int) * (size_t)n), *t = (int *)zg_alloc(sizeof(int) * (size_t)n);
    for (int i = 0; i + 1 < n; i++) {
        f[i] = i;
        t[i] = i + 1;
    }
    zg_t g = zg_from_edges(n, f, t, n - 1);
    free(f);
    free(t);
    return g;
}

static inline zg_t zg_diamond(int w)
{
    int n = w + 2, m = 2 * w;
    int *f = (int *)zg_alloc(sizeof(int) * (size_t)m), *t = (int *)zg_alloc(sizeof(int) * (size_t)m);
    for (int i = 0; i < w; i++) {
        f[2 * i] = 0;
        t[2 * i] = 1 + i;
        f[2 * i + 1] = 1 + i;
        t[2 * i + 1] = w + 1;
    }
    zg_t g = zg_from_edges(n, f, t, m);
    free(f);
    free(t);
    return g;
}

static inline zg_t zg_dag(int layers, int width, uint64_t seed)
{
    int n = layers * width, m = 0;
    int *f = (int *)zg_alloc(sizeof(int) * (size_t)n * 4), *t = (int *)zg_alloc(sizeof(int) * (size_t)n * 4);
    uint64_t x = seed | 1;
    for (int l = 1; l < layers; l++) {
        for (int j = 0; j < width; j++) {
            int me = l * width + j, got[4], k = 0;
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            int want = 1 + (int)(x % 4);
            while (k < want) {
                x ^= x << 13; x ^= x >> 7; x ^= x << 17;
                int p = (l - 1) * width + (int)(x % (uint64_t)width), dup = 0;
                for (int q = 0; q < k; q++) dup |= got[q] == p;
                if (dup) { want--; continue; }
                got[k++] = p;
                f[m] = p;
                t[m++] = me;
            }
        }
    }
    zg_t g = zg_from_edges(n, f, t, m);
    free(f);
    free(t);
    return g;
}

static inline void zg_free(zg_t *g)
{
    free(g->sstart);
    free(g->succ);
    free(g->fanin);
}

typedef struct zg_opts {
    int trials, quick;
    const char *only; /* a graph name (chain, diamond, dag) or NULL */
} zg_opts;

static inline zg_opts zg_parse(int argc, char **argv)
{
    zg_opts o = {11, 0, NULL};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--trials") && i + 1 < argc) o.trials = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--quick")) o.quick = 1;
        else if (!strcmp(argv[i], "--only") && i + 1 < argc) o.only = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--trials N] [--quick] [--only chain|diamond|dag]\n", argv[0]);
            exit(2);
        }
    }
    if (o.trials < 1) o.trials = 1;
    return o;
}

/* The graphs at their benchmark sizes (a tenth under --quick). */
static inline zg_t zg_make(const char *name, int quick)
{
    int s = quick ? 10 : 1;
    if (!strcmp(name, "chain")) return zg_chain(200000 / s);
    if (!strcmp(name, "diamond")) return zg_diamond(100000 / s);
    return zg_dag(100, 2000 / s, 12345);
}

static inline int zg_wants(const zg_opts *o, const char *name) { return !o->only || !strcmp(o->only, name); }

static int zg_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static inline void zg_report(const char *bench, const char *system, double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, zg_cmp);
    double med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    printf("RESULT benchmark=%s system=%s median_ns=%.3f trials=%d\n", bench, system, med, n);
    fflush(stdout);
}

#endif
