/* wl_core.c: the mode switch of the workloads (native vs trace), the arena, the registry and
 * the native pthread runner.  See wl.h for the invariants. */
#define _POSIX_C_SOURCE 200809L
#include "wl.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Gap between consecutive arrays of a program's arena. The paper's programs got their arrays
 * from malloc, which never places two large arrays at an exact power-of-two distance; with
 * no gap, three 256x256 double matrices would sit exactly 4 cache sizes apart and every row
 * of one would collide with the same row of the others in a direct-mapped cache.  A gap of
 * one kilobyte plus one line stands in for malloc's headers and is the same for every
 * program (an assumption, written down in docs/reproductions/psafe.md). */
#define WL_ARENA_GAP (1024 + 16)

static void put(wl_tracer *t, uint64_t e)
{
    if (t->n >= t->cap)
        t->flush(t);
    t->buf[t->n++] = e;
}

void itoi_wl_emit_slow(wl_tracer *t, uint64_t payload, unsigned kind)
{
    uint32_t ops = t->pending_ops;
    t->pending_ops = 0;
    if (ops > 15) {
        put(t, ((uint64_t)ops << 8) | WL_EV_OPS);
        ops = 0;
    }
    put(t, (payload << 8) | ((uint64_t)ops << 4) | kind);
}

void wl_barrier(wl_ctx *c)
{
    if (c->tr) {
        wl_emit(c->tr, 0, WL_EV_BARRIER);
        c->tr->flush(c->tr); /* stop generating until the simulator releases the barrier */
    } else if (c->nthreads > 1 && c->hooks && c->hooks->barrier) {
        c->hooks->barrier(c->hooks->arg);
    }
}

void wl_psafe_begin(wl_ctx *c)
{
    if (c->tr)
        wl_emit(c->tr, 0, WL_EV_BEGIN);
    else if (c->hooks && c->hooks->psafe_begin)
        c->hooks->psafe_begin(c->hooks->arg);
}

void wl_psafe_end(wl_ctx *c)
{
    if (c->tr)
        wl_emit(c->tr, 0, WL_EV_END);
    else if (c->hooks && c->hooks->psafe_end)
        c->hooks->psafe_end(c->hooks->arg);
}

void wl_exit(wl_ctx *c)
{
    if (c->tr) {
        wl_emit(c->tr, 0, WL_EV_EXIT);
        c->tr->flush(c->tr);
    }
}

int wl_arena_init(wl_arena *a, size_t bytes)
{
    a->size = bytes;
    a->used = 0;
    a->base = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
    return a->base ? 0 : -1;
}

void *wl_arena_alloc(wl_arena *a, size_t bytes)
{
    size_t off = (a->used + 63) & ~(size_t)63;
    if (off + bytes > a->size)
        return NULL;
    a->used = off + bytes + WL_ARENA_GAP;
    return a->base + off;
}

void wl_arena_free(wl_arena *a)
{
    free(a->base);
    a->base = NULL;
}

static const wl_kind *const all_kinds[] = {&wl_bmm, &wl_blu, &wl_bs, &wl_fft, &wl_ocean, &wl_mp3d, NULL};

const wl_kind *const *wl_all(void) { return all_kinds; }

const wl_kind *wl_find(const char *name)
{
    for (int i = 0; all_kinds[i]; i++)
        if (!strcmp(all_kinds[i]->name, name) || !strcmp(all_kinds[i]->label, name))
            return all_kinds[i];
    return NULL;
}

/* ---- native runner ---- */
static void native_barrier(void *arg) { pthread_barrier_wait(arg); }

struct native_job {
    wl_ctx ctx;
    const wl_kind *kind;
};

static void *native_job_main(void *arg)
{
    struct native_job *j = arg;
    j->kind->thread(&j->ctx);
    return NULL;
}

int wl_run_native(const wl_kind *k, const wl_size *s, int nthreads, char *err, size_t errlen)
{
    wl_arena a;
    if (wl_arena_init(&a, k->arena_bytes(s, nthreads))) {
        snprintf(err, errlen, "%s: out of memory", k->name);
        return -1;
    }
    void *prog = k->setup(&a, s, nthreads, 12345);
    if (!prog) {
        snprintf(err, errlen, "%s: setup failed (arena too small?)", k->name);
        wl_arena_free(&a);
        return -1;
    }
    pthread_barrier_t bar;
    pthread_barrier_init(&bar, NULL, (unsigned)nthreads);
    wl_hooks hooks = {native_barrier, NULL, NULL, &bar};
    struct native_job *jobs = calloc((size_t)nthreads, sizeof *jobs);
    pthread_t *th = calloc((size_t)nthreads, sizeof *th);
    int rc = 0;
    for (int i = 0; i < nthreads; i++) {
        jobs[i].kind = k;
        jobs[i].ctx = (wl_ctx){.tid = i, .nthreads = nthreads, .tr = NULL, .hooks = &hooks, .prog = prog};
        if (pthread_create(&th[i], NULL, native_job_main, &jobs[i]) != 0) {
            snprintf(err, errlen, "%s: pthread_create failed", k->name);
            return -1; /* cannot unwind a half-created barrier group sanely */
        }
    }
    for (int i = 0; i < nthreads; i++)
        pthread_join(th[i], NULL);
    rc = k->check(prog, err, errlen);
    pthread_barrier_destroy(&bar);
    free(jobs);
    free(th);
    wl_arena_free(&a);
    return rc;
}
