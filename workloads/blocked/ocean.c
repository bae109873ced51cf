/* ocean.c: OCEAN-like red-black SOR solver of a Poisson equation on an n x n interior grid
 * (with a boundary ring).  A non-blocked program: no psafe regions.  SPLASH-2's OCEAN spends
 * most of its time in exactly such red-black relaxation sweeps over 2-D grids partitioned
 * into contiguous row bands, one per processor; its 25 grids are reduced here to the two
 * the solver needs (u and f), an assumption written down in the reproduction doc.
 *
 * One iteration = red sweep, barrier, black sweep, barrier.  A point depends only on points
 * of the other colour, so the result is independent of the number of threads bit for bit.
 *
 * Instruction counts per point: 4 adds, 3 multiplies, index and loop control 3 = 10. */
#include "wl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct ocean {
    long n, iters;
    double *u, *f, *u0;
} ocean;

static const double OMEGA = 1.5;

static inline double relax(double u, double nb, double sb, double eb, double wb, double f, double h2)
{
    return (1.0 - OMEGA) * u + OMEGA * 0.25 * (nb + sb + eb + wb - h2 * f);
}

static size_t ocean_bytes(const wl_size *s, int nthreads)
{
    (void)nthreads;
    size_t g = (size_t)(s->n + 2) * (size_t)(s->n + 2);
    return sizeof(ocean) + 3 * g * sizeof(double) + 8 * 4096;
}

static void *ocean_setup(wl_arena *a, const wl_size *s, int nthreads, uint64_t seed)
{
    (void)nthreads;
    ocean *m = wl_arena_alloc(a, sizeof *m);
    size_t g = (size_t)(s->n + 2) * (size_t)(s->n + 2);
    if (!m || s->n < 2)
        return NULL;
    m->n = s->n;
    m->iters = s->iters;
    m->u = wl_arena_alloc(a, g * sizeof(double));
    m->f = wl_arena_alloc(a, g * sizeof(double));
    m->u0 = wl_arena_alloc(a, g * sizeof(double));
    if (!m->u || !m->f || !m->u0)
        return NULL;
    for (size_t i = 0; i < g; i++) {
        m->u[i] = wl_rand01(&seed);
        m->f[i] = wl_rand01(&seed) - 0.5;
    }
    memcpy(m->u0, m->u, g * sizeof(double));
    return m;
}

static void ocean_thread(wl_ctx *c)
{
    ocean *m = c->prog;
    const long n = m->n, w = n + 2;
    const double h2 = 1.0 / ((double)(n + 1) * (double)(n + 1));
    long lo, hi;
    wl_range(n, c->tid, c->nthreads, &lo, &hi);
    for (long it = 0; it < m->iters; it++) {
        for (int colour = 0; colour < 2; colour++) {
            for (long i = lo + 1; i < hi + 1; i++) {
                for (long j = 1 + ((i + colour) & 1); j <= n; j += 2) {
                    double *p = &m->u[i * w + j];
                    double v = relax(WL_LD(c, p), WL_LD(c, p - w), WL_LD(c, p + w), WL_LD(c, p + 1),
                                     WL_LD(c, p - 1), WL_LD(c, &m->f[i * w + j]), h2);
                    WL_ST(c, p, v);
                    WL_OPS(c, 10);
                }
            }
            wl_barrier(c);
        }
    }
    wl_exit(c);
}

static int ocean_check(void *prog, char *err, size_t errlen)
{
    ocean *m = prog;
    const long n = m->n, w = n + 2;
    const double h2 = 1.0 / ((double)(n + 1) * (double)(n + 1));
    size_t g = (size_t)w * (size_t)w;
    double *r = malloc(g * sizeof(double));
    if (!r) {
        snprintf(err, errlen, "ocean: out of memory");
        return -1;
    }
    memcpy(r, m->u0, g * sizeof(double));
    for (long it = 0; it < m->iters; it++)
        for (int colour = 0; colour < 2; colour++)
            for (long i = 1; i <= n; i++)
                for (long j = 1; j <= n; j++)
                    if (((i + j + colour) & 1) == 1) /* colour c: j - 1 = i + c (mod 2) */
                        r[i * w + j] = relax(r[i * w + j], r[(i - 1) * w + j], r[(i + 1) * w + j],
                                             r[i * w + j + 1], r[i * w + j - 1], m->f[i * w + j], h2);
    int bad = memcmp(r, m->u, g * sizeof(double)) != 0;
    free(r);
    if (bad) {
        snprintf(err, errlen, "ocean: grid differs from the serial red-black sweep");
        return -1;
    }
    return 0;
}

const wl_kind wl_ocean = {
    .name = "ocean",
    .label = "OCEAN",
    .blocked = 0,
    .sizes = {{512, 0, 58}, {256, 0, 32}, {30, 0, 5}},
    .arena_bytes = ocean_bytes,
    .setup = ocean_setup,
    .thread = ocean_thread,
    .check = ocean_check,
};
