/**
 * @file
 * @brief Zero-wait threads (ZWTs), after CEFOS and the Fuce processor.
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
 * (ITO_ERANGE), in every build.
 */
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

/** An instance frame: N entries and a data area. */
typedef struct ito_frame ito_frame_t;

/** The code of an entry: the frame, the entry index, and the value of the entry (see
 * ito_continue_value: the last value stored, 0 if none ever was). Runs to completion: it
 * must not yield or block. */
typedef void (*ito_zwt_fn)(ito_frame_t *frame, int entry, uint64_t value);

/** The mode an entry runs in (CEFOS's user, kernel and kernel-interface threads). */
enum ito_mode {
    ITO_MODE_USER = 0,      /**< user mode */
    ITO_MODE_KERNEL = 1,    /**< kernel mode: user threads reach it only through ITO_MODE_KERNEL_IF */
    ITO_MODE_KERNEL_IF = 2, /**< kernel-interface mode */
};

/** The most entries a frame may have. */
#define ITO_FRAME_MAX_ENTRIES (1 << 24)

/**
 * @brief Creates a frame of nentries entries (1 .. ITO_FRAME_MAX_ENTRIES, all undefined)
 * and a zeroed data area of data_size bytes (0 .. 1 GiB).
 * @return ITO_OK; ITO_EINVAL if out is NULL or a size is out of range; ITO_ESTATE if the
 * runtime is not running; ITO_ENOMEM.
 * @contexts any thread while the runtime runs (ULT, ZWT, foreign thread); not a signal handler.
 */
int ito_frame_create(ito_frame_t **out, int nentries, size_t data_size);
/**
 * @brief Frees a frame (it goes back to ito's pools, so a stale pointer is still detected).
 * Calls made after the destroy are refused; a call racing it (another thread continuing,
 * re-arming or setting an entry of the frame while it is destroyed) is the caller's error,
 * as destroying a mutex that another thread is locking: destroy a frame once nothing can
 * still reach it. A request in flight whose continuation is an entry of the frame
 * (ito_sys_post, ito_sys_wait_all) does not hold it: destroyed first, the request still
 * stores its result and its continuation is dropped; wait for the continuation before
 * destroying. A ZWT that is running (its code has been called) does not hold its frame
 * either: the ULT that its last call woke (an ito_future_set, ito_continue of a code-less
 * entry, ito_sem_post) may destroy the frame at once, so such a code must not touch its
 * frame after that call.
 * @return ITO_OK; ITO_EINVAL for a freed or foreign frame; ITO_EBUSY while an entry is
 * ready (queued) or a ULT waits on one.
 * @contexts any thread; not a signal handler.
 */
int ito_frame_destroy(ito_frame_t *f);
/**
 * @brief The base address of the frame's data area.
 * @return the address, or NULL for an invalid frame.
 * @contexts any thread; not a signal handler.
 */
void *ito_frame_data(ito_frame_t *f);

/**
 * @brief Defines entry `entry`: its code (NULL: an entry that only wakes a waiting ULT),
 * its fan-in (1..2^30; the sync count is set to it) and its mode.
 * @return ITO_OK; ITO_EINVAL for a bad frame, fan-in or mode; ITO_ERANGE for a bad entry
 * index; ITO_EBUSY while the entry is queued or waited on.
 * @contexts any thread (ULT, ZWT, foreign thread); not a signal handler.
 */
int ito_entry_set(ito_frame_t *f, int entry, ito_zwt_fn code, uint32_t fan_in, int mode);

/**
 * @brief A continuation: decrements the entry's sync count; the one that reaches zero
 * makes the entry's ZWT ready (or wakes the ULT waiting on a code-less entry).
 * @return ITO_OK; ITO_EINVAL for a bad frame (also any frame once its runtime is
 * finalized); ITO_ERANGE for a bad entry; ITO_ESTATE for an entry not defined, one
 * continued more often than armed (the extra continuation changes nothing), or, from a
 * foreign thread, while ito_finalize is closing the runtime; ITO_EPERM from user mode
 * (a ULT, a foreign thread, a user-mode ZWT) to a kernel-mode entry.
 * @contexts any thread (ULT, ZWT, foreign thread); not a signal handler.
 */
int ito_continue(ito_frame_t *f, int entry);
/**
 * @brief ito_continue that also stores `value` as the entry's value, which its code
 * receives when it runs. The value stays until another accepted ito_continue_value
 * replaces it (a plain ito_continue, a re-arm or a set keeps it; a refused continuation
 * changes nothing); of continuations racing from several threads, the last store wins.
 * 0 until a value is first stored in the entry of a new frame.
 * @return as ito_continue.
 * @contexts any thread (ULT, ZWT, foreign thread); not a signal handler.
 */
