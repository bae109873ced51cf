/* coro.c: the workloads of workloads/blocked drive the simulator as coroutines.
 *
 * Why coroutines and not recorded traces: at the paper's sizes one run of a program mix is
 * a few hundred million events (several GB as a file), while generating them on the fly
 * costs a few nanoseconds each.  Each simulated process is one workload thread running on
 * its own ucontext stack in trace mode: when the simulator needs events it resumes the
 * thread, which computes (for real, on the host) until its trace buffer is full, or it
 * reaches a barrier, or exits, and then switches back (wl_tracer.flush).  Because a thread
 * stops at every barrier and is resumed only after the simulated barrier released, every
 * thread of the program has generated everything before the barrier when any thread computes
 * past it; between barriers the threads write disjoint data.  So the computation is the same
 * as a native run (busmp_wprog_check verifies the result afterwards) and the address streams
 * do not depend on the simulated timing.  ucontext's swapcontext costs a system call (signal
 * mask) but happens once per BUF_EVENTS events or barrier. */
#define _GNU_SOURCE
#include "busmp.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <ucontext.h>

#define BUF_EVENTS 4096
#define STACK_BYTES (256 * 1024)

typedef struct coro {
    ucontext_t self, caller;
    void *stack;
    wl_tracer tr;
    wl_ctx ctx;
    const wl_kind *kind;
    int started;
    uint64_t buf[BUF_EVENTS];
} coro;

struct busmp_wprog {
    const wl_kind *kind;
    wl_arena arena;
    void *prog;
    int ncpu;
    coro *co[BUSMP_MAXCPU];
};

static void coro_flush(wl_tracer *t)
{
    coro *c = t->owner;
    swapcontext(&c->self, &c->caller);
}

static void coro_main(unsigned hi, unsigned lo)
{
    coro *c = (coro *)(((uintptr_t)hi << 32) | (uintptr_t)lo);
    c->kind->thread(&c->ctx); /* ends with wl_exit, which flushes and is never resumed */
}

static uint32_t coro_refill(void *src, const uint64_t **ev)
{
    coro *c = src;
    c->tr.n = 0;
    if (!c->started) {
        c->started = 1;
        uintptr_t p = (uintptr_t)c;
        makecontext(&c->self, (void (*)(void))coro_main, 2, (unsigned)(p >> 32), (unsigned)(p & 0xffffffffu));
    }
    swapcontext(&c->caller, &c->self);
    *ev = c->tr.buf;
    return c->tr.n;
}

busmp_wprog *busmp_add_workload(busmp *m, const wl_kind *k, const wl_size *s, uint64_t seed)
{
    const int ncpu = busmp_params_of(m)->ncpu;
    const int index = busmp_nprogs(m);
    busmp_wprog *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->kind = k;
    w->ncpu = ncpu;
    if (wl_arena_init(&w->arena, k->arena_bytes(s, ncpu)))
        goto fail;
    w->prog = k->setup(&w->arena, s, ncpu, seed);
    if (!w->prog)
        goto fail;
    const intptr_t delta = (intptr_t)((uint64_t)(index + 1) << 40) - (intptr_t)w->arena.base;
    void *src[BUSMP_MAXCPU];
    for (int i = 0; i < ncpu; i++) {
        coro *c = calloc(1, sizeof *c);
        if (!c)
            goto fail;
        w->co[i] = c;
        c->stack = mmap(NULL, STACK_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (c->stack == MAP_FAILED) {
            c->stack = NULL;
            goto fail;
        }
        getcontext(&c->self);
        c->self.uc_stack.ss_sp = c->stack;
        c->self.uc_stack.ss_size = STACK_BYTES;
        c->self.uc_link = &c->caller;
        c->kind = k;
        c->tr = (wl_tracer){.buf = c->buf, .n = 0, .cap = BUF_EVENTS, .pending_ops = 0, .delta = delta,
                            .flush = coro_flush, .owner = c};
        c->ctx = (wl_ctx){.tid = i, .nthreads = ncpu, .tr = &c->tr, .hooks = NULL, .prog = w->prog};
        src[i] = c;
    }
    if (busmp_add_program(m, k->label, k->blocked, coro_refill, src) != index)
        goto fail;
    return w;
fail:
    busmp_wprog_free(w);
    return NULL;
}

int busmp_wprog_check(busmp_wprog *w, char *err, size_t errlen) { return w->kind->check(w->prog, err, errlen); }

void busmp_wprog_free(busmp_wprog *w)
{
    if (!w)
        return;
    for (int i = 0; i < w->ncpu; i++)
        if (w->co[i]) {
            if (w->co[i]->stack)
                munmap(w->co[i]->stack, STACK_BYTES);
            free(w->co[i]);
        }
    wl_arena_free(&w->arena);
    free(w);
}
