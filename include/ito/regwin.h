/**
 * @file
 * @brief Register windows shared among threads (Hidaka, Koike, Tanaka,
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
 * of windows transferred) and from trap costs that are parameters (see ito_regwin_costs_t).
 */
#ifndef ITO_REGWIN_H
#define ITO_REGWIN_H

#include <stdint.h>
#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/** The schemes (see above). */
enum ito_regwin_scheme {
    ITO_REGWIN_OFF = 0, /**< no emulation (the default) */
    ITO_REGWIN_NS = 1, /**< non-sharing */
    ITO_REGWIN_SNP = 2, /**< sharing, one reserved window */
    ITO_REGWIN_SP = 3, /**< sharing, a private reserved window per thread */
};

#define ITO_REGWIN_MIN_WINDOWS 4     /**< the fewest windows per file */
#define ITO_REGWIN_MAX_WINDOWS 32    /**< the most windows per file */
#define ITO_REGWIN_DEFAULT_WINDOWS 8 /**< the default window count */
/** @name Per-switch histogram: windows saved 0..33 (the last bucket counts 33 or more) by
 * windows restored 0..1 (a switch restores at most the resumed thread's top window). */
/**@{*/
#define ITO_REGWIN_HIST_SAVES 34   /**< buckets of windows saved */
#define ITO_REGWIN_HIST_RESTORES 2 /**< buckets of windows restored */
/**@}*/

/** Trap costs in cycles. The paper gives none; the defaults of ito_regwin_config_init are
 * estimates (instruction counts of the canonical SPARC V8 window trap handlers with
 * Cypress CY7C601 load/store timings; derivation in src/regwin/regwin_cost.c):
 *   overflow_trap 55            one window saved by an overflow trap;
 *   underflow_trap 49           one window restored by an underflow trap;
 *   underflow_inplace_extra 12  the in-place underflow of SNP/SP also copies the 8 ins
 *                               into the window above and emulates the trapped restore. */
typedef struct ito_regwin_costs {
    uint32_t overflow_trap;           /**< one window saved by an overflow trap */
    uint32_t underflow_trap;          /**< one window restored by an underflow trap */
    uint32_t underflow_inplace_extra; /**< the extra of SNP/SP's in-place underflow */
} ito_regwin_costs_t;

/** The emulation's configuration (ito_regwin_configure). */
typedef struct ito_regwin_config {
    int scheme;               /**< enum ito_regwin_scheme */
    int windows;              /**< ITO_REGWIN_MIN_WINDOWS .. ITO_REGWIN_MAX_WINDOWS */
    int working_set;          /**< 1: a woken thread that still has windows goes to the
                                 front of the ready queue, else to the back (section 4.6) */
    ito_regwin_costs_t costs; /**< the trap costs of the cost model */
} ito_regwin_config_t;

/**
 * @brief Sets cfg to the defaults: OFF, 8 windows, working set off, the trap costs above.
 * @return ITO_OK; ITO_EINVAL if cfg is NULL.
 * @contexts any thread, before ito_init too; not a signal handler.
 */
int ito_regwin_config_init(ito_regwin_config_t *cfg);
/**
 * @brief Validates and installs cfg.
 * @return ITO_OK; ITO_EINVAL for a NULL cfg or a bad scheme, window count or flag;
 * ITO_ESTATE while the emulation is attached (its window files exist).
 * @contexts any thread, before ito_init too; not a signal handler.
 */
int ito_regwin_configure(const ito_regwin_config_t *cfg);
/**
 * @brief Copies the installed configuration into *cfg.
 * @return ITO_OK; ITO_EINVAL if cfg is NULL.
 * @contexts any thread; not a signal handler.
 */
int ito_regwin_get_config(ito_regwin_config_t *cfg);
/**
 * @brief The name of a scheme.
 * @return "off", "NS", "SNP", "SP"; "?" for anything else (static strings, never NULL).
 * @contexts any: any thread, a signal handler.
 */
const char *ito_regwin_scheme_name(int scheme);

