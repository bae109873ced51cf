/* test_init_refused_eio: ito_init when the kernel refuses a worker's epoll instance or
 * eventfd for another reason than resources (a seccomp or LSM policy: EPERM) returns
 * ITO_EIO, as thread.h says (it was returned but not documented; found by a resource
 * tester, 2026-12-05), leaves the runtime off and keeps no descriptor. (Out of
 * descriptors or memory it is ITO_ENOMEM: test_io_setup_emfile.) Runs in fork children:
 * a filter cannot be removed. */
#define _GNU_SOURCE
#define ITO_TEST_SECCOMP
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static void child(unsigned nr)
{
    int fds = ito_test_count_dir("/proc/self/fd");
    ito_test_deny_syscall(nr);
    CHECK_EQ(ito_init(&(ito_config_t){.workers = 2}), ITO_EIO);
    CHECK_EQ(ito_initialized(), 0);
    CHECK_EQ(ito_test_count_dir("/proc/self/fd"), fds);
    CHECK_EQ(ito_init(&(ito_config_t){.workers = 2}), ITO_EIO); /* the same again: nothing kept */
    _exit(0);
}

int main(void)
{
    const unsigned nrs[] = {__NR_eventfd2, __NR_epoll_create1, __NR_epoll_ctl};
    for (unsigned i = 0; i < sizeof nrs / sizeof nrs[0]; i++) {
        pid_t pid = fork();
        CHECK(pid >= 0);
        if (pid == 0) child(nrs[i]);
        int st = 0;
        CHECK_EQ(waitpid(pid, &st, 0), pid);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    TEST_DONE();
}
