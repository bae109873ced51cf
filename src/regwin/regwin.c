/* regwin.c: cyclic register windows shared among threads -- the window manager
 * (Hidaka, Koike, Tanaka: "Multiple Threads in Cyclic Register Windows").
 *
 * THE MACHINE. A file of n windows (4..32), numbered 0..n-1. Window w holds 8 ins and 8
 * locals; its outs are the ins of window w-1, which the paper calls the window "above"
 * w (w+1 is "below"; both cyclic). CWP is the current window: `save` (function entry)
 * moves it up, `restore` (function exit) down. WIM has one bit per window; a save or a
 * restore that would enter a window whose bit is set traps (overflow / underflow). A
 * thread's frames are numbered 0 (its root, the oldest) .. depth-1 (its top, the newest).
 *
 * WHO OWNS WHICH WINDOW. Every window is exactly one of
 *   - a frame window of thread X: one of X's frames (ins + locals);
 *   - the PRW of a suspended thread X (SP only): the window right above X's top; its ins
 *     are the outs of X's top frame, and that is all it holds;
 *   - free. The current thread's reserved window (f->rsv) and the free windows between
 *     its top and rsv are free in this sense: rsv is only a marker in WIM.
 * A thread's resident frames are its newest ones: frames nmem..depth-1 sit in windows
 * bottom, bottom-1, ..., top (contiguous, going up); frames 0..nmem-1 are in its memory
 * save area. A spill takes the oldest resident frame (at bottom) and a fill gives back
 * frame nmem-1, so the save area is a plain stack.
 *
 * INVARIANTS (they hold between any two calls; itoi_regwin_check verifies them all).
 * For the current thread C:
 *   I1 C has >= 1 frame window, CWP == C.top, and C's top outs are in the ins of C.top-1.
 *   I2 Going up from C.top: free windows F1..Fk (k >= 0), then rsv (free), then a window
 *      that is not free (another thread's, or C's own bottom when the run wraps around).
 *      rsv is "the top of the free run above C".
 *   I3 WIM = every window except C's frame windows and F1..Fk. So a save traps exactly
 *      when it would enter rsv, and a restore traps exactly when C has one window left
 *      (the window below C's bottom is never C's and never one of F1..Fk).
 * For a suspended thread X with windows:
 *   I4 SP: X.prw == X.top-1 is X's PRW. SNP: X's outs are in memory, X has no reserved
 *      window. NS: never happens -- only the current thread has windows.
 *   I5 X's frame windows are contiguous, [X.top .. X.bottom] going down; blocks of
 *      different threads never interleave.
 * Consequence: the first owned window above a free run is some thread's BOTTOM frame
 * window -- never the middle of a block (I5) nor a PRW (a PRW sits right above its
 * owner's top, which is not free). So every spill takes a thread's oldest resident frame,
 * which is the paper's "the spillage is always from the stack-bottom window" (sec. 3.1).
 *
 * OVERFLOW TRAP (every scheme): the save would enter rsv. The window above rsv is owned
 * (I2); its owner's bottom frame is spilled. If that was the owner's last window, its
 * outs go to its memory (SP: out of its PRW, which becomes free). rsv becomes the new
 * top, and the new rsv is the top of the free run above it (I2). One trap spills exactly
 * one window. When the spill frees more than one window (a PRW), the paper's handler
 * would take a second trap that moves no data; we fold it into this one.
 * UNDERFLOW TRAP: C has one window, its caller is in memory.
 *   SNP, SP -- in place of the callee (sec. 3.2): the callee's ins (the values returned,
 *     i.e. the caller's outs after the restore) are copied into the ins of the window
 *     above (C.top-1: free or rsv by I2, so nobody's data is touched), then frame nmem-1
 *     is loaded into C.top. CWP, rsv and WIM stay; nothing is spilled, ever.
 *   NS -- the conventional algorithm (Fig. 4): only C has windows, so the free run
 *     wraps around and rsv is the window below C's bottom; the caller is loaded there,
 *     CWP moves down onto it and rsv moves one further down. The callee's ins stay in
 *     place: they are the caller's outs.
 *
 * SWITCH from A to B = suspend A, then resume B; the windows moved by both halves are
 * counted as one switch.
 *   suspend LEAVE  SNP: A's outs are copied to memory (8 words; Table 2 charges them in
 *                  SNP's base cost, they are not a window transfer). SP: the window right
 *                  above A's top becomes A's PRW ("moved immediately above the stack-top";
 *                  A's outs are already in its ins, nothing moves).
 *   suspend FLUSH  (and every NS suspension) A's outs go to memory and all of A's frames
 *                  are saved, bottom first; A's windows become free.
 *   suspend EXIT   A's windows become free; nothing is saved.
 *   After the suspension, the place p for a thread without windows is: SNP LEAVE A.top-1,
 *   "the window above the suspended thread's"; SP LEAVE A.top-2, "the window above the
 *   reserved window of the suspended thread"; after FLUSH or EXIT (so always under NS)
 *   A's old top window. Without a suspended thread the previous p is kept.
 *   resume B with windows here: CWP = B.top. SP: B's PRW just becomes free again. SNP:
 *                  the window above B.top is claimed (if owned, its owner's bottom frame is
 *                  spilled) and B's outs come back into its ins. Then rsv is re-placed (I2).
 *   resume B without windows: claim p, claim p-1 (each: spill its owner's bottom frame if
 *                  owned), load B's top frame into p and its outs into the ins of p-1,
 *                  re-place rsv. p-1 is SNP's single reserved window or SP's new PRW.
 *   resume B with windows in another worker's file (migration): B is first evicted there
 *                  (all its frames saved) under that file's lock, then resumed as above.
 * The windows moved per situation are exactly Table 2's rows: NS (k,1) with k = A's
 * windows; SNP (0,0) (0,1) (1,0) (1,1); SP (0,0) (0,1) (1,1) (2,1) -- tests/regwin_table2.
 *
 * Assumptions the paper leaves open (each with its reason):
 *   - rsv is placed at the top of the free run, not right above the top: free windows
 *     are then valid, so no trap is taken only to move WIM (the basic algorithm of
 *     sec. 2 also keeps free windows valid between the top and the reserved window).
 *   - SP: a thread whose last window is spilled loses its PRW too (its outs go to
 *     memory); sec. 4.1 speaks of "a scheduled thread [that] has no windows" needing two
 *     windows, one for its top and one for its PRW.
 *   - SNP: "the window above the suspended thread's" is read as the window right above
 *     its top (the one that held its outs), as in the ping-pong case of sec. 4.2, where
 *     resuming A spills the B placed there. A thread resumed at a shallower depth than
 *     when its upper neighbour was placed finds free windows above it and moves nothing.
 *   - A new thread has one root frame in memory; its first resume restores it.
 *   - Under NS, `restore` keeps the conventional underflow; SNP and SP use the in-place
 *     one. All 8 ins are copied (the paper's implementation emulated the trapped
 *     restore, sec. 4.3; copying all ins gives restore its full semantics).
 */
