/* test_io_connect_again: ito_connect called again on a socket answers as connect(2) on a
 * blocking socket does, on both backends. Found by a server tester (2026-12-04):
 *  (a) connect to a connected socket: EISCONN (the sync backend said 0: it took the
 *      outcome of its non-blocking connect from SO_ERROR, which left the socket
 *      "connecting");
 *  (b) connect again after ECONNREFUSED: ECONNREFUSED again, a new attempt (sync said
 *      ECONNABORTED, the same reason);
 *  (c) connect again after the first one's deadline passed (the kernel's connect went
 *      on): it waits for that connect and returns 0 once it is made, as connect(2) does
 *      (both backends said EALREADY at once). The listener's accept queue is full, so
 *      the SYN is dropped until a thread accepts 300 ms later and the retransmission
 *      (about 1 s) gets through.
 *  (d) a unix listener whose backlog is full: the sync backend said 0 at once, not
 *      connected (it read SO_ERROR), and once fixed, waited for POLLOUT in a loop (which
 *      comes at once there: a third of a CPU); now ETIMEDOUT at the deadline with next to
 *      no CPU (getrusage), and once a thread accepts, a real connection (a byte goes
 *      through). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static int lfd, fill[3];
static atomic_int connected;
static struct sockaddr_in sa, refused;

static void *drain(void *arg)
{
    (void)arg;
    usleep(300 * 1000);
    CHECK_EQ(fcntl(lfd, F_SETFL, O_NONBLOCK), 0); /* then accept what comes, never wait */
    for (int i = 0; i < 3000 && !atomic_load(&connected); i++) { /* room for the retransmitted SYNs */
        int c = accept4(lfd, NULL, NULL, SOCK_NONBLOCK);
        if (c >= 0) close(c);
        usleep(10 * 1000);
    }
    return NULL;
}

