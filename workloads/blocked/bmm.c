/* bmm.c: B-MM, the blocked matrix multiplication of the paper's Example 2 (Z += X * Y).
 *
 * Parallelization (paper, Sect. 2 and 4.2, Fig. 2): the jj loop is divided among the threads
 * (coarsest grain: N/B column blocks over P threads, one block column per thread at the
 * paper's 256/32 on 8 processors), so each thread keeps touching the same Z columns and, for
 * each kk, one B x B block of Y that it reuses N times.  One "block" of the preemption-safe
 * policy is one (kk, jj) iteration: request unpreemptable before it, withdraw after it (the
 * paper's Fig. 3 lines 3 and 11).  Threads write disjoint Z columns: no barrier is needed.
 *
 * Instruction counts (WL_OPS): per innermost iteration fmul, fadd, pointer increment and
 * branch = 4; per k iteration 3 (index arithmetic and loop control); per i iteration 3. */
#include "wl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct bmm {
    long n, b;
    double *x, *y, *z;
} bmm;

static size_t bmm_bytes(const wl_size *s, int nthreads)
{
    (void)nthreads;
    return sizeof(bmm) + 3 * (size_t)s->n * (size_t)s->n * sizeof(double) + 8 * 4096;
}

static void *bmm_setup(wl_arena *a, const wl_size *s, int nthreads, uint64_t seed)
{
    (void)nthreads;
    bmm *m = wl_arena_alloc(a, sizeof *m);
    size_t nn = (size_t)s->n * (size_t)s->n;
    if (!m || s->n % s->b)
        return NULL;
    m->n = s->n;
    m->b = s->b;
    m->x = wl_arena_alloc(a, nn * sizeof(double));
    m->y = wl_arena_alloc(a, nn * sizeof(double));
    m->z = wl_arena_alloc(a, nn * sizeof(double));
    if (!m->x || !m->y || !m->z)
        return NULL;
    for (size_t i = 0; i < nn; i++) {
        m->x[i] = wl_rand01(&seed) - 0.5;
        m->y[i] = wl_rand01(&seed) - 0.5;
        m->z[i] = 0.0;
    }
    return m;
}

static void bmm_thread(wl_ctx *c)
{
    bmm *m = c->prog;
    const long n = m->n, b = m->b, nblk = n / b;
    for (long jb = c->tid; jb < nblk; jb += c->nthreads) {
        const long jj = jb * b;
        for (long kk = 0; kk < n; kk += b) {
            wl_psafe_begin(c);
            for (long i = 0; i < n; i++) {
                double *zi = m->z + i * n;
                for (long k = kk; k < kk + b; k++) {
                    const double r = WL_LD(c, &m->x[i * n + k]);
                    const double *yk = m->y + k * n;
                    for (long j = jj; j < jj + b; j++) {
                        double t = WL_LD(c, &zi[j]) + r * WL_LD(c, &yk[j]);
                        WL_ST(c, &zi[j], t);
                        WL_OPS(c, 4);
                    }
                    WL_OPS(c, 3);
                }
                WL_OPS(c, 3);
            }
            wl_psafe_end(c);
        }
    }
    wl_exit(c);
}

/* Naive reference (Example 1 order) and comparison. */
static int bmm_check(void *prog, char *err, size_t errlen)
{
    bmm *m = prog;
    const long n = m->n;
    double *ref = calloc((size_t)(n * n), sizeof(double));
    if (!ref) {
        snprintf(err, errlen, "bmm: out of memory");
        return -1;
    }
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) {
            double r = m->x[i * n + j];
            for (long k = 0; k < n; k++)
                ref[i * n + k] += r * m->y[j * n + k];
        }
    double worst = 0;
    for (long i = 0; i < n * n; i++)
        worst = fmax(worst, fabs(ref[i] - m->z[i]));
    free(ref);
    if (worst > 1e-9 * (double)n) {
        snprintf(err, errlen, "bmm: max |Z - Z_naive| = %g", worst);
        return -1;
    }
    return 0;
}

const wl_kind wl_bmm = {
    .name = "bmm",
    .label = "B-MM",
    .blocked = 1,
    .sizes = {{256, 32, 1}, {128, 16, 1}, {64, 8, 1}},
    .arena_bytes = bmm_bytes,
    .setup = bmm_setup,
    .thread = bmm_thread,
    .check = bmm_check,
};
