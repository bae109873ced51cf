/* test_io_uring_setup_fallback: a worker whose io_uring ring cannot be set up at its first
 * I/O goes on as the sync backend, for good, in two cases found by a resource-exhaustion
 * tester (h60a, 2026-12-05), each run in a fork child (a seccomp filter cannot be removed):
 *  - no memory, lastingly: io_uring_setup fails with ENOMEM at every try (RLIMIT_MEMLOCK
 *    before Linux 5.12 charged the rings to it, as a memory cgroup at its limit or a
 *    sandbox does now; a filter stands for it), ITO_WSC_BACKEND unset. ENOMEM was taken
 *    for a passing shortage: the call failed and the next one tried the ring again, so
 *    every I/O call of the runtime failed with ENOMEM for ever. Now it falls back, as
 *    EPERM does. (EMFILE stays "fail this call, try again": test_io_setup_emfile.)
 *  - refused after ito_init with ITO_WSC_BACKEND=uring (granted at ito_init, then a filter
 *    the program installs refuses io_uring_setup before a worker's first I/O): every I/O
 *    call of the worker failed with EPERM, which syscall.h gives to callers that are not
 *    ULTs. ENVIRONMENT.md: "refused later, after ito_init, the worker goes on as the sync
 *    backend", as when io_uring_enter is refused later (test_io_uring_refused_late).
 * In both, two ULTs, one per worker, make 100 pipe round trips and see the sync backend.
 * Since 2026-12-07 the rings are made at ito_init (test_io_nofile_after_init): the first
 * case falls back there, and in the second a filter installed after ito_init comes too late
 * to matter: the workers keep the io_uring backend they were given. */
#define _GNU_SOURCE
#define ITO_TEST_SECCOMP
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static int pp[2][2];

static int want; /* the backend the workers have */

static void *round_trips(void *arg) /* on worker `arg`: its first I/O */
{
    int i = (int)(intptr_t)arg;
    ito_test_pipe_round_trips(pp[i], 100);
    CHECK_EQ(ito_wsc_backend(), want);
    return NULL;
}

static void child(int forced)
{
    if (forced) {
        setenv("ITO_WSC_BACKEND", "uring", 1);
        int rc = ito_init(&(ito_config_t){.workers = 2});
        if (rc == ITO_ENOSYS) _exit(0); /* no io_uring here: nothing to test */
        CHECK_OK(rc);
        ito_test_deny_syscall(__NR_io_uring_setup); /* EPERM, after ito_init */
        want = ITO_WSC_URING;
    } else {
        unsetenv("ITO_WSC_BACKEND");
        ito_test_deny_syscall_errno(__NR_io_uring_setup, ENOMEM);
        CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
        want = ITO_WSC_SYNC;
    }
    ito_thread_t t[2];
    for (int i = 0; i < 2; i++) {
        CHECK_EQ(pipe(pp[i]), 0);
        ito_test_create_on(&t[i], i, round_trips, (void *)(intptr_t)i);
    }
    for (int i = 0; i < 2; i++) CHECK_OK(ito_join(t[i], NULL));
    CHECK_OK(ito_finalize());
    _exit(0);
}

int main(void)
{
    for (int forced = 0; forced < 2; forced++) {
        pid_t pid = fork();
        CHECK(pid >= 0);
        if (pid == 0) child(forced);
        int st = 0;
        CHECK_EQ(waitpid(pid, &st, 0), pid);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    TEST_DONE();
}
