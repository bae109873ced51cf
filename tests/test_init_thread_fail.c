/* test_init_thread_fail: when ito_init cannot start a worker thread (pthread_create fails:
 * here its stack does not fit under an address-space limit), it returns ITO_ENOMEM and
 * takes back everything it started: the workers already running are stopped and joined
 * (the process has one thread again), their descriptors closed, and a later ito_init
 * starts normally (thread.h: ITO_ENOMEM "memory, threads or file descriptors ran out").
 * The fault-injection sweeps (ITO_FAULT_MMAP/MALLOC) fail the runtime's own allocations,
 * never pthread_create, so this path was untested: without the teardown the started
 * workers kept running, and the descriptors leaked. Release tree only (the sanitizers
 * reserve terabytes of shadow: no RLIMIT_AS there). */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "ito/ito.h"
#include "ito_test.h"

int main(void)
{
    ITO_TEST_NEEDS_RLIMIT_AS();
    int fds0 = ito_test_count_dir("/proc/self/fd");
    ito_config_t cfg = {0};
    cfg.workers = 16; /* 16 thread stacks of 8 MiB do not fit in what is left */
    struct rlimit old, lim;
    CHECK_OK(getrlimit(RLIMIT_AS, &old));
    long want = ito_test_vm_bytes() + (40L << 20);
    if (want < (68L << 20)) want = 68L << 20; /* the arena takes a quarter, at least 16 MiB */
    lim.rlim_cur = (rlim_t)want;
    lim.rlim_max = old.rlim_max;
    CHECK_OK(setrlimit(RLIMIT_AS, &lim));
    int rc = ito_init(&cfg);
    int threads = ito_test_count_dir("/proc/self/task");
    CHECK_OK(setrlimit(RLIMIT_AS, &old));
    if (rc == ITO_OK) {
        printf("all 16 workers fitted under the limit: nothing to check\n");
        CHECK_OK(ito_finalize());
        TEST_DONE();
    }
    CHECK_EQ(rc, ITO_ENOMEM);
    CHECK_EQ(ito_initialized(), 0);
    CHECK_EQ(threads, 1);                          /* the workers started were stopped */
    CHECK_EQ(ito_test_count_dir("/proc/self/fd"), fds0);    /* and their epoll fds and eventfds closed */
    cfg.workers = 2;
    CHECK_OK(ito_init(&cfg));
    CHECK_EQ(ito_worker_count(), 2);
    CHECK_OK(ito_finalize());
    CHECK_EQ(ito_test_count_dir("/proc/self/task"), 1);
    TEST_DONE();
}
