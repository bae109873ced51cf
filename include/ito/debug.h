/**
 * @file
 * @brief Looking at the runtime's threads while it runs.
 *
 * ito_dump_threads prints one line per worker and one per ULT. From a debugger, the
 * gdb extension tools/gdb/ito.py (installed in share/ito/gdb/) lists the same ULTs
 * without running code in the program (`ito ults`), also in a core file, and prints the
 * backtrace of a parked ULT (`ito bt ID`); see its header.
 */
#ifndef ITO_DEBUG_H
#define ITO_DEBUG_H

#include <stdio.h>
#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/**
 * @brief Prints the runtime's workers and ULTs to out.
 *
 * One line per worker: its index, kernel thread id, and what it runs (a ULT's id, a ZWT,
 * its scheduler, or asleep). Then one line per ULT that has not been joined:
 * `id  name  state  worker  waits-on`, where state is
 *  - `running`: on the worker shown;
 *  - `blocked`: parked; waits-on names what it waits for (`mutex`, `cond`, `rwlock read`,
 *    `semaphore`, `barrier`, `chan recv`, `future`, `join`, `sleep`, `frame`, an I/O call
 *    such as `recv` ...); worker is the worker it is pinned to, or `-`;
 *  - `ready`: waiting for a worker in a ready queue (worker: its bound worker, or `-`);
 *  - `finished`: returned, not yet joined.
 * The picture is a snapshot taken without stopping the workers: a ULT that changes state
 * while it is printed may show its old or new state (the fields are read without
 * synchronization, as a debugger reads them).
 * @return ITO_OK; ITO_EINVAL if out is NULL; ITO_ESTATE if the runtime is not running;
 * ITO_EIO if writing to out failed.
 * @contexts any thread (ULT, ZWT, foreign thread); not a signal handler (it uses stdio).
 */
int ito_dump_threads(FILE *out);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
