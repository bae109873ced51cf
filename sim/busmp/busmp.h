/* busmp.h: simulator of the bus multiprocessor of Jung, Hyun and Lee (seed 003), with gang
 * scheduling under the preemption and the preemption-safe policies.
 *
 * Machine (paper Sect. 4.1, Tables 1 and 2): ncpu processors, one cycle per instruction, a
 * private direct-mapped write-back cache per processor kept coherent by write-invalidate
 * snooping on one shared bus (MESI / Illinois states); penalties are fixed latencies:
 * write on a Shared line 3 (invalidate), miss supplied by another cache 7, miss supplied by
 * memory 22.  Programs are gangs of ncpu processes; process i always runs on processor i.
 *
 * Time: each processor has its own clock; the running gang's processors advance in windows
 * of params.window cycles, so the order of accesses of different processors is exact to a
 * window.  Every scheduling decision falls on a window boundary or on the exact clock at
 * which the event that caused it happened (a withdraw, the last exit).
 *
 * Scheduling (busmp.c has the policy rules in detail): round robin over a run queue, one
 * gang per time slice, quantum Q, a gang switch costs switch_cost cycles on every processor.
 * PREEMPT switches at every quantum end.  PSAFE delays the switch while any process of the
 * gang is inside an unpreemptable region, up to bound_quanta * Q, then forces it; the delay
 * is compensated (params.comp: sit out, shorten the next quanta, or skip whole turns).
 * params.pending and params.tick_grid choose the paper's rules or ito's runtime's.
 * Under PSAFE each request / withdraw costs signal_cost cycles on its processor. */
#ifndef ITO_BUSMP_H
#define ITO_BUSMP_H

#include <stdint.h>

#include "wl.h"

#define BUSMP_MAXCPU 16

enum { BUSMP_PREEMPT = 0, BUSMP_PSAFE = 1 };
/* How a delay is compensated (the paper describes two; ito's runtime uses a third):
 *  SITOUT  (Sect. 3, Fig. 4): the gang leaves the run queue until `delay` cycles have elapsed,
 *          then re-enters it at the tail;
 *  SHORTEN (Sect. 1): the delay is subtracted from the gang's next quanta (a debt of at least
 *          one quantum skips whole turns), the rest shortens its next quantum;
 *  SKIP    (src/preempt/gang.c): the delay becomes a debt; the gang sits out one whole turn per
 *          quantum of debt, a remainder below a quantum is carried (it never shortens a turn),
 *          and nothing is waived: a gang alone with a debt leaves the machine idle. */
enum { BUSMP_COMP_SITOUT = 0, BUSMP_COMP_SHORTEN = 1, BUSMP_COMP_SKIP = 2 };
/* What the gang does while its switch is pending (PSAFE, quantum over, a process in a region):
 *  STOP (the paper's Sect. 4.1 reading): processes outside a region stop at the quantum end,
 *       the others right after their withdraw;
 *  GANG (src/preempt/gang.c): the whole gang runs on (a process may even enter a new region)
 *       until no process is inside a region, then the switch happens. */
enum { BUSMP_PEND_STOP = 0, BUSMP_PEND_GANG = 1 };

typedef struct busmp_params {
    int ncpu;
    int policy;
    uint64_t quantum, signal_cost, switch_cost;
    int bound_quanta;     /* a delay is forced to end after bound_quanta * quantum */
    int comp;             /* BUSMP_COMP_* */
    int pending;          /* BUSMP_PEND_* */
    int tick_grid;        /* 1: quanta end on a fixed grid of period `quantum` from cycle 0 (one
                           * periodic timer, as ito's runtime); 0: a turn lasts `quantum` from
                           * its start, after the switch cost (the paper's Fig. 4) */
    uint32_t ops_scale;   /* non-memory instruction cycles are multiplied by this (1 = as counted) */
    uint64_t window;      /* interleaving window of the processors, cycles */
    uint32_t cache_bytes, line_bytes;
    uint32_t pen_inval, pen_c2c, pen_mem;
} busmp_params;

/* The paper's machine and costs (Tables 1 and 2); bound 10 quanta (the paper's "100 ms"). */
busmp_params busmp_paper_params(void);

/* ---- caches and coherence (cache.c) ---- */
typedef struct busmp_mstat {
    uint64_t reads, writes, misses, c2c, mem, inval, evictions;
} busmp_mstat;

