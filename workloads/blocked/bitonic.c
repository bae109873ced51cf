/* bitonic.c: BS, bitonic sorting network over n = 2^k 32-bit keys (Kumar et al., the paper's
 * reference [4]).  A non-blocked program: no psafe regions.
 *
 * Each of the log n (log n + 1) / 2 stages performs n/2 compare-exchanges; pair q of a stage
 * with distance j is (i, i|j) where i is q with a zero bit inserted at log2(j).  The n/2
 * pairs of a stage are split evenly among the threads (disjoint keys), and a barrier ends
 * each stage.  A compare-exchange always stores both keys, so the address stream does not
 * depend on the data.  iters = how many times the whole network runs (the lab chooses it so
 * that BS runs longer than the blocked programs, as the paper set its data sets).
 *
 * Instruction counts: pair index arithmetic 4, compare and select 3, loop control 2 = 9. */
#include "wl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct bsort {
    long n, iters;
    uint32_t *key, *orig;
} bsort;

static size_t bs_bytes(const wl_size *s, int nthreads)
{
    (void)nthreads;
    return sizeof(bsort) + 2 * (size_t)s->n * sizeof(uint32_t) + 8 * 4096;
}

static void *bs_setup(wl_arena *a, const wl_size *s, int nthreads, uint64_t seed)
{
    (void)nthreads;
    bsort *m = wl_arena_alloc(a, sizeof *m);
    if (!m || s->n < 2 || (s->n & (s->n - 1)))
        return NULL;
    m->n = s->n;
    m->iters = s->iters;
    m->key = wl_arena_alloc(a, (size_t)s->n * sizeof(uint32_t));
    m->orig = wl_arena_alloc(a, (size_t)s->n * sizeof(uint32_t));
    if (!m->key || !m->orig)
        return NULL;
    for (long i = 0; i < s->n; i++)
        m->key[i] = (uint32_t)wl_rand(&seed);
    memcpy(m->orig, m->key, (size_t)s->n * sizeof(uint32_t));
    return m;
}

static void bs_thread(wl_ctx *c)
{
    bsort *m = c->prog;
    const long n = m->n;
    long lo, hi;
    wl_range(n / 2, c->tid, c->nthreads, &lo, &hi);
    for (long it = 0; it < m->iters; it++) {
        for (long k = 2; k <= n; k <<= 1) {
            for (long j = k >> 1; j > 0; j >>= 1) {
                for (long q = lo; q < hi; q++) {
                    const long i = ((q & ~(j - 1)) << 1) | (q & (j - 1));
                    const long l = i | j;
                    const uint32_t x = WL_LD(c, &m->key[i]), y = WL_LD(c, &m->key[l]);
                    const int up = (i & k) == 0;
                    const int swap = up ? x > y : x < y;
                    WL_ST(c, &m->key[i], swap ? y : x);
                    WL_ST(c, &m->key[l], swap ? x : y);
                    WL_OPS(c, 9);
                }
                wl_barrier(c);
            }
        }
    }
    wl_exit(c);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static int bs_check(void *prog, char *err, size_t errlen)
{
    bsort *m = prog;
    uint32_t *ref = malloc((size_t)m->n * sizeof(uint32_t));
    if (!ref) {
        snprintf(err, errlen, "bs: out of memory");
        return -1;
    }
    memcpy(ref, m->orig, (size_t)m->n * sizeof(uint32_t));
    qsort(ref, (size_t)m->n, sizeof(uint32_t), cmp_u32);
    int bad = memcmp(ref, m->key, (size_t)m->n * sizeof(uint32_t)) != 0;
    free(ref);
    if (bad) {
        snprintf(err, errlen, "bs: result differs from qsort");
        return -1;
    }
    return 0;
}

const wl_kind wl_bs = {
    .name = "bs",
    .label = "BS",
    .blocked = 0,
    .sizes = {{131072, 0, 7}, {32768, 0, 5}, {1024, 0, 2}},
    .arena_bytes = bs_bytes,
    .setup = bs_setup,
    .thread = bs_thread,
    .check = bs_check,
};
