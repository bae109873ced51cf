/* test_io_server: a server on the wrappers as an outside user writes it, abused by its
 * clients, on both backends. An acceptor ULT makes a detached ULT per connection that
 * echoes with ito_recv/ito_send under an I/O deadline of 200 ms per receive. Foreign
 * pthreads are the clients (plain blocking sockets), each making connections of five
 * kinds: echo ten messages (checked byte for byte); send 4 KiB and reset (SO_LINGER 0)
 * without reading; stay idle until the server's deadline closes the connection (the
 * client must then read end of file); send 256 KiB, half-close, and read it all back;
 * connect and close at once. The acceptor is stopped with ito_cancel_io (race-free, unlike
 * closing the descriptor under it) and the listener closed with ito_close.
 *  1. the clients run to their end, then finalize: every echo correct, every connection
 *     ULT ended (started == ended), every idle connection timed out, ITO_OK;
 *  2. finalize 150 ms into the run, while connections are live: ITO_OK, every connection
 *     ULT that started has ended by then, nothing touched after (ASan/TSan trees), and
 *     the clients (which see resets and refusals then) end too. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

#define NCLIENTS 12
#define CONNS 20
#define BIG (256 * 1024)
#define IDLE_MS 200

static int lfd, port;
static atomic_long started, ended, timeouts, idle_conns, client_errors, clients_left;
static char big[BIG];

static void *conn(void *arg)
{
    int fd = (int)(intptr_t)arg;
    atomic_fetch_add(&started, 1);
    char buf[8192];
    for (;;) {
        CHECK_OK(ito_io_deadline(ito_deadline_in(IDLE_MS * 1000000ull)));
        ssize_t n = ito_recv(fd, buf, sizeof buf, 0);
        if (n < 0 && errno == ETIMEDOUT) atomic_fetch_add(&timeouts, 1);
        if (n <= 0) break;
        if (ito_send(fd, buf, (size_t)n, MSG_NOSIGNAL) != n) break; /* a reset peer: EPIPE */
    }
    CHECK_OK(ito_io_deadline(ITO_FOREVER));
    CHECK_EQ(ito_close(fd), 0);
    atomic_fetch_add(&ended, 1);
    return NULL;
}

static void *acceptor(void *arg)
{
    (void)arg;
    ito_attr_t a;
    CHECK_OK(ito_attr_init(&a));
    a.flags = ITO_ATTR_DETACHED;
    for (;;) {
        int c = ito_accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        if (c < 0) {
            if (errno == ECANCELED) return NULL; /* ito_cancel_io: stop */
            CHECK(errno == ECONNABORTED);        /* a client reset before its accept */
            continue;
        }
        CHECK_OK(ito_create(NULL, conn, (void *)(intptr_t)c, &a));
    }
}

static int dial(void)
{
    int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    CHECK(s >= 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(s, (struct sockaddr *)&sa, sizeof sa) != 0) {
        close(s);
        return -1;
    }
    struct timeval tv = {.tv_sec = 10}; /* a lost reply fails the run instead of hanging it */
    setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    return s;
}

static int read_full(int s, char *b, size_t n)
{
    for (size_t got = 0; got < n;) {
        ssize_t r = read(s, b + got, n - got);
        if (r <= 0) return -1;
        got += (size_t)r;
    }
    return 0;
}

/* 256 KiB out and back, half-closed after sending; 0 when all came back intact. */
static int big_roundtrip(int s, char *back)
{
    size_t sent = 0, got = 0;
    for (int rounds = 0; got < BIG && rounds < 100000; rounds++) {
        struct pollfd p = {s, (short)(POLLIN | (sent < BIG ? POLLOUT : 0)), 0};
        if (poll(&p, 1, 10000) <= 0) return -1;
        if (sent < BIG && (p.revents & POLLOUT)) {
            ssize_t w = send(s, big + sent, BIG - sent, MSG_DONTWAIT | MSG_NOSIGNAL);
            if (w < 0 && errno != EAGAIN) return -1;
            if (w > 0) sent += (size_t)w;
            if (sent == BIG) shutdown(s, SHUT_WR);
        }
        if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
            ssize_t r = recv(s, back + got, BIG - got, MSG_DONTWAIT);
            if (r == 0 || (r < 0 && errno != EAGAIN)) return -1;
            if (r > 0) got += (size_t)r;
        }
    }
    return got == BIG && memcmp(big, back, BIG) == 0 ? 0 : -1;
}

