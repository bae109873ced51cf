/* ito/preempt.h: timer preemption of ULTs, gang scheduling of thread groups, and
 * preemption-safe regions (after Jung, Hyun and Lee, a preemption-safe policy for
 * blocked programs).
 *
 * Preemption: each worker has a timer (quantum default 10 ms). When it expires, the
 * running ULT is switched out with the full-save switch, in the signal handler, if it
 * is at a safe point; otherwise the switch is deferred to a later tick. Safe means the
 * interrupted instruction is in the program's own code: never inside libito, libc
 * (malloc, printf, stdio locks) or any other shared library, never in the scheduler
 * context or a ZWT. This needs libito as a shared library (the `ito::ito` target,
 * `pkg-config --libs ito`): with libito linked statically into the executable its code
 * cannot be told apart, and ito_preempt_enable returns ITO_ENOSYS (as it does in ASan and
 * TSan builds, whose runtimes make the handler's switch unsafe). A preempted ULT
 * resumes on the same worker. Code that never has its quantum expire pays nothing.
 *
 * Preemption-safe regions: ito_psafe_begin()/ito_psafe_end() are plain stores to the
 * running ULT's own state (no system call). A quantum that expires inside a region is
 * delayed and the delay recorded; ito_psafe_end() then switches at once, and the
 * ULT's group is charged the extra time it used (it sits out that long, the paper's
 * compensation). Past max_delay_quanta quanta the ULT is preempted anyway (a forced,
 * involuntary preemption, charged the same way); it resumes still inside its region.
 *
 * Groups ("programs"): with gang scheduling on, in each time slice only the ULTs of one
 * group run, on all workers at once; groups take turns round-robin; ULTs in no group
 * always run. */
#ifndef ITO_PREEMPT_H
#define ITO_PREEMPT_H

#include <stdint.h>
#include "error.h"
#include "thread.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

enum ito_preempt_mode {
    ITO_PREEMPT_SIGNAL = 0, /* the timer's signal handler switches the ULT (full save) */
    ITO_PREEMPT_FLAG = 1,   /* the timer only sets ito_coop_flag: compiled yield points switch */
};

typedef struct ito_preempt_config {
    unsigned quantum_us;        /* 0: 10,000 (10 ms); 100 .. 10,000,000 */
    int mode;                   /* ITO_PREEMPT_SIGNAL (default) or ITO_PREEMPT_FLAG */
    unsigned max_delay_quanta;  /* bound of a delayed switch, in quanta; 0: 4 */
    int gang;                   /* 1: gang-schedule groups */
} ito_preempt_config_t;

int ito_preempt_enable(const ito_preempt_config_t *cfg); /* ITO_ESTATE if already on */
int ito_preempt_disable(void);

int ito_psafe_begin(void);      /* ITO_ENOTULT outside a ULT */
int ito_psafe_end(void);        /* ITO_ESTATE without a matching begin */

typedef struct ito_group ito_group_t;
int ito_group_create(ito_group_t **out);
int ito_group_destroy(ito_group_t *g);             /* ITO_EBUSY while it has ULTs */
int ito_group_add(ito_group_t *g, ito_thread_t t); /* t joins g (it leaves g when it ends) */

typedef struct ito_preempt_stats {
    uint64_t ticks, preemptions, deferred;          /* deferred: not at a safe point */
    uint64_t delayed, delay_ns, forced;             /* inside preemption-safe regions */
} ito_preempt_stats_t;
int ito_preempt_stats(ito_preempt_stats_t *out);               /* whole runtime */
int ito_group_stats(ito_group_t *g, ito_preempt_stats_t *out); /* one group */

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
