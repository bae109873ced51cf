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

typedef struct itoi_pworker {
    timer_t timer;
    int armed;
    itoi_pstats_t st;
    uint64_t gang_epoch;        /* the group epoch this worker last sorted its ULTs for */
} itoi_pworker_t;

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
    uint64_t quantum_ns, max_delay_ns;
    uintptr_t exe_lo, exe_hi;
    itoi_pworker_t *pw;
    struct sigaction old_sa;
    itoi_pstats_t total;
} itoi_preempt_t;

extern itoi_preempt_t itoi_pre;

void itoi_preempt_fini(void);
void itoi_preempt_add(itoi_pstats_t *to, itoi_pstats_t *from);
void itoi_gang_start(void);
void itoi_gang_stop(void);
void itoi_gang_tick(void);      /* worker 0's timer: the next group's turn */
void itoi_gang_region_ended(itoi_group_t *g); /* from ito_psafe_end: end a delayed turn now */
uint64_t itoi_mono_ns(void);

#endif
