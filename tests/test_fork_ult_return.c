/* test_fork_ult_return: a ULT that forks and returns from its function in the child ends
 * the child with exit status 0 (thread.h: it is the child's only thread, as a process's
 * last thread returning). Before 2026-12-07 its return went on into the scheduler with no
 * worker in the child: SIGSEGV, whether it was run by its joiner (inline) or by a worker.
 * ito_exit in the child fails (ITO_ENOTULT) and the caller goes on. The parent is
 * unaffected. Found by an outside tester writing a job runner (h73b). */
#define _GNU_SOURCE
#include <sys/wait.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static void *fork_and_return(void *how)
{
    pid_t pid = fork();
    if (pid < 0) return (void *)1;
    if (pid == 0) {
        alarm(20);
        if (how == (void *)2 && ito_exit(NULL) != ITO_ENOTULT) _exit(3);
        return NULL; /* the child's only thread returns */
    }
    int st = 0;
    if (waitpid(pid, &st, 0) != pid) return (void *)2;
    if (!WIFEXITED(st)) return (void *)(intptr_t)(100 + WTERMSIG(st));
    return (void *)(intptr_t)WEXITSTATUS(st);
}

int main(void)
{
    ito_config_t cfg = {.workers = 2};
    CHECK_OK(ito_init(&cfg));
    for (intptr_t how = 0; how < 3; how++) {
        ito_thread_t t;
        void *ret = (void *)-1;
        CHECK_OK(ito_create(&t, fork_and_return, (void *)how, NULL));
        if (how == 1) ito_sleep_ns(20000000); /* run by a worker, not by its joiner */
        CHECK_OK(ito_join(t, &ret));
        CHECK_EQ((intptr_t)ret, 0);
    }
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
