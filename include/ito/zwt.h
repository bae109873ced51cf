/* ito/zwt.h: zero-wait threads (ZWTs), after CEFOS and the Fuce processor.
 *
 * A ZWT is a function that runs to completion without waiting, on a worker's own stack
 * (no stack per ZWT). ZWTs live in *instance frames* (the analog of Fuce's ACM pages):
 * a frame has N entries, each {sync count, fan-in, code entry, lock bit, mode}, and a
 * data area (the frame's base address). A *continuation* to an entry decrements its
 * sync count; the continuation that brings it to zero makes the entry's ZWT ready, and
 * a worker later runs it. An entry fires once per arming: to fire again it re-arms
 * itself (ito_rearm, e.g. to its fan-in), as the paper's self-continuation does.
 *
 * Thread locks: ito_trylock/ito_unlock act on an entry's lock bit (the paper's trylk and
 * unlk); a ZWT that fails to lock continues to itself and retries (ito_zwt_retry).
 * Modes: an entry runs in user, kernel or kernel-interface mode. A user-mode thread
 * (any ULT, or a ZWT in user mode) may not continue to a kernel-mode entry: ITO_EPERM;
 * it must go through a kernel-interface entry.
 *
 * ULT interop: a ULT may block until an entry fires (ito_frame_wait); any thread, ZWT
 * or ULT, wakes it by the continuation that fires the entry.
 *
 * Checks: every call validates its frame (a freed or foreign frame gives ITO_EINVAL;
 * frames stay in ito's pools until ito_finalize, so the check is safe) and entry index
 * (ITO_ERANGE), in every build. */
#ifndef ITO_ZWT_H
#define ITO_ZWT_H

#include <stddef.h>
#include <stdint.h>
#include "error.h"
#include "time.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

typedef struct ito_frame ito_frame_t;

/* The code of an entry: the frame, the entry index, the value carried by the firing
 * continuation (0 if none). Runs to completion: it must not yield or block. */
typedef void (*ito_zwt_fn)(ito_frame_t *frame, int entry, uint64_t value);

enum ito_mode { ITO_MODE_USER = 0, ITO_MODE_KERNEL = 1, ITO_MODE_KERNEL_IF = 2 };

#define ITO_FRAME_MAX_ENTRIES (1 << 24)

int ito_frame_create(ito_frame_t **out, int nentries, size_t data_size); /* data zeroed */
int ito_frame_destroy(ito_frame_t *f);   /* ITO_EBUSY while an entry is ready or waited on */
void *ito_frame_data(ito_frame_t *f);    /* the base address of the data area, NULL if invalid */

/* Define entry `entry`: its code (NULL: an entry that only wakes a waiting ULT), its
 * fan-in (1..2^30; the sync count is set to it) and its mode. */
int ito_entry_set(ito_frame_t *f, int entry, ito_zwt_fn code, uint32_t fan_in, int mode);

int ito_continue(ito_frame_t *f, int entry);
/* The same, also storing `value` for the target (the last firing continuation's value
 * is the one its code receives). */
int ito_continue_value(ito_frame_t *f, int entry, uint64_t value);
/* Reset the sync count: to `count`, or to the fan-in when count is 0. ITO_EBUSY while
 * the entry is ready and not yet running. */
int ito_rearm(ito_frame_t *f, int entry, uint32_t count);

int ito_trylock(ito_frame_t *f, int entry); /* ITO_OK: locked by the caller; ITO_EBUSY */
int ito_unlock(ito_frame_t *f, int entry);  /* ITO_ESTATE if it was not locked */

/* From inside a running ZWT: which one it is, and the paper's retry idiom
 * (re-arm self to 1 and continue to self, i.e. run again later). */
int ito_zwt_self(ito_frame_t **f, int *entry);
int ito_zwt_retry(void);

/* From a ULT: block until the entry fires (and, if it has code, until that code has
 * run). ITO_ENOTULT outside a ULT, ITO_EBUSY if another ULT already waits on it. */