#include <stdlib.h>
#include <string.h>

#include "regwin_file.h"

#define above itoi_regwin_above
#define below itoi_regwin_below

static uint32_t all_windows(const itoi_regwin_file_t *f)
{
    return f->n == 32 ? 0xffffffffu : ((1u << f->n) - 1u);
}

/* I3: WIM from the ownership of the current thread and rsv. */
static void wim_update(itoi_regwin_file_t *f)
{
    const itoi_regwin_thread_t *c = f->cur;
    uint32_t valid = 0;
    if (c) {
        int w = c->top;
        for (uint32_t i = 0; i < c->nres; i++, w = below(f, w)) valid |= 1u << w;
        for (w = above(f, c->top); w != f->rsv; w = above(f, w)) valid |= 1u << w;
    }
    f->wim = all_windows(f) & ~valid;
}

/* The topmost window of the free run that starts at the free window `start` (I2). */
static int run_top(const itoi_regwin_file_t *f, int start)
{
    int w = start;
    for (;;) {
        int a = above(f, w);
        if (f->owner[a] || a == start) return w;
        w = a;
    }
}

/* Re-places rsv over the free run above the current thread (I2) and recomputes WIM. */
static void rereserve(itoi_regwin_file_t *f)
{
    f->rsv = f->cur ? run_top(f, above(f, f->cur->top)) : -1;
    wim_update(f);
}

/* A thread's last window leaves the file: its outs go to memory, its PRW is freed. */
static void leave_file(itoi_regwin_file_t *f, itoi_regwin_thread_t *x, int last_top)
{
    if (!x->outs_in_mem) {
        memcpy(x->outs, f->win[above(f, last_top)].in, sizeof x->outs);
        x->outs_in_mem = true;
    }
    if (x->prw >= 0) {
        f->owner[x->prw] = NULL;
        f->is_prw[x->prw] = false;
        x->prw = -1;
    }
    x->top = x->bottom = -1;
    /* the last write to x on behalf of this file: another worker that sees NULL (acquire)
     * may resume x at once and owns it from then on */
    atomic_store_explicit(&x->file, NULL, memory_order_release);
}

