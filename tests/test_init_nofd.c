/* test_init_nofd: ito_init in a process out of file descriptors fails with ITO_ENOMEM
 * ("memory, threads or file descriptors ran out", thread.h), not ITO_EIO (kept for a
 * kernel that refuses for another reason than resources) nor ITO_ENOSYS ("the kernel
 * refuses io_uring"): both for a worker's epoll instance and eventfd (idlewait.c) and,
 * with ITO_WSC_BACKEND=uring, for the probe's io_uring_setup (config.c check_uring).
 * test_init_refused_eio covers the EPERM side; nothing tested the EMFILE side. The
 * runtime starts again once descriptors are back. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "ito/ito.h"
#include "ito_test.h"

static int init_without_fds(const ito_config_t *cfg)
{
    struct rlimit old, none = {0, 0};
    CHECK_OK(getrlimit(RLIMIT_NOFILE, &old));
    none.rlim_max = old.rlim_max;
    CHECK_OK(setrlimit(RLIMIT_NOFILE, &none));
    int rc = ito_init(cfg);
    CHECK_OK(setrlimit(RLIMIT_NOFILE, &old));
    if (rc == ITO_OK) ito_finalize();
    CHECK_EQ(ito_initialized(), 0);
    return rc;
}

int main(void)
{
    ito_config_t cfg = {0};
    cfg.workers = 2;
    CHECK_OK(unsetenv("ITO_WSC_BACKEND"));
    int rc = init_without_fds(&cfg);
    if (rc != ITO_ENOMEM) fprintf(stderr, "no descriptors: ito_init returned %d, expected ITO_ENOMEM\n", rc);
    CHECK_EQ(rc, ITO_ENOMEM);
    CHECK_OK(ito_init(&cfg));
    CHECK_OK(ito_finalize());

    CHECK_OK(setenv("ITO_WSC_BACKEND", "uring", 1));
    rc = ito_init(&cfg);
    if (rc == ITO_ENOSYS) {
        printf("io_uring refused here: the uring half has nothing to check\n");
    } else {
        CHECK_EQ(rc, ITO_OK);
        if (rc == ITO_OK) CHECK_OK(ito_finalize());
        rc = init_without_fds(&cfg);
        if (rc != ITO_ENOMEM)
            fprintf(stderr, "ITO_WSC_BACKEND=uring, no descriptors: ito_init returned %d, expected ITO_ENOMEM\n", rc);
        CHECK_EQ(rc, ITO_ENOMEM);
        CHECK_OK(ito_init(&cfg));
        CHECK_OK(ito_finalize());
    }
    CHECK_OK(unsetenv("ITO_WSC_BACKEND"));
    TEST_DONE();
}
