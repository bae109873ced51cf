/* test_io_setup_emfile: a worker's first I/O when the process has no descriptor left for
 * the worker's own io_uring or epoll.
 *
 * Found by a resource-exhaustion tester (2026-12-03): with ITO_WSC_BACKEND=uring the
 * wrapper failed with ENOSYS (the EMFILE was lost) and leaked the worker's 256 KiB table
 * at every call (LSan: itoi_wsc_area_setup); with the backend unset, the moment without
 * descriptors made the worker fall back to the sync backend for the rest of the runtime.
 * Now the call fails with EMFILE (syscall.h) on every backend, keeps nothing, and the
 * worker's next call, once descriptors are back, sets up the backend it would have had.
 * Found by a reviewer of that fix: ito_close needed the worker's common area too, so a
 * process out of descriptors could not close one (-1/EMFILE, the descriptor left open);
 * and ITO_WSC_BACKEND=uring with one descriptor free made ito_init say ITO_ENOSYS
 * ("the kernel refuses io_uring") where thread.h says ITO_ENOMEM.
 * Since 2026-12-07 the worker's descriptors are made at ito_init (outside tester: EMFILE
 * from the first I/O of a worker that had done none, test_io_nofile_after_init): the
 * first I/O out of descriptors now works, on the backend the worker would have had. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static int sv[2];

static void *peer(void *unused)
{
    (void)unused;
    CHECK_OK(ito_sleep_ns(20 * 1000000ull));
    CHECK_EQ(write(sv[0], "hello", 5), 5);
    return NULL;
}

static long got_n, got_errno, got_backend;
static int to_close;

static void *closer(void *unused)
{
    (void)unused;
    errno = 0;
    got_n = ito_close(to_close);
    got_errno = errno;
    return NULL;
}

static void *reader(void *unused)
{
    (void)unused;
    char b[8];
    errno = 0;
    got_n = ito_recv(sv[1], b, 5, 0);
    got_errno = got_n < 0 ? errno : 0;
    got_backend = ito_wsc_backend();
    return NULL;
}

/* One reader and its peer; the reader's worker is fresh the first time. */
static void round_once(void)
{
    ito_thread_t p, r;
    CHECK_OK(ito_create(&r, reader, NULL, NULL));
    CHECK_OK(ito_create(&p, peer, NULL, NULL));
    CHECK_OK(ito_join(r, NULL));
    CHECK_OK(ito_join(p, NULL));
}

static void check(const char *backend)
{
    if (backend) setenv("ITO_WSC_BACKEND", backend, 1);
    else unsetenv("ITO_WSC_BACKEND");
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    ito_config_t cfg = {.workers = 1};
    CHECK_OK(ito_init(&cfg));
    struct rlimit old;
    int fill[64], nf = ito_test_fds_exhaust(fill, 64, 0, &old);
    round_once(); /* the worker's first I/O, out of descriptors */
    CHECK_EQ(got_n, 5);
    if (backend && !strcmp(backend, "sync")) CHECK_EQ(got_backend, ITO_WSC_SYNC);
    else CHECK_EQ(got_backend, ITO_WSC_URING);
    /* a worker that could not set up its I/O can still close (and so recover) */
    to_close = fill[--nf];
    ito_thread_t c;
    CHECK_OK(ito_create(&c, closer, NULL, NULL));
    CHECK_OK(ito_join(c, NULL));
    CHECK_EQ(got_n, 0);
    CHECK(fcntl(to_close, F_GETFD) < 0);
    ito_test_fds_restore(fill, nf, &old);
    round_once();
    CHECK_EQ(got_n, 5);
    if (backend && !strcmp(backend, "sync")) CHECK_EQ(got_backend, ITO_WSC_SYNC);
    else CHECK_EQ(got_backend, ITO_WSC_URING); /* not a lasting fallback */
    CHECK_OK(ito_finalize());
    close(sv[0]);
    close(sv[1]);
}

int main(void)
{
    /* io_uring refused by this kernel: the forced and default cases do not apply */
    setenv("ITO_WSC_BACKEND", "uring", 1);
    int uring = ito_init(NULL) == ITO_OK;
    if (uring) CHECK_OK(ito_finalize());
    check("sync");
    if (uring) {
        check("uring");
        check(NULL);
        /* forced io_uring, one descriptor free at ito_init: out of descriptors, not refused */
        struct rlimit old;
        int fill[64], nf = ito_test_fds_exhaust(fill, 64, 1, &old);
        setenv("ITO_WSC_BACKEND", "uring", 1);
        CHECK_EQ(ito_init(NULL), ITO_ENOMEM);
        ito_test_fds_restore(fill, nf, &old);
    } else {
        printf("io_uring refused here: only the sync backend checked\n");
    }
    unsetenv("ITO_WSC_BACKEND");
    TEST_DONE();
}