int ito_continue_value(ito_frame_t *f, int entry, uint64_t value);
/**
 * @brief Resets the sync count: to `count`, or to the fan-in when count is 0 (the paper's
 * self-continuation re-arms an entry so that it can fire again).
 * @return ITO_OK; ITO_EINVAL for a bad frame or count > 2^30; ITO_ERANGE for a bad entry;
 * ITO_ESTATE for an entry not defined; ITO_EBUSY while the entry is ready and not yet running.
 * Re-arms, continuations and firings from several threads are ordered: each continuation
 * counts against the arming in force when it takes its count, and a code-less entry is
 * marked fired only by a firing of its current arming (a re-arm waits out a firing under
 * way: a few instructions; no continuation ever waits).
 * @contexts any thread (ULT, ZWT, foreign thread); not a signal handler.
 */
int ito_rearm(ito_frame_t *f, int entry, uint32_t count);

/**
 * @brief Takes the entry's thread lock (the paper's trylk), without waiting.
 * @return ITO_OK: locked by the caller; ITO_EBUSY if it is locked; ITO_EINVAL / ITO_ERANGE
 * for a bad frame or entry.
 * @contexts any thread (ULT, ZWT, foreign thread); not a signal handler.
 */
int ito_trylock(ito_frame_t *f, int entry);
/**
 * @brief Releases the entry's thread lock (unlk).
 * @return ITO_OK; ITO_ESTATE if it was not locked; ITO_EINVAL / ITO_ERANGE for a bad frame or entry.
 * @contexts any thread (ULT, ZWT, foreign thread); not a signal handler.
 */
int ito_unlock(ito_frame_t *f, int entry);

/**
 * @brief Inside a running ZWT: which one it is (*f, *entry).
 * @return ITO_OK; ITO_EINVAL if f or entry is NULL; ITO_EPERM outside a ZWT.
 * @contexts a ZWT.
 */
int ito_zwt_self(ito_frame_t **f, int *entry);
/**
 * @brief The paper's retry idiom, from inside a running ZWT: re-arms itself to 1 and
 * continues to itself, i.e. runs again later (e.g. after a failed ito_trylock).
 * @return ITO_OK; ITO_EPERM outside a ZWT; else as ito_continue.
 * @contexts a ZWT.
 */
int ito_zwt_retry(void);

/**
 * @brief Blocks the calling ULT until the code-less entry fires (returns at once if it
 * has fired since it was armed).
 * @return ITO_OK; ITO_EINVAL for a bad frame or an entry with code; ITO_ERANGE for a bad
 * entry; ITO_ESTATE for an entry not defined; ITO_EBUSY if another ULT already waits on
 * it; ITO_ENOTULT outside a ULT. A wait racing the frame's destroy (the entry fired, then
 * another thread destroyed the frame and perhaps created another in its memory) ends:
 * ITO_OK, or ITO_EINVAL if the destroy came first; it never waits in another frame.
 * @contexts ULT only.
 */
int ito_frame_wait(ito_frame_t *f, int entry);
/**
 * @brief ito_frame_wait with a deadline (ito/time.h).
 * @return as ito_frame_wait, and ITO_ETIMEDOUT if the entry has not fired by then (it
 * stays armed and may be waited on again).
 * @contexts ULT only.
 */
int ito_frame_wait_until(ito_frame_t *f, int entry, uint64_t deadline);

/**
 * @brief Counters since ito_init: ZWTs run (*fired) and ZWTs run by another worker than
 * the one that made them ready (*stolen); either pointer may be NULL, not both.
 * @return ITO_OK; ITO_EINVAL if both are NULL; ITO_ESTATE if the runtime is not running.
 * @contexts any thread; not a signal handler.
 */
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
 * wakes it. Handles are valid from open to close: a closed device's handle is refused
 * (ITO_EINVAL), also once its slot holds a device opened since, in this runtime or a later
 * one (the handle carries the slot's generation, 16 bits as a frame's: see error.h).
 * ito_finalize closes every device still open (its timerfd or eventfd with it; a watched
 * fd stays open) after the events it waits for (thread.h), as it frees every frame: a
 * later call with such a handle is refused the same way. */
/** A device: a kernel fd whose events become continuations. */
typedef struct ito_device ito_device_t;

/** Devices open at once. */
#define ITO_DEVICE_MAX 4096

/**
 * @brief Watches a readable fd (the caller's: close does not close it); each event is
 * ito_continue_value(f, entry, epoll event mask). Close the device before the fd: a device
 * whose fd the program closed delivers nothing more, and once another device watches a
 * new fd of the same number it is detached (its ack gives ITO_EIO, ito_device_fd
 * ITO_EINVAL; its close only frees it) so that it never acts on the new device.
 * @return ITO_OK; ITO_EINVAL for a negative fd, a NULL out or a bad frame, and for an fd
 * epoll cannot watch (not open, a regular file or directory, /dev/null: epoll_ctl's EBADF
 * or EPERM); ITO_ERANGE for a bad entry; ITO_ESTATE if the runtime is not running or the
 * entry is not defined; ITO_EBUSY if the fd is watched already; ITO_ENOMEM (also:
 * ITO_DEVICE_MAX devices open).
 * @contexts any thread while the runtime runs; not a signal handler.
 */
