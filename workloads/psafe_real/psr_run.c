/* psr_run.c: one programming level on ito, under one policy (see psr.h).
 *
 * Invariants:
 *  - every ULT joins its group before any kernel code runs (it waits at the start gate,
 *    which main opens only after ito_group_add and ito_preempt_enable);
 *  - the start time is taken by main right before it opens the gate; a program's time ends
 *    when its last ULT returns from the kernel (atomic max of the ULTs' finish times);
 *  - the psafe hooks run inside the ULTs (the executable's code, so a timer tick may
 *    interrupt between them; ito_psafe_* are plain stores in libito, never interrupted). */
#define _POSIX_C_SOURCE 200809L
#include "psr.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ito/preempt.h>
#include <ito/sync.h>
#include <ito/thread.h>

typedef struct prog_run {
    const wl_kind *kind;
    wl_arena arena;
    void *prog;
    ito_barrier_t bar;
    wl_hooks hooks;
    ito_group_t *group;
    int bar_ok;
    _Atomic uint64_t blocks, end_ns;
    int psafe;
} prog_run;

typedef struct job {
    wl_ctx ctx;
    prog_run *pr;
} job;

static struct {
    ito_mutex_t m;
    ito_cond_t c;
    int open;
} gate;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void die_rc(const char *what, int rc)
{
    fprintf(stderr, "psafe_real: %s: %s\n", what, ito_strerror(rc));
    abort(); /* a failing barrier or region call leaves no sane way to continue */
}

static void hook_barrier(void *arg)
{
    int rc = ito_barrier_wait(&((prog_run *)arg)->bar); /* ITO_BARRIER_SERIAL (1) for one ULT */
    if (rc < 0)
        die_rc("barrier", rc);
}

static void hook_begin(void *arg)
{
    prog_run *pr = arg;
    atomic_fetch_add_explicit(&pr->blocks, 1, memory_order_relaxed);
    if (pr->psafe) {
        int rc = ito_psafe_begin();
        if (rc)
            die_rc("ito_psafe_begin", rc);
    }
}

static void hook_end(void *arg)
{
    prog_run *pr = arg;
    if (pr->psafe) {
        int rc = ito_psafe_end();
        if (rc)
            die_rc("ito_psafe_end", rc);
    }
}

static void *ult_main(void *arg)
{
    job *j = arg;
    ito_mutex_lock(&gate.m);
    while (!gate.open)
        ito_cond_wait(&gate.c, &gate.m);
    ito_mutex_unlock(&gate.m);
    j->pr->kind->thread(&j->ctx);
    uint64_t t = now_ns(), cur = atomic_load(&j->pr->end_ns);
    while (cur < t && !atomic_compare_exchange_weak(&j->pr->end_ns, &cur, t))
        ;
    return NULL;
}

static int setup_prog(prog_run *pr, const psr_config *cfg, int i, char *err, size_t errlen)
{
    const wl_kind *k = cfg->kinds[i];
    pr->kind = k;
    pr->psafe = cfg->policy == PSR_PSAFE;
    if (wl_arena_init(&pr->arena, k->arena_bytes(&cfg->sizes[i], cfg->workers))) {
        snprintf(err, errlen, "%s: out of memory", k->name);
        return ITO_ENOMEM;
    }
    pr->prog = k->setup(&pr->arena, &cfg->sizes[i], cfg->workers, 12345 + (uint64_t)i);
    if (!pr->prog) {
        snprintf(err, errlen, "%s: setup failed", k->name);
        return ITO_EINVAL;
    }
    pr->hooks = (wl_hooks){hook_barrier, hook_begin, hook_end, pr};
    return ITO_OK;
}

