/* test_io_wait_all_self_cancel: io_uring may end a request with -ECANCELED that nobody
 * asked to cancel (it gave up before running it: test_io_uring_self_cancel.c). A blocking
 * wrapper runs such a request again; ito_sys_wait_all gave the batch's request that
 * -ECANCELED as its result (found by an outside tester, 2026-12-05: a file copy through
 * batches of preads failed with ECANCELED, no ito_cancel_io called, under
 * ITO_FAULT_URING_CANCEL). ITO_FAULT_URING_CANCEL=2 makes the batch's second request a NOP
 * whose result the kernel sets to -ECANCELED; every request must still complete, its
 * continuation must get its count, and the bytes must be in the file exactly once. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

#define N 4
static char path[] = "/tmp/ito_wait_all_self_cancel_XXXXXX";
static int fd;
static long res[N];
static int rc_batch;
static _Atomic uint64_t cont_value = 12345;
static ito_frame_t *frame;

static void cont(ito_frame_t *f, int e, uint64_t v)
{
    (void)f, (void)e;
    atomic_store(&cont_value, v);
}

static void *writer(void *arg)
{
    (void)arg;
    static const char *data[N] = {"aaaaaaaa", "bbbbbbbb", "cccccccc", "dddddddd"};
    ito_sysreq_t rq[N];
    memset(rq, 0, sizeof rq);
    for (int i = 0; i < N; i++) {
        rq[i].op = ITO_SYS_PWRITE;
        rq[i].fd = fd;
        rq[i].buf = (void *)data[i];
        rq[i].len = 8;
        rq[i].offset = 8 * i;
        rq[i].result = &res[i];
    }
    rq[1].frame = frame; /* the request io_uring gives up: its continuation too */
    rq[1].entry = 0;
    rc_batch = ito_sys_wait_all(rq, N);
    return NULL;
}

int main(void)
{
    fd = mkstemp(path);
    CHECK(fd >= 0);
    setenv("ITO_WSC_BACKEND", "uring", 1);
    setenv("ITO_FAULT_URING_CANCEL", "2", 1);
    int rc = ito_init(&(ito_config_t){.workers = 1});
    if (rc == ITO_ENOSYS) {
        printf("io_uring refused: skipped\n");
        unlink(path);
        TEST_DONE();
    }
    CHECK_OK(rc);
    CHECK_OK(ito_frame_create(&frame, 1, 0));
    CHECK_OK(ito_entry_set(frame, 0, cont, 1, ITO_MODE_USER));
    ito_thread_t t;
    CHECK_OK(ito_create(&t, writer, NULL, NULL));
    CHECK_OK(ito_join(t, NULL));
    for (int i = 0; i < 100 && atomic_load(&cont_value) == 12345; i++) ito_sleep_ns(1000000);
    CHECK_OK(ito_frame_destroy(frame));
    CHECK_OK(ito_finalize());
    unsetenv("ITO_FAULT_URING_CANCEL");
    unsetenv("ITO_WSC_BACKEND");
    if (res[1] == -EINVAL) { /* a kernel before 6.10: no injected NOP result */
        printf("the kernel cannot inject a NOP's result: skipped\n");
        unlink(path);
        TEST_DONE();
    }
    CHECK_OK(rc_batch);
    for (int i = 0; i < N; i++) CHECK_EQ(res[i], 8); /* before: res[1] == -ECANCELED */
    CHECK_EQ(atomic_load(&cont_value), 8);
    char b[64] = {0};
    CHECK_EQ(pread(fd, b, sizeof b, 0), 8 * N);
    CHECK(memcmp(b, "aaaaaaaabbbbbbbbccccccccdddddddd", 8 * N) == 0);
    close(fd);
    unlink(path);
    TEST_DONE();
}
