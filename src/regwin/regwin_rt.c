/* regwin_rt.c: the register-window manager wired into the ULT runtime.
 *
 * WHAT IT CONNECTS. The window manager (regwin.c) knows files, threads and events; the
 * core (src/core) knows workers and ULTs and calls two optional hooks. This file binds
 * them while a run is attached (ito_regwin_attach .. ito_regwin_detach):
 *   - one window file per worker, g_file[worker index], made from the installed
 *     configuration (ito_regwin_configure);
 *   - one window state per ULT (rt_thread_t, in ult->slot[ITOI_USLOT_REGWIN]), made at the ULT's first
 *     switch-in and freed when it exits;
 *   - itoi_switch_hook: every ULT switch on a worker is a switch of its file;
 *   - itoi_wake_front_hook (only with the working-set policy): a ULT made ready on a
 *     worker whose file still holds some of its windows enters the front of the queue;
 *   - ito_regwin_func_enter/exit, which the -finstrument-functions hooks of
 *     libito_regwin_hooks (src/regwin_hooks/) call: a `save` / `restore` of the running
 *     ULT, with the checked values of regwin_hooks.c.
 *
 * INVARIANTS (while attached).
 *   R1 For every worker w: the current thread of g_file[w] is the window state of the
 *      ULT running on w (its slot), or NULL when w runs its scheduler context or a
 *      ULT without a window state (one whose state could not be allocated).
 *      Kept because the core calls the switch hook on every switch, before the stack
 *      switch, with (w, from, to): we suspend from's state and resume to's.
 *   R2 The core reports an exiting ULT as from == NULL (itoi_exit_current): a hook call
 *      with from == NULL while the file still has a current thread is therefore that
 *      thread's exit (by R1 the file has no current thread in the scheduler context).
 *      Its windows are discarded (ITOI_REGWIN_EXIT) and its state freed; the ULT
 *      descriptor itself may already be freed, so it is never touched.
 *   R3 A state's `tracked` counts the frames entered while it was current; an exit
 *      with tracked == 0 belongs to a frame entered before (main's caller frames), and
 *      is ignored, so save and restore always pair.
 *   R4 Every live state is on g_live (under g_lock); detach frees them all and clears
 *      their ULTs' slots (those ULTs have not exited, so their descriptors are valid).
 * HOOKS AND DETACH (H1). A worker may have read the hook pointer just before detach
 * cleared it: a joined ULT wakes its joiner before its worker's last switch, so the
 * joiner can detach while that switch runs on_switch, which frees the ULT's state or
 * makes a new one (found 2026-12-05: a TSan report in about 1 run of 8; release: errors,
 * a leaked state, a possible use-after-free). So each core hook marks its worker busy
 * (g_busy[w]), then rereads g_attached and leaves at once when it is 0; detach clears
 * g_attached, then waits until no worker is busy before it touches a state or a file.
 * Store-then-load on both sides, each pair ordered by a full barrier: at least one side
 * sees the other's store, so either the hook leaves without touching anything, or
 * detach waits for it. The hook's barrier is a locked store unless the kernel offers
 * membarrier's private expedited command (g_asym): then the hook has a compiler
 * barrier and detach makes every running thread of the process execute the barrier.
 * Measured (Intel Xeon host, two ULTs yielding on one worker while attached, medians of
 * 9 interleaved runs): 51.8 ns per switch before H1, 53.6 with membarrier, 57.7 with
 * the locked store (membarrier refused by seccomp); an earlier set gave 51.6 and 52.8. A worker that left at once (its switch unrecorded) leaves its
 * file's current thread to detach, which flushes every file's current thread.
 * NESTING (H2). Every hook (the core's and the instrumentation's) runs marked as a
 * call-out of libito (itoi_callout_depth, itoi.h), and an instrumentation hook that
 * finds the mark does nothing. The hooks take the file's lock and allocate with the
 * program's malloc; code of the program can run inside them on the same kernel thread:
 * a malloc the program defines (where a preemption tick, finding the program's code,
 * switched the ULT out with the file locked: the worker's next switch spun on the lock
 * for ever), and a signal handler of the program built with -finstrument-functions,
 * whose own hooks spun on the lock the interrupted hook held, or, between two of its
 * steps, ran a save and a restore through the middle of its `save` and reported the
 * window lost (found by an outside tester, h71c, 2026-12-07: test_regwin_nested_hooks,
 * test_preempt_regwin_own_malloc).
 * The mark makes the ticks defer and compiled yields wait; the frames of code run inside
 * a hook (or inside any other call-out of libito) are not emulated, their entries and
 * exits skipped in pairs as the call-out nests whole inside the hook.
 * COST WHEN OFF. Both core hooks are NULL (a predicted branch in the core); each
 * instrumentation hook is one call here, which reads g_attached once and returns.
 * Caveats: attach and detach must run while no other ULT runs (ULTs still running would
 * use states detach frees; H1 covers only the workers' hooks); a longjmp across
 * instrumented frames breaks R3. */