/* Saves x's oldest resident frame (at x->bottom) into its memory save area. */
static void spill_bottom(itoi_regwin_file_t *f, itoi_regwin_thread_t *x)
{
    int w = x->bottom;
    x->mem[x->nmem++] = f->win[w];
    f->owner[w] = NULL;
    if (--x->nres > 0)
        x->bottom = above(f, w);
    else
        leave_file(f, x, w);
}

/* Saves every resident frame of x; returns how many. x is not read after its last
 * frame has left (see leave_file). */
static unsigned evict(itoi_regwin_file_t *f, itoi_regwin_thread_t *x)
{
    unsigned n = x->nres;
    for (unsigned i = 0; i < n; i++) spill_bottom(f, x);
    return n;
}

unsigned itoi_regwin_evict_locked(itoi_regwin_file_t *f, itoi_regwin_thread_t *x)
{
    unsigned s = evict(f, x);
    rereserve(f);
    return s;
}

/* Makes window w free; returns the windows saved to do so. */
static unsigned claim(itoi_regwin_file_t *f, int w)
{
    itoi_regwin_thread_t *x = f->owner[w];
    if (!x) return 0;
    if (!f->is_prw[w] && x->bottom == w) {
        spill_bottom(f, x);
        return 1;
    }
    /* Not reachable while I1-I5 hold (see the essay); stay correct regardless. */
    return evict(f, x);
}

/* Loads x's newest memory frame into window p as its only window, outs into p-1. */
static void fill_top(itoi_regwin_file_t *f, itoi_regwin_thread_t *x, int p)
{
    f->win[p] = x->mem[--x->nmem];
    f->owner[p] = x;
    x->top = x->bottom = (int8_t)p;
    x->nres = 1;
    memcpy(f->win[above(f, p)].in, x->outs, sizeof x->outs);
    x->outs_in_mem = false;
    atomic_store_explicit(&x->file, f, memory_order_relaxed);
}

static int grow_mem(itoi_regwin_thread_t *t, uint32_t need)
{
    if (need <= t->mem_cap) return 0;
    uint32_t cap = t->mem_cap ? t->mem_cap : 8;
    while (cap < need) {
        if (cap > UINT32_MAX / 2) return -1;
        cap *= 2;
    }
    itoi_regwin_frame_t *m = realloc(t->mem, (size_t)cap * sizeof *m);
    if (!m) return -1;
    t->mem = m;
    t->mem_cap = cap;
    return 0;
}

/* ---- threads ---- */

int itoi_regwin_thread_init(itoi_regwin_thread_t *t, const uint64_t *root_in)
{
    if (!t) return ITO_EINVAL;
    memset(t, 0, sizeof *t);
    atomic_init(&t->file, NULL);
    t->top = t->bottom = t->prw = -1;
    if (grow_mem(t, 8) != 0) return ITO_ENOMEM;
    memset(&t->mem[0], 0, sizeof t->mem[0]);
    if (root_in) memcpy(t->mem[0].in, root_in, sizeof t->mem[0].in);
    t->nmem = 1;
    t->outs_in_mem = true;
    return ITO_OK;
}

/* Frees x's windows without saving them (exit, or the end of a thread). */
static void discard(itoi_regwin_file_t *f, itoi_regwin_thread_t *x)
{
    int w = x->top;
    for (uint32_t i = 0; i < x->nres; i++, w = below(f, w)) f->owner[w] = NULL;
    int last = x->top;
    x->nres = 0;
    x->outs_in_mem = true; /* nothing to keep */
    leave_file(f, x, last);
}

int itoi_regwin_thread_fini(itoi_regwin_thread_t *t)
{
    if (!t) return ITO_EINVAL;
    itoi_regwin_file_t *f = atomic_load_explicit(&t->file, memory_order_acquire);
    if (f) {
        itoi_regwin_lock(&f->lock);
        if (t->running) {
            itoi_regwin_unlock(&f->lock);
            return ITO_ESTATE;
        }
        if (atomic_load_explicit(&t->file, memory_order_relaxed) == f) {
            discard(f, t);
            rereserve(f);
        }
        itoi_regwin_unlock(&f->lock);
    }
    free(t->mem);
    t->mem = NULL;
    t->mem_cap = t->nmem = 0;
    t->dead = true;
    return ITO_OK;
}

uint32_t itoi_regwin_thread_depth(const itoi_regwin_thread_t *t)
{
    return t->nmem + t->nres;
}

/* ---- save / restore ---- */

static void overflow_trap(itoi_regwin_file_t *f, int next)
{
    f->ctr.overflow_traps++;
    f->ctr.trap_cycles += f->costs.overflow_trap;
    claim(f, above(f, next)); /* owned by I2: exactly one spill */
}

