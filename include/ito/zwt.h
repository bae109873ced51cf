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

/* Counters since ito_init. */
int ito_zwt_stats(uint64_t *fired, uint64_t *stolen);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
