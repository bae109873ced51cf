/* ito/sync.h: synchronization that switches ULTs instead of blocking the worker.
 *
 * A ULT that must wait is parked on the object's wait queue and its worker runs other
 * ULTs; waking makes it ready again. All objects are FIFO-fair among waiters.
 * Calls from outside a ULT return ITO_ENOTULT, except ito_cond_signal/broadcast and the
 * stream's try-variants and close, which work from any thread (a mutex belongs to a
 * ULT, so even its trylock needs one); from a foreign thread after ito_finalize they
 * return ITO_ESTATE.
 * Timed variants (*_until) take an absolute deadline (ito/time.h) and return
 * ITO_ETIMEDOUT when it passes first.
 * Objects must be initialised (ito_*_init) and destroyed when no ULT uses them;
 * destroying an object that has waiters gives ITO_EBUSY. */
#ifndef ITO_SYNC_H
#define ITO_SYNC_H

#include <stddef.h>
#include <stdint.h>
#include "error.h"
#include "time.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/* Storage for the objects below; their fields are private to the runtime. */
typedef struct ito_mutex { uint64_t opaque_[5]; } ito_mutex_t;
typedef struct ito_cond { uint64_t opaque_[4]; } ito_cond_t;
typedef struct ito_stream ito_stream_t;

int ito_mutex_init(ito_mutex_t *m);
int ito_mutex_destroy(ito_mutex_t *m);          /* ITO_EBUSY if locked */
int ito_mutex_lock(ito_mutex_t *m);             /* ITO_EDEADLK if the caller holds it */
int ito_mutex_lock_until(ito_mutex_t *m, uint64_t deadline); /* ITO_ETIMEDOUT: not locked */
int ito_mutex_trylock(ito_mutex_t *m);          /* ITO_EBUSY if taken */
int ito_mutex_unlock(ito_mutex_t *m);           /* ITO_EPERM if the caller is not the owner */

int ito_cond_init(ito_cond_t *c);
int ito_cond_destroy(ito_cond_t *c);            /* ITO_EBUSY if ULTs wait on it */
int ito_cond_wait(ito_cond_t *c, ito_mutex_t *m); /* m must be held by the caller (ITO_EPERM) */
/* ITO_ETIMEDOUT when not signalled by the deadline; m is held again on return either way. */
int ito_cond_wait_until(ito_cond_t *c, ito_mutex_t *m, uint64_t deadline);
int ito_cond_signal(ito_cond_t *c);
int ito_cond_broadcast(ito_cond_t *c);

/* A bounded FIFO of bytes between ULTs (a pipe without the kernel).
 * put writes all len bytes, waiting for room as needed; get waits until at least one
 * byte is there and returns up to len. After close: put gives ITO_ECLOSED; get drains
 * what is left, then gives ITO_ECLOSED with *got = 0. */
int ito_stream_create(ito_stream_t **out, size_t capacity); /* capacity 1 .. 1 GiB */
int ito_stream_destroy(ito_stream_t *s);                    /* ITO_EBUSY if ULTs wait on it */
int ito_stream_put(ito_stream_t *s, const void *buf, size_t len);
int ito_stream_get(ito_stream_t *s, void *buf, size_t len, size_t *got);
/* Timed: put stores in *put (may be NULL) how many bytes it put, also on ITO_ETIMEDOUT
 * and ITO_ECLOSED; get returns ITO_ETIMEDOUT with *got = 0 when no byte came in time. */
int ito_stream_put_until(ito_stream_t *s, const void *buf, size_t len, uint64_t deadline, size_t *put);
int ito_stream_get_until(ito_stream_t *s, void *buf, size_t len, size_t *got, uint64_t deadline);
int ito_stream_try_put(ito_stream_t *s, const void *buf, size_t len, size_t *put); /* ITO_EAGAIN if no room */
int ito_stream_try_get(ito_stream_t *s, void *buf, size_t len, size_t *got);       /* ITO_EAGAIN if empty */
int ito_stream_close(ito_stream_t *s);                      /* wakes every waiter; twice: ITO_ECLOSED */
int ito_stream_stats(ito_stream_t *s, uint64_t *puts_blocked, uint64_t *gets_blocked);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
