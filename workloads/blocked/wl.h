/* wl.h: the six "blocked programs" workloads of the preemption-safe paper (seed 003), written once.
 *
 * Each workload (B-MM, B-LU, bitonic sort, FFT, OCEAN-like, MP3D-like) is a parallel program of
 * P worker threads.  A kernel touches its shared arrays only through WL_LD / WL_ST and
 * declares its non-memory work with WL_OPS; it synchronizes only with wl_barrier() and marks
 * the computation of one block with wl_psafe_begin() / wl_psafe_end().  The same kernel code
 * therefore runs in two modes, chosen at run time by wl_ctx.tr:
 *
 *   native  (tr == NULL): plain loads and stores; barrier and psafe calls go to wl_hooks
 *           (pthreads in wl_run_native, the ito runtime in the real-run experiment);
 *   trace   (tr != NULL): every access also appends one 64-bit event to the thread's trace
 *           buffer (its address translated into the program's simulated address space), and
 *           barrier / psafe / exit become events too.  When the buffer is full, and at every
 *           barrier and at exit, wl_tracer.flush() hands the buffer to the consumer (the
 *           simulator in sim/busmp runs each thread as a coroutine and resumes it when it
 *           needs more events).
 *
 * Invariants the simulator relies on:
 *  - between two barriers the threads of a program write disjoint data (data-race free), so
 *    the address stream of each thread is a function of the program alone, never of timing;
 *  - a thread stops generating at every barrier (flush), so no thread computes past a barrier
 *    before every thread of its program has generated up to it;
 *  - no barrier is ever inside a psafe region.
 *
 * Event format (one uint64_t): bits 0-3 kind (WL_EV_*), bits 4-7 the number (0..15) of
 * non-memory instructions executed just before this event, bits 8-63 the payload:
 * the simulated byte address for READ/WRITE, an instruction count for OPS, 0 otherwise. */
#ifndef ITO_WL_H
#define ITO_WL_H

#include <stddef.h>
#include <stdint.h>

enum {
    WL_EV_READ = 0,
    WL_EV_WRITE = 1,
    WL_EV_OPS = 2,     /* payload: instructions that did not fit in bits 4-7 */
    WL_EV_BEGIN = 3,   /* request unpreemptable (start of a block) */
    WL_EV_END = 4,     /* withdraw unpreemptable (end of a block) */
    WL_EV_BARRIER = 5,
    WL_EV_EXIT = 6,
};

#define WL_EV_KIND(e) ((unsigned)((e) & 15u))
#define WL_EV_OPS_BEFORE(e) ((unsigned)(((e) >> 4) & 15u))
#define WL_EV_PAYLOAD(e) ((uint64_t)(e) >> 8)

typedef struct wl_tracer {
    uint64_t *buf;
    uint32_t n, cap;
    uint32_t pending_ops;          /* non-memory instructions not yet attached to an event */
    intptr_t delta;                /* simulated address = host address + delta */
    void (*flush)(struct wl_tracer *); /* consume buf[0..n) and set n = 0; may switch context */
    void *owner;
} wl_tracer;

/* Native-mode synchronization, supplied by whoever runs the threads. Any may be NULL
 * (psafe hooks NULL: the marks cost nothing; barrier NULL: allowed only with one thread). */
typedef struct wl_hooks {
    void (*barrier)(void *arg);
    void (*psafe_begin)(void *arg);
    void (*psafe_end)(void *arg);
    void *arg;
} wl_hooks;

typedef struct wl_ctx {
    int tid, nthreads;
    wl_tracer *tr;          /* NULL in native mode */
    const wl_hooks *hooks;  /* native mode only */
    void *prog;             /* the program instance (workload-specific) */
} wl_ctx;

void itoi_wl_emit_slow(wl_tracer *t, uint64_t payload, unsigned kind);