static double cpu_ms(void)
{
    struct rusage u;
    CHECK_EQ(getrusage(RUSAGE_SELF, &u), 0);
    return (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e3 + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e3;
}

static int ul, ufill[3];

static void *unix_accept(void *arg)
{
    (void)arg;
    usleep(100 * 1000);
    int c = accept(ul, NULL, NULL); /* the first filler's: room for the waiting connect */
    CHECK(c >= 0);
    for (int i = 0; i < 3000 && !atomic_load(&connected); i++) usleep(1000);
    int d = accept(ul, NULL, NULL); /* the one under test, or a filler's: read a byte from each */
    char b = 0;
    ssize_t n = 0;
    for (int i = 0; i < 4 && d >= 0; i++) {
        if ((n = recv(d, &b, 1, MSG_DONTWAIT)) == 1) break;
        close(d);
        d = accept4(ul, NULL, NULL, SOCK_NONBLOCK);
    }
    CHECK_EQ(n, 1);
    CHECK_EQ(b, 'u');
    close(d);
    close(c);
    return NULL;
}

static void unix_full(void)
{
    struct sockaddr_un ua = {.sun_family = AF_UNIX};
    snprintf(ua.sun_path, sizeof ua.sun_path, "/tmp/ito_test_connect.%d", (int)getpid());
    unlink(ua.sun_path);
    ul = socket(AF_UNIX, SOCK_STREAM, 0);
    CHECK_EQ(bind(ul, (struct sockaddr *)&ua, sizeof ua), 0);
    CHECK_EQ(listen(ul, 0), 0);
    for (int i = 0; i < 3; i++) {
        ufill[i] = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
        (void)connect(ufill[i], (struct sockaddr *)&ua, sizeof ua);
    }
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    CHECK_OK(ito_io_deadline(ito_deadline_in(300ull * 1000 * 1000)));
    double c0 = cpu_ms();
    errno = 0;
    CHECK_EQ(ito_connect(s, (struct sockaddr *)&ua, sizeof ua), -1);
    CHECK_EQ(errno, ETIMEDOUT);
    double used = cpu_ms() - c0;
    if (used > 50) fprintf(stderr, "FAIL: %.0f ms of CPU in a 300 ms unix connect wait\n", used);
    CHECK(used <= 50);
    atomic_store(&connected, 0);
    pthread_t t;
    CHECK_EQ(pthread_create(&t, NULL, unix_accept, NULL), 0);
    CHECK_OK(ito_io_deadline(ito_deadline_in(20ull * 1000 * 1000 * 1000)));
    CHECK_EQ(ito_connect(s, (struct sockaddr *)&ua, sizeof ua), 0);
    CHECK_OK(ito_io_deadline(ITO_FOREVER));
    CHECK_EQ(ito_send(s, "u", 1, 0), 1);
    atomic_store(&connected, 1);
    CHECK_EQ(pthread_join(t, NULL), 0);
    CHECK_EQ(ito_close(s), 0);
    for (int i = 0; i < 3; i++) close(ufill[i]);
    close(ul);
    unlink(ua.sun_path);
}

static void *body(void *arg)
{
    (void)arg;
    /* (a) */
    int s = socket(AF_INET, SOCK_STREAM, 0);
    CHECK(s >= 0);
    CHECK_EQ(ito_connect(s, (struct sockaddr *)&sa, sizeof sa), 0);
    errno = 0;
    CHECK_EQ(ito_connect(s, (struct sockaddr *)&sa, sizeof sa), -1);
    CHECK_EQ(errno, EISCONN);
    CHECK_EQ(ito_close(s), 0);
    /* (b) */
    s = socket(AF_INET, SOCK_STREAM, 0);
    for (int i = 0; i < 2; i++) {
        errno = 0;
        CHECK_EQ(ito_connect(s, (struct sockaddr *)&refused, sizeof refused), -1);
        CHECK_EQ(errno, ECONNREFUSED);
    }
    CHECK_EQ(ito_close(s), 0);
    /* (c) */
    int l = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in la = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof la;
    CHECK_EQ(bind(l, (struct sockaddr *)&la, sizeof la), 0);
    CHECK_EQ(listen(l, 0), 0);
    CHECK_EQ(getsockname(l, (struct sockaddr *)&la, &len), 0);
    lfd = l;
    atomic_store(&connected, 0);
    for (int i = 0; i < 3; i++) { /* fill the accept queue: later SYNs are dropped */
        fill[i] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
        (void)connect(fill[i], (struct sockaddr *)&la, sizeof la);
    }
    usleep(50 * 1000);
    s = socket(AF_INET, SOCK_STREAM, 0);
    CHECK_OK(ito_io_deadline(ito_deadline_in(200ull * 1000 * 1000)));
    errno = 0;
    CHECK_EQ(ito_connect(s, (struct sockaddr *)&la, sizeof la), -1);
    CHECK_EQ(errno, ETIMEDOUT);
    pthread_t t;
    CHECK_EQ(pthread_create(&t, NULL, drain, NULL), 0);
    CHECK_OK(ito_io_deadline(ito_deadline_in(20ull * 1000 * 1000 * 1000))); /* a bound, not a timing */
    int r = ito_connect(s, (struct sockaddr *)&la, sizeof la);
    atomic_store(&connected, 1);
    if (r != 0) fprintf(stderr, "second connect: %d errno %d\n", r, errno);
    CHECK_EQ(r, 0);
    CHECK_OK(ito_io_deadline(ITO_FOREVER));
    errno = 0;
    CHECK_EQ(ito_connect(s, (struct sockaddr *)&la, sizeof la), -1);
    CHECK_EQ(errno, EISCONN);
    CHECK_EQ(pthread_join(t, NULL), 0);
    CHECK_EQ(ito_close(s), 0);
    for (int i = 0; i < 3; i++) close(fill[i]);
    close(l);
    unix_full();
    return NULL;
}

int main(void)
{
    int l = socket(AF_INET, SOCK_STREAM, 0);
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    CHECK_EQ(bind(l, (struct sockaddr *)&sa, sizeof sa), 0);
    CHECK_EQ(listen(l, 64), 0);
    socklen_t len = sizeof sa;
    CHECK_EQ(getsockname(l, (struct sockaddr *)&sa, &len), 0);
    /* a port nobody listens on: bound, never listened, so it stays ours meanwhile */
    int r = socket(AF_INET, SOCK_STREAM, 0);
    refused.sin_family = AF_INET;
    refused.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    CHECK_EQ(bind(r, (struct sockaddr *)&refused, sizeof refused), 0);
    len = sizeof refused;
    CHECK_EQ(getsockname(r, (struct sockaddr *)&refused, &len), 0);
    for (int w = 1; w <= 2; w++) ito_test_each_backend_ult(w, body);
    close(r);
    close(l);
    TEST_DONE();
}