/** The emulation's counters (ito_regwin_read_counters). */
typedef struct ito_regwin_counters {
    uint64_t saves;                  /**< save instructions (function entries) */
    uint64_t restores;               /**< restore instructions (function exits) */
    uint64_t overflow_traps;         /**< each spills exactly one window */
    uint64_t underflow_traps;        /**< each fills exactly one window */
    uint64_t switches;               /**< completed switches (a thread was resumed) */
    uint64_t switches_resident;      /**< ... to a thread that still had windows in the file */
    uint64_t switches_flush;         /**< suspensions of the flushing kind (NS: all) */
    uint64_t thread_exits;           /**< suspensions by exit (windows discarded, not saved); a ULT whose exit switch had not begun when ito_regwin_detach ran (detach right after its join, 2+ workers) is flushed with the caller's windows instead, and counted there */
    uint64_t switch_window_saves;    /**< windows saved by switches, in total (counted when
                                        saved; switch_hist counts a switch when it completes) */
    uint64_t switch_window_restores; /**< windows restored by switches, in total */
    uint64_t migrations;             /**< resumed threads whose windows were in another worker's file */
    uint64_t switch_hist[ITO_REGWIN_HIST_SAVES][ITO_REGWIN_HIST_RESTORES]; /**< switches by windows saved and restored */
    uint64_t switch_cycles_lo;       /**< sum of Table 2's lower bounds over all switches */
    uint64_t switch_cycles_hi;       /**< sum of Table 2's upper bounds */
    uint64_t switches_extrapolated;  /**< switches whose (saves, restores) is not a row of Table 2 */
    uint64_t trap_cycles;            /**< overflow and underflow traps at the configured costs */
} ito_regwin_counters_t;

/**
 * @brief Sums the counters of every worker's window file, live or already finalized, into *out.
 * @return ITO_OK; ITO_EINVAL if out is NULL.
 * @contexts any thread; not a signal handler.
 */
int ito_regwin_read_counters(ito_regwin_counters_t *out);
/**
 * @brief Zeroes every counter.
 * @return ITO_OK.
 * @contexts any thread; not a signal handler.
 */
int ito_regwin_reset_counters(void);

/** @brief The cost model of one switch that saved `saves` and restored `restores` windows under
 * `scheme` (NS, SNP or SP): Table 2's range [*lo, *hi]; *exact is 1 when the pair is a
 * row of Table 2, 0 when it is extrapolated from the table's own slopes. Any of the out
 * pointers may be NULL.
 * @return ITO_OK; ITO_EINVAL for OFF or an unknown scheme; ITO_ERANGE for saves or
 * restores above ITO_REGWIN_MAX_WINDOWS (a switch moves at most a whole file each way).
 * @contexts any: any thread, before ito_init too; not a signal handler.
 */
int ito_regwin_switch_cost(int scheme, unsigned saves, unsigned restores, uint32_t *lo,
                           uint32_t *hi, int *exact);

/* ---- the window manager in the ULT runtime (src/regwin/regwin_rt.c) ----
 *
 * Emulation is off unless attached, and then costs nothing on the switch path: the
 * runtime's switch and wake-up hooks stay NULL and the -finstrument-functions hooks of
 * instrumented code (libito_regwin_hooks, below) return after one relaxed load. A run is:
 *   ito_regwin_configure(&cfg);   before attaching (scheme NS/SNP/SP, windows, working set)
 *   ito_init(...);
 *   ito_regwin_attach();          from a ULT (usually main), while no other ULT runs
 *   ... create, run and join the instrumented ULTs ...
 *   ito_regwin_detach();          while no other ULT runs; frees every window file
 *   ito_regwin_read_counters(...) the counters of the run (kept after detach)
 * While attached, every ULT switch on every worker goes through the window manager of
 * that worker's file (a ULT's window state is made at its first switch-in and freed at
 * its exit), a ULT made ready while it still has windows in its worker's file goes to
 * the front of the ready queue when cfg.working_set is 1, and each function entry/exit
 * of code compiled with -finstrument-functions is a `save`/`restore` on the current
 * thread's windows, with the values checked at every exit (see src/regwin/regwin_hooks.c).
 * Frames entered before a thread was attached are not tracked (their exits are ignored).
 * Known limit (2026-12-05): a non-local exit over instrumented frames skips their exit
 * hooks: longjmp/siglongjmp, and C++ exceptions in code built by clang (clang's
 * -finstrument-functions calls no exit hook while unwinding; gcc's does). The skipped
 * frames stay on the thread's windows, the next exit checks the wrong window (the run
 * counts ITO_ESTATE errors, ito_regwin_detach returns ITO_ESTATE) and the trap counts
 * include the stale windows. Mark the functions such an exit leaves, and what they
 * call, __attribute__((no_instrument_function)) (for C++ exceptions, building them with
 * gcc works too). */
#pragma GCC visibility push(default)

/**
 * @brief Starts the emulation (see above); the caller becomes the current thread of its
 * worker's window file.
 * @return ITO_OK; ITO_ESTATE if ito is not initialized, the emulation is attached
 * already, or the configured scheme is OFF; ITO_ENOTULT outside a ULT; ITO_ENOMEM.
 * @contexts ULT only, while no other ULT runs.
 */
