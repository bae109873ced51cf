/* ito/time.h: time, sleeping and deadlines.
 *
 * Every timed call of ito takes an absolute deadline in nanoseconds of CLOCK_MONOTONIC
 * (the clock of ito_now_ns()); ITO_FOREVER means no deadline. A call whose deadline
 * passes before it could complete returns ITO_ETIMEDOUT (the blocking I/O wrappers: -1
 * with errno ETIMEDOUT) and has no effect, except where its header says otherwise
 * (a timed stream put reports the bytes it did put). A deadline already in the past
 * makes the call a try: it succeeds if it can without waiting.
 *
 * Timers are kept by the runtime, per worker: a ULT that waits with a deadline costs a
 * heap entry and no kernel object or thread, and an idle worker sleeps until its
 * earliest deadline. A timed wait never ends before its deadline; it ends late by the
 * worker's wake-up latency (microseconds when idle) or, on a busy worker, by up to 64
 * scheduling points. While a ULT waits with a deadline it stays on its worker. */
#ifndef ITO_TIME_H
#define ITO_TIME_H

#include <stdint.h>
#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

#define ITO_FOREVER UINT64_MAX

/* Now, in ns of CLOCK_MONOTONIC. Any thread. */
uint64_t ito_now_ns(void);
/* The deadline `ns` from now (saturates at ITO_FOREVER). Any thread. */
uint64_t ito_deadline_in(uint64_t ns);

/* Sleep for `ns`, or until `deadline`. In a ULT the worker runs other threads meanwhile;
 * in a foreign thread (not a ULT) the kernel thread sleeps. ITO_OK; ITO_EINVAL for
 * ITO_FOREVER (to wait forever, wait on a synchronization object); ITO_ENOTULT inside
 * a ZWT (which runs to completion). */
int ito_sleep_ns(uint64_t ns);
int ito_sleep_until(uint64_t deadline);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
