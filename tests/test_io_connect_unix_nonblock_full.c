/* test_io_connect_unix_nonblock_full: ito_connect of a unix stream socket that the program
 * made O_NONBLOCK itself, to a listener whose backlog is full, waits for room as
 * connect(2) on a blocking socket does (the wrappers wait whatever the descriptor's mode,
 * syscall.h), on both backends. Found by an outside tester (h77a, 2026-12-07): the sync
 * backend waited, io_uring returned -1/EAGAIN at once (its worker thread runs connect with
 * the socket's own flags).
 *  - with nobody accepting, the wait ends at the ULT's deadline: ETIMEDOUT, not EAGAIN;
 *  - with a foreign thread that accepts once the ULT is about to connect, it connects (0).
 * The listener's backlog is 0: one connection queued fills it. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

#define MS 1000000ull

static struct sockaddr_un addr = {.sun_family = AF_UNIX};
static int lis;
static _Atomic int connecting;

static int nonblock_socket(void)
{
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    CHECK(s >= 0);
    return s;
}

static void *accepter(void *arg) /* a foreign thread: takes the queued connection once the ULT connects */
{
    (void)arg;
    while (!atomic_load(&connecting)) usleep(1000);
    usleep(20000);
    int c = accept4(lis, NULL, NULL, SOCK_CLOEXEC);
    CHECK(c >= 0);
    return (void *)(intptr_t)c;
}

static void *body(void *arg)
{
    (void)arg;
    snprintf(addr.sun_path, sizeof addr.sun_path, "/tmp/ito_test_cunf_%d.sock", (int)getpid());
    unlink(addr.sun_path);
    lis = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    CHECK_EQ(bind(lis, (struct sockaddr *)&addr, sizeof addr), 0);
    CHECK_EQ(listen(lis, 0), 0);
    int first = nonblock_socket();
    CHECK_EQ(ito_connect(first, (struct sockaddr *)&addr, sizeof addr), 0); /* queued: the backlog is full */

    int s = nonblock_socket();
    CHECK_OK(ito_io_deadline(ito_now_ns() + 100 * MS));
    errno = 0;
    int r = ito_connect(s, (struct sockaddr *)&addr, sizeof addr);
    int e = errno;
    CHECK_OK(ito_io_deadline(ITO_FOREVER));
    if (r != -1 || e != ETIMEDOUT) fprintf(stderr, "backlog full, nobody accepts: %d, errno %d (%s)\n", r, e, strerror(e));
    CHECK_EQ(r, -1);
    CHECK_EQ(e, ETIMEDOUT);
    CHECK_EQ(ito_close(s), 0);

    atomic_store(&connecting, 0);
    pthread_t t;
    CHECK_EQ(pthread_create(&t, NULL, accepter, NULL), 0);
    s = nonblock_socket();
    CHECK_OK(ito_io_deadline(ito_now_ns() + 30000 * MS)); /* (bounds a regression) */
    atomic_store(&connecting, 1);
    errno = 0;
    r = ito_connect(s, (struct sockaddr *)&addr, sizeof addr);
    e = errno;
    CHECK_OK(ito_io_deadline(ITO_FOREVER));
    if (r != 0) fprintf(stderr, "backlog full, then accepted: %d, errno %d (%s)\n", r, e, strerror(e));
    CHECK_EQ(r, 0);
    void *c;
    CHECK_EQ(pthread_join(t, &c), 0);
    close((int)(intptr_t)c);
    CHECK_EQ(ito_close(s), 0);
    CHECK_EQ(ito_close(first), 0);
    CHECK_EQ(ito_close(lis), 0);
    unlink(addr.sun_path);
    return NULL;
}

int main(void)
{
    ito_test_each_backend_ult(2, body);
    TEST_DONE();
}
