/* ticker.h: a per-worker timer for the co-operative threading case study and tests.
 *
 * A POSIX timer (CLOCK_MONOTONIC, SIGEV_THREAD_ID) sends a real-time signal to one kernel
 * thread (the worker that calls ply_ticker_start) every period. Each expiry is a "tick":
 *   PLY_TICK_FLAG     the handler only sets that worker's ito_coop_flag; the yield points the
 *                     plugin compiled into the code switch (the paper's predicated timer);
 *   PLY_TICK_PREEMPT  the handler itself switches the running ULT out with the full-save
 *                     switch (ito_coop_yield_full), as timer preemption must, when it is at a
 *                     safe point: the program's own code (the executable's text, never libito,
 *                     libc or another shared library) and preemption allowed by the program
 *                     (ply_ticker_preemptible). Otherwise the tick is deferred to the next one.
 *
 *   PLY_TICK_HELPER   no signal at all: a helper thread sets the flag (see the enum).
 *   PLY_TICK_SPIN     the helper without its stores: no ticks, a busy neighbour CPU.
 *
 * Deadlines: a tick is pending until the consumer calls ply_ticker_served(). A tick that finds
 * the previous one still pending, and every expiry the kernel folded into one signal
 * (timer_getoverrun), is a missed deadline. The latency of a served tick is the time from
 * its expiry to ply_ticker_served().
 *
 * One ticker per process. Counters written by the handler are read only after
 * ply_ticker_stop. (Written for the case study before ito_preempt_enable existed; see
 * docs/reproductions/cooperative.md.) */
#ifndef PLY_TICKER_H
#define PLY_TICKER_H

#include <stdint.h>

typedef enum {
    PLY_TICK_FLAG = 0,    /* signal timer, the handler sets the flag */
    PLY_TICK_PREEMPT = 1, /* signal timer, the handler switches */
    PLY_TICK_HELPER = 2,  /* no signal: a helper kernel thread (on another core) polls the
                           * clock and stores 1 into the worker's ito_coop_flag, the nearest
                           * software has to the paper's free, predicated hardware timer */
    PLY_TICK_SPIN = 3,    /* the HELPER thread, spinning the same way on its own CPU, that
                           * never stores the flag: no ticks, but the consumer's neighbour
                           * CPU is as busy as under the helper timer (a busy neighbour slows
                           * a core on some hosts: bench/neighbour_tax), the baseline that
                           * separates the helper's presence from its ticks */
} ply_tick_mode_t;

typedef struct ply_tick_stats {
    uint64_t ticks;          /* handler runs */
    uint64_t overruns;       /* expiries folded by the kernel (each one a missed deadline) */
    uint64_t missed;         /* ticks that found the previous one unserved, plus overruns */
    uint64_t served;         /* ticks served by the consumer */
    uint64_t preempted;      /* PREEMPT: switches made by the handler */
    uint64_t deferred;       /* PREEMPT: ticks not at a safe point */
    uint64_t max_latency_ns, sum_latency_ns;
    uint64_t fresh;          /* HELPER: ticks whose store found the flag clear (the previous
                              * one taken); the others fold into a flag the consumer has not
                              * reached, e.g. while the OS runs something else on its CPU */
    int helper_disjoint;     /* HELPER: 1 if the helper's CPUs and the consumer's are disjoint,
                              * 0 if they share one, -1 if unknown */
} ply_tick_stats_t;

/* Start ticking the calling kernel thread every period_ns. 0 on success, -1 (errno). */
int ply_ticker_start(uint64_t period_ns, ply_tick_mode_t mode);
/* Stop, and copy the counters to *out (may be NULL). */
int ply_ticker_stop(ply_tick_stats_t *out);
/* The consumer runs for the pending tick, if any: 1 if there was one, else 0. */
int ply_ticker_served(void);
/* PREEMPT mode: whether the running ULT may be switched out by the handler now. */
void ply_ticker_preemptible(int on);
/* CLOCK_MONOTONIC in ns. */
uint64_t ply_now_ns(void);

#endif
