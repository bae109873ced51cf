/* test_io_nofile_after_init: the descriptors of a worker's I/O (its io_uring ring and the
 * ring's eventfd, or the sync backend's epoll) are made at ito_init, never by an I/O call.
 * Found by an outside tester (2026-12-07): an HTTP server that accepted connections up to
 * RLIMIT_NOFILE then saw ito_recv fail with EMFILE, which recv(2) never says, on whichever
 * connection a worker that had done no I/O yet ran (ULTs move between workers, so any).
 *  - after ito_init, with the process out of descriptors, each worker's first I/O (a
 *    receive that waits for a foreign thread's write, a send, a sleep) works, on both
 *    backends and both workers;
 *  - ito_init with descriptors for the workers' idle sleep but not for their I/O fails with
 *    ITO_ENOMEM, one line on stderr naming RLIMIT_NOFILE, and keeps no descriptor; with
 *    descriptors back it starts. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

#define WORKERS 2
#define LIMIT 64

static int sv[WORKERS][2];
static _Atomic int parked[WORKERS];

static void *writer(void *arg) /* a foreign thread: writes once the receiver waits */
{
    int i = (int)(intptr_t)arg;
    while (!atomic_load(&parked[i])) usleep(1000);
    usleep(20000);
    CHECK_EQ(write(sv[i][0], "late", 4), 4);
    return NULL;
}

static void *first_io(void *arg) /* the first I/O of worker `arg` */
{
    int i = (int)(intptr_t)arg;
    char b[8];
    pthread_t t;
    CHECK_EQ(pthread_create(&t, NULL, writer, arg), 0);
    atomic_store(&parked[i], 1);
    errno = 0;
    ssize_t n = ito_recv(sv[i][1], b, sizeof b, 0);
    if (n != 4) fprintf(stderr, "worker %d's first ito_recv: %zd, errno %d (%s)\n", i, n, errno, strerror(errno));
    CHECK_EQ(n, 4);
    CHECK_EQ(ito_send(sv[i][1], "back", 4, 0), 4);
    CHECK_EQ(read(sv[i][0], b, sizeof b), 4);
    CHECK_OK(ito_sleep_ns(1000000));
    CHECK_EQ(pthread_join(t, NULL), 0);
    return NULL;
}

static void out_of_fds_after_init(const char *backend)
{
    (void)backend;
    for (int i = 0; i < WORKERS; i++) {
        CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv[i]), 0);
        atomic_store(&parked[i], 0);
    }
    ito_test_each_worker_at_fd_limit(WORKERS, LIMIT, first_io);
    for (int i = 0; i < WORKERS; i++) {
        close(sv[i][0]);
        close(sv[i][1]);
    }
}

/* In a child (its stderr is read): descriptors for the idle sleep only. */
static int init_short_of_fds(void)
{
    int before = ito_test_count_dir("/proc/self/fd");
    struct rlimit old;
    int fill[LIMIT], nf = ito_test_fds_exhaust(fill, LIMIT, 2 * WORKERS, &old);
    int rc = ito_init(&(ito_config_t){.workers = WORKERS});
    if (rc == ITO_OK) ito_finalize();
    ito_test_fds_restore(fill, nf, &old);
    if (rc != ITO_ENOMEM) fprintf(stderr, "ito_init out of descriptors for I/O: %d, expected ITO_ENOMEM\n", rc);
    CHECK_EQ(rc, ITO_ENOMEM);
    CHECK_EQ(ito_test_count_dir("/proc/self/fd"), before);
    CHECK_OK(ito_init(&(ito_config_t){.workers = WORKERS}));
    CHECK_OK(ito_finalize());
    return ito_test_failures;
}

int main(void)
{
    ito_test_each_backend(WORKERS, out_of_fds_after_init);
    for (int b = 0; b < ITO_TEST_NBACKENDS; b++) {
        setenv("ITO_WSC_BACKEND", ito_test_backends[b], 1);
        if (b == 0 && ito_init(NULL) != ITO_OK) continue; /* io_uring refused here */
        if (b == 0) CHECK_OK(ito_finalize());
        char err[4096];
        int st = ito_test_child_stderr(init_short_of_fds, err, sizeof err);
        if (st != 0 || !strstr(err, "RLIMIT_NOFILE is 64")) fprintf(stderr, "%s: child status %#x, stderr:\n%s", ito_test_backends[b], st, err);
        CHECK_EQ(st, 0);
        CHECK(strstr(err, "RLIMIT_NOFILE is 64") != NULL);
    }
    unsetenv("ITO_WSC_BACKEND");
    TEST_DONE();
}
