/* blu.c: B-LU, blocked right-looking LU decomposition without pivoting (the matrix is made
 * diagonally dominant, as in SPLASH-2's LU).
 *
 * Layout: the matrix is stored block by block, each B x B block contiguous, as in SPLASH-2's
 * "contiguous blocks" LU (the paper's reference [17]); row-major storage would make the rows
 * of one 64 x 64 block (4 KB apart at N = 512) collide with each other in a 128 KB
 * direct-mapped cache, and no block could be reused at all.
 *
 * Parallelization (coarsest grain, the block is the grain, paper Sect. 4.2): block column jb
 * belongs to thread jb mod P (one block column per thread at 512/64 on 8 processors).  Step
 * kb of nb = N/B steps:
 *   1. the owner of column kb factors the diagonal block and solves the blocks below it
 *      (one block computation: reuses the diagonal block);
 *   2. barrier;
 *   3. every thread, for each of its columns jb > kb: solves U(kb,jb) with L(kb,kb), then
 *      updates A(ib,jb) -= L(ib,kb) U(kb,jb) for all ib > kb (one block computation: reuses
 *      the B x B block U(kb,jb) nb-kb-1 times);
 *   4. barrier.
 * Each block computation is one psafe region (request before, withdraw after).  Between
 * barriers threads write disjoint block columns.
 *
 * Instruction counts: innermost update fmul, fsub, increment, branch = 4; per middle loop 3;
 * the division in the factorization counts 4 more. */
#include "wl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct blu {
    long n, b;
    double *a, *orig;
} blu;

static inline double *blk(const blu *m, long ib, long jb)
{
    return m->a + (ib * (m->n / m->b) + jb) * m->b * m->b;
}

static size_t blu_bytes(const wl_size *s, int nthreads)
{
    (void)nthreads;
    return sizeof(blu) + 2 * (size_t)s->n * (size_t)s->n * sizeof(double) + 8 * 4096;
}

static void *blu_setup(wl_arena *ar, const wl_size *s, int nthreads, uint64_t seed)
{
    (void)nthreads;
    blu *m = wl_arena_alloc(ar, sizeof *m);
    size_t nn = (size_t)s->n * (size_t)s->n;
    if (!m || s->n % s->b)
        return NULL;
    m->n = s->n;
    m->b = s->b;
    m->a = wl_arena_alloc(ar, nn * sizeof(double));
    m->orig = wl_arena_alloc(ar, nn * sizeof(double));
    if (!m->a || !m->orig)
        return NULL;
    for (long i = 0; i < s->n; i++)
        for (long j = 0; j < s->n; j++) {
            double v = wl_rand01(&seed) - 0.5 + (i == j ? (double)s->n : 0.0);
            m->orig[i * s->n + j] = v;
            blk(m, i / s->b, j / s->b)[(i % s->b) * s->b + j % s->b] = v;
        }
    return m;
}

/* C -= L * U on B x B blocks; lower_only: C = L^-1 C with L unit lower triangular (then
 * C and U are the same block and row r only uses the rows m < r already solved). */
static void update(wl_ctx *c, long b, double *cb, const double *lb, const double *ub, int lower_only)
{
    for (long r = 0; r < b; r++) {
        const long mend = lower_only ? r : b;
        for (long k = 0; k < mend; k++) {
            const double l = WL_LD(c, &lb[r * b + k]);
            for (long j = 0; j < b; j++) {
                double t = WL_LD(c, &cb[r * b + j]) - l * WL_LD(c, &ub[k * b + j]);
                WL_ST(c, &cb[r * b + j], t);
                WL_OPS(c, 4);
            }
            WL_OPS(c, 3);
        }
    }
}

/* X = X U^-1 for the upper triangle U of the factored diagonal block d, row by row. */
static void solve_right(wl_ctx *c, long b, double *x, const double *d)
{
    for (long r = 0; r < b; r++) {
        for (long p = 0; p < b; p++) {
            double l = WL_LD(c, &x[r * b + p]) / WL_LD(c, &d[p * b + p]);
            WL_ST(c, &x[r * b + p], l);
            WL_OPS(c, 4);
            for (long j = p + 1; j < b; j++) {
                double t = WL_LD(c, &x[r * b + j]) - l * WL_LD(c, &d[p * b + j]);
                WL_ST(c, &x[r * b + j], t);
                WL_OPS(c, 4);
            }
            WL_OPS(c, 3);
        }
    }
}

static void factor_panel(wl_ctx *c, blu *m, long kb)
{
    const long b = m->b, nb = m->n / m->b;
    double *d = blk(m, kb, kb);
    for (long p = 0; p < b; p++) { /* diagonal block, unblocked LU */
        const double piv = WL_LD(c, &d[p * b + p]);
        for (long r = p + 1; r < b; r++) {
            double l = WL_LD(c, &d[r * b + p]) / piv;
            WL_ST(c, &d[r * b + p], l);
            WL_OPS(c, 4);
            for (long j = p + 1; j < b; j++) {
                double t = WL_LD(c, &d[r * b + j]) - l * WL_LD(c, &d[p * b + j]);
                WL_ST(c, &d[r * b + j], t);
                WL_OPS(c, 4);
            }
        }
    }
    for (long ib = kb + 1; ib < nb; ib++)
        solve_right(c, b, blk(m, ib, kb), d);
}

static void blu_thread(wl_ctx *c)
{
    blu *m = c->prog;
    const long b = m->b, nb = m->n / b;
    for (long kb = 0; kb < nb; kb++) {
        if (kb % c->nthreads == c->tid) {
            wl_psafe_begin(c);
            factor_panel(c, m, kb);
            wl_psafe_end(c);
        }
        wl_barrier(c);
        for (long jb = kb + 1; jb < nb; jb++) {
            if (jb % c->nthreads != c->tid)
                continue;
            wl_psafe_begin(c);
            double *u = blk(m, kb, jb);
            update(c, b, u, blk(m, kb, kb), u, 1); /* U(kb,jb) = L(kb,kb)^-1 A(kb,jb) */
            for (long ib = kb + 1; ib < nb; ib++)  /* trailing blocks of this column reuse U */
                update(c, b, blk(m, ib, jb), blk(m, ib, kb), u, 0);
            wl_psafe_end(c);
        }
        wl_barrier(c);
    }
    wl_exit(c);
}

static int blu_check(void *prog, char *err, size_t errlen)
{
    blu *m = prog;
    const long n = m->n;
    double *r = malloc((size_t)(n * n) * sizeof(double));
    if (!r) {
        snprintf(err, errlen, "blu: out of memory");
        return -1;
    }
    memcpy(r, m->orig, (size_t)(n * n) * sizeof(double));
    for (long k = 0; k < n; k++)
        for (long i = k + 1; i < n; i++) {
            r[i * n + k] /= r[k * n + k];
            for (long j = k + 1; j < n; j++)
                r[i * n + j] -= r[i * n + k] * r[k * n + j];
        }
    double worst = 0;
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++)
            worst = fmax(worst, fabs(r[i * n + j] - blk(m, i / m->b, j / m->b)[(i % m->b) * m->b + j % m->b]));
    free(r);
    if (worst > 1e-9) {
        snprintf(err, errlen, "blu: max |LU - LU_naive| = %g", worst);
        return -1;
    }
    return 0;
}

const wl_kind wl_blu = {
    .name = "blu",
    .label = "B-LU",
    .blocked = 1,
    .sizes = {{512, 64, 1}, {256, 32, 1}, {64, 8, 1}},
    .arena_bytes = blu_bytes,
    .setup = blu_setup,
    .thread = blu_thread,
    .check = blu_check,
};
