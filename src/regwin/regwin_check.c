/* regwin_check.c: inspection of a window file for tests and debugging -- the invariant
 * checker (I1-I5 of regwin.c, plus the bookkeeping), and reading a thread's frames
 * wherever they are. Nothing here is on the runtime's paths. */
#include <string.h>

#include "regwin_file.h"

#define above itoi_regwin_above
#define below itoi_regwin_below

/* The checks on one thread resident in f (not f's current thread unless `cur`). */
static const char *check_resident(const itoi_regwin_file_t *f, const itoi_regwin_thread_t *x,
                                  bool cur)
{
    if (atomic_load_explicit(&((itoi_regwin_thread_t *)x)->file, memory_order_relaxed) != f)
        return "a window's owner does not point back to the file";
    if (x->nres == 0 || x->nres > (uint32_t)f->n) return "resident thread with a bad window count";
    if (x->mem_cap < x->nmem + x->nres) return "save area smaller than the thread's depth";
    if (x->top < 0 || x->top >= f->n || x->bottom < 0 || x->bottom >= f->n)
        return "resident thread without top/bottom";
    /* I5: nres contiguous frame windows from bottom up to top */
    int w = x->bottom;
    for (uint32_t i = 0; i < x->nres; i++) {
        if (f->owner[w] != x || f->is_prw[w]) return "I5: frame windows are not contiguous";
        if (i + 1 < x->nres) w = above(f, w);
    }
    if (w != x->top) return "I5: top is not nres-1 windows above bottom";
    int owned = 0;
    for (int v = 0; v < f->n; v++)
        if (f->owner[v] == x && !f->is_prw[v]) owned++;
    if ((uint32_t)owned != x->nres) return "I5: thread owns frame windows outside its block";
    if (cur) return NULL;
    /* I4 */
    if (x->running) return "a suspended resident thread is marked running";
    if (f->scheme == ITO_REGWIN_NS) return "I4: NS has a suspended thread with windows";
    if (f->scheme == ITO_REGWIN_SNP) {
        if (x->prw >= 0 || !x->outs_in_mem) return "I4: SNP suspended thread keeps a reserved window";
    } else {
        if (x->prw != above(f, x->top) || f->owner[x->prw] != x || !f->is_prw[x->prw] ||
            x->outs_in_mem)
            return "I4: SP suspended thread without its PRW right above its top";
    }
    return NULL;
}

static const char *check_locked(itoi_regwin_file_t *f)
{
    uint32_t all = f->n == 32 ? 0xffffffffu : (1u << f->n) - 1u;
    for (int w = 0; w < f->n; w++) {
        const itoi_regwin_thread_t *x = f->owner[w];
        if (!x && f->is_prw[w]) return "a free window is marked PRW";
        if (x && f->is_prw[w] && f->scheme != ITO_REGWIN_SP) return "a PRW outside SP";
        if (x && x->dead) return "a window owned by an exited thread";
        if (x && !f->is_prw[w]) {
            const char *m = check_resident(f, x, x == f->cur);
            if (m) return m;
        }
    }
    const itoi_regwin_thread_t *c = f->cur;
    if (!c) {
        if (f->rsv != -1 || f->wim != all) return "no current thread, yet a reserved window or valid windows";
        return NULL;
    }
    /* I1 */
    if (!c->running || c->nres == 0) return "I1: the current thread has no window";
    if (f->cwp != c->top) return "I1: CWP is not the current thread's top";
    if (c->outs_in_mem || c->prw >= 0) return "I1: the current thread's outs are not in a window";
    /* I2 */
    if (f->rsv < 0 || f->rsv >= f->n || f->owner[f->rsv]) return "I2: the reserved window is not free";
    uint32_t valid = 0;
    int w = c->top;
    for (uint32_t i = 0; i < c->nres; i++, w = below(f, w)) valid |= 1u << w;
    for (w = above(f, c->top); w != f->rsv; w = above(f, w)) {
        if (f->owner[w]) return "I2: an owned window between the top and the reserved window";
        valid |= 1u << w;
    }
    if (!f->owner[above(f, f->rsv)]) return "I2: the reserved window is not the top of the free run";
    /* I3 */
    if (f->wim != (all & ~valid)) return "I3: WIM does not match the ownership";
    if (c->mem_cap < c->nmem + c->nres) return "save area smaller than the thread's depth";
    return NULL;
}

const char *itoi_regwin_check(itoi_regwin_file_t *f)
{
    itoi_regwin_lock(&f->lock);
    const char *m = check_locked(f);
    itoi_regwin_unlock(&f->lock);
    return m;
}

/* Locks the file holding t's windows (stable while locked); NULL if none. */
static itoi_regwin_file_t *lock_home(itoi_regwin_thread_t *t)
{
    for (;;) {
        itoi_regwin_file_t *f = atomic_load_explicit(&t->file, memory_order_acquire);
        if (!f) return NULL;
        itoi_regwin_lock(&f->lock);
        if (atomic_load_explicit(&t->file, memory_order_relaxed) == f) return f;
        itoi_regwin_unlock(&f->lock);
    }
}

int itoi_regwin_peek(itoi_regwin_thread_t *t, uint32_t k, itoi_regwin_frame_t *out)
{
    if (!t || !out || t->dead) return ITO_EINVAL;
    itoi_regwin_file_t *f = lock_home(t);
    int rc = ITO_OK;
    if (k >= t->nmem + t->nres) {
        rc = ITO_ERANGE;
    } else if (k < t->nmem) {
        *out = t->mem[k];
    } else {
        int w = t->bottom;
        for (uint32_t i = t->nmem; i < k; i++) w = above(f, w);
        *out = f->win[w];
    }
    if (f) itoi_regwin_unlock(&f->lock);
    return rc;
}

int itoi_regwin_peek_outs(itoi_regwin_thread_t *t, uint64_t out[ITOI_REGWIN_NREG])
{
    if (!t || !out || t->dead) return ITO_EINVAL;
    itoi_regwin_file_t *f = lock_home(t);
    if (t->outs_in_mem || !f)
        memcpy(out, t->outs, sizeof t->outs);
    else
        memcpy(out, f->win[above(f, t->top)].in, sizeof t->outs);
    if (f) itoi_regwin_unlock(&f->lock);
    return ITO_OK;
}

void itoi_regwin_state(itoi_regwin_file_t *f, itoi_regwin_state_t *out)
{
    memset(out, 0, sizeof *out);
    itoi_regwin_lock(&f->lock);
    out->windows = f->n;
    out->scheme = f->scheme;
    out->cwp = f->cwp;
    out->reserved = f->rsv;
    out->wim = f->wim;
    for (int w = 0; w < f->n; w++) {
        out->owner[w] = f->owner[w];
        out->is_prw[w] = f->is_prw[w];
    }
    itoi_regwin_unlock(&f->lock);
}