int itoi_regwin_save(itoi_regwin_file_t *f)
{
    itoi_regwin_lock(&f->lock);
    itoi_regwin_thread_t *c = f->cur;
    if (!c) {
        itoi_regwin_unlock(&f->lock);
        return ITO_ESTATE;
    }
    if (grow_mem(c, c->nmem + c->nres + 1) != 0) {
        itoi_regwin_unlock(&f->lock);
        return ITO_ENOMEM;
    }
    f->ctr.saves++;
    int next = above(f, f->cwp);
    bool trap = (f->wim >> next) & 1u;
    if (trap) overflow_trap(f, next);
    f->owner[next] = c;
    c->nres++;
    c->top = (int8_t)next;
    f->cwp = next;
    if (trap) rereserve(f); /* else: a free window became a frame window, WIM unchanged */
    itoi_regwin_unlock(&f->lock);
    return ITO_OK;
}

static void underflow_trap(itoi_regwin_file_t *f, itoi_regwin_thread_t *c, int prev)
{
    f->ctr.underflow_traps++;
    f->ctr.trap_cycles += f->costs.underflow_trap;
    if (f->scheme == ITO_REGWIN_NS && !f->owner[prev]) {
        /* conventional: the caller goes below, into rsv */
        f->win[prev] = c->mem[--c->nmem];
        f->owner[prev] = c;
        f->owner[f->cwp] = NULL;
        c->top = c->bottom = (int8_t)prev;
        f->cwp = prev;
        rereserve(f);
        return;
    }
    /* in place of the callee: return values into the caller's outs, then the caller */
    f->ctr.trap_cycles += f->costs.underflow_inplace_extra;
    int cw = f->cwp;
    memcpy(f->win[above(f, cw)].in, f->win[cw].in, sizeof f->win[cw].in);
    f->win[cw] = c->mem[--c->nmem];
}

int itoi_regwin_restore(itoi_regwin_file_t *f)
{
    itoi_regwin_lock(&f->lock);
    itoi_regwin_thread_t *c = f->cur;
    int rc = ITO_OK;
    if (!c) {
        rc = ITO_ESTATE;
    } else if (c->nmem + c->nres <= 1) {
        rc = ITO_ERANGE;
    } else {
        f->ctr.restores++;
        int prev = below(f, f->cwp);
        if ((f->wim >> prev) & 1u) {
            underflow_trap(f, c, prev);
        } else { /* prev is c's caller; the callee's window joins the free run */
            f->owner[f->cwp] = NULL;
            c->nres--;
            c->top = (int8_t)prev;
            f->cwp = prev;
        }
    }
    itoi_regwin_unlock(&f->lock);
    return rc;
}

/* ---- switch ---- */

static void suspend(itoi_regwin_file_t *f, itoi_regwin_thread_t *a, int kind)
{
    int t = a->top;
    if (f->scheme == ITO_REGWIN_NS && kind == ITOI_REGWIN_LEAVE) kind = ITOI_REGWIN_FLUSH;
    if (kind == ITOI_REGWIN_LEAVE && f->scheme == ITO_REGWIN_SNP) {
        memcpy(a->outs, f->win[above(f, t)].in, sizeof a->outs);
        a->outs_in_mem = true;
        f->hint = above(f, t);
    } else if (kind == ITOI_REGWIN_LEAVE) { /* SP */
        int w = above(f, t);
        f->owner[w] = a;
        f->is_prw[w] = true;
        a->prw = (int8_t)w;
        f->hint = above(f, w);
    } else if (kind == ITOI_REGWIN_FLUSH) {
        unsigned saved = evict(f, a);
        f->pend_saves += saved;
        f->ctr.switch_window_saves += saved;
        f->ctr.switches_flush++;
        f->hint = t;
    } else { /* EXIT */
        discard(f, a);
        a->dead = true;
        f->ctr.thread_exits++;
        f->hint = t;
    }
    a->running = false;
    f->cur = NULL;
    rereserve(f);
}

static void record_switch(itoi_regwin_file_t *f, unsigned s, unsigned r)
{
    ito_regwin_counters_t *k = &f->ctr;
    k->switches++;
    k->switch_hist[s < ITO_REGWIN_HIST_SAVES ? s : ITO_REGWIN_HIST_SAVES - 1]
                  [r < ITO_REGWIN_HIST_RESTORES ? r : ITO_REGWIN_HIST_RESTORES - 1]++;
    uint32_t lo = 0, hi = 0;
    if (!itoi_regwin_cost_switch(f->scheme, s, r, &lo, &hi)) k->switches_extrapolated++;
    k->switch_cycles_lo += lo;
    k->switch_cycles_hi += hi;
    f->pend_saves = 0;
}

