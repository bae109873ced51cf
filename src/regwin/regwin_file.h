/* regwin_file.h: the window file's layout, private to src/regwin (see regwin.c for the
 * invariants). Other parts of the runtime use regwin.h only. */
#ifndef ITO_REGWIN_REGWIN_FILE_H
#define ITO_REGWIN_REGWIN_FILE_H

#include "regwin.h"

/* A test-and-test-and-set lock of our own, so that src/regwin needs no other runtime
 * file; it guards a file and the threads resident in it. */
typedef struct itoi_regwin_lock { atomic_int v; } itoi_regwin_lock_t;

static inline void itoi_regwin_lock(itoi_regwin_lock_t *l)
{
    while (atomic_exchange_explicit(&l->v, 1, memory_order_acquire) != 0)
        while (atomic_load_explicit(&l->v, memory_order_relaxed) != 0) __builtin_ia32_pause();
}

static inline void itoi_regwin_unlock(itoi_regwin_lock_t *l)
{
    atomic_store_explicit(&l->v, 0, memory_order_release);
}

struct itoi_regwin_file {
    itoi_regwin_lock_t lock;
    int n;                        /* windows */
    int scheme;                   /* ITO_REGWIN_NS / SNP / SP */
    int worker;
    int cwp;                      /* current window pointer */
    int rsv;                      /* the current thread's reserved window, -1 without one */
    int hint;                     /* where a thread without windows is placed at the next resume */
    uint32_t wim;                 /* window invalid mask: bit w set = window w is invalid */
    itoi_regwin_thread_t *cur;    /* current thread, or NULL */
    itoi_regwin_thread_t *owner[ITO_REGWIN_MAX_WINDOWS]; /* NULL: free */
    bool is_prw[ITO_REGWIN_MAX_WINDOWS]; /* owner's PRW (SP, suspended owner) */
    itoi_regwin_frame_t win[ITO_REGWIN_MAX_WINDOWS];     /* ins and locals of each window */
    ito_regwin_costs_t costs;
    unsigned pend_saves;          /* windows saved by the switch in progress (its suspension
                                     half, possibly with no resume yet) */
    ito_regwin_counters_t ctr;
    struct itoi_regwin_file *reg_next;  /* the registry of files (regwin_api.c) */
};

/* Saves every resident frame of x (a suspended thread of f) to its memory save area and
 * re-places f's reserved window; f's lock held. Returns the windows saved. (regwin.c) */
unsigned itoi_regwin_evict_locked(struct itoi_regwin_file *f, itoi_regwin_thread_t *x);

/* Cyclic neighbours: "above" is w-1, "below" is w+1 (the paper's words). */
static inline int itoi_regwin_above(const struct itoi_regwin_file *f, int w)
{
    return w == 0 ? f->n - 1 : w - 1;
}
static inline int itoi_regwin_below(const struct itoi_regwin_file *f, int w)
{
    return w + 1 == f->n ? 0 : w + 1;
}

#endif