static inline void wl_emit(wl_tracer *t, uint64_t payload, unsigned kind)
{
    uint32_t ops = t->pending_ops;
    if (ops > 15 || t->n + 1 >= t->cap) {
        itoi_wl_emit_slow(t, payload, kind);
        return;
    }
    t->buf[t->n++] = (payload << 8) | ((uint64_t)ops << 4) | kind;
    t->pending_ops = 0;
}

static inline void wl_ref(wl_ctx *c, const void *p, unsigned kind)
{
    if (c->tr)
        wl_emit(c->tr, (uint64_t)((intptr_t)p + c->tr->delta), kind);
}

/* The memory-access interface of the kernels. p must point into the program's arena. */
#define WL_LD(c, p) (wl_ref((c), (p), WL_EV_READ), *(p))
#define WL_ST(c, p, v) (wl_ref((c), (p), WL_EV_WRITE), *(p) = (v))
/* n non-memory instructions (arithmetic, address arithmetic, loop control) just executed. */
#define WL_OPS(c, n)                                                                           \
    do {                                                                                       \
        if ((c)->tr)                                                                           \
            (c)->tr->pending_ops += (uint32_t)(n);                                             \
    } while (0)

void wl_barrier(wl_ctx *c);
void wl_psafe_begin(wl_ctx *c);
void wl_psafe_end(wl_ctx *c);
void wl_exit(wl_ctx *c); /* trace mode: last event of a thread; native mode: nothing */

/* ---- the program arena: all shared arrays of one program, contiguous ----
 * Arrays are 64-byte aligned and separated by WL_ARENA_GAP bytes (see wl_core.c). */
typedef struct wl_arena {
    char *base;
    size_t size, used;
} wl_arena;

int wl_arena_init(wl_arena *a, size_t bytes);
void *wl_arena_alloc(wl_arena *a, size_t bytes);
void wl_arena_free(wl_arena *a);

/* ---- sizes: n (problem size), b (block), iters (steps / passes) ---- */
typedef struct wl_size {
    long n, b, iters;
} wl_size;

typedef enum { WL_SCALE_PAPER = 0, WL_SCALE_QUICK = 1, WL_SCALE_TEST = 2 } wl_scale;

/* ---- one workload kind ---- */
typedef struct wl_kind {
    const char *name;   /* short name: bmm blu bs fft ocean mp3d */
    const char *label;  /* the paper's name: B-MM, B-LU, BS, FFT, OCEAN, MP3D */
    int blocked;        /* uses psafe regions */
    wl_size sizes[3];   /* indexed by wl_scale */
    size_t (*arena_bytes)(const wl_size *s, int nthreads);
    void *(*setup)(wl_arena *a, const wl_size *s, int nthreads, uint64_t seed);
    void (*thread)(wl_ctx *c);
    /* 0 when the result is right (computed against a naive/serial reference); else -1 and a
     * message in err. Call after all threads finished. */
    int (*check)(void *prog, char *err, size_t errlen);
} wl_kind;

extern const wl_kind wl_bmm, wl_blu, wl_bs, wl_fft, wl_ocean, wl_mp3d;

const wl_kind *wl_find(const char *name); /* by name or label; NULL if unknown */
const wl_kind *const *wl_all(void);       /* NULL-terminated */

/* Run a kind natively with P pthreads and check it. Returns 0 on success (result right). */
int wl_run_native(const wl_kind *k, const wl_size *s, int nthreads, char *err, size_t errlen);

/* Helpers shared by kernels: deterministic pseudo-random numbers. */
static inline uint64_t wl_rand(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static inline double wl_rand01(uint64_t *state) { return (double)(wl_rand(state) >> 11) * 0x1p-53; }

/* Split [0, n) into nthreads near-equal ranges; thread tid gets [*lo, *hi). */
static inline void wl_range(long n, int tid, int nthreads, long *lo, long *hi)
{
    *lo = n * tid / nthreads;
    *hi = n * (tid + 1) / nthreads;
}

#endif