int ito_device_open_fd(int fd, ito_frame_t *f, int entry, ito_device_t **out);
/**
 * @brief A timer device (a CLOCK_MONOTONIC timerfd): first expiry after period_ns, then
 * every period_ns; period_ns 0 makes a disarmed timer (ito_device_timer_set arms it). Each
 * delivery carries the expirations since the last one.
 * @return as ito_device_open_fd, and ITO_EIO if the timerfd cannot be made.
 * @contexts any thread while the runtime runs; not a signal handler.
 */
int ito_device_timer(uint64_t period_ns, ito_frame_t *f, int entry, ito_device_t **out);
/**
 * @brief (Re)arms a timer device: first expiry after delay_ns (0 disarms), then every
 * period_ns (0: once).
 * @return ITO_OK; ITO_EINVAL for a closed device or one that is not a timer; ITO_EIO if
 * the kernel refuses.
 * @contexts any thread; not a signal handler.
 */
int ito_device_timer_set(ito_device_t *d, uint64_t delay_ns, uint64_t period_ns);
/**
 * @brief An eventfd device: each delivery carries the sum of the ito_device_signal counts
 * since the last one.
 * @return as ito_device_timer.
 * @contexts any thread while the runtime runs; not a signal handler.
 */
int ito_device_eventfd(ito_frame_t *f, int entry, ito_device_t **out);
/**
 * @brief Signals an eventfd device with count (>= 1).
 * @return ITO_OK; ITO_EINVAL for a count of 0 or near 2^64, a closed device or one that
 * is not an eventfd; ITO_EAGAIN if the eventfd's counter would overflow.
 * @contexts any thread (ULT, ZWT, foreign thread); not a signal handler.
 */
int ito_device_signal(ito_device_t *d, uint64_t count);
/**
 * @brief Says the handler has taken the data: unmasks the device (events that came while
 * it was masked are delivered now) and re-arms the handler entry to its fan-in if it has fired.
 * @return ITO_OK; ITO_EINVAL for a closed device or a destroyed handler frame; ITO_ESTATE
 * if the device is not masked; ITO_EBUSY if the handler is queued and has not run yet;
 * ITO_EIO if the kernel refuses.
 * @contexts any thread (usually the handler ZWT); not a signal handler.
 */
int ito_device_ack(ito_device_t *d);
/**
 * @brief Stops watching and frees the device (closes the timerfd or eventfd it made; a
 * watched fd stays open).
 * @return ITO_OK; ITO_EINVAL for a closed device.
 * @contexts any thread; not a signal handler.
 */
int ito_device_close(ito_device_t *d);
/**
 * @brief The device's fd.
 * For watching or inspecting it (poll, fstat); the device reads it. Reading it yourself
 * takes events the device counts on: a timer device's expiry read that way is never
 * delivered, and finalize then waits for it as for an armed one-shot timer (thread.h).
 * @return the fd (>= 0), or ITO_EINVAL for a closed device.
 * @contexts any thread; not a signal handler.
 */
int ito_device_fd(ito_device_t *d);
/**
 * @brief Continuations delivered, and deliveries the handler entry refused (then the
 * device stays masked; e.g. ITO_ESTATE when the entry was re-armed short). What a refused
 * delivery had read is not lost: an eventfd's count goes back into it (delivered after the
 * ack, with what came since), a timer's expirations are added to its next delivery (known
 * limit, 2026-12-05: a one-shot timer's refused expiry is delivered only if the timer is
 * armed again). Either pointer may be NULL, not both.
 * @return ITO_OK; ITO_EINVAL if both are NULL or the device is closed.
 * @contexts any thread; not a signal handler.
 */
int ito_device_stats(ito_device_t *d, uint64_t *delivered, uint64_t *refused);
/** How idle workers wait for devices (ito_device_poll_mode). */
enum {
    ITO_DEVICE_SLEEP = 0, /**< spin briefly, then sleep in epoll_wait (the default) */
    ITO_DEVICE_BUSY = 1,  /**< keep polling while devices are open: microsecond latency, busy CPUs */
};
/**
 * @brief Chooses how idle workers wait for devices: ITO_DEVICE_SLEEP (default: an idle
 * worker spins briefly, then sleeps in epoll_wait; the wake-up costs tens to hundreds of
 * microseconds) or ITO_DEVICE_BUSY (while devices are open, idle workers keep polling
 * them: microsecond latency, but they burn their CPUs).
 * @return the previous mode (>= 0); ITO_EINVAL for another mode; ITO_ESTATE if the
 * runtime is not running.
 * @contexts any thread while the runtime runs; not a signal handler.
 */
int ito_device_poll_mode(int mode);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
