/* regwin.h: the register-window manager's internal interface (prefix itoi_regwin_).
 *
 * One itoi_regwin_file_t per worker: the cyclic window file (CWP, WIM, W windows of 8
 * ins + 8 locals; the outs of window w are the ins of window w-1). One
 * itoi_regwin_thread_t per thread (embedded or pointed to by the ULT): its memory save
 * area and, while it has windows in a file, where they are. The design and the
 * invariants are described at the top of regwin.c.
 *
 * Concurrency: everything about a file, and about every thread while it has windows in
 * that file, is guarded by the file's lock; every itoi_regwin_* call that takes a file
 * takes its lock. A thread's `file` field is also readable without the lock (the
 * working-set hint). Only the lock of one file is ever held at a time.
 *
 * This module depends on nothing else in the runtime (libc only). */
#ifndef ITO_REGWIN_REGWIN_H
#define ITO_REGWIN_REGWIN_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "ito/regwin.h"

#define ITOI_REGWIN_NREG 8 /* ins, locals and outs per window */

/* Register numbers as on SPARC: %o0-%o7 = 8..15, %l0-%l7 = 16..23, %i0-%i7 = 24..31.
 * The globals %g0-%g7 (0..7) are not windowed and not emulated. */
enum {
    ITOI_REGWIN_O0 = 8,
    ITOI_REGWIN_L0 = 16,
    ITOI_REGWIN_I0 = 24,
    ITOI_REGWIN_NREGS = 32,
};

/* Kinds of suspension at a switch (section 4.4 of the paper, plus exit). Under NS every
 * suspension flushes, whatever the kind asked for. */
enum {
    ITOI_REGWIN_LEAVE = 0, /* leave the suspended thread's windows in place */
    ITOI_REGWIN_FLUSH = 1, /* save all of them to its memory save area */
    ITOI_REGWIN_EXIT = 2,  /* the suspended thread exits: discard them, save nothing */
};

typedef struct itoi_regwin_frame {
    uint64_t in[ITOI_REGWIN_NREG];
    uint64_t local[ITOI_REGWIN_NREG];
} itoi_regwin_frame_t;

struct itoi_regwin_file;

typedef struct itoi_regwin_thread {
    itoi_regwin_frame_t *mem;        /* memory save area: frames 0 .. nmem-1, oldest first */
    uint32_t mem_cap;                /* always >= nmem + nres: spilling never allocates */
    uint32_t nmem;                   /* frames in memory */
    uint32_t nres;                   /* frames in windows of `file` (0 if file is NULL) */
    int8_t top, bottom;              /* window of the newest / oldest resident frame */
    int8_t prw;                      /* SP: the PRW of a suspended resident thread, else -1 */
    bool outs_in_mem;                /* the top frame's outs are in `outs`, not in a window */
    bool running;                    /* the current thread of some file */
    bool dead;                       /* switched out by ITOI_REGWIN_EXIT */
    uint64_t outs[ITOI_REGWIN_NREG]; /* the top frame's outs while outs_in_mem */
    _Atomic(struct itoi_regwin_file *) file; /* where its windows are, or NULL */
    uint64_t id;                     /* free for the caller (diagnostics) */
} itoi_regwin_thread_t;

typedef struct itoi_regwin_file itoi_regwin_file_t;

/* ---- files (regwin_api.c) ---- */
/* A new file for worker `worker`, with cfg (NULL: the installed ito_regwin_configure
 * configuration). NULL if the configuration's scheme is OFF or invalid, or on ENOMEM
 * (*err tells which when err is not NULL). The file joins the counter registry; while
 * any file exists ito_regwin_configure refuses with ITO_ESTATE. */
itoi_regwin_file_t *itoi_regwin_file_new(int worker, const ito_regwin_config_t *cfg, int *err);
/* Frees a file whose current thread is NULL (switched out); its counters move to the
 * retired totals; resident suspended threads lose their windows' contents, so evict them
 * first (itoi_regwin_thread_fini does). ITO_ESTATE if a thread is current. */
int itoi_regwin_file_free(itoi_regwin_file_t *f);
int itoi_regwin_file_worker(const itoi_regwin_file_t *f);
int itoi_regwin_file_windows(const itoi_regwin_file_t *f);
int itoi_regwin_file_scheme(const itoi_regwin_file_t *f);
/* This file's counters only (locked copy); reset zeroes them. */
void itoi_regwin_file_counters(itoi_regwin_file_t *f, ito_regwin_counters_t *out);
void itoi_regwin_file_reset_counters(itoi_regwin_file_t *f);

/* ---- threads (regwin.c) ---- */
/* A thread with one root frame (its ins = root_in, or zeros when NULL; locals and outs
 * zero) in its memory save area. ITO_ENOMEM. */
int itoi_regwin_thread_init(itoi_regwin_thread_t *t, const uint64_t *root_in);
/* Frees the save area, discarding any windows still resident (not the current thread
 * of a file: ITO_ESTATE). */
