/**
 * @file
 * @brief Creating many ULTs with one call (after Tsunedomi et al., parallel
 * creation of multiple threads in a message-pool operating system).
 *
 * ito_create_many(n, ...) creates n ULTs that share common information (the function
 * and `common_size` bytes of arguments, copied once) and get private information (an
 * index, an id, a stack, and optionally an argument from private_init). The issuing
 * ULT posts one message into the runtime's message pool; idle workers take it and
 * create threads alongside the issuer. Schemes (how the work is divided):
 *   SERIAL    the issuer alone, one thread after another;
 *   SIMPLE    simple parallel: every worker takes one thread per access to the message;
 *   TEMPLATE  parallel template: the issuer builds the common part of a thread once
 *             (a template); workers copy it and add only the private part; one thread
 *             per access;
 *   CHUNK     chunk: a worker claims ceil(n/p) or floor(n/p) threads per access and
 *             fills them from its local copy of the message;
 *   COMBINED  chunk + template.
 * Stacks are attached lazily, when a thread first runs (so a million threads can be
 * created at once, and those that run one after another share a few stacks), but they
 * are promised at the call: the call maps the stack space the n threads need, and a
 * thread for which none could be promised, or whose descriptor cannot be allocated, fails
 * at once with ITO_ENOMEM. A count this machine could not hold at all (more than its
 * memory and swap, one page of stack and a descriptor each, or than its address space)
 * is refused whole: ITO_ENOMEM, nothing created (every errs[i] ITO_ENOMEM, every out[i]
 * NULL). A call refused for its arguments or its context (ITO_EINVAL, ITO_ESTATE,
 * ITO_ENOTULT) writes neither array.
 * Per-thread errors: errs[i] (if errs != NULL) receives ITO_OK or the error of thread i;
 * a thread that failed is not created at all (nothing half-made remains). The call
 * returns ITO_OK when every thread was created, else the first error.
 */
#ifndef ITO_SPAWN_H
#define ITO_SPAWN_H

#include <stddef.h>
#include "error.h"
#include "thread.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/** How ito_create_many divides the work of creation (see above). */
typedef enum ito_spawn_scheme {
    ITO_SPAWN_SERIAL = 0,   /**< the issuer alone */
    ITO_SPAWN_SIMPLE = 1,   /**< simple parallel: one thread per access */
    ITO_SPAWN_TEMPLATE = 2, /**< parallel template: a common part built once */
    ITO_SPAWN_CHUNK = 3,    /**< chunks of ceil(n/p) or floor(n/p) threads per access */
    ITO_SPAWN_COMBINED = 4, /**< chunk + template */
} ito_spawn_scheme_t;

/** Attributes of a bulk creation: initialise with ito_spawn_attr_init, then set fields. */
typedef struct ito_spawn_attr {
    ito_spawn_scheme_t scheme; /**< default SERIAL */
    int workers;               /**< workers that create (the issuer's included): 1 .. ito_worker_count(); 0: all */
    size_t stack_size;         /**< 0: the runtime default; else ITO_STACK_MIN .. ITO_STACK_MAX (8 KiB .. 1 GiB, thread.h) */
    unsigned flags;            /**< ITO_ATTR_DETACHED: no handles, nothing to join */
} ito_spawn_attr_t;

/** The argument of thread i: private_init(i, common_copy) when given, else common_copy
 * (the runtime's copy of `common`, alive until every thread of the call has finished). */
typedef void *(*ito_private_fn)(size_t index, void *common_copy);

/**
 * @brief Sets attr to the defaults (SERIAL, all workers, default stack, joinable).
 * @return ITO_OK; ITO_EINVAL if attr is NULL.
 * @contexts any thread; not a signal handler.
 */
int ito_spawn_attr_init(ito_spawn_attr_t *attr);
/**
 * @brief Creates n ULTs running fn, sharing `common_size` bytes copied from `common` (see
 * above); stores their handles in out[0..n) (out may be NULL only with ITO_ATTR_DETACHED)
 * and, if errs is not NULL, each thread's ITO_OK or error in errs[i] (a failed thread has
 * out[i] = NULL and does not exist). attr NULL: the defaults.
 * @return ITO_OK when every thread was created, else the first error: ITO_ENOMEM (no
 * descriptor, or no memory for the message); ITO_EINVAL (nothing created) for a NULL
 * fn, n 0 or above 2^40, a NULL common with common_size > 0, a bad attribute, or a NULL out
 * without ITO_ATTR_DETACHED; ITO_ESTATE if the runtime is not running; ITO_ENOTULT
 * outside a ULT.
 * @contexts ULT only.
 */
int ito_create_many(size_t n, ito_fn_t fn, const void *common, size_t common_size,
                    ito_private_fn private_init, ito_thread_t *out, int *errs,
                    const ito_spawn_attr_t *attr);

/**
 * @brief Inside a thread created by ito_create_many: stores its index (0 .. n-1) in *index.
 * @return ITO_OK; ITO_EINVAL if index is NULL; ITO_EPERM in any other thread.
 * @contexts a ULT created by ito_create_many.
 */
int ito_spawn_index(size_t *index);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
