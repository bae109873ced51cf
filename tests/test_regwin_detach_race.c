/* test_regwin_detach_race: ito_regwin_detach called at once after joining ULTs that ran
 * on another worker. A joined ULT has woken its joiner before its worker's last switch,
 * which calls the runtime's switch hook and frees the ULT's window state; detach, on the
 * joiner's worker, frees every state and file at the same time. Until 2026-12-05 nothing
 * ordered the two: TSan reported the race in about 1 run of 8 with 2 workers (release: a
 * possible use-after-free of the state or the file). Detach now waits for every worker
 * that is inside the hook, and a worker that enters it after the detach began leaves at
 * once. Many short runs, each with ULTs on both workers, make the window wide enough.
 * Both forms of the handshake run: with membarrier (the hooks' compiler barrier and
 * detach's barrier on every thread) and, in a child where membarrier is refused as a
 * seccomp policy would, with the hooks' own full barrier. */
#define _GNU_SOURCE
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ito/ito.h"
#define ITO_TEST_SECCOMP
#include "ito_test.h"

#define RUNS 400
#define ULTS 4

static void *spin(void *a)
{
    for (int i = 0; i < 3; i++) CHECK_OK(ito_yield());
    return a;
}

static void runs(void)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
    for (int r = 0; r < RUNS; r++) {
        CHECK_OK(ito_regwin_attach());
        ito_thread_t t[ULTS];
        for (int k = 0; k < ULTS; k++) {
            ito_attr_t at;
            CHECK_OK(ito_attr_init(&at));
            at.worker = k % 2;
            CHECK_OK(ito_create(&t[k], spin, NULL, &at));
        }
        for (int k = 0; k < ULTS; k++) CHECK_OK(ito_join(t[k], NULL));
        CHECK_OK(ito_regwin_detach()); /* at once: worker 1 may still be in its last switch */
        CHECK_EQ(ito_regwin_attached(), 0);
    }
    CHECK_OK(ito_finalize());
}

int main(void)
{
    ito_regwin_config_t cfg;
    CHECK_OK(ito_regwin_config_init(&cfg));
    cfg.scheme = ITO_REGWIN_SP;
    cfg.working_set = 1;
    CHECK_OK(ito_regwin_configure(&cfg));
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        ito_test_deny_syscall(__NR_membarrier);
        CHECK_EQ(syscall(__NR_membarrier, 0 /* MEMBARRIER_CMD_QUERY */, 0, 0), -1);
        runs();
        _exit(0);
    }
    int st;
    CHECK_EQ(waitpid(pid, &st, 0), pid);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    runs();
    cfg.scheme = ITO_REGWIN_OFF;
    CHECK_OK(ito_regwin_configure(&cfg));
    TEST_DONE();
}