#define _GNU_SOURCE /* syscall */
#include <linux/membarrier.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/itoi.h"
#include "regwin.h"

/* A ULT's window state, in its slot (src/core/itoi.h). */
#define RT_STATE(t) ((t)->slot[ITOI_USLOT_REGWIN].p)

#define NI __attribute__((no_instrument_function))

typedef struct rt_thread {
    itoi_regwin_thread_t rw;     /* first: a regwin thread pointer is an rt_thread pointer */
    itoi_ult_t *ult;
    struct rt_thread *prev, *next; /* g_live */
    uint32_t tracked;            /* R3 */
    uint32_t skip;               /* R3: frames entered since a save was refused (ITO_ENOMEM),
                                    run unemulated; their exits restore nothing */
    bool flush_next;             /* the next suspension flushes */
    ito_regwin_thread_stats_t stats;
} rt_thread_t;

static itoi_regwin_file_t *g_file[ITOI_MAX_WORKERS];
static int g_nfiles;
static atomic_int g_attached;
static itoi_spinlock_t g_lock;   /* g_live */
static rt_thread_t *g_live;
static atomic_uint_fast64_t g_errors;
static atomic_int g_first_error;
/* H1: worker i is inside a core hook (only worker i writes its line). */
static struct {
    atomic_int busy;
    char pad[64 - sizeof(atomic_int)];
} g_busy[ITOI_MAX_WORKERS];

/* H1 with an asymmetric fence: when the kernel offers membarrier's private expedited
 * command, the hooks order their store and load with a compiler barrier only, and
 * detach makes every running thread of the process execute a full barrier instead. */
static atomic_bool g_asym;

/* At every attach (idempotent; a fork child has its own memory map to register). */
NI static bool asym_fence_setup(void)
{
    return syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0 &&
           syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0;
}

/* H1: enter a core hook on w; false when the emulation is ending (leave at once). */
NI static inline bool hook_enter(itoi_worker_t *w)
{
    if (ITOI_LIKELY(atomic_load_explicit(&g_asym, memory_order_relaxed))) {
        atomic_store_explicit(&g_busy[w->index].busy, 1, memory_order_relaxed);
        atomic_signal_fence(memory_order_seq_cst); /* the other half: detach's membarrier */
    } else {
        atomic_store(&g_busy[w->index].busy, 1);
    }
    if (ITOI_LIKELY(atomic_load(&g_attached))) return true;
    atomic_store_explicit(&g_busy[w->index].busy, 0, memory_order_release);
    return false;
}

NI static inline void hook_leave(itoi_worker_t *w)
{
    atomic_store_explicit(&g_busy[w->index].busy, 0, memory_order_release);
}

NI static void note_error(int rc)
{
    atomic_fetch_add_explicit(&g_errors, 1, memory_order_relaxed);
    int zero = 0;
    atomic_compare_exchange_strong(&g_first_error, &zero, rc);
}