static void resume(itoi_regwin_file_t *f, itoi_regwin_thread_t *b)
{
    unsigned s = 0, r = 0;
    if (b->nres > 0) {
        f->ctr.switches_resident++;
        int w = above(f, b->top);
        if (b->prw >= 0) { /* SP: the PRW is free again, b's outs stay in its ins */
            f->owner[w] = NULL;
            f->is_prw[w] = false;
            b->prw = -1;
        } else { /* SNP */
            s += claim(f, w);
            memcpy(f->win[w].in, b->outs, sizeof b->outs);
            b->outs_in_mem = false;
        }
    } else {
        int p = f->hint;
        s += claim(f, p);
        s += claim(f, above(f, p));
        fill_top(f, b, p);
        r = 1;
    }
    f->ctr.switch_window_saves += s;
    f->ctr.switch_window_restores += r;
    f->cur = b;
    b->running = true;
    f->cwp = b->top;
    rereserve(f);
    record_switch(f, f->pend_saves + s, r);
}

/* Moves b's windows out of the file g (another worker's) into b's memory. */
static int migrate_out(itoi_regwin_file_t *g, itoi_regwin_thread_t *b, unsigned *saved)
{
    int rc = ITO_OK;
    itoi_regwin_lock(&g->lock);
    if (atomic_load_explicit(&b->file, memory_order_relaxed) == g) {
        if (b->running) {
            rc = ITO_EBUSY;
        } else {
            *saved = itoi_regwin_evict_locked(g, b);
        }
    }
    itoi_regwin_unlock(&g->lock);
    return rc;
}

int itoi_regwin_switch(itoi_regwin_file_t *f, itoi_regwin_thread_t *from,
                       itoi_regwin_thread_t *to, int kind)
{
    if (!f || kind < ITOI_REGWIN_LEAVE || kind > ITOI_REGWIN_EXIT) return ITO_EINVAL;
    if (kind == ITOI_REGWIN_EXIT && (!from || from == to)) return ITO_EINVAL;
    if (from == to) return ITO_OK; /* nothing to suspend or resume */
    itoi_regwin_lock(&f->lock);
    int rc = ITO_OK;
    if (from != f->cur || (to && (to->dead || !to->mem))) rc = ITO_EINVAL;
    itoi_regwin_unlock(&f->lock);
    if (rc != ITO_OK) return rc;

    unsigned migrated = 0;
    if (to) {
        itoi_regwin_file_t *g = atomic_load_explicit(&to->file, memory_order_acquire);
        if (g && g != f && (rc = migrate_out(g, to, &migrated)) != ITO_OK) return rc;
    }
    itoi_regwin_lock(&f->lock);
    if (from) suspend(f, from, kind);
    if (to) {
        if (migrated) f->ctr.migrations++;
        f->pend_saves += migrated;
        f->ctr.switch_window_saves += migrated;
        resume(f, to);
    }
    itoi_regwin_unlock(&f->lock);
    return ITO_OK;
}

itoi_regwin_thread_t *itoi_regwin_current(itoi_regwin_file_t *f)
{
    itoi_regwin_lock(&f->lock);
    itoi_regwin_thread_t *c = f->cur;
    itoi_regwin_unlock(&f->lock);
    return c;
}

/* ---- registers of the current window ---- */

uint64_t *itoi_regwin_reg(itoi_regwin_file_t *f, int r)
{
    if (!f || !f->cur || r < ITOI_REGWIN_O0 || r >= ITOI_REGWIN_NREGS) return NULL;
    if (r < ITOI_REGWIN_L0) return &f->win[above(f, f->cwp)].in[r - ITOI_REGWIN_O0];
    if (r < ITOI_REGWIN_I0) return &f->win[f->cwp].local[r - ITOI_REGWIN_L0];
    return &f->win[f->cwp].in[r - ITOI_REGWIN_I0];
}

uint64_t itoi_regwin_get(itoi_regwin_file_t *f, int r)
{
    itoi_regwin_lock(&f->lock);
    uint64_t *p = itoi_regwin_reg(f, r);
    uint64_t v = p ? *p : 0;
    itoi_regwin_unlock(&f->lock);
    return v;
}

void itoi_regwin_set(itoi_regwin_file_t *f, int r, uint64_t v)
{
    itoi_regwin_lock(&f->lock);
    uint64_t *p = itoi_regwin_reg(f, r);
    if (p) *p = v;
    itoi_regwin_unlock(&f->lock);
}
