/* fault.c: the runtime's only doors to mmap and malloc, with failure injection.
 *
 * Tests set ITO_FAULT_MMAP=N or ITO_FAULT_MALLOC=N in the environment (read at
 * ito_init): the Nth call from then on fails, as the system would under memory
 * exhaustion, so that every error path can be driven on purpose. Only test and debug
 * builds do this (ITOI_FAULT_INJECTION: Debug builds and -DITO_FAULT_INJECTION=ON, which
 * `make test` sets); other builds ignore the variables. ITO_FAULT_REARM=N does not fail
 * anything: it widens a race window instead (itoi_fault_window_rearm). */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#include "itoi.h"

/* One hook per variable: the call at which it fires (0: never) and the calls so far. */
enum {
    HOOK_MMAP = ITOI_FAULT_MMAP,
    HOOK_MALLOC = ITOI_FAULT_MALLOC,
    HOOK_REARM = ITOI_FAULT_REARM,
    HOOK_UCANCEL = ITOI_FAULT_UCANCEL,
    HOOK_WAITPOST = ITOI_FAULT_WAITPOST,
    HOOK_IOCONT = ITOI_FAULT_IOCONT,
    HOOK_HELPER = ITOI_FAULT_HELPER,
    HOOK_CMISS = ITOI_FAULT_CMISS,
    HOOK_N = ITOI_FAULT_N
};
static struct {
    _Atomic long at, n;
} hook[HOOK_N];
_Atomic unsigned itoi_fault_armed; /* bit i: hook i has a call to fire at (itoi.h) */

void itoi_fault_reset(void)
{
#ifdef ITOI_FAULT_INJECTION
    const long at[HOOK_N] = {
        [HOOK_MMAP] = itoi_env.fault_mmap, /* validated by config.c */
        [HOOK_MALLOC] = itoi_env.fault_malloc,
        [HOOK_REARM] = itoi_env.fault_rearm,
        [HOOK_UCANCEL] = itoi_env.fault_uring_cancel,
        [HOOK_WAITPOST] = itoi_env.fault_waitpost,
        [HOOK_IOCONT] = itoi_env.fault_iocont,
        [HOOK_HELPER] = itoi_env.fault_helper,
        [HOOK_CMISS] = itoi_env.fault_cancel_miss,
    };
#else
    const long at[HOOK_N] = {0}; /* never armed: inject() always says no */
#endif
    unsigned armed = 0;
    for (int i = 0; i < HOOK_N; i++) {
        atomic_store(&hook[i].at, at[i]);
        atomic_store(&hook[i].n, 0);
        if (at[i] > 0) armed |= 1u << i;
    }
    atomic_store(&itoi_fault_armed, armed);
}

/* Whether this call of hook i is the one that fails (or pauses). */
static int inject(int i)
{
    long a = atomic_load_explicit(&hook[i].at, memory_order_relaxed);
    return a > 0 && atomic_fetch_add(&hook[i].n, 1) + 1 == a;
}

void *itoi_mmap(size_t len, int prot)
{
    if (inject(HOOK_MMAP)) return NULL;
    void *p = mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

int itoi_munmap(void *p, size_t len) { return munmap(p, len); }

/* The allocator may be the program's own (malloc defined in the executable: a statically
 * linked allocator, a counting wrapper), which signal preemption counts as the program's
 * code, and libito allocates under its locks (stack.c map_region under a class's lock,
 * reached from ito_create): the calls are marked as call outs (itoi.h, itoi_callout_begin;
 * until 2026-12-06 the next ito_create of the worker spun for ever, found by an outside
 * tester, h63e: test_preempt_own_malloc). */
_Thread_local volatile int itoi_callout_depth; /* itoi.h; here, as the fault gate tests link this file alone */
void *itoi_malloc(size_t n)
{
    if (inject(HOOK_MALLOC)) return NULL;
    itoi_callout_begin();
    void *p = malloc(n);
    itoi_callout_end();
    return p;
}

void itoi_free(void *p)
{
    itoi_callout_begin();
    free(p);
    itoi_callout_end();
}

bool itoi_fault_alloc(void) { return inject(HOOK_MALLOC); }

void *itoi_calloc(size_t n, size_t m)
{
    if (inject(HOOK_MALLOC)) return NULL;
    itoi_callout_begin();
    void *p = calloc(n, m);
    itoi_callout_end();
    return p;
}

void itoi_fault_pause(void)
{
    struct timespec ts = {0, 50 * 1000 * 1000};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

bool itoi_fault_inject(int i) { return inject(i); }