NI static rt_thread_t *state_new(itoi_ult_t *u)
{
    rt_thread_t *s = malloc(sizeof *s);
    if (!s) return NULL;
    memset(s, 0, sizeof *s);
    if (itoi_regwin_thread_init(&s->rw, NULL) != ITO_OK) {
        free(s);
        return NULL;
    }
    s->ult = u;
    s->rw.id = u->id;
    itoi_spin_lock(&g_lock);
    s->next = g_live;
    if (g_live) g_live->prev = s;
    g_live = s;
    itoi_spin_unlock(&g_lock);
    RT_STATE(u) = s;
    return s;
}

NI static void state_free(rt_thread_t *s)
{
    itoi_spin_lock(&g_lock);
    if (s->prev) s->prev->next = s->next; else g_live = s->next;
    if (s->next) s->next->prev = s->prev;
    itoi_spin_unlock(&g_lock);
    int rc = itoi_regwin_thread_fini(&s->rw);
    if (rc != ITO_OK) note_error(rc);
    free(s);
}

/* R1, R2: the core's switch hook, inside H1. Runs on from's stack (or the scheduler's). */
NI static void switch_file(itoi_worker_t *w, itoi_ult_t *from, itoi_ult_t *to)
{
    itoi_regwin_file_t *f = g_file[w->index];
    if (!f) return;
    rt_thread_t *a = (rt_thread_t *)itoi_regwin_current(f);
    int kind = ITOI_REGWIN_LEAVE;
    if (a && !from) {
        kind = ITOI_REGWIN_EXIT; /* R2 */
    } else if (a && a->ult != from) {
        note_error(ITO_ESTATE); /* R1 broken: keep a's windows safe in its memory */
        kind = ITOI_REGWIN_FLUSH;
    } else if (a && a->flush_next) {
        kind = ITOI_REGWIN_FLUSH;
        a->flush_next = false;
    }
    rt_thread_t *b = NULL;
    if (to) {
        b = RT_STATE(to);
        if (!b && !(b = state_new(to))) note_error(ITO_ENOMEM); /* to runs unemulated */
    }
    int rc = itoi_regwin_switch(f, a ? &a->rw : NULL, b ? &b->rw : NULL, kind);
    if (rc != ITO_OK) {
        note_error(rc);
        /* keep R1: suspend a at least, then leave the file without a current thread */
        if (a && itoi_regwin_current(f) == &a->rw) itoi_regwin_switch(f, &a->rw, NULL, ITOI_REGWIN_FLUSH);
        return;
    }
    if (b) b->stats.resumes++;
    if (kind == ITOI_REGWIN_EXIT) state_free(a);
}

NI static void on_switch(itoi_worker_t *w, itoi_ult_t *from, itoi_ult_t *to)
{
    if (!hook_enter(w)) return;
    itoi_callout_begin(); /* H2 */
    switch_file(w, from, to);
    itoi_callout_end();
    hook_leave(w);
}

/* The wake-up hook: a timer may wake a blocked ULT, whose state detach frees, from a
 * worker's scheduler context while detach runs (H1). */
NI static bool on_wake(itoi_worker_t *w, itoi_ult_t *t)
{
    if (!hook_enter(w)) return false;
    rt_thread_t *s = RT_STATE(t);
    bool front = s && itoi_regwin_wake_front(&s->rw) == w->index;
    hook_leave(w);
    return front;
}

/* The running ULT's state and its worker's file, when both take part (R1). */
NI static inline rt_thread_t *running(itoi_regwin_file_t **f)
{
    itoi_worker_t *w = itoi_self_worker();
    if (!w || !w->cur) return NULL;
    rt_thread_t *s = RT_STATE(w->cur);
    if (!s || !s->rw.running) return NULL;
    *f = g_file[w->index];
    return *f ? s : NULL;
}

