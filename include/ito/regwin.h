/* ito/regwin.h: register windows shared among threads (Hidaka, Koike, Tanaka,
 * "Multiple Threads in Cyclic Register Windows").
 *
 * ito can emulate SPARC-style cyclic register windows on every worker: code built with
 * -finstrument-functions performs a `save` at each function entry and a `restore` at each
 * exit, window overflow/underflow trap into emulated handlers, and every context switch
 * goes through the window manager under one of the paper's three schemes:
 *
 *   NS   non-sharing: all windows of the suspended thread are flushed at every switch;
 *   SNP  sharing, one reserved window; a thread without windows gets the window above
 *        the suspended thread's;
 *   SP   sharing, a private reserved window (PRW) per thread; a thread without windows
 *        gets the window above the suspended thread's PRW.
 *
 * This header chooses the scheme and the window count (before ito_init), switches the
 * working-set scheduling policy on or off, and reads the counters and the cost model.
 * Cycles are not measured: they come from the paper's Table 2 (per switch, by the number
 * of windows transferred) and from trap costs that are parameters (see ito_regwin_costs_t). */
#ifndef ITO_REGWIN_H
#define ITO_REGWIN_H

#include <stdint.h>
#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

enum ito_regwin_scheme {
    ITO_REGWIN_OFF = 0, /* no emulation (the default) */
    ITO_REGWIN_NS = 1,
    ITO_REGWIN_SNP = 2,
    ITO_REGWIN_SP = 3,
};

#define ITO_REGWIN_MIN_WINDOWS 4
#define ITO_REGWIN_MAX_WINDOWS 32
#define ITO_REGWIN_DEFAULT_WINDOWS 8
/* Per-switch histogram: windows saved 0..33 (the last bucket counts 33 or more) by
 * windows restored 0..1 (a switch restores at most the resumed thread's top window). */
#define ITO_REGWIN_HIST_SAVES 34
#define ITO_REGWIN_HIST_RESTORES 2

/* Trap costs in cycles. The paper gives none; the defaults of ito_regwin_config_init are
 * estimates (instruction counts of the canonical SPARC V8 window trap handlers with
 * Cypress CY7C601 load/store timings; derivation in src/regwin/regwin_cost.c):
 *   overflow_trap 55            one window saved by an overflow trap;
 *   underflow_trap 49           one window restored by an underflow trap;
 *   underflow_inplace_extra 12  the in-place underflow of SNP/SP also copies the 8 ins
 *                               into the window above and emulates the trapped restore. */
typedef struct ito_regwin_costs {
    uint32_t overflow_trap;
    uint32_t underflow_trap;
    uint32_t underflow_inplace_extra;
} ito_regwin_costs_t;

typedef struct ito_regwin_config {
    int scheme;               /* enum ito_regwin_scheme */
    int windows;              /* ITO_REGWIN_MIN_WINDOWS .. ITO_REGWIN_MAX_WINDOWS */
    int working_set;          /* 1: a woken thread that still has windows goes to the
                                 front of the ready queue, else to the back (section 4.6) */
    ito_regwin_costs_t costs;
} ito_regwin_config_t;

/* Defaults: OFF, 8 windows, working set off, the trap costs above. */
int ito_regwin_config_init(ito_regwin_config_t *cfg);
/* Validates and installs cfg. ITO_EINVAL for a bad scheme/window count/flag, ITO_ESTATE
 * while any worker's window file exists (i.e. between ito_init and ito_finalize). */
int ito_regwin_configure(const ito_regwin_config_t *cfg);
int ito_regwin_get_config(ito_regwin_config_t *cfg);
/* "off", "NS", "SNP", "SP"; "?" for anything else. */
const char *ito_regwin_scheme_name(int scheme);

typedef struct ito_regwin_counters {
    uint64_t saves;                  /* save instructions (function entries) */
    uint64_t restores;               /* restore instructions (function exits) */
    uint64_t overflow_traps;         /* each spills exactly one window */
    uint64_t underflow_traps;        /* each fills exactly one window */
    uint64_t switches;               /* completed switches (a thread was resumed) */
    uint64_t switches_resident;      /* ... to a thread that still had windows in the file */
    uint64_t switches_flush;         /* suspensions of the flushing kind (NS: all) */
    uint64_t thread_exits;           /* suspensions by exit (windows discarded, not saved) */
    uint64_t switch_window_saves;    /* windows saved by switches, in total (counted when
                                        saved; switch_hist counts a switch when it completes) */
    uint64_t switch_window_restores; /* windows restored by switches, in total */
    uint64_t migrations;             /* resumed threads whose windows were in another worker's file */
    uint64_t switch_hist[ITO_REGWIN_HIST_SAVES][ITO_REGWIN_HIST_RESTORES];
    uint64_t switch_cycles_lo;       /* sum of Table 2's lower bounds over all switches */
    uint64_t switch_cycles_hi;       /* sum of Table 2's upper bounds */
    uint64_t switches_extrapolated;  /* switches whose (saves, restores) is not a row of Table 2 */
    uint64_t trap_cycles;            /* overflow and underflow traps at the configured costs */
} ito_regwin_counters_t;

/* Sums the counters of every worker's window file, live or already finalized. */
int ito_regwin_read_counters(ito_regwin_counters_t *out);
int ito_regwin_reset_counters(void);

/* The cost model of one switch that saved `saves` and restored `restores` windows under
 * `scheme` (NS, SNP or SP): Table 2's range [*lo, *hi]; *exact is 1 when the pair is a
 * row of Table 2, 0 when it is extrapolated from the table's own slopes. Any of the out
 * pointers may be NULL. ITO_EINVAL for OFF or an unknown scheme. */
int ito_regwin_switch_cost(int scheme, unsigned saves, unsigned restores, uint32_t *lo,
                           uint32_t *hi, int *exact);

#ifdef __cplusplus
}
#endif
#endif
