/* fft.c: FFT, iterative radix-2 complex FFT of n = 2^k points (double re/im interleaved).
 * A non-blocked program: no psafe regions.  (SPLASH-2's FFT is the six-step sqrt(n)
 * variant; this radix-2 form has the same data size and the same all-to-all, streaming
 * access pattern that pollutes caches, which is what the paper uses it for.)
 *
 * Phases, each split evenly among the threads and ended by a barrier: bit-reversal
 * permutation (thread owning i swaps i and rev(i) when i < rev(i): disjoint pairs), then
 * log2 n butterfly stages of n/2 butterflies each.  iters = number of passes, alternately
 * forward and inverse (the inverse scales by 1/n in a last phase), so that an even count
 * returns the input.
 *
 * Instruction counts per butterfly: complex multiply 6, add/sub 4, index arithmetic 5, loop
 * control 2 = 17; per bit-reversal element 12 (the reversal loop is done in registers). */
#include "wl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WL_PI 3.14159265358979323846

typedef struct fft {
    long n, iters, logn;
    double *x, *tw, *orig;
} fft;

static size_t fft_bytes(const wl_size *s, int nthreads)
{
    (void)nthreads;
    return sizeof(fft) + 5 * (size_t)s->n * sizeof(double) + 8 * 4096;
}

static void *fft_setup(wl_arena *a, const wl_size *s, int nthreads, uint64_t seed)
{
    (void)nthreads;
    fft *m = wl_arena_alloc(a, sizeof *m);
    if (!m || s->n < 2 || (s->n & (s->n - 1)))
        return NULL;
    m->n = s->n;
    m->iters = s->iters;
    m->logn = 0;
    while ((1L << m->logn) < s->n)
        m->logn++;
    m->x = wl_arena_alloc(a, 2 * (size_t)s->n * sizeof(double));
    m->tw = wl_arena_alloc(a, (size_t)s->n * sizeof(double)); /* n/2 complex */
    m->orig = wl_arena_alloc(a, 2 * (size_t)s->n * sizeof(double));
    if (!m->x || !m->tw || !m->orig)
        return NULL;
    for (long i = 0; i < 2 * s->n; i++)
        m->x[i] = wl_rand01(&seed) - 0.5;
    for (long t = 0; t < s->n / 2; t++) {
        double ang = -2.0 * WL_PI * (double)t / (double)s->n;
        m->tw[2 * t] = cos(ang);
        m->tw[2 * t + 1] = sin(ang);
    }
    memcpy(m->orig, m->x, 2 * (size_t)s->n * sizeof(double));
    return m;
}

static long bitrev(long i, long logn)
{
    long r = 0;
    for (long b = 0; b < logn; b++)
        r |= ((i >> b) & 1) << (logn - 1 - b);
    return r;
}

static void fft_pass(wl_ctx *c, fft *m, int inverse)
{
    const long n = m->n;
    double *x = m->x;
    long lo, hi;
    wl_range(n, c->tid, c->nthreads, &lo, &hi);
    for (long i = lo; i < hi; i++) {
        long r = bitrev(i, m->logn);
        WL_OPS(c, 12);
        if (i < r) {
            double ar = WL_LD(c, &x[2 * i]), ai = WL_LD(c, &x[2 * i + 1]);
            double br = WL_LD(c, &x[2 * r]), bi = WL_LD(c, &x[2 * r + 1]);
            WL_ST(c, &x[2 * i], br);
            WL_ST(c, &x[2 * i + 1], bi);
            WL_ST(c, &x[2 * r], ar);
            WL_ST(c, &x[2 * r + 1], ai);
        }
    }
    wl_barrier(c);
    const double sgn = inverse ? -1.0 : 1.0;
    wl_range(n / 2, c->tid, c->nthreads, &lo, &hi);
    for (long half = 1; half < n; half <<= 1) {
        const long stride = n / (2 * half);
        for (long q = lo; q < hi; q++) {
            const long i = ((q & ~(half - 1)) << 1) | (q & (half - 1));
            const long l = i + half;
            const long t = (q & (half - 1)) * stride;
            const double wr = WL_LD(c, &m->tw[2 * t]), wi = sgn * WL_LD(c, &m->tw[2 * t + 1]);
            const double lr = WL_LD(c, &x[2 * l]), li = WL_LD(c, &x[2 * l + 1]);
            const double tr = wr * lr - wi * li, ti = wr * li + wi * lr;
            const double ur = WL_LD(c, &x[2 * i]), ui = WL_LD(c, &x[2 * i + 1]);
            WL_ST(c, &x[2 * l], ur - tr);
            WL_ST(c, &x[2 * l + 1], ui - ti);
            WL_ST(c, &x[2 * i], ur + tr);
            WL_ST(c, &x[2 * i + 1], ui + ti);
            WL_OPS(c, 17);
        }
        wl_barrier(c);
    }
    if (inverse) {
        const double s = 1.0 / (double)n;
        wl_range(2 * n, c->tid, c->nthreads, &lo, &hi);
        for (long i = lo; i < hi; i++) {
            WL_ST(c, &x[i], WL_LD(c, &x[i]) * s);
            WL_OPS(c, 3);
        }
        wl_barrier(c);
    }
}

static void fft_thread(wl_ctx *c)
{
    fft *m = c->prog;
    for (long p = 0; p < m->iters; p++)
        fft_pass(c, m, (int)(p & 1));
    wl_exit(c);
}

static int fft_check(void *prog, char *err, size_t errlen)
{
    fft *m = prog;
    const long n = m->n;
    double worst = 0;
    if (m->iters % 2 == 0) {
        for (long i = 0; i < 2 * n; i++)
            worst = fmax(worst, fabs(m->x[i] - m->orig[i]));
        if (worst > 1e-9) {
            snprintf(err, errlen, "fft: inverse(forward(x)) differs from x by %g", worst);
            return -1;
        }
        return 0;
    }
    /* odd: the result is the forward DFT; check 8 bins by direct summation */
    for (int s = 0; s < 8; s++) {
        long k = (long)((uint64_t)(s * 7919 + 13) % (uint64_t)n);
        double sr = 0, si = 0;
        for (long j = 0; j < n; j++) {
            double ang = -2.0 * WL_PI * (double)((j * k) % n) / (double)n;
            double cr = cos(ang), ci = sin(ang);
            sr += m->orig[2 * j] * cr - m->orig[2 * j + 1] * ci;
            si += m->orig[2 * j] * ci + m->orig[2 * j + 1] * cr;
        }
        worst = fmax(worst, fmax(fabs(sr - m->x[2 * k]), fabs(si - m->x[2 * k + 1])));
    }
    if (worst > 1e-8 * (double)n) {
        snprintf(err, errlen, "fft: sampled bins differ from the direct DFT by %g", worst);
        return -1;
    }
    return 0;
}

const wl_kind wl_fft = {
    .name = "fft",
    .label = "FFT",
    .blocked = 0,
    .sizes = {{524288, 0, 2}, {131072, 0, 2}, {1024, 0, 3}},
    .arena_bytes = fft_bytes,
    .setup = fft_setup,
    .thread = fft_thread,
    .check = fft_check,
};
