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

static _Atomic long fault_mmap_at, fault_malloc_at, fault_rearm_at, fault_ucancel_at, fault_waitpost_at, fault_iocont_at;
static _Atomic long n_mmap, n_malloc, n_rearm, n_ucancel, n_waitpost, n_iocont;

void itoi_fault_reset(void)
{
#ifdef ITOI_FAULT_INJECTION
    atomic_store(&fault_mmap_at, itoi_env.fault_mmap); /* validated by config.c */
    atomic_store(&fault_malloc_at, itoi_env.fault_malloc);
    atomic_store(&fault_rearm_at, itoi_env.fault_rearm);
    atomic_store(&fault_ucancel_at, itoi_env.fault_uring_cancel);
    atomic_store(&fault_waitpost_at, itoi_env.fault_waitpost);
    atomic_store(&fault_iocont_at, itoi_env.fault_iocont);
#else
    atomic_store(&fault_mmap_at, 0); /* never armed: inject() always says no */
    atomic_store(&fault_malloc_at, 0);
    atomic_store(&fault_rearm_at, 0);
    atomic_store(&fault_ucancel_at, 0);
    atomic_store(&fault_waitpost_at, 0);
    atomic_store(&fault_iocont_at, 0);
#endif
    atomic_store(&n_mmap, 0);
    atomic_store(&n_malloc, 0);
    atomic_store(&n_rearm, 0);
    atomic_store(&n_ucancel, 0);
    atomic_store(&n_waitpost, 0);
    atomic_store(&n_iocont, 0);
}

static int inject(_Atomic long *counter, _Atomic long *at)
{
    long a = atomic_load_explicit(at, memory_order_relaxed);
    return a > 0 && atomic_fetch_add(counter, 1) + 1 == a;
}

void *itoi_mmap(size_t len, int prot)
{
    if (inject(&n_mmap, &fault_mmap_at)) return NULL;
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
    if (inject(&n_malloc, &fault_malloc_at)) return NULL;
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

bool itoi_fault_alloc(void) { return inject(&n_malloc, &fault_malloc_at); }

void *itoi_calloc(size_t n, size_t m)
{
    if (inject(&n_malloc, &fault_malloc_at)) return NULL;
    itoi_callout_begin();
    void *p = calloc(n, m);
    itoi_callout_end();
    return p;
}

void itoi_fault_window_rearm(void)
{
    if (!inject(&n_rearm, &fault_rearm_at)) return;
    struct timespec ts = {0, 50 * 1000 * 1000};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

bool itoi_fault_waitpost(void) { return inject(&n_waitpost, &fault_waitpost_at); }

void itoi_fault_pause(void)
{
    struct timespec ts = {0, 50 * 1000 * 1000};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

bool itoi_fault_iocont(void) { return inject(&n_iocont, &fault_iocont_at); }

bool itoi_fault_uring_cancel(void) { return inject(&n_ucancel, &fault_ucancel_at); }
