/* test_io_connect_closed_loop: ito_connect on a unix socket whose listener's backlog is
 * full waits in a loop (the kernel says EAGAIN and no event tells when there is room:
 * pauses of 1..64 ms, then POLLOUT, then connect again; wrappers.c). An ito_close of the
 * socket by another ULT meanwhile must end the call with EBADF (syscall.h: a wait that
 * ito_close ends gets EBADF), and must not connect the socket that took the number.
 * Until 2026-12-05 the pauses waited on no descriptor, so the close did not end them, and
 * the loop went on with the new socket: ito_connect returned 0 and the new socket (made by
 * the closer, never passed to ito_connect) was connected to the listener. Found by an
 * outside tester, h62b, 2026-12-05; without the fix the sync backend failed 3 of 3 runs
 * (io_uring passed or failed depending on where the close met the loop). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static struct sockaddr_un ua;
static int cfd;
static long cres;
static int cerr;

static void *connector(void *arg)
{
    (void)arg;
    cres = ito_connect(cfd, (struct sockaddr *)&ua, sizeof ua);
    cerr = errno;
    return NULL;
}

int main(void)
{
    for (int b = 0; b < ITO_TEST_NBACKENDS; b++) {
        setenv("ITO_WSC_BACKEND", ito_test_backends[b], 1);
        ua.sun_family = AF_UNIX;
        snprintf(ua.sun_path, sizeof ua.sun_path, "/tmp/ito_ccl_%d", (int)getpid());
        unlink(ua.sun_path);
        int lfd = socket(AF_UNIX, SOCK_STREAM, 0);
        CHECK(lfd >= 0);
        CHECK(bind(lfd, (struct sockaddr *)&ua, sizeof ua) == 0);
        CHECK(listen(lfd, 0) == 0);
        int fill[8], nf = 0; /* fill the backlog: the next connect is EAGAIN */
        for (; nf < 8; nf++) {
            fill[nf] = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
            CHECK(fill[nf] >= 0);
            if (connect(fill[nf], (struct sockaddr *)&ua, sizeof ua) != 0) {
                close(fill[nf]);
                break;
            }
        }
        CHECK(nf >= 1 && nf < 8);
        CHECK_OK(ito_init(NULL));
        cfd = socket(AF_UNIX, SOCK_STREAM, 0);
        CHECK(cfd >= 0);
        ito_thread_t c;
        CHECK_OK(ito_create(&c, connector, NULL, NULL));
        ito_sleep_ns(30 * 1000 * 1000); /* it loops: pauses, POLLOUT, EAGAIN */
        CHECK_EQ(ito_close(cfd), 0);
        int nfd = socket(AF_UNIX, SOCK_STREAM, 0);
        CHECK_EQ(nfd, cfd); /* the number was taken again */
        ito_sleep_ns(30 * 1000 * 1000);
        int a = accept(lfd, NULL, NULL); /* room in the backlog now */
        CHECK(a >= 0);
        CHECK_OK(ito_join(c, NULL));
        struct sockaddr_un peer;
        socklen_t pl = sizeof peer;
        int connected = getpeername(nfd, (struct sockaddr *)&peer, &pl) == 0;
        fprintf(stderr, "%s: ito_connect %ld errno %d; the new socket connected: %d\n", ito_test_backends[b], cres,
                cres < 0 ? cerr : 0, connected);
        CHECK(!connected);
        CHECK_EQ(cres, -1);
        CHECK_EQ(cerr, EBADF);
        CHECK_OK(ito_finalize());
        close(nfd);
        close(a);
        for (int i = 0; i < nf; i++) close(fill[i]);
        close(lfd);
        unlink(ua.sun_path);
    }
    unsetenv("ITO_WSC_BACKEND");
    TEST_DONE();
}
