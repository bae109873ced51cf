/* psr.h: the real run of the preemption-safe paper (seed 003) on ito.
 *
 * psr_run() runs a program mix -- one programming level -- at once on the ito runtime:
 * every program is one ito group (ito_group_create) of P ULTs, one per worker-thread of the
 * workload, ULT i bound to worker i mod P; gang scheduling is on, so in each quantum the P
 * ULTs of one program run on the P workers together and programs take turns round-robin.
 * All programs are released together by a start gate after they joined their groups and
 * preemption was enabled.  Two policies:
 *   PSR_PREEMPT  the workloads' psafe marks only count blocks (plain timer preemption);
 *   PSR_PSAFE    the marks call ito_psafe_begin / ito_psafe_end (delayed switches, bounded
 *                by bound_quanta, compensated by the group sitting out).
 * After the run every program's result is checked against its reference (wl_kind.check). */
#ifndef PSR_H
#define PSR_H

#include <stdint.h>

#include "wl.h"

enum { PSR_PREEMPT = 0, PSR_PSAFE = 1 };
#define PSR_MAX_PROGS 8

typedef struct psr_config {
    const wl_kind *kinds[PSR_MAX_PROGS];
    int nprogs;
    wl_size sizes[PSR_MAX_PROGS];
    int policy;            /* PSR_PREEMPT or PSR_PSAFE */
    unsigned quantum_us;   /* timer quantum */
    unsigned bound_quanta; /* bound of a delayed switch, in quanta */
    int workers;           /* P: ito workers = ULTs per program */
    int no_check;          /* 1: skip the result checks (the cache-simulated run: a check's
                              reference computation would pollute the per-program counts) */
} psr_config;

typedef struct psr_prog_result {
    uint64_t time_ns;      /* from the common start to the end of the program's last ULT */
    uint64_t blocks;       /* psafe regions entered (all ULTs), under either policy */
    uint64_t preemptions, delayed, delay_ns, forced; /* ito_group_stats */
    int ok;                /* 1: the computed result is right (or not checked: err "unchecked") */
    char err[160];
} psr_prog_result;

typedef struct psr_totals {
    uint64_t wall_ns, ticks, preemptions, deferred, delayed, forced;
} psr_totals;

/* Initializes ito (cfg->workers workers), runs the mix, finalizes ito.  Returns an ito
 * error code (or ITO_ENOMEM / ITO_EINVAL for setup failures, with a message in err);
 * a wrong program result is not an error here: see res[i].ok. */
int psr_run(const psr_config *cfg, psr_prog_result *res, psr_totals *tot, char *err, size_t errlen);

#endif