int psr_run(const psr_config *cfg, psr_prog_result *res, psr_totals *tot, char *err, size_t errlen)
{
    const int n = cfg->nprogs, P = cfg->workers;
    if (n < 1 || n > PSR_MAX_PROGS || P < 1 || P > 64) {
        snprintf(err, errlen, "bad mix: %d programs, %d workers", n, P);
        return ITO_EINVAL;
    }
    prog_run *prs = calloc((size_t)n, sizeof *prs);
    job *jobs = calloc((size_t)(n * P), sizeof *jobs);
    ito_thread_t *th = calloc((size_t)(n * P), sizeof *th);
    int rc = (prs && jobs && th) ? ITO_OK : ITO_ENOMEM;
    for (int i = 0; rc == ITO_OK && i < n; i++)
        rc = setup_prog(&prs[i], cfg, i, err, errlen);
    ito_config_t icfg = {.workers = P, .stack_size = 256 * 1024};
    if (rc == ITO_OK && (rc = ito_init(&icfg)) != ITO_OK)
        snprintf(err, errlen, "ito_init: %s", ito_strerror(rc));
    int inited = rc == ITO_OK;
    if (rc == ITO_OK) {
        ito_mutex_init(&gate.m);
        ito_cond_init(&gate.c);
        gate.open = 0;
    }
    int created = 0;
    for (int i = 0; rc == ITO_OK && i < n; i++) {
        if ((rc = ito_barrier_init(&prs[i].bar, (unsigned)P)) == ITO_OK)
            prs[i].bar_ok = 1;
        if (rc || (rc = ito_group_create(&prs[i].group))) {
            snprintf(err, errlen, "%s: barrier/group: %s", prs[i].kind->name, ito_strerror(rc));
            break;
        }
        for (int t = 0; t < P; t++) {
            job *j = &jobs[i * P + t];
            j->pr = &prs[i];
            j->ctx = (wl_ctx){.tid = t, .nthreads = P, .tr = NULL, .hooks = &prs[i].hooks, .prog = prs[i].prog};
            ito_attr_t at;
            ito_attr_init(&at);
            at.worker = t % P;
            at.name = prs[i].kind->name;
            if ((rc = ito_create(&th[i * P + t], ult_main, j, &at)) ||
                (rc = ito_group_add(prs[i].group, th[i * P + t]))) {
                snprintf(err, errlen, "%s: create/group_add: %s", prs[i].kind->name, ito_strerror(rc));
                if (th[i * P + t])
                    created++;
                break;
            }
            created++;
        }
    }
    ito_preempt_config_t pc = {.quantum_us = cfg->quantum_us, .mode = ITO_PREEMPT_SIGNAL,
                               .max_delay_quanta = cfg->bound_quanta, .gang = 1};
    if (rc == ITO_OK && (rc = ito_preempt_enable(&pc)) != ITO_OK)
        snprintf(err, errlen, "ito_preempt_enable: %s", ito_strerror(rc));
    uint64_t t0 = 0;
    if (inited) { /* open the gate even after a failure, so that the created ULTs can end */
        ito_mutex_lock(&gate.m);
        t0 = now_ns();
        gate.open = 1;
        ito_cond_broadcast(&gate.c);
        ito_mutex_unlock(&gate.m);
    }
    for (int i = 0; i < created; i++)
        ito_join(th[i], NULL);
    uint64_t t1 = now_ns();
    if (rc == ITO_OK) {
        ito_preempt_stats_t ps;
        ito_preempt_stats(&ps);
        *tot = (psr_totals){t1 - t0, ps.ticks, ps.preemptions, ps.deferred, ps.delayed, ps.forced};
        for (int i = 0; i < n; i++) {
            ito_preempt_stats_t gs;
            ito_group_stats(prs[i].group, &gs);
            psr_prog_result *r = &res[i];
            memset(r, 0, sizeof *r);
            r->time_ns = atomic_load(&prs[i].end_ns) - t0;
            r->blocks = atomic_load(&prs[i].blocks);
            r->preemptions = gs.preemptions;
            r->delayed = gs.delayed;
            r->delay_ns = gs.delay_ns;
            r->forced = gs.forced;
            if (cfg->no_check) {
                r->ok = 1;
                snprintf(r->err, sizeof r->err, "unchecked");
            } else {
                r->ok = prs[i].kind->check(prs[i].prog, r->err, sizeof r->err) == 0;
            }
        }
        ito_preempt_disable();
    }
    if (inited) {
        for (int i = 0; i < n; i++) {
            if (prs[i].group)
                ito_group_destroy(prs[i].group);
            if (prs[i].bar_ok)
                ito_barrier_destroy(&prs[i].bar);
        }
        ito_cond_destroy(&gate.c);
        ito_mutex_destroy(&gate.m);
        ito_finalize();
    }
    for (int i = 0; prs && i < n; i++)
        if (prs[i].arena.base)
            wl_arena_free(&prs[i].arena);
    free(prs);
    free(jobs);
    free(th);
    return rc;
}
