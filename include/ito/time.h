/**
 * @file
 * @brief Time, sleeping and deadlines.
 *
 * Every timed call of ito takes an absolute deadline in nanoseconds of CLOCK_MONOTONIC
 * (the clock of ito_now_ns()); ITO_FOREVER means no deadline. A call whose deadline
 * passes before it could complete returns ITO_ETIMEDOUT (the blocking I/O wrappers: -1
 * with errno ETIMEDOUT) and has no effect, except where its header says otherwise
 * (a timed stream put reports the bytes it did put). A deadline already in the past
 * makes the call a try: it succeeds if it can without waiting (an I/O call on a regular
 * file never waits in that sense: it runs, see ito/syscall.h).
 *
 * Timers are kept by the runtime, per worker: a ULT that waits with a deadline costs a
 * heap entry and no kernel object or thread, and an idle worker sleeps until its
 * earliest deadline. A timed wait never ends before its deadline; it ends late by the
 * worker's wake-up latency (microseconds when idle) or, on a busy worker, by about one
 * scheduling point while its points last about equally long: the scheduler reads the
 * clock at its looks and places the next look where the earliest deadline should pass,
 * judged by how long the points took (one clock read per look). When points suddenly grow
 * longer, by up to 64 of them (the looks are at most 64 points apart). A ULT whose wait
 * timed out runs before the worker's other ready ULTs, up to 32 of them per 64 points:
 * more wait behind the queue, which is never starved. While a ULT waits with a deadline
 * it stays on its worker.
 */
#ifndef ITO_TIME_H
#define ITO_TIME_H

#include <stdint.h>
#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/** The deadline that never passes (no timeout). */
#define ITO_FOREVER UINT64_MAX

/**
 * @brief Now, in ns of CLOCK_MONOTONIC.
 * @return the time; cannot fail.
 * @contexts any: before ito_init, a ULT, a ZWT, a foreign thread, a signal handler
 * (clock_gettime is async-signal-safe).
 */
uint64_t ito_now_ns(void);
/**
 * @brief The deadline `ns` from now.
 * @return ito_now_ns() + ns, saturated at ITO_FOREVER; cannot fail.
 * @contexts any: before ito_init, a ULT, a ZWT, a foreign thread, a signal handler.
 */
uint64_t ito_deadline_in(uint64_t ns);

/**
 * @brief Sleeps for `ns`. In a ULT the worker runs other threads meanwhile; in a foreign
 * thread (not a ULT) the kernel thread sleeps.
 * @return ITO_OK; ITO_EINVAL for ITO_FOREVER, and for a duration so long that its end
 * reaches ITO_FOREVER (ito_deadline_in saturates; to wait forever, wait on a
 * synchronization object); ITO_ENOTULT inside a ZWT (which runs to completion).
 * @contexts a ULT (parks), a foreign thread (the kernel thread sleeps); not a ZWT; not a
 * signal handler.
 */
int ito_sleep_ns(uint64_t ns);
/**
 * @brief Sleeps until `deadline` (ns of CLOCK_MONOTONIC); returns at once if it has passed.
 * @return as ito_sleep_ns.
 * @contexts as ito_sleep_ns.
 */
int ito_sleep_until(uint64_t deadline);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
