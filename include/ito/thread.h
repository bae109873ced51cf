/* ito/thread.h: the runtime and its user-level threads (ULTs).
 *
 * Life of the runtime: ito_init() starts the workers (kernel threads) and turns the
 * caller into the "main" ULT, bound to worker 0; ito_finalize(), called from main,
 * waits for every other ULT to finish, joins the workers and frees every stack.
 *
 * The finalize rule: ito_finalize waits for live work (ULTs not finished, ZWTs ready,
 * split-phase requests in flight, see syscall.h) as long as the runtime makes progress
 * or holds work that will progress by itself (a timer, an armed timer device, a request
 * on a regular file). After ITO_FINALIZE_GRACE_MS (default 1000) without progress it
 * cancels the requests that can never complete by themselves (on sockets, pipes and other
 * non-file descriptors): their ULTs wake with ECANCELED and run to their end. If ULTs then
 * stay blocked on ito objects, it returns ITO_EBUSY and the runtime stays up (nothing is
 * freed); ito_finalize may be called again. Foreign threads that call into the runtime
 * after a successful finalize get ITO_ESTATE.
 *
 * Kernel threads: a ULT may resume on another worker (kernel thread) after any call that
 * can block or yield; do not keep the address of a thread-local variable across such
 * calls (errno is handled: see syscall.h).
 *
 * A ULT is a stackful thread scheduled by ito: it runs until it yields, blocks on an
 * ito synchronization object, joins, or exits. ULTs are created joinable unless
 * ITO_ATTR_DETACHED is set; a joinable ULT must be joined (or detached) exactly once.
 *
 * Handles (ito_thread_t) carry a generation tag, so using a handle whose thread has
 * already been joined gives ITO_EJOINED instead of touching another thread (the tag
 * has 16 bits: a handle that is 65,536 generations stale may alias a new thread). */
#ifndef ITO_THREAD_H
#define ITO_THREAD_H

#include <stddef.h>
#include <stdint.h>
#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

typedef struct ito_thread_opaque *ito_thread_t; /* a tagged handle; NULL is never valid */
typedef void *(*ito_fn_t)(void *arg);

/* Runtime configuration; zero fields take their defaults. */
/* Stacks: sizes are rounded up to a power of two from ITO_STACK_MIN to ITO_STACK_MAX.
 * Stacks are carved from large mappings (not a kernel mapping each), with a guard below
 * every one (64 KiB below stacks of 64 KiB or more, 16 KiB below smaller ones) where the
 * kernel allows (MADV_GUARD_INSTALL, Linux 6.13; else mprotect while mappings last; else a
 * canary checked when the ULT ends). A ULT that runs into its guard ends the process with
 * "ito: fatal: stack overflow in ULT '<name>'". Compile with -fstack-clash-protection
 * (pkg-config --cflags ito and ito-cc add it) so that a frame larger than the guard still
 * hits it. */
#define ITO_STACK_MIN ((size_t)8 << 10)
#define ITO_STACK_MAX ((size_t)1 << 30)

typedef struct ito_config {
    int workers;            /* kernel threads; 0: $ITO_WORKERS, else the CPUs of the affinity mask. Max 256 */
    size_t stack_size;      /* default ULT stack in bytes; 0: 64 KiB. ITO_STACK_MIN .. ITO_STACK_MAX */
} ito_config_t;

int ito_init(const ito_config_t *cfg); /* NULL: all defaults. ITO_ESTATE if already initialized */
int ito_finalize(void);                /* from the main ULT only (ITO_EPERM otherwise) */
int ito_initialized(void);             /* 1 between ito_init and ito_finalize, else 0 */

/* Thread attributes: initialise with ito_attr_init, then set fields. */
enum {
    ITO_ATTR_DETACHED    = 1u << 0, /* no join: resources are freed when it exits */
    ITO_ATTR_CHILD_FIRST = 1u << 1, /* the creator yields to the new ULT at once (direct hand-off) */
};
typedef struct ito_attr {
    size_t stack_size;  /* 0: the runtime default; else ITO_STACK_MIN .. ITO_STACK_MAX */
    int worker;         /* -1: any worker (stealable); else bind to this worker */
    unsigned flags;     /* ITO_ATTR_* */
    const char *name;   /* copied (at most 31 bytes kept); NULL: "ult-<id>" */
} ito_attr_t;

int ito_attr_init(ito_attr_t *attr);

int ito_create(ito_thread_t *out, ito_fn_t fn, void *arg, const ito_attr_t *attr);
int ito_join(ito_thread_t t, void **retval);   /* retval may be NULL; joining main: ITO_EPERM */
/* ito_join with a deadline (see time.h): ITO_ETIMEDOUT when t has not finished by then;
 * t stays joinable. */
int ito_join_until(ito_thread_t t, void **retval, uint64_t deadline);
int ito_detach(ito_thread_t t);
int ito_yield(void);                 /* ITO_ENOTULT outside a ULT */
int ito_yield_to(ito_thread_t t);    /* run t next if it is ready on this worker, else plain yield */
int ito_exit(void *retval);          /* does not return when called from a ULT other than main */
ito_thread_t ito_self(void);         /* NULL outside a ULT */
int ito_thread_id(ito_thread_t t, uint64_t *id);
int ito_thread_name(ito_thread_t t, char *buf, size_t len);

int ito_worker_count(void);          /* number of workers, or ITO_ESTATE */
int ito_worker_id(void);             /* the calling ULT's worker, or ITO_ENOTULT */

/* Counters of the calling process since ito_init (for tests and benchmarks). */
typedef struct ito_stats {
    uint64_t created, finished, switches, steals, sleeps, stacks_mapped, stacks_live;
    uint64_t idles;         /* times a worker ran out of work and looked for more */
    uint64_t idle_spin_ns;  /* time workers spent spinning for work before sleeping */
} ito_stats_t;
int ito_stats(ito_stats_t *out);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
