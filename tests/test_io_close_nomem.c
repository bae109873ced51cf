/* test_io_close_nomem: ito_close under memory exhaustion still ends the descriptor's
 * waiters with EBADF (syscall.h). The close cancels the waiters of its worker from a
 * snapshot of the worker's live requests, on the heap past 64 of them; until 2026-12-05 a
 * failed malloc there cancelled nothing: the waiter went on waiting on a closed number
 * (for ever on the sync backend, whose epoll drops a closed descriptor; on io_uring until
 * the pipe's other end closed). Found by a tester with a failing malloc under ito_close.
 * Here READERS ULTs (more than 64) wait in ito_read on pipes of their own on one worker,
 * and the main ULT closes the first pipe's read end, with ITO_FAULT_MALLOC=N for every N
 * up to past the last allocation of the run: whichever allocation fails (a ULT, a
 * request record, the snapshot), a reader that was waiting when its descriptor was
 * closed ends with EBADF, every other one reads its byte, and ito_finalize returns.
 * Both backends. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

#define READERS 70 /* more than the 64 records of the close's snapshot on the stack */
#define PENDING (-1000L)

static int pp[READERS][2];
static _Atomic long result[READERS];
static _Atomic int err[READERS], waiting;

static void *reader(void *arg)
{
    int i = (int)(intptr_t)arg;
    char c = 0;
    atomic_fetch_add(&waiting, 1);
    ssize_t r = ito_read(pp[i][0], &c, 1);
    atomic_store(&err[i], r < 0 ? errno : 0);
    atomic_store(&result[i], (long)r);
    return NULL;
}

static int run_once(const char *backend, int n) /* 1: an allocation failed in the run */
{
    char val[16];
    snprintf(val, sizeof val, "%d", n);
    CHECK_OK(setenv("ITO_WSC_BACKEND", backend, 1));
    CHECK_OK(setenv("ITO_FAULT_MALLOC", val, 1));
    int rc = ito_init(&(ito_config_t){.workers = 1});
    CHECK_OK(unsetenv("ITO_FAULT_MALLOC"));
    if (rc != ITO_OK) {
        CHECK_EQ(rc, ITO_ENOMEM);
        return 1;
    }
    int failed = 0;
    static ito_thread_t t[READERS];
    static int made[READERS];
    atomic_store(&waiting, 0);
    for (int i = 0; i < READERS; i++) {
        CHECK_OK(pipe(pp[i]));
        atomic_store(&result[i], PENDING);
        rc = ito_create(&t[i], reader, (void *)(intptr_t)i, NULL);
        made[i] = rc == ITO_OK;
        if (!made[i]) {
            CHECK_EQ(rc, ITO_ENOMEM);
            failed = 1;
        }
    }
    int want = 0;
    for (int i = 0; i < READERS; i++) want += made[i];
    while (atomic_load(&waiting) < want) CHECK_OK(ito_yield());
    CHECK_OK(ito_sleep_ns(10 * 1000 * 1000)); /* they wait in ito_read (or failed: ENOMEM) */
    int closed_waiting = made[0] && atomic_load(&result[0]) == PENDING;
    CHECK_EQ(ito_close(pp[0][0]), 0);
    if (made[0]) {
        uint64_t until = ito_deadline_in(2000ull * 1000 * 1000);
        while (atomic_load(&result[0]) == PENDING && ito_now_ns() < until) CHECK_OK(ito_sleep_ns(1000 * 1000));
        if (atomic_load(&result[0]) == PENDING) {
            fprintf(stderr, "%s, ITO_FAULT_MALLOC=%d: the reader of the closed descriptor still waits 2 s after ito_close\n",
                    backend, n);
            _exit(1); /* (ito_finalize would wait for it) */
        }
        if (closed_waiting && atomic_load(&result[0]) == -1 && atomic_load(&err[0]) != ENOMEM)
            CHECK_EQ(atomic_load(&err[0]), EBADF);
    }
    for (int i = 1; i < READERS; i++) CHECK_EQ(write(pp[i][1], "x", 1), 1);
    for (int i = 0; i < READERS; i++) {
        if (made[i]) CHECK_OK(ito_join(t[i], NULL));
        long r = atomic_load(&result[i]);
        if (made[i] && i > 0 && r != 1) { /* only its own request's allocation may fail */
            CHECK_EQ(r, -1);
            CHECK_EQ(atomic_load(&err[i]), ENOMEM);
            failed = 1;
        }
        if (i > 0) close(pp[i][0]);
        close(pp[i][1]);
    }
    CHECK_OK(ito_finalize());
    return failed;
}

int main(void)
{
    for (int b = 0; b < ITO_TEST_NBACKENDS; b++) {
        int clean = 0;
        for (int n = 1; n <= 400 && clean < 20; n++) /* until 20 runs in a row saw no failure */
            clean = run_once(ito_test_backends[b], n) ? 0 : clean + 1;
    }
    unsetenv("ITO_WSC_BACKEND");
    TEST_DONE();
}
