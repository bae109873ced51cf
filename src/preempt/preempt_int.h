/* preempt_int.h: internals shared by preempt.c (timers, the handler, regions) and
 * gang.c (groups and gang scheduling). */
#ifndef ITO_PREEMPT_INTERNAL_H
#define ITO_PREEMPT_INTERNAL_H

#include <signal.h>
#include <time.h>

#include "ito/preempt.h"
#include "../core/itoi.h"

typedef struct itoi_pstats {
    _Atomic uint64_t ticks, preemptions, deferred, delayed, delay_ns, forced;
} itoi_pstats_t;

/* Per worker (w->slot[ITOI_WSLOT_PREEMPT]); touched by its worker only, signal handler
 * included, except the statistics (read by anyone). */
typedef struct itoi_pworker {
    timer_t timer;
    int armed;
    int flag_set;               /* FLAG mode: this worker's last tick set ito_coop_flag */
    itoi_pstats_t st;
    itoi_queue_t parked;        /* gang scheduling: ULTs whose group's turn it is not */
    uint64_t gang_seen;         /* the group epoch the parked ULTs were set aside for */
} itoi_pworker_t;

static inline itoi_pworker_t *itoi_pworker(itoi_worker_t *w)
{
    /* acquire: pairs with the release stores of ito_preempt_enable/disable, which run on
     * another thread than the handler that reads the slot */
    return (itoi_pworker_t *)__atomic_load_n(&w->slot[ITOI_WSLOT_PREEMPT], __ATOMIC_ACQUIRE);
}

/* A ULT's preemption state, in its slot words (src/core/itoi.h, which defines the region
 * depth ITOI_PSAFE): written by the ULT itself and read by the signal handler on the same
 * worker (volatile: the handler interrupts the ULT, no atomics needed); the group is set
 * by ito_group_add. */
#define ITOI_PSAFE_PENDING(t) (*(volatile uintptr_t *)&(t)->slot[ITOI_USLOT_PSAFE_PENDING].w) /* 0, or the thread's CPU ns | 1 at the first delayed tick */
#define ITOI_PSAFE_SINCE(t) ((t)->slot[ITOI_USLOT_PSAFE_SINCE].w)
static inline struct itoi_group *itoi_group_of(const itoi_ult_t *t)
{
    return (struct itoi_group *)t->slot[ITOI_USLOT_GROUP].p;
}

#define ITOI_MAX_GROUPS 64
typedef struct itoi_group {
    _Atomic int members;
    int turn_delayed;           /* its turn was extended for a preemption-safe region */
    uint64_t delay_since;       /* when the turn should have ended (ns) */
    _Atomic uint64_t debt_ns;   /* time to sit out: the compensation of delayed switches */
    itoi_pstats_t st;
    int slot;
} itoi_group_t;

typedef struct itoi_preempt {
    int on, mode, gang, spare_main;
    uint64_t quantum_ns, max_delay_ns; /* a region's bound: CPU time (a gang turn's: wall time) */
    uintptr_t exe_lo, exe_hi;
    itoi_pworker_t *pw;
    struct sigaction old_sa;
    itoi_pstats_t total;
} itoi_preempt_t;

extern itoi_preempt_t itoi_pre;
/* The settings a tick reads: written by enable (under its lock) while a late tick of an
 * earlier enable may still be in the handler on a worker, so both sides use atomics. */
#define ITOI_PRE_GET(field) __atomic_load_n(&itoi_pre.field, __ATOMIC_RELAXED)
#define ITOI_PRE_SET(field, v) __atomic_store_n(&itoi_pre.field, (v), __ATOMIC_RELAXED)

void itoi_preempt_fini(void);
void itoi_preempt_add(itoi_pstats_t *to, itoi_pstats_t *from);
void itoi_gang_start(void);
void itoi_gang_stop(void);
void itoi_gang_tick(void);      /* worker 0's timer: the next group's turn */
void itoi_gang_region_ended(itoi_group_t *g); /* from ito_psafe_end: end a delayed turn now */
uint64_t itoi_mono_ns(void);

/* Gang scheduling's state (gang.c): the group whose turn it is (NULL: gang scheduling is
 * off) and a counter bumped at every change of turn. */
extern _Atomic(void *) itoi_gang_group;
extern _Atomic uint64_t itoi_gang_epoch;

#endif
