/* floorrt.c: the floor of a compiled yield on this machine, for the case study's headline
 * (issue 12, deliverable 3): the least that any runtime must do when the decoder's
 * compiled yield points switch to the player and the player yields back.
 *
 * player-floor-budget and player-floor-budget-full link this file instead of libito. It
 * defines the few ito calls that player.c makes, for exactly its program: a main thread
 * and the two threads it creates (the decoder and the player), on one kernel thread.
 * Nothing else: no scheduler, no queues, no fairness rule, no pollers, no statistics,
 * no errno or exception state per thread, no stack pool, no workers. A compiled yield
 * goes through the same per-live-set (or full-save) stubs of decoder-budget*.o and the
 * same ito_coop_yield assembly as with libito; there, itoi_coop_next below refills the
 * budget and returns the other thread's stack. The player's ito_yield is the same ABI
 * switch (itoa_switch_abi_np) that libito's yield ends in. So the floor keeps the
 * switches, the saves, the player's run and the caches and predictors they disturb, and
 * leaves out what ito's scheduler adds on top: player-floor-budget* over player-budget*
 * in the same round is ito's share of a yield.
 *
 * Threads run in turn: a yield goes to the other live thread (none: it returns); a
 * thread that ends resumes the other live one, or main when none is left; ito_join
 * resumes the threads from main the first time and returns once they have all ended. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ito/ito.h"
#include "itoa.h"

uint32_t itoa_fp_lazy; /* the ABI switch loads MXCSR and the x87 control word always */

_Thread_local volatile int ito_coop_flag;
/* ito_coop_budget: the decoder's ito-cc object defines it (weakly), as in every program
 * built by ito-cc; libito would define it otherwise. */

enum { FLOOR_THREADS = 2 };

typedef struct floor_thread {
    void *sp;
    ito_fn_t fn;
    void *arg, *result, *stack;
    int live;
} floor_thread_t;

static floor_thread_t th[FLOOR_THREADS];
static int nthreads, cur = -1; /* -1: main */
static void *main_sp, *dead_sp;
static int quantum = ITO_COOP_BUDGET_DEFAULT;
static uint64_t switches;

static _Noreturn void floor_fail(const char *what)
{
    fprintf(stderr, "floorrt: %s (this runtime serves player.c only)\n", what);
    abort();
}

/* The other live thread, or -1. */
static inline int other(void)
{
    for (int i = 0; i < nthreads; i++)
        if (i != cur && th[i].live) return i;
    return -1;
}

/* ito's headers define errno through this call; the kernel thread's own is the answer. */
int *ito_errno_location(void) { return __errno_location(); }

int ito_init(const ito_config_t *cfg)
{
    (void)cfg;
    return ITO_OK;
}

int ito_finalize(void) { return ITO_OK; }

int ito_coop_set_budget(long instructions, unsigned long long slice_ns)
{
    if (instructions < 1 || instructions > ITO_COOP_BUDGET_MAX || slice_ns != 0) return ITO_EINVAL;
    quantum = (int)instructions; /* the word itself starts empty, as on a fresh worker of
                                  * libito: the decoder's first check yields */
    return ITO_OK;
}

int ito_attr_init(ito_attr_t *a)
{
    if (!a) return ITO_EINVAL;
    memset(a, 0, sizeof *a);
    a->worker = -1;
    return ITO_OK;
}

static _Noreturn void thread_entry(void)
{
    floor_thread_t *t = &th[cur];
    t->result = t->fn(t->arg);
    t->live = 0;
    int next = other();
    void *load = next >= 0 ? th[next].sp : main_sp;
    cur = next;
    switches++;
    itoa_switch_abi_np(&dead_sp, load);
    __builtin_unreachable();
}

int ito_create(ito_thread_t *out, ito_fn_t fn, void *arg, const ito_attr_t *a)
{
    if (!out || !fn) return ITO_EINVAL;
    if (nthreads == FLOOR_THREADS) floor_fail("more threads than the player's two");
    size_t size = a && a->stack_size ? a->stack_size : (size_t)256 << 10;
    floor_thread_t *t = &th[nthreads];
    t->stack = malloc(size);
    if (!t->stack) return ITO_ENOMEM;
    t->fn = fn;
    t->arg = arg;
    t->live = 1;
    t->sp = itoa_make((char *)t->stack + size, thread_entry);
    *out = (ito_thread_t)(uintptr_t)(++nthreads);
    return ITO_OK;
}

int ito_join(ito_thread_t h, void **result)
{
    uintptr_t i = (uintptr_t)h - 1;
    if (i >= (uintptr_t)nthreads || cur != -1) return ITO_EINVAL;
    if (th[i].live) { /* run them all; main resumes when none is left */
        cur = other();
        switches++;
        itoa_switch_abi_np(&main_sp, th[cur].sp);
    }
    if (result) *result = th[i].result;
    free(th[i].stack);
    th[i].stack = NULL;
    return ITO_OK;
}

int ito_yield(void)
{
    int next = other();
    if (cur < 0) return ITO_ENOTULT;
    if (next < 0) return ITO_OK;
    int me = cur;
    cur = next;
    switches++;
    return itoa_switch_abi_np(&th[me].sp, th[next].sp);
}

/* Called by ito_coop_yield (coopyield_x86_64_sysv_elf_gas.S) with the yielding
 * context's saved sp: the sp to resume. */
void *itoi_coop_next(void *sp);
void *itoi_coop_next(void *sp)
{
    ito_coop_flag = 0;
    ito_coop_budget = quantum;
    int next = other();
    if (cur < 0 || next < 0) return sp;
    th[cur].sp = sp;
    cur = next;
    switches++;
    return th[next].sp;
}

/* Only the preemptive ticker calls it; the budget variants have no ticker. */
void ito_coop_yield_full(void) { floor_fail("ito_coop_yield_full"); }

int ito_stats(ito_stats_t *out)
{
    if (!out) return ITO_EINVAL;
    memset(out, 0, sizeof *out);
    out->switches = switches;
    return ITO_OK;
}