typedef struct busmp_mem busmp_mem;
busmp_mem *busmp_mem_new(int ncpu, uint32_t cache_bytes, uint32_t line_bytes, uint32_t pen_inval,
                         uint32_t pen_c2c, uint32_t pen_mem);
void busmp_mem_free(busmp_mem *m);
/* One access by processor cpu; returns the penalty in cycles (0 on a hit without bus work). */
uint32_t busmp_mem_access(busmp_mem *m, int cpu, uint64_t addr, int write, busmp_mstat *st);
/* State of addr's line in cpu's cache: 'I', 'S', 'E' or 'M'. */
char busmp_mem_state(const busmp_mem *m, int cpu, uint64_t addr);

/* ---- the machine and its scheduler (busmp.c) ---- */
typedef struct busmp_proc busmp_proc;
/* Supplies the next events of a process: sets *ev and returns how many (0 = none left). */
typedef uint32_t (*busmp_refill_fn)(void *src, const uint64_t **ev);

typedef struct busmp_pstats {
    const char *name;
    int blocked;
    uint64_t finish;          /* completion time: clock of the last exit (all start at 0) */
    uint64_t run_cycles;      /* sum of the lengths of its time slices */
    busmp_mstat mem;          /* summed over its processes */
    uint64_t regions;         /* requests of unpreemptable, summed over processes */
    uint64_t signals;         /* request + withdraw signals paid (PSAFE only) */
    uint64_t slices, delays, delayed_ticks, forced, delay_cycles, comp_waived, turns_skipped;
    /* Where its processors' time went inside its own slices (summed over processes; the sum
     * of the five is ncpu * run_cycles): instructions (1 cycle each, memory references
     * included), miss and invalidation penalties, signals, waiting at a barrier inside a
     * slice, and idle (stopped at a pending switch, exited, or at a barrier since a previous
     * slice). */
    uint64_t cyc_instr, cyc_penalty, cyc_signal, cyc_barrier;
    int64_t cyc_idle;         /* the residual: may be slightly negative (see busmp.c) */
    /* Its fair share: for every slice of any gang that began before this program finished,
     * slice length / number of unfinished programs.  run_cycles - fair_cycles = the machine
     * time it received beyond round robin (the compensation credit). */
    double fair_cycles;
} busmp_pstats;

enum { BUSMP_END_QUANTUM = 0, BUSMP_END_DELAYED = 1, BUSMP_END_FORCED = 2, BUSMP_END_FINISHED = 3 };

typedef struct busmp_slice {
    int prog, reason;
    uint64_t start, end;  /* end = time the gang stopped, before the switch cost */
    uint64_t delay;       /* PSAFE: time from the quantum end to the switch */
} busmp_slice;

typedef struct busmp busmp;
busmp *busmp_new(const busmp_params *p);
void busmp_free(busmp *m);
/* Adds a gang of p->ncpu processes; src[i] feeds process i through refill. Returns its index. */
int busmp_add_program(busmp *m, const char *name, int blocked, busmp_refill_fn refill, void *const *src);
/* Runs until every program exited. Returns 0, or -1 if a process ran out of events. */
int busmp_run(busmp *m);
/* Cycles during which no gang ran because the only runnable gangs sat out a debt (SKIP). */
uint64_t busmp_idle_cycles(const busmp *m);
int busmp_nprogs(const busmp *m);
const busmp_pstats *busmp_stats(const busmp *m, int prog);
const busmp_slice *busmp_slices(const busmp *m, int *n);
const busmp_params *busmp_params_of(const busmp *m);
busmp_mem *busmp_memory(busmp *m);

/* ---- workload programs driven as coroutines (coro.c) ---- */
typedef struct busmp_wprog busmp_wprog;
/* Builds program k (size s) as gang number `index` of m: arena, setup, one coroutine per
 * processor generating the thread's trace on demand. Its addresses live at (index+1) << 40. */
busmp_wprog *busmp_add_workload(busmp *m, const wl_kind *k, const wl_size *s, uint64_t seed);
/* After busmp_run: the program's own result check (0 = right). */
int busmp_wprog_check(busmp_wprog *w, char *err, size_t errlen);
void busmp_wprog_free(busmp_wprog *w);

#endif