int ito_frame_wait(ito_frame_t *f, int entry);
/* The same with a deadline (ito/time.h): ITO_ETIMEDOUT if the entry has not fired by then
 * (the entry stays armed and may be waited on again). */
int ito_frame_wait_until(ito_frame_t *f, int entry, uint64_t deadline);

/* Counters since ito_init. */
int ito_zwt_stats(uint64_t *fired, uint64_t *stolen);

/* ==== Devices (src/zwt/device.c): devices deliver continuations, not callbacks ====
 *
 * A device is a kernel fd whose events become continuations to a handler entry, as
 * Fuce's I/O controller turns a device signal into a continuation event: the workers'
 * scheduler contexts poll one epoll instance (timeout 0), and each event becomes
 * ito_continue_value(frame, entry, value) with
 *   - a readable fd (ito_device_open_fd): value = the epoll event mask (EPOLLIN, ...);
 *     the handler reads the data itself (the fd is the caller's: close does not close it);
 *   - a timer (ito_device_timer): value = expirations since the last delivery;
 *   - an eventfd (ito_device_eventfd): value = the sum of the ito_device_signal counts
 *     since the last delivery.
 * Masking: after an event the device is masked (no further continuation) until
 * ito_device_ack, which says that the handler has taken the data; ack also re-arms the
 * handler entry to its fan-in if it has fired. Events that occur while masked are not
 * lost: the kernel keeps them (fd readiness, timer and eventfd counters) and they are
 * delivered after the ack. The handler may be a ZWT or a code-less entry a ULT waits on
 * (ito_frame_wait). Device continuations come from the I/O controller, which acts in
 * kernel mode: the handler entry may be of any mode.
 * While devices are watched, an idle worker sleeps in epoll_wait, so that a device event
 * wakes it. Handles are valid from open to close. */
typedef struct ito_device ito_device_t;

#define ITO_DEVICE_MAX 4096 /* devices open at once */

int ito_device_open_fd(int fd, ito_frame_t *f, int entry, ito_device_t **out);
/* A timerfd (CLOCK_MONOTONIC): first expiry after period_ns, then every period_ns;
 * period_ns == 0 makes a disarmed timer, armed later with ito_device_timer_set. */
int ito_device_timer(uint64_t period_ns, ito_frame_t *f, int entry, ito_device_t **out);
/* (Re)arm a timer device: first expiry after delay_ns (0 disarms), then every period_ns
 * (0: once). ITO_EINVAL for a device that is not a timer. */
int ito_device_timer_set(ito_device_t *d, uint64_t delay_ns, uint64_t period_ns);
int ito_device_eventfd(ito_frame_t *f, int entry, ito_device_t **out);
/* Signal an eventfd device (count >= 1), from any thread. */
int ito_device_signal(ito_device_t *d, uint64_t count);
int ito_device_ack(ito_device_t *d);  /* ITO_ESTATE if not masked; ITO_EBUSY if the handler has not run */
int ito_device_close(ito_device_t *d);
int ito_device_fd(ito_device_t *d);   /* the fd, or ITO_EINVAL */
/* Continuations delivered, and deliveries the handler entry refused (then the device
 * stays masked; e.g. ITO_ESTATE when the entry was re-armed short). */
int ito_device_stats(ito_device_t *d, uint64_t *delivered, uint64_t *refused);
/* How idle workers wait for devices: ITO_DEVICE_SLEEP (default: an idle worker spins
 * briefly, then sleeps in epoll_wait; the wake-up costs tens to hundreds of
 * microseconds) or ITO_DEVICE_BUSY (while devices are open, idle workers keep polling
 * them: microsecond latency, but they burn their CPUs). Returns the previous mode. */
enum { ITO_DEVICE_SLEEP = 0, ITO_DEVICE_BUSY = 1 };
int ito_device_poll_mode(int mode);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
