/* test_io_close_off_worker: ito_close of a regular file does not stop its worker while
 * close(2) waits for the file system. On a network or FUSE file system close(2) sends the
 * server a FLUSH and waits for its answer; ito_close ran it on the worker, and every other
 * ULT of the worker stopped until the server answered, on both backends (found by an
 * outside tester with a FUSE file system, 2026-12-07). ito_close now runs it off the worker
 * (io_uring: a close request, which the kernel runs on its io-wq for such a file; sync
 * backend: a helper thread) while the calling ULT parks.
 *
 * No FUSE here: tests/CMakeLists.txt links this test with --wrap=close, and a libc close of
 * the test's file waits until another ULT of the same worker has run, for at most 2 s (the
 * server's answer). A worker that runs it never runs that ULT: the wait times out, and the
 * test fails. On io_uring the kernel closes the file without libc: the test also checks
 * that no libc close of the file ran on the worker's thread. Without the fix both checks
 * failed on both backends, 3 of 3 runs each (the sync backend run alone, since the uring
 * round comes first). A pipe's close is unchanged (on the worker, at once) and is checked
 * to still close.
 *
 * Then finalize with a close in flight: a detached ULT closes a file whose libc close takes
 * 200 ms off the worker (the sync backend's helper thread; on io_uring the kernel's close),
 * and main calls ito_finalize at once. The close is work that ends by itself: finalize
 * waits for it (it is never cancelled, which would leave the descriptor open), the ULT runs
 * to its end, and the descriptor is closed when finalize returns. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

int __real_close(int fd);
int __wrap_close(int fd);

static _Atomic int slow_fd = -1;  /* the file whose "server" answers late */
static _Atomic int late_fd = -1;  /* the file whose close takes 200 ms (finalize's round) */
static _Atomic int on_worker;     /* the file's libc close ran on the closer's worker thread */
static pthread_t worker_thread;   /* the closer's (it stays on worker 1: ito_test_server_round) */

int __wrap_close(int fd)
{
    if (fd >= 0 && fd == atomic_load(&slow_fd)) {
        if (pthread_equal(pthread_self(), worker_thread)) atomic_store(&on_worker, 1);
        ito_test_server_round_trip();
    }
    if (fd >= 0 && fd == atomic_load(&late_fd)) usleep(200 * 1000);
    return __real_close(fd);
}

static char path[] = "/tmp/ito_close_off_worker_XXXXXX";

static void *closer(void *arg)
{
    (void)arg;
    int fd = open(path, O_RDWR);
    CHECK(fd >= 0);
    CHECK_EQ(ito_write(fd, "x", 1), 1); /* the worker's common area is set up */
    worker_thread = pthread_self();
    atomic_store(&slow_fd, fd);
    atomic_store(&ito_test_srv_in_call, 1);
    CHECK_EQ(ito_close(fd), 0);
    atomic_store(&slow_fd, -1);
    errno = 0;
    CHECK(fcntl(fd, F_GETFD) < 0 && errno == EBADF); /* closed (no other thread opens meanwhile) */
    int p[2];
    CHECK_EQ(pipe(p), 0);
    CHECK_EQ(ito_close(p[0]), 0);
    CHECK_EQ(ito_close(p[1]), 0);
    CHECK(fcntl(p[0], F_GETFD) < 0 && fcntl(p[1], F_GETFD) < 0);
    return NULL;
}

static void round_(const char *backend)
{
    atomic_store(&on_worker, 0);
    bool stalled = ito_test_server_round(closer);
    if (stalled) fprintf(stderr, "%s: the worker blocked in close(2) of a regular file\n", backend);
    if (atomic_load(&on_worker)) fprintf(stderr, "%s: close(2) of a regular file ran on the worker\n", backend);
    CHECK(!stalled);
    CHECK(!atomic_load(&on_worker));
}

static _Atomic int closed_at_finalize; /* the detached closer's ito_close returned 0 */

static void *late_closer(void *arg)
{
    int fd = (int)(intptr_t)arg;
    CHECK_EQ(ito_write(fd, "y", 1), 1); /* the worker's common area is set up */
    atomic_store(&late_fd, fd);
    if (ito_close(fd) == 0) atomic_store(&closed_at_finalize, 1);
    return NULL;
}

static void finalize_round(const char *backend)
{
    setenv("ITO_WSC_BACKEND", backend, 1);
    CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
    int fd = open(path, O_RDWR);
    CHECK(fd >= 0);
    atomic_store(&closed_at_finalize, 0);
    ito_thread_t t;
    CHECK_OK(ito_create(&t, late_closer, (void *)(intptr_t)fd, NULL));
    CHECK_OK(ito_detach(t));
    ito_yield(); /* (let it start; finalize must wait for it either way) */
    CHECK_OK(ito_finalize());
    atomic_store(&late_fd, -1);
    if (!atomic_load(&closed_at_finalize)) fprintf(stderr, "%s: the closer did not end with 0 before finalize returned\n", backend);
    CHECK(atomic_load(&closed_at_finalize));
    errno = 0;
    CHECK(fcntl(fd, F_GETFD) < 0 && errno == EBADF);
    unsetenv("ITO_WSC_BACKEND");
}

int main(void)
{
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    CHECK_EQ(__real_close(fd), 0);
    ito_test_each_backend(2, round_);
    for (int b = 0; b < ITO_TEST_NBACKENDS; b++) finalize_round(ito_test_backends[b]);
    unlink(path);
    TEST_DONE();
}
