/* dump.c: ito_dump_threads, a snapshot of the workers and ULTs for debugging.
 *
 * It walks the ULT descriptors through itoi_ult_foreach_from (the slabs of thread.c, which
 * live until ito_finalize, so every pointer read here stays valid) and the workers'
 * `cur`, without stopping anybody: the state of a ULT is inferred from fields that other
 * workers write concurrently, the way a debugger reads them. Those reads are plain loads
 * in functions that TSan does not instrument (no_sanitize("thread")): a stale or torn
 * value only makes one printed line out of date. What is inferred:
 *   - a descriptor with no function, or reaped (state 3), is free: not printed;
 *   - state DONE: finished, not joined;
 *   - some worker's cur: running there;
 *   - blocked_on set: parked (itoi_block_until sets it for every wait);
 *   - otherwise: ready (in a ready queue, an inbox or a steal queue). */
#include <stdio.h>

#include "ito/debug.h"
#include "itoi.h"

#define NO_TSAN __attribute__((no_sanitize("thread"), noinline))

typedef struct snap {
    uint64_t id;
    char name[ITOI_NAME_LEN];
    const char *state, *waits;
    int worker;
} snap_t;

/* The ULTs' lines are taken under the slab lock in batches and printed after it is
 * released: out may run the program's code (a fopencookie stream's write function), where
 * a preemption tick switches the ULT out. Printed under the lock (until 2026-12-06), a
 * tick there left the lock held, and the next ULT of the worker that took it (another
 * dump, a create that needed a new slab) blocked the worker's kernel thread for ever (found
 * by an outside tester, h63e: test_preempt_dump_lock). A small batch: ULT stacks may be 8 KiB. */
#define DUMP_BATCH 8
typedef struct walk {
    size_t n;                /* lines printed so far (main's first) */
    int k;                   /* snapshots in s */
    snap_t s[DUMP_BATCH];
} walk_t;

/* The worker running t, or -1. */
NO_TSAN static int running_on(const itoi_ult_t *t)
{
    for (int i = 0; i < itoi_rt.nworkers; i++)
        if (*(itoi_ult_t *const volatile *)&itoi_rt.workers[i].cur == t) return i;
    return -1;
}

/* A copy of what is printed for t; false when t is a free descriptor. */
NO_TSAN static bool take(const itoi_ult_t *t, snap_t *s)
{
    const volatile itoi_ult_t *v = t;
    uintptr_t st = itoi_st_kind(atomic_load_explicit(&((itoi_ult_t *)t)->state, memory_order_relaxed));
    if ((!v->fn && !(v->flags & ITOI_F_MAIN)) || st == ITOI_REAPED) return false;
    s->id = v->id;
    for (int i = 0; i < ITOI_NAME_LEN; i++) s->name[i] = v->name[i];
    s->name[ITOI_NAME_LEN - 1] = 0;
    if (!s->name[0]) snprintf(s->name, sizeof s->name, "ult-%llu", (unsigned long long)s->id);
    s->waits = "-";
    s->worker = v->bound;
    if (st == ITOI_DONE) {
        s->state = "finished";
        s->worker = -1;
    } else if ((s->worker = running_on(t)) >= 0) {
        s->state = "running";
    } else if (v->blocked_on) {
        s->state = "blocked";
        s->waits = v->blocked_on;
        s->worker = v->bound;
    } else {
        s->state = "ready";
        s->worker = v->bound;
    }
    return true;
}

static void print(FILE *out, const snap_t *s)
{
    char wk[16] = "-";
    if (s->worker >= 0) snprintf(wk, sizeof wk, "%d", s->worker);
    fprintf(out, "  %-10llu %-31s %-9s %-6s %s\n", (unsigned long long)s->id, s->name, s->state, wk, s->waits);
}

/* Under the slab lock: t's snapshot into the batch; false when the batch is full (t is
 * visited again by the next batch). */
static bool visit(itoi_ult_t *t, void *arg)
{
    walk_t *wk = arg;
    if (t == itoi_rt.main_ult && wk->n > 0) return true; /* listed first, already */
    if (wk->k == DUMP_BATCH) return false;
    if (take(t, &wk->s[wk->k])) wk->k++;
    return true;
}

NO_TSAN static void print_worker(FILE *out, itoi_worker_t *w)
{
    const volatile itoi_worker_t *v = w;
    itoi_ult_t *cur = v->cur;
    char what[64];
    if (cur) snprintf(what, sizeof what, "ULT %llu", (unsigned long long)((volatile itoi_ult_t *)cur)->id);
    else if (v->unit_cur) snprintf(what, sizeof what, "a ZWT");
    else if (atomic_load_explicit(&w->sleep_state, memory_order_relaxed) != ITOI_AWAKE) snprintf(what, sizeof what, "asleep");
    else snprintf(what, sizeof what, "its scheduler");
    fprintf(out, "worker %d (tid %d): %s; %zu ready here\n", w->index, atomic_load(&w->tid), what, v->rq.n);
}

int ito_dump_threads(FILE *out)
{
    if (!out) return ITO_EINVAL;
    bool foreign = itoi_self_worker() == NULL;
    if (foreign && itoi_foreign_enter() != ITO_OK) return ITO_ESTATE;
    if (!foreign && atomic_load(&itoi_rt.state) != 1) return ITO_ESTATE;
    for (int i = 0; i < itoi_rt.nworkers; i++) print_worker(out, &itoi_rt.workers[i]);
    fprintf(out, "  %-10s %-31s %-9s %-6s %s\n", "id", "name", "state", "worker", "waits on");
    walk_t wk = {0};
    if (itoi_rt.main_ult && take(itoi_rt.main_ult, &wk.s[0])) {
        print(out, &wk.s[0]);
        wk.n++;
    }
    for (size_t pos = 0; pos != SIZE_MAX;) {
        wk.k = 0;
        pos = itoi_ult_foreach_from(pos, visit, &wk);
        for (int i = 0; i < wk.k; i++) print(out, &wk.s[i]); /* the lock released */
        wk.n += (size_t)wk.k;
    }
    fprintf(out, "%zu ULT(s)\n", wk.n);
    int rc = fflush(out) != 0 || ferror(out) ? ITO_EIO : ITO_OK;
    if (foreign) itoi_foreign_exit();
    return rc;
}
