/**
 * @file
 * @brief Futures: a 64-bit value set once and read by many, by ULTs that wait for it and
 * by ZWTs that it fires.
 *
 * An ito_future_t is both ends at once (a promise and its future): any thread sets it
 * once with ito_future_set; ULTs wait for it (ito_future_wait); any thread can look
 * without waiting (ito_future_try_get); and ito_future_then registers a ZWT entry that
 * the setting fires with the value as a continuation (ito_continue_value), which is how
 * stackless code that may not wait consumes a future. After it is set a future never
 * changes: every reader gets the same value, and an entry registered later fires at once.
 * Larger results: set the future to a pointer (or an index) of the result, written before
 * the set (the set publishes it: a reader that gets the value sees what was written
 * before the set).
 * As with the objects of ito/sync.h, "ITO_EINVAL if f is NULL" below also covers a future
 * never initialised, destroyed, or storage of another type.
 */
#ifndef ITO_FUTURE_H
#define ITO_FUTURE_H

#include <stdint.h>
#include "error.h"
#include "time.h"
#include "zwt.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/** Storage of a future (ito_future_init); its fields are private to the runtime. */
typedef struct ito_future { uint64_t opaque_[7]; } ito_future_t;

/**
 * @brief Initialises a future, not set.
 * @return ITO_OK; ITO_EINVAL if f is NULL.
 * @contexts any thread; not a signal handler.
 */
int ito_future_init(ito_future_t *f);
/**
 * @brief Destroys a future that nobody waits for. ULTs that ito_future_set woke have
 * their value already: the future may be destroyed (and its memory freed) as soon as set
 * returns, while they have not run yet; and a woken waiter may destroy it at once, also
 * while the set has not yet returned (the set touches the future no more once it has
 * woken its waiters: it fires the continuations it took before), so a future in a
 * waiting ULT's own stack frame is fine.
 * @return ITO_OK; ITO_EINVAL if f is NULL; ITO_EBUSY if ULTs wait on it, or if it is not
 * set and continuations are registered whose frames are live (set it first: they would
 * never fire). Continuations whose frame is gone (destroyed, or freed by ito_finalize)
 * are dropped here: they can never fire and do not hold the future.
 * @contexts any thread; not a signal handler.
 */
int ito_future_destroy(ito_future_t *f);
/**
 * @brief Sets the value (once): wakes every waiting ULT, then fires every registered
 * continuation with the value, in the order they were registered.
 * @return ITO_OK; ITO_ESTATE if it was set already (the value stays the first one), or
 * from a foreign thread while the runtime is not running; ITO_EINVAL if f is NULL; else
 * the first error of a continuation (as ito_continue_value: ITO_EINVAL for a bad frame,
 * ITO_ERANGE for a bad entry, ITO_EPERM for a kernel-mode entry from user mode,
 * ITO_ESTATE for an entry not defined or fired too often); the value is set and the other
 * continuations fired even then.
 * @contexts any thread (ULT, ZWT, foreign thread); not a signal handler.
 */
int ito_future_set(ito_future_t *f, uint64_t value);
/**
 * @brief Waits until the future is set and stores its value in *value (value may be NULL).
 * @return ITO_OK; ITO_EINVAL if f is NULL; ITO_ENOTULT if it is not set and the caller
 * is not a ULT (once it is set, any thread gets ITO_OK).
 * @contexts ULT (waits); any thread once set; not a signal handler.
 */
int ito_future_wait(ito_future_t *f, uint64_t *value);
/**
 * @brief ito_future_wait with a deadline.
 * @return as ito_future_wait, and ITO_ETIMEDOUT if it is not set by then.
 * @contexts ULT (waits); any thread once set; not a signal handler.
 */
int ito_future_wait_until(ito_future_t *f, uint64_t *value, uint64_t deadline);
/**
 * @brief The value, if the future is set, without waiting.
 * @return ITO_OK; ITO_EAGAIN if it is not set yet; ITO_EINVAL if f or value is NULL.
 * @contexts any thread (ULT, ZWT, foreign thread); not a signal handler.
 */
int ito_future_try_get(ito_future_t *f, uint64_t *value);
/**
 * @brief Registers a continuation: when the future is set, entry `entry` of `frame` gets
 * ito_continue_value(frame, entry, value) (a ZWT entry fires when its sync count reaches
 * zero; a code-less entry wakes the ULT waiting on it). If the future is set already, the
 * continuation is sent now. Continuations are sent in the order they were registered; the
 * ZWTs they fire may run at once on different workers, so the order they run in is not
 * defined.
 * @return ITO_OK; ITO_EINVAL if f or frame is NULL or frame is not a live frame; ITO_ERANGE
 * if entry is not one of the frame's entries; ITO_ENOMEM; ITO_ESTATE from a foreign
 * thread while the runtime is not running; if the future is set already, the result of
 * ito_continue_value.
 * @contexts any thread (ULT, ZWT, foreign thread); not a signal handler.
 */
int ito_future_then(ito_future_t *f, ito_frame_t *frame, int entry);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