int ito_regwin_attach(void);
/**
 * @brief Flushes the caller's windows, frees every thread's window state and every file
 * and uninstalls the hooks.
 * @return ITO_OK, or the first error the emulation met while attached (ITO_ESTATE: a
 * window came back with wrong values or an event was refused; ITO_ENOMEM: a thread's
 * window state could not be allocated, it ran unemulated, or its save area could not
 * grow at a function entry, which then ran unemulated with every call below it until it
 * returned); ITO_ESTATE if not attached;
 * ITO_ENOTULT outside a ULT. It may be called at once after joining the last
 * instrumented ULTs: it waits for any worker still inside its last switch of them (the
 * windows of a thread whose last switch had not begun are flushed with the caller's).
 * @contexts ULT only, while no other ULT runs.
 */
int ito_regwin_detach(void);
/**
 * @brief Whether the emulation is attached.
 * @return 1 while attached, else 0.
 * @contexts any: any thread, a signal handler.
 */
int ito_regwin_attached(void);

/** Per-thread counts of the calling ULT since its window state was made. */
typedef struct ito_regwin_thread_stats {
    uint64_t saves;    /**< function entries emulated (save instructions) */
    uint64_t restores; /**< function exits emulated */
    uint64_t resumes;  /**< context switches to this thread */
} ito_regwin_thread_stats_t;
/**
 * @brief The calling ULT's counts into *out.
 * @return ITO_OK; ITO_EINVAL if out is NULL; ITO_ESTATE if not attached or the caller has
 * no window state; ITO_ENOTULT outside a ULT.
 * @contexts ULT only.
 */
int ito_regwin_self_stats(ito_regwin_thread_stats_t *out);
/** @brief The next suspension of the calling ULT flushes its windows (section 4.4's second kind
 * of switch, for a thread that will sleep long) instead of leaving them in place.
 * @return ITO_OK; ITO_ESTATE if not attached or the caller has no window state;
 * ITO_ENOTULT outside a ULT.
 * @contexts ULT only.
 */
int ito_regwin_flush_next(void);
/**
 * @brief Errors met by the emulation since the last attach (see ito_regwin_detach).
 * @return the count; cannot fail.
 * @contexts any thread; a signal handler (an atomic load).
 */
uint64_t ito_regwin_errors(void);

/** @name The instrumentation hooks
 * The instrumentation hooks. Code compiled with -finstrument-functions calls
 * __cyg_profile_func_enter/exit at every function entry and exit. libito does not define
 * them (it exports only ito_* names, so a program with hooks of its own keeps them): the
 * small static library libito_regwin_hooks does, as calls of the two functions below.
 * Link it with libito into the program whose code runs on the emulated windows:
 *   cc -finstrument-functions ... -lito_regwin_hooks -lito   (CMake: ito::ito_regwin_hooks)
 * A program with hooks of its own calls these from them instead.
 * Each is a `save` (enter) or a checked `restore` (exit) on the running ULT's windows
 * while a run is attached, and does nothing otherwise (not attached, not in a ULT, a ULT
 * without a window state, the exit of a frame entered before it had one). They return
 * ITO_OK, or the window manager's error, which ito_regwin_errors also counts and
 * ito_regwin_detach reports. Callable from any thread. They take the worker's window file's
 * lock and may allocate: a call made inside one of them on the same kernel thread (a
 * signal handler of the program built with -finstrument-functions that interrupts one,
 * or the program's own instrumented malloc called by one) does nothing, so the frames of
 * such a handler are emulated only when it interrupts the program's code, not a hook.
 * There they are calls like any other, and a `save` that finds the thread's save area
 * full grows it with realloc, which is not async-signal-safe: build signal handlers
 * without instrumentation (__attribute__((no_instrument_function))) unless the thread
 * has been deeper before. */
/**@{*/
/**
 * @brief A `save` on the running ULT's windows (a function entry: fn, its call site).
 * @return ITO_OK, or the window manager's error (also counted by ito_regwin_errors).
 * @contexts any thread (a no-op outside an attached ULT, and inside one of these hooks
 * on the same thread).
 */
int ito_regwin_func_enter(void *fn, void *site);
/**
 * @brief A checked `restore` on the running ULT's windows (a function exit).
 * @return ITO_OK, or the window manager's error (also counted by ito_regwin_errors).
 * @contexts any thread (a no-op outside an attached ULT, and inside one of these hooks
 * on the same thread).
 */
int ito_regwin_func_exit(void *fn, void *site);
/**@}*/

#pragma GCC visibility pop

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
