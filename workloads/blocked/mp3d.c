/* mp3d.c: MP3D-like rarefied-flow particle code: n molecules move through a box of
 * s x s x s unit cells (the paper: 20,000 molecules, 16^3 cells).  A non-blocked program.
 *
 * One step:
 *   A. each thread moves its own molecules (contiguous share): advance by v*dt, reflect at
 *      the walls, find the cell, "collide" by relaxing the velocity toward the cell's mean
 *      velocity of the previous step (read-shared cell data, as in MP3D), and accumulate
 *      count and momentum into the thread's own partial row part[tid][cell];
 *   barrier;
 *   B. each thread reduces its share of the cells over all partial rows (reading the lines
 *      other processors wrote: the migratory sharing that makes MP3D miss-heavy), stores the
 *      new cell means and clears the partials;
 *   barrier.
 * SPLASH's MP3D updates cells in place under locks; the partial rows make this version
 * race-free and its result independent of the thread count (momentum sums are fixed-point
 * integers), which the check verifies against a one-thread run.
 *
 * Instruction counts: per molecule 34 (move 6, reflect 6, cell index 5, collision 9,
 * fixed-point conversion 6, loop 2); per cell and partial row 6; per cell 8. */
#include "wl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct mol {
    double x, y, z, vx, vy, vz;
} mol;
typedef struct cellv {
    double mx, my, mz;
    int64_t cnt;
} cellv;
typedef struct part {
    int64_t cnt, sx, sy, sz;
} part;

typedef struct mp3d {
    long n, side, ncell, iters;
    int nthreads;
    uint64_t seed;
    mol *m;
    cellv *cell;
    part *part; /* [nthreads][ncell] */
} mp3d;

#define MP3D_SIDE 16
#define FIX 16777216.0 /* 2^24 */
static const double DT = 0.25, ALPHA = 0.2;

static size_t mp3d_bytes(const wl_size *s, int nthreads)
{
    size_t nc = (size_t)MP3D_SIDE * MP3D_SIDE * MP3D_SIDE;
    return sizeof(mp3d) + (size_t)s->n * sizeof(mol) + nc * sizeof(cellv) +
           (size_t)nthreads * nc * sizeof(part) + 8 * 4096;
}

static void *mp3d_setup(wl_arena *a, const wl_size *s, int nthreads, uint64_t seed)
{
    mp3d *p = wl_arena_alloc(a, sizeof *p);
    if (!p || s->n < 1)
        return NULL;
    p->n = s->n;
    p->side = MP3D_SIDE;
    p->ncell = (long)MP3D_SIDE * MP3D_SIDE * MP3D_SIDE;
    p->iters = s->iters;
    p->nthreads = nthreads;
    p->seed = seed;
    p->m = wl_arena_alloc(a, (size_t)s->n * sizeof(mol));
    p->cell = wl_arena_alloc(a, (size_t)p->ncell * sizeof(cellv));
    p->part = wl_arena_alloc(a, (size_t)nthreads * (size_t)p->ncell * sizeof(part));
    if (!p->m || !p->cell || !p->part)
        return NULL;
    const double L = (double)p->side;
    for (long i = 0; i < s->n; i++) {
        p->m[i] = (mol){wl_rand01(&seed) * L, wl_rand01(&seed) * L, wl_rand01(&seed) * L,
                        2 * wl_rand01(&seed) - 1, 2 * wl_rand01(&seed) - 1, 2 * wl_rand01(&seed) - 1};
    }
    memset(p->cell, 0, (size_t)p->ncell * sizeof(cellv));
    memset(p->part, 0, (size_t)nthreads * (size_t)p->ncell * sizeof(part));
    return p;
}

static inline double reflect(double *x, double v, double L)
{
    if (*x < 0) {
        *x = -*x;
        return -v;
    }
    if (*x >= L) {
        *x = 2 * L - *x;
        if (*x >= L) /* 2L - x rounds up to L only when x is a hair above L */
            *x = nextafter(L, 0);
        return -v;
    }
    return v;
}