int itoi_regwin_thread_fini(itoi_regwin_thread_t *t);
/* Frames of the thread (root included). Only for the thread itself or a quiescent one. */
uint32_t itoi_regwin_thread_depth(const itoi_regwin_thread_t *t);

/* ---- events (regwin.c) ---- */
/* Function entry of f's current thread: CWP-1; an overflow trap if that window is
 * invalid. ITO_ESTATE if f has no current thread, ITO_ENOMEM if the save area cannot
 * grow (the state is then unchanged). */
int itoi_regwin_save(itoi_regwin_file_t *f);
/* Function exit: CWP+1; an underflow trap if that window is invalid. ITO_ERANGE at the
 * root frame, ITO_ESTATE without a current thread. */
int itoi_regwin_restore(itoi_regwin_file_t *f);
/* Suspends `from` (must be f's current thread, or NULL when f has none) with `kind`,
 * then resumes `to` (NULL: the file stays without a current thread). A resumed thread
 * whose windows are in another file is evicted from there first (a migration). The
 * windows transferred are counted per completed switch. ITO_EINVAL for a wrong `from`,
 * a dead `to` or a bad kind; ITO_EBUSY if `to` is current elsewhere. from == to is a
 * no-op (ITO_EINVAL with ITOI_REGWIN_EXIT). */
int itoi_regwin_switch(itoi_regwin_file_t *f, itoi_regwin_thread_t *from,
                       itoi_regwin_thread_t *to, int kind);
itoi_regwin_thread_t *itoi_regwin_current(itoi_regwin_file_t *f);

/* Register r (8..31) of f's current window; NULL if r is out of range or f has no current
 * thread. Valid until the next event on f. */
uint64_t *itoi_regwin_reg(itoi_regwin_file_t *f, int r);
uint64_t itoi_regwin_get(itoi_regwin_file_t *f, int r);         /* 0 if invalid */
void itoi_regwin_set(itoi_regwin_file_t *f, int r, uint64_t v); /* ignored if invalid */

/* ---- the working-set policy (regwin_api.c) ---- */
/* Where a thread that is being woken up should be queued: the worker index whose ready
 * queue it should enter at the front (the working-set policy is on and the thread still
 * has windows in that worker's file), or -1 for the back of the queue it would go to
 * anyway. A lock-free hint, exact when the caller runs on that worker. */
int itoi_regwin_wake_front(const itoi_regwin_thread_t *t);
/* Whether the thread has at least one window in some file (lock-free hint). */
bool itoi_regwin_resident(const itoi_regwin_thread_t *t);
int itoi_regwin_working_set(void); /* the installed policy flag */

/* ---- instrumentation helpers (regwin_hooks.c) ---- */
/* enter: the caller puts fn and site into %o0/%o1 (the call's arguments) and site into
 * %o7; save; the callee keeps fn, site and a cookie in %l0..%l2. leave: checks that the
 * frame's locals and ins still hold them, returns a cookie in %i0, restores, and checks
 * that the caller's %o0 received it. ITO_ESTATE on any mismatch (a corrupted window). */
int itoi_regwin_enter(itoi_regwin_file_t *f, uintptr_t fn, uintptr_t site);
int itoi_regwin_leave(itoi_regwin_file_t *f, uintptr_t fn, uintptr_t site);

/* ---- the cost model (regwin_cost.c) ---- */
/* Table 2's cycles for one switch (see ito_regwin_switch_cost); returns exactness. */
int itoi_regwin_cost_switch(int scheme, unsigned saves, unsigned restores, uint32_t *lo,
                            uint32_t *hi);
void itoi_regwin_cost_defaults(ito_regwin_costs_t *c);

/* ---- inspection for tests and debugging (regwin_check.c) ---- */
/* Checks every invariant of the essay in regwin.c; NULL if all hold, else a static
 * message naming the first one broken. */
const char *itoi_regwin_check(itoi_regwin_file_t *f);
/* Frame k (0 = root) of a non-running thread, or of f's current one, wherever it is. */
int itoi_regwin_peek(itoi_regwin_thread_t *t, uint32_t k, itoi_regwin_frame_t *out);
/* The top frame's outs, wherever they are. */
int itoi_regwin_peek_outs(itoi_regwin_thread_t *t, uint64_t out[ITOI_REGWIN_NREG]);
/* Snapshot of the file: CWP, WIM, reserved window (-1 without a current thread). */
typedef struct itoi_regwin_state {
    int windows, scheme, cwp, reserved;
    uint32_t wim;
    const itoi_regwin_thread_t *owner[ITO_REGWIN_MAX_WINDOWS]; /* NULL: free */
    bool is_prw[ITO_REGWIN_MAX_WINDOWS];
} itoi_regwin_state_t;
void itoi_regwin_state(itoi_regwin_file_t *f, itoi_regwin_state_t *out);

#endif
