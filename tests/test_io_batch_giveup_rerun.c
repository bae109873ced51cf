/* test_io_batch_giveup_rerun: a request of an ito_sys_wait_all batch that io_uring gives
 * up before running it (-ECANCELED unasked: ITO_FAULT_URING_CANCEL plays it) is run again
 * at once, while the batch's other requests still wait. Until 2026-12-08 the batch posted
 * it again only once every other request had ended: a pwrite to a regular file batched
 * with a read of an empty pipe waited for the read, and when ito_cancel_io (or the I/O
 * deadline, or finalize) ended that read, the pwrite ended -ECANCELED unrun (found by an
 * outside tester, h78b). Here a second ULT waits (bounded) for the pwrite's bytes to reach
 * the file, then cancels the batch: the pwrite must have its 4096. For each of the first
 * few requests queued after ito_init in turn being the one given up; io_uring only. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static int fd, pp[2];
static _Atomic int parked;
static long res[2];

static void *batcher(void *arg)
{
    (void)arg;
    static char wb[4096], rb[16];
    memset(wb, 'w', sizeof wb);
    ito_sysreq_t q[2] = {
        {.op = ITO_SYS_PWRITE, .fd = fd, .buf = wb, .len = sizeof wb, .offset = 0, .result = &res[0]},
        {.op = ITO_SYS_READ, .fd = pp[0], .buf = rb, .len = sizeof rb, .result = &res[1]},
    };
    atomic_store(&parked, 1);
    CHECK_OK(ito_sys_wait_all(q, 2));
    return NULL;
}

/* Waits (at most about 5 s) for the pwrite's bytes, then ends the batch's read. */
static void *canceller(void *arg)
{
    ito_thread_t b = *(ito_thread_t *)arg;
    while (!atomic_load(&parked)) ito_yield();
    struct stat st;
    for (int i = 0; i < 5000 && (fstat(fd, &st) != 0 || st.st_size < 4096); i++) ito_sleep_ns(1000000);
    CHECK_OK(ito_cancel_io(b));
    return NULL;
}

int main(void)
{
    char path[] = "/tmp/ito_batch_giveup_XXXXXX";
    for (int k = 1; k <= 4; k++) {
        char v[8];
        snprintf(v, sizeof v, "%d", k);
        setenv("ITO_FAULT_URING_CANCEL", v, 1);
        setenv("ITO_WSC_BACKEND", "uring", 1);
        int rc = ito_init(&(ito_config_t){.workers = 1});
        if (rc == ITO_ENOSYS) { /* no io_uring here: nothing to check */
            printf("skip: no io_uring\n");
            break;
        }
        CHECK_OK(rc);
        fd = mkstemp(path);
        CHECK(fd >= 0);
        CHECK_EQ(unlink(path), 0);
        memcpy(path + strlen(path) - 6, "XXXXXX", 6);
        CHECK_EQ(pipe(pp), 0);
        atomic_store(&parked, 0);
        res[0] = res[1] = 777;
        ito_thread_t b, c;
        CHECK_OK(ito_create(&b, batcher, NULL, NULL));
        CHECK_OK(ito_create(&c, canceller, &b, NULL));
        CHECK_OK(ito_join(b, NULL));
        CHECK_OK(ito_join(c, NULL));
        if (res[0] != 4096) fprintf(stderr, "k=%d: pwrite %ld, read %ld\n", k, res[0], res[1]);
        CHECK_EQ(res[0], 4096);
        CHECK_EQ(res[1], -ECANCELED);
        char b2[4096];
        CHECK_EQ(pread(fd, b2, sizeof b2, 0), 4096);
        CHECK(b2[0] == 'w' && b2[4095] == 'w');
        CHECK_EQ(close(fd), 0);
        CHECK_EQ(close(pp[0]), 0);
        CHECK_EQ(close(pp[1]), 0);
        CHECK_OK(ito_finalize());
    }
    unsetenv("ITO_FAULT_URING_CANCEL");
    unsetenv("ITO_WSC_BACKEND");
    TEST_DONE();
}
