/* test_io_uring_lacks_op: a kernel whose io_uring lacks an operation ito's requests use gets
 * no ring. Linux 5.1-5.5 accept io_uring_setup and io_uring_enter but have no READ, WRITE,
 * SEND, RECV, OPENAT or CLOSE operation (they came with 5.6, and so did
 * IORING_REGISTER_PROBE, the way to ask): ito made its rings there all the same, and every
 * such request failed with EINVAL, an ito_recv, an ito_read, an ito_close of a file (found
 * in review, 2026-12-07). Now each worker asks the probe at ito_init, and a kernel without
 * it or without one of the operations is a sync-backend worker, as a refused ring is;
 * with ITO_WSC_BACKEND=uring, ito_init fails with ITO_ENOSYS and says which operation.
 *
 * A seccomp filter stands for the old kernel: io_uring_register(IORING_REGISTER_PROBE)
 * fails with EINVAL, what a kernel before 5.6 says of an opcode it does not know (the
 * ring's other registrations go on). Each case runs in a fork child (a filter cannot be
 * removed). Without the fix both cases failed: the workers had the io_uring backend, and
 * forced, ito_init said ITO_OK. With it, two ULTs (one per worker) make pipe round trips on
 * the sync backend, and then the main ULT writes a file and ito_closes it (off the worker:
 * an IORING_OP_CLOSE a kernel before 5.6 would refuse). */
#define _GNU_SOURCE
#define ITO_TEST_SECCOMP
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static int pp[2][2];

static void *round_trips(void *arg) /* on worker `arg` */
{
    int i = (int)(intptr_t)arg;
    ito_test_pipe_round_trips(pp[i], 100);
    CHECK_EQ(ito_wsc_backend(), ITO_WSC_SYNC);
    return NULL;
}

static void file_close(void) /* once both ULTs ended: no other thread takes the number */
{
    char path[] = "/tmp/ito_lacks_op_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    unlink(path);
    CHECK_EQ(ito_write(fd, "abc", 3), 3);
    CHECK_EQ(ito_close(fd), 0); /* a regular file: closed off the worker */
    errno = 0;
    CHECK(fcntl(fd, F_GETFD) < 0 && errno == EBADF);
}

static int forced;

static int child(void)
{
    if (forced)
        setenv("ITO_WSC_BACKEND", "uring", 1);
    else
        unsetenv("ITO_WSC_BACKEND");
    ito_test_deny_syscall_arg(__NR_io_uring_register, 1, IORING_REGISTER_PROBE, EINVAL);
    int rc = ito_init(&(ito_config_t){.workers = 2});
    if (forced) {
        CHECK_EQ(rc, ITO_ENOSYS);
        return 0;
    }
    CHECK_OK(rc);
    ito_thread_t t[2];
    for (int i = 0; i < 2; i++) {
        CHECK_EQ(pipe(pp[i]), 0);
        ito_test_create_on(&t[i], i, round_trips, (void *)(intptr_t)i);
    }
    for (int i = 0; i < 2; i++) CHECK_OK(ito_join(t[i], NULL));
    file_close();
    CHECK_OK(ito_finalize());
    return 0;
}

int main(void)
{
    char err[4096];
    for (forced = 0; forced < 2; forced++) {
        int st = ito_test_child_stderr(child, err, sizeof err);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) fprintf(stderr, "%s", err);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    CHECK(strstr(err, "lacks IORING_REGISTER_PROBE") != NULL); /* the forced case names what is missing */
    TEST_DONE();
}
