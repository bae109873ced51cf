/* fuzz_util.h: what the libFuzzer harnesses share: the input being decoded (byte() reads
 * its next byte, 0 past its end), and the two checks: check() for a return value that
 * must be ITO_OK or one of ito's error codes, require() for a property of the run.
 *
 * A hang watchdog for finding why an input hangs (libFuzzer's -timeout prints the stack
 * of whichever thread took its SIGALRM only): with ITO_FUZZ_WATCHDOG=<seconds> in the
 * environment, an input running longer than that makes the harness attach gdb to itself
 * (every thread's stack and, with tools/gdb/ito.py, `ito workers`, `ito ults` and `ito io`),
 * then each io_uring's /proc fdinfo (the requests the kernel still holds), into
 * fuzz-hang-<pid>.txt in the current folder, copy it to stderr, then abort (libFuzzer then
 * saves the input as crash-*). ITO_FUZZ_GDB_SCRIPT names ito.py. */
#ifndef ITO_FUZZ_UTIL_H
#define ITO_FUZZ_UTIL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ito/ito.h"

static const uint8_t *in;
static size_t in_n, in_at;

static _Atomic unsigned long fuzz_inputs; /* inputs begun so far (the watchdog's clock) */

static void *fuzz_watchdog(void *arg)
{
    unsigned secs = (unsigned)(uintptr_t)arg, still = 0;
    unsigned long seen = 0;
    for (;;) {
        sleep(1);
        unsigned long now = atomic_load(&fuzz_inputs);
        still = now == seen ? still + 1 : 0;
        seen = now;
        if (still < secs) continue;
        const char *py = getenv("ITO_FUZZ_GDB_SCRIPT");
        char cmd[1024];
        snprintf(cmd, sizeof cmd,
                 "gdb -p %d -batch -ex 'set pagination off' %s%s%s -ex 'info threads' "
                 "-ex 'thread apply all bt 30' %s > fuzz-hang-%d.txt 2>&1",
                 (int)getpid(), py ? "-x '" : "", py ? py : "", py ? "'" : "",
                 py ? "-ex 'ito workers' -ex 'ito ults' -ex 'ito io'" : "", (int)getpid());
        fprintf(stderr, "fuzz watchdog: input %lu runs over %u s, dumping to fuzz-hang-%d.txt\n", now, secs,
                (int)getpid());
        if (system(cmd) != 0) fprintf(stderr, "fuzz watchdog: gdb failed\n");
        /* the kernel's side of each io_uring: requests it still holds (PollList: op numbers
         * of requests armed on a file's poll), SQ/CQ heads (h67a, 2026-12-06: a read still
         * armed there after its cancel answered -ENOENT; test_io_uring_cancel_enoent) */
        snprintf(cmd, sizeof cmd,
                 "for f in /proc/%d/fdinfo/*; do grep -q SqMask $f 2>/dev/null && { echo \"== io_uring $f\"; cat $f; }; done "
                 ">> fuzz-hang-%d.txt 2>&1",
                 (int)getpid(), (int)getpid());
        if (system(cmd) != 0) fprintf(stderr, "fuzz watchdog: no io_uring fdinfo\n");
        snprintf(cmd, sizeof cmd, "cat fuzz-hang-%d.txt >&2", (int)getpid());
        if (system(cmd) != 0) fprintf(stderr, "fuzz watchdog: no dump\n");
        abort();
    }
    return NULL;
}

static void fuzz_watchdog_start(void)
{
    const char *e = getenv("ITO_FUZZ_WATCHDOG");
    pthread_t t;
    if (e && atoi(e) > 0 && pthread_create(&t, NULL, fuzz_watchdog, (void *)(uintptr_t)atoi(e)) == 0)
        pthread_detach(t);
}

static inline void fuzz_begin(const uint8_t *data, size_t size)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, fuzz_watchdog_start);
    atomic_fetch_add(&fuzz_inputs, 1);
    in = data;
    in_n = size;
    in_at = 0;
}

static inline unsigned byte(void) { return in_at < in_n ? in[in_at++] : 0; }

static inline void require(int cond)
{
    if (!cond) abort();
}

static inline void check(int rc)
{
    require(rc == ITO_OK || (rc < 0 && rc >= ITO_EIO)); /* ITO_OK or one of ito's codes */
}

#endif
