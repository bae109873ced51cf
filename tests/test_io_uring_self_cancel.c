/* test_io_uring_self_cancel: io_uring may end a request with -ECANCELED that nobody asked
 * to cancel: it gives up a request it could not start (an io-wq worker thread whose
 * creation failed while a signal was pending, as preemption ticks often are; found by an
 * outside tester, 2026-12-04: ito_pwrite to a regular file failed with ECANCELED under
 * signal preemption, 1-6 runs in 150). Such a request never ran, so a blocking wrapper
 * runs it again. ITO_FAULT_URING_CANCEL=1 makes the first request after ito_init a NOP
 * whose result the kernel sets to -ECANCELED (fault.c); the pwrite must still return its
 * full count, and the bytes must be in the file exactly once. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static char path[] = "/tmp/ito_self_cancel_XXXXXX";
static int fd;
static long res;
static int err;

static void *writer(void *arg)
{
    (void)arg;
    res = ito_pwrite(fd, "abcdefgh", 8, 0); /* the first request queued to io_uring */
    err = errno;
    return NULL;
}

int main(void)
{
    fd = mkstemp(path);
    CHECK(fd >= 0);
    setenv("ITO_WSC_BACKEND", "uring", 1);
    setenv("ITO_FAULT_URING_CANCEL", "1", 1);
    int rc = ito_init(&(ito_config_t){.workers = 1});
    if (rc == ITO_ENOSYS) { /* no io_uring here: nothing to test */
        printf("io_uring refused: skipped\n");
        unlink(path);
        TEST_DONE();
    }
    CHECK_OK(rc);
    ito_thread_t t;
    CHECK_OK(ito_create(&t, writer, NULL, NULL));
    CHECK_OK(ito_join(t, NULL));
    CHECK_OK(ito_finalize());
    unsetenv("ITO_FAULT_URING_CANCEL");
    unsetenv("ITO_WSC_BACKEND");
    if (res == -1 && err == EINVAL) { /* a kernel before 6.10: no injected NOP result */
        printf("the kernel cannot inject a NOP's result: skipped\n");
        unlink(path);
        TEST_DONE();
    }
    CHECK_EQ(res, 8); /* before: -1 with ECANCELED */
    char b[16] = {0};
    CHECK_EQ(pread(fd, b, sizeof b, 0), 8);
    CHECK(memcmp(b, "abcdefgh", 8) == 0);
    close(fd);
    unlink(path);
    TEST_DONE();
}