static void mp3d_thread(wl_ctx *c)
{
    mp3d *p = c->prog;
    const double L = (double)p->side;
    long lo, hi, clo, chi;
    wl_range(p->n, c->tid, c->nthreads, &lo, &hi);
    wl_range(p->ncell, c->tid, c->nthreads, &clo, &chi);
    part *mine = p->part + (size_t)c->tid * (size_t)p->ncell;
    for (long it = 0; it < p->iters; it++) {
        for (long i = lo; i < hi; i++) {
            mol *q = &p->m[i];
            double x = WL_LD(c, &q->x), y = WL_LD(c, &q->y), z = WL_LD(c, &q->z);
            double vx = WL_LD(c, &q->vx), vy = WL_LD(c, &q->vy), vz = WL_LD(c, &q->vz);
            x += vx * DT;
            y += vy * DT;
            z += vz * DT;
            vx = reflect(&x, vx, L);
            vy = reflect(&y, vy, L);
            vz = reflect(&z, vz, L);
            long ci = (long)x + p->side * ((long)y + p->side * (long)z);
            cellv *cl = &p->cell[ci];
            if (WL_LD(c, &cl->cnt) > 0) {
                vx += ALPHA * (WL_LD(c, &cl->mx) - vx);
                vy += ALPHA * (WL_LD(c, &cl->my) - vy);
                vz += ALPHA * (WL_LD(c, &cl->mz) - vz);
            }
            WL_ST(c, &q->x, x);
            WL_ST(c, &q->y, y);
            WL_ST(c, &q->z, z);
            WL_ST(c, &q->vx, vx);
            WL_ST(c, &q->vy, vy);
            WL_ST(c, &q->vz, vz);
            part *pp = &mine[ci];
            WL_ST(c, &pp->cnt, WL_LD(c, &pp->cnt) + 1);
            WL_ST(c, &pp->sx, WL_LD(c, &pp->sx) + (int64_t)llround(vx * FIX));
            WL_ST(c, &pp->sy, WL_LD(c, &pp->sy) + (int64_t)llround(vy * FIX));
            WL_ST(c, &pp->sz, WL_LD(c, &pp->sz) + (int64_t)llround(vz * FIX));
            WL_OPS(c, 34);
        }
        wl_barrier(c);
        for (long ci = clo; ci < chi; ci++) {
            int64_t cnt = 0, sx = 0, sy = 0, sz = 0;
            for (int t = 0; t < c->nthreads; t++) {
                part *pp = &p->part[(size_t)t * (size_t)p->ncell + (size_t)ci];
                cnt += WL_LD(c, &pp->cnt);
                sx += WL_LD(c, &pp->sx);
                sy += WL_LD(c, &pp->sy);
                sz += WL_LD(c, &pp->sz);
                WL_ST(c, &pp->cnt, 0);
                WL_ST(c, &pp->sx, 0);
                WL_ST(c, &pp->sy, 0);
                WL_ST(c, &pp->sz, 0);
                WL_OPS(c, 6);
            }
            cellv *cl = &p->cell[ci];
            double d = cnt ? 1.0 / ((double)cnt * FIX) : 0.0;
            WL_ST(c, &cl->mx, (double)sx * d);
            WL_ST(c, &cl->my, (double)sy * d);
            WL_ST(c, &cl->mz, (double)sz * d);
            WL_ST(c, &cl->cnt, cnt);
            WL_OPS(c, 8);
        }
        wl_barrier(c);
    }
    wl_exit(c);
}

static int mp3d_check(void *prog, char *err, size_t errlen)
{
    mp3d *p = prog;
    const double L = (double)p->side;
    int64_t total = 0;
    for (long ci = 0; ci < p->ncell; ci++)
        total += p->cell[ci].cnt;
    if (p->iters > 0 && total != p->n) {
        snprintf(err, errlen, "mp3d: cells count %lld molecules, expected %ld", (long long)total, p->n);
        return -1;
    }
    for (long i = 0; i < p->n; i++) {
        const mol *q = &p->m[i];
        if (!(q->x >= 0 && q->x < L && q->y >= 0 && q->y < L && q->z >= 0 && q->z < L)) {
            snprintf(err, errlen, "mp3d: molecule %ld left the box", i);
            return -1;
        }
    }
    /* the same program run by one thread must give the same state bit for bit */
    wl_arena a;
    wl_size s = {p->n, 0, p->iters};
    if (wl_arena_init(&a, mp3d_bytes(&s, 1))) {
        snprintf(err, errlen, "mp3d: out of memory");
        return -1;
    }
    mp3d *r = mp3d_setup(&a, &s, 1, p->seed);
    wl_ctx c1 = {.tid = 0, .nthreads = 1, .tr = NULL, .hooks = NULL, .prog = r};
    mp3d_thread(&c1);
    int bad = memcmp(r->m, p->m, (size_t)p->n * sizeof(mol)) != 0 ||
              memcmp(r->cell, p->cell, (size_t)p->ncell * sizeof(cellv)) != 0;
    wl_arena_free(&a);
    if (bad) {
        snprintf(err, errlen, "mp3d: %d-thread state differs from the one-thread run", p->nthreads);
        return -1;
    }
    return 0;
}

const wl_kind wl_mp3d = {
    .name = "mp3d",
    .label = "MP3D",
    .blocked = 0,
    .sizes = {{20000, 0, 192}, {5000, 0, 43}, {500, 0, 6}},
    .arena_bytes = mp3d_bytes,
    .setup = mp3d_setup,
    .thread = mp3d_thread,
    .check = mp3d_check,
};
