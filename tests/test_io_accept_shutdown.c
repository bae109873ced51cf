/* test_io_accept_shutdown: ito_accept waiting on a listening socket that another ULT shuts
 * down (shutdown(2): SHUT_RDWR, SHUT_RD), on both backends, unix and TCP listeners, also
 * a listener shut down before the call. accept(2) blocked in a thread returns -1/EINVAL
 * then, and so does io_uring's accept. The sync backend's non-blocking accept4 of a unix
 * listener whose receive side is shut down says EAGAIN while epoll reports it readable
 * (EPOLLIN, EPOLLHUP) for ever: the worker re-armed, got the event, tried again, for ever
 * (a CPU burnt) and the ULT never returned (only its deadline or ito_cancel_io ended it).
 * Found by an outside tester, h65d, 2026-12-06. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

#define MS 1000000ull

static int lfd;
static const char *backend;
static long res;
static int err;

static void *acceptor(void *a)
{
    (void)a;
    res = ito_accept(lfd, NULL, NULL);
    err = errno;
    return NULL;
}

static int listener(int unix_, int n)
{
    int l = socket(unix_ ? AF_UNIX : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    CHECK(l >= 0);
    if (unix_) {
        struct sockaddr_un su = {.sun_family = AF_UNIX};
        int len = snprintf(su.sun_path + 1, sizeof su.sun_path - 1, "ito-acc-shut-%d-%d", (int)getpid(), n);
        CHECK_EQ(bind(l, (struct sockaddr *)&su, (socklen_t)(sizeof(sa_family_t) + 1 + (size_t)len)), 0);
    } else {
        struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        CHECK_EQ(bind(l, (struct sockaddr *)&sa, sizeof sa), 0);
    }
    CHECK_EQ(listen(l, 4), 0);
    return l;
}

static void *body(void *a)
{
    backend = getenv("ITO_WSC_BACKEND");
    (void)a;
    int n = 0;
    for (int unix_ = 0; unix_ < 2; unix_++)
        for (int how = 0; how < 2; how++)
            for (int before = 0; before < 2; before++) {
                lfd = listener(unix_, n++);
                res = 0;
                err = 0;
                if (before) CHECK_EQ(shutdown(lfd, how ? SHUT_RD : SHUT_RDWR), 0);
                ito_thread_t t;
                CHECK_OK(ito_create(&t, acceptor, NULL, NULL));
                if (!before) {
                    CHECK_OK(ito_sleep_ns(50 * MS)); /* it waits in ito_accept */
                    CHECK_EQ(shutdown(lfd, how ? SHUT_RD : SHUT_RDWR), 0);
                }
                if (ito_join_until(t, NULL, ito_deadline_in(5000 * MS)) != ITO_OK) {
                    fprintf(stderr, "%s: unix %d how %d before %d: ito_accept still waits 5 s after the shutdown\n", backend, unix_,
                            how, before);
                    CHECK_OK(ito_cancel_io(t));
                    CHECK_OK(ito_join(t, NULL));
                    CHECK(0);
                }
                CHECK_EQ(res, -1);
                CHECK_EQ(err, EINVAL);
                close(lfd);
            }
    return NULL;
}

int main(void)
{
    ito_test_each_backend_ult(0, body);
    TEST_DONE();
}