static void *client(void *arg)
{
    unsigned seed = (unsigned)(uintptr_t)arg;
    char *back = malloc(BIG);
    CHECK(back != NULL);
    for (int k = 0; k < CONNS; k++) {
        int s = dial();
        if (s < 0) {
            atomic_fetch_add(&client_errors, 1);
            continue;
        }
        int kind = (int)(rand_r(&seed) % 5), bad = 0;
        if (kind == 0) {
            for (int j = 0; j < 10 && !bad; j++) {
                char m[64], r[64];
                memset(m, 0, sizeof m);
                snprintf(m, sizeof m, "message %d.%d of client %u", k, j, seed);
                bad = write(s, m, sizeof m) != (ssize_t)sizeof m || read_full(s, r, sizeof r) || memcmp(m, r, sizeof m);
            }
        } else if (kind == 1) {
            bad = write(s, big, 4096) != 4096;
            struct linger l = {1, 0};
            setsockopt(s, SOL_SOCKET, SO_LINGER, &l, sizeof l);
        } else if (kind == 2) {
            char c;
            atomic_fetch_add(&idle_conns, 1);
            bad = read(s, &c, 1) != 0; /* the server's deadline ends it: end of file */
        } else if (kind == 3) {
            bad = big_roundtrip(s, back);
        }
        if (bad) atomic_fetch_add(&client_errors, 1);
        close(s);
    }
    free(back);
    atomic_fetch_sub(&clients_left, 1);
    return NULL;
}

static void serve(const char *backend, int finalize_after_ms)
{
    setenv("ITO_WSC_BACKEND", backend, 1);
    atomic_store(&started, 0);
    atomic_store(&ended, 0);
    atomic_store(&timeouts, 0);
    atomic_store(&idle_conns, 0);
    atomic_store(&client_errors, 0);
    ito_config_t cfg = {.workers = 2};
    CHECK_OK(ito_init(&cfg));
    lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    CHECK(lfd >= 0);
    struct sockaddr_in sa = {.sin_family = AF_INET};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t sl = sizeof sa;
    CHECK_EQ(bind(lfd, (struct sockaddr *)&sa, sizeof sa), 0);
    CHECK_EQ(listen(lfd, 1024), 0);
    CHECK_EQ(getsockname(lfd, (struct sockaddr *)&sa, &sl), 0);
    port = ntohs(sa.sin_port);
    ito_thread_t acc;
    CHECK_OK(ito_create(&acc, acceptor, NULL, NULL));
    pthread_t cl[NCLIENTS];
    atomic_store(&clients_left, NCLIENTS);
    for (int i = 0; i < NCLIENTS; i++)
        CHECK_EQ(pthread_create(&cl[i], NULL, client, (void *)(uintptr_t)(i * 7919 + 17)), 0);
    if (finalize_after_ms) {
        CHECK_OK(ito_sleep_ns((uint64_t)finalize_after_ms * 1000000ull));
    } else {
        while (atomic_load(&clients_left) > 0) CHECK_OK(ito_sleep_ns(5000000));
    }
    CHECK_OK(ito_cancel_io(acc));
    CHECK_OK(ito_join(acc, NULL));
    CHECK_EQ(ito_close(lfd), 0);
    CHECK_OK(ito_finalize()); /* the live connections are work: waited for, or cancelled */
    CHECK_EQ(atomic_load(&started), atomic_load(&ended));
    for (int i = 0; i < NCLIENTS; i++) CHECK_EQ(pthread_join(cl[i], NULL), 0);
    if (!finalize_after_ms) {
        CHECK_EQ(atomic_load(&client_errors), 0);
        CHECK_EQ(atomic_load(&started), (long)NCLIENTS * CONNS);
        CHECK(atomic_load(&timeouts) >= atomic_load(&idle_conns));
    }
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN); /* the clients write to connections the server has reset */
    for (size_t i = 0; i < BIG; i++) big[i] = (char)(i * 7 + 3);
    for (int b = 0; b < ITO_TEST_NBACKENDS; b++) {
        serve(ito_test_backends[b], 0);
        serve(ito_test_backends[b], 150);
    }
    unsetenv("ITO_WSC_BACKEND");
    TEST_DONE();
}