NI static int func_enter(void *fn, void *site)
{
    itoi_regwin_file_t *f;
    rt_thread_t *s = running(&f);
    if (!s) return ITO_OK;
    if (s->skip) { /* below a refused save: unemulated until its frame returns */
        s->skip++;
        return ITO_OK;
    }
    int rc = itoi_regwin_enter(f, (uintptr_t)fn, (uintptr_t)site);
    if (rc != ITO_OK) {
        note_error(rc);
        /* The save did not happen: without this, the exit of this frame would restore
         * its caller's window, and every exit after it one window too early (ITO_ESTATE
         * on the values, ITO_ERANGE at the root; found by an outside tester, 2026-12-05) */
        if (rc == ITO_ENOMEM) s->skip = 1;
        return rc;
    }
    s->tracked++;
    s->stats.saves++;
    return ITO_OK;
}

NI static int func_exit(void *fn, void *site)
{
    itoi_regwin_file_t *f;
    rt_thread_t *s = running(&f);
    if (!s) return ITO_OK;
    if (s->skip) { /* the exit of a frame whose save was refused, or of one below it */
        s->skip--;
        return ITO_OK;
    }
    if (s->tracked == 0) return ITO_OK; /* R3 */
    s->tracked--;
    s->stats.restores++;
    int rc = itoi_regwin_leave(f, (uintptr_t)fn, (uintptr_t)site);
    if (rc != ITO_OK) note_error(rc);
    return rc;
}

/* An instrumentation hook while attached, as a call-out (H2); nothing inside another. */
static inline __attribute__((always_inline)) int hook_guarded(int (*body)(void *, void *), void *fn, void *site)
{
    if (ITOI_LIKELY(!atomic_load_explicit(&g_attached, memory_order_relaxed))) return ITO_OK;
    if (itoi_callout_depth != 0) return ITO_OK; /* H2: inside a hook or another call-out */
    itoi_callout_begin();
    int rc = body(fn, site);
    itoi_callout_end();
    return rc;
}

NI int ito_regwin_func_enter(void *fn, void *site) { return hook_guarded(func_enter, fn, site); }
NI int ito_regwin_func_exit(void *fn, void *site) { return hook_guarded(func_exit, fn, site); }

/* ---- attaching a run ---- */

NI static void free_files(void)
{
    for (int i = 0; i < g_nfiles; i++) {
        if (!g_file[i]) continue;
        int rc = itoi_regwin_file_free(g_file[i]);
        if (rc != ITO_OK) note_error(rc);
        g_file[i] = NULL;
    }
    g_nfiles = 0;
}

/* The end of an emulation: the hooks uninstalled and no worker inside one (H1), the
 * current thread of every file suspended with its windows flushed, every thread's state
 * and every file freed (R4). Besides the caller's (or, at finalize, main's), a file may
 * still have a current thread: one whose last switch left on_switch at once (H1), such
 * as a joined ULT on its way out; its windows are flushed too. */
static void end_emulation(void)
{
    atomic_store(&g_attached, 0); /* H1: before reading g_busy */
    atomic_store(&itoi_switch_hook, NULL);
    itoi_hooks_changed();
    atomic_store(&itoi_wake_front_hook, NULL);
    if (atomic_load(&g_asym) && syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) != 0)
        note_error(ITO_ESTATE); /* registered and tried at attach: not expected */
    for (int i = 0; i < ITOI_MAX_WORKERS; i++)
        while (atomic_load(&g_busy[i].busy)) itoi_spin_pause();
    for (int i = 0; i < g_nfiles; i++) {
        itoi_regwin_thread_t *cur = g_file[i] ? itoi_regwin_current(g_file[i]) : NULL;
        if (cur) {
            int rc = itoi_regwin_switch(g_file[i], cur, NULL, ITOI_REGWIN_FLUSH);
            if (rc != ITO_OK) note_error(rc);
        }
    }
    while (g_live) {
        rt_thread_t *s = g_live;
        RT_STATE(s->ult) = NULL;
        state_free(s);
    }
    free_files();
}

/* ito_finalize, after the workers are joined (their last switches read the hook; a fini
 * hook, registered once per process by the first attach): an emulation still attached
 * ends with its runtime, as ito_regwin_detach without a ULT (the threads still current,
 * main's, are flushed). Its files were made for these workers; left attached it stayed so
 * for good (ito_regwin_configure refused, the switch hook in the next runtime, whose extra
 * workers ran unemulated; found by a misuse fuzzer, 2026-12-04). Its counters stay
 * readable. */
static void runtime_end(void)
{
    if (atomic_load(&g_attached)) end_emulation();
}
static itoi_mech_hooks_t regwin_hooks = {.fini = runtime_end};

int ito_regwin_attach(void)
{
    if (!ito_initialized() || atomic_load(&g_attached)) return ITO_ESTATE;
    itoi_worker_t *w = itoi_self_worker();
    if (!w || !w->cur) return ITO_ENOTULT;
    ito_regwin_config_t cfg;
    ito_regwin_get_config(&cfg);
    if (cfg.scheme == ITO_REGWIN_OFF) return ITO_ESTATE;
    if (itoi_mech_register(&regwin_hooks) != ITO_OK) return ITO_ENOMEM;
    itoi_spin_init(&g_lock);
    atomic_store(&g_errors, 0);
    atomic_store(&g_first_error, 0);
    g_nfiles = itoi_rt.nworkers;
    itoi_callout_begin(); /* H2: the files are allocated under regwin_api.c's mutex */
    for (int i = 0; i < g_nfiles; i++) {
        int err = ITO_OK;
        /* from the snapshot checked above, not the configuration installed by now: a
         * configure from another thread in between (to OFF: no file and no error, and attach
         * said ITO_ENOMEM) built files other than the ones checked (found by an outside
         * tester, h66b, 2026-12-06: test_regwin_attach_configure_race) */
        g_file[i] = itoi_regwin_file_new(i, &cfg, &err);
        if (!g_file[i]) {
            itoi_callout_end();
            free_files();
            return err != ITO_OK ? err : ITO_ENOMEM;
        }
    }
    itoi_callout_end();
    rt_thread_t *me = RT_STATE(w->cur) ? RT_STATE(w->cur) : state_new(w->cur);
    if (!me) {
        free_files();
        return ITO_ENOMEM;
    }
    int rc = itoi_regwin_switch(g_file[w->index], NULL, &me->rw, ITOI_REGWIN_LEAVE);
    if (rc != ITO_OK) {
        RT_STATE(w->cur) = NULL;
        state_free(me);
        free_files();
        return rc;
    }
    atomic_store(&g_asym, asym_fence_setup());
    atomic_store(&g_attached, 1);
    if (cfg.working_set) atomic_store(&itoi_wake_front_hook, on_wake);
    atomic_store(&itoi_switch_hook, on_switch);
    itoi_hooks_changed();
    return ITO_OK;
}

int ito_regwin_detach(void)
{
    itoi_worker_t *w = itoi_self_worker();
    if (!atomic_load(&g_attached)) return ITO_ESTATE;
    if (!w || !w->cur) return ITO_ENOTULT;
    end_emulation();
    return atomic_load(&g_first_error);
}

int ito_regwin_attached(void) { return atomic_load(&g_attached); }

int ito_regwin_self_stats(ito_regwin_thread_stats_t *out)
{
    if (!out) return ITO_EINVAL;
    itoi_worker_t *w = itoi_self_worker();
    if (!w || !w->cur) return ITO_ENOTULT;
    rt_thread_t *s = RT_STATE(w->cur);
    if (!atomic_load(&g_attached) || !s) return ITO_ESTATE;
    *out = s->stats;
    return ITO_OK;
}

int ito_regwin_flush_next(void)
{
    itoi_worker_t *w = itoi_self_worker();
    if (!w || !w->cur) return ITO_ENOTULT;
    rt_thread_t *s = RT_STATE(w->cur);
    if (!atomic_load(&g_attached) || !s) return ITO_ESTATE;
    s->flush_next = true;
    return ITO_OK;
}

uint64_t ito_regwin_errors(void) { return atomic_load(&g_errors); }
