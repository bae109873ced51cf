/* echo_client: the load of the loopback echo benchmark (ito-lab net).
 *
 *   echo_client PORT CONNS MSGS DEPTH [TIMEOUT_S]
 *
 * Opens CONNS TCP connections to 127.0.0.1:PORT (traffic to loopback only), and on each
 * sends MSGS messages of 64 bytes with at most DEPTH of them in flight: it starts with
 * DEPTH, and sends one more for every message that comes back. Every byte that comes
 * back is checked against what was sent, in order (a wrong, missing or extra byte is a
 * failure: exit 1). One thread, one epoll, non-blocking sockets; the clock runs from
 * the moment every connection is established to the last byte of the last message.
 *
 * Prints: RESULT conns=<n> msgs=<total> seconds=<s> msgs_per_s=<x> lost=0 corrupted=0
 * Exits 2 if TIMEOUT_S (default 120) passes first: counts are bounded, so is time. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "echo_proto.h"

typedef struct conn {
    int fd;
    uint32_t id;
    uint32_t sent, got;      /* messages sent, messages received back whole */
    unsigned char in[ECHO_MSG];
    size_t have;             /* bytes of the message being received */
    unsigned char out[ECHO_MSG * 64];
    size_t out_len, out_off; /* bytes queued to send */
    int want_out;
} conn_t;

static uint32_t msgs, depth;
static uint64_t corrupted;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what)
{
    fprintf(stderr, "echo_client: %s: %s\n", what, strerror(errno));
    exit(1);
}

static void queue_more(conn_t *c)
{
    while (c->sent < msgs && c->sent - c->got < depth && c->out_len + ECHO_MSG <= sizeof c->out) {
        echo_fill(c->out + c->out_len, c->id, c->sent);
        c->out_len += ECHO_MSG;
        c->sent++;
    }
}

static int ep;

static void flush_out(conn_t *c)
{
    while (c->out_off < c->out_len) {
        ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EAGAIN) break;
            die("send");
        }
        c->out_off += (size_t)n;
    }
    int want = c->out_off < c->out_len; /* the socket buffer is full: wait until writable */
    if (c->out_off == c->out_len) c->out_off = c->out_len = 0;
    if (want != c->want_out) {
        struct epoll_event ev = {.events = EPOLLIN | (want ? EPOLLOUT : 0), .data.ptr = c};
        if (epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev) != 0) die("epoll_ctl MOD");
        c->want_out = want;
    }
}

/* Returns 1 when the connection has everything back. */
static int on_readable(conn_t *c)
{
    unsigned char buf[16384];
    for (;;) {
        ssize_t n = recv(c->fd, buf, sizeof buf, 0);
        if (n < 0) {
            if (errno == EAGAIN) break;
            die("recv");
        }
        if (n == 0) {
            fprintf(stderr, "echo_client: connection %u closed by the server after %u of %u messages\n", c->id,
                    c->got, msgs);
            exit(1);
        }
        for (ssize_t i = 0; i < n;) {
            size_t take = ECHO_MSG - c->have;
            if ((size_t)(n - i) < take) take = (size_t)(n - i);
            memcpy(c->in + c->have, buf + i, take);
            c->have += take;
            i += (ssize_t)take;
            if (c->have < ECHO_MSG) break;
            unsigned char want[ECHO_MSG];
            echo_fill(want, c->id, c->got);
            if (c->got >= c->sent || memcmp(want, c->in, ECHO_MSG) != 0) corrupted++;
            c->got++;
            c->have = 0;
        }
    }
    queue_more(c);
    flush_out(c);
    return c->got >= msgs;
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: echo_client PORT CONNS MSGS DEPTH [TIMEOUT_S]\n");
        return 2;
    }
    int port = atoi(argv[1]);
    uint32_t nconn = (uint32_t)atoi(argv[2]);
    msgs = (uint32_t)atoi(argv[3]);
    depth = (uint32_t)atoi(argv[4]);
    double timeout = argc > 5 ? atof(argv[5]) : 120;
    if (port <= 0 || nconn == 0 || msgs == 0 || depth == 0 || depth > 64) {
        fprintf(stderr, "echo_client: bad arguments\n");
        return 2;
    }
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);

    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    conn_t *cs = calloc(nconn, sizeof *cs);
    ep = epoll_create1(0);
    if (!cs || ep < 0) die("setup");
    double t_end = now_s() + timeout;
    for (uint32_t i = 0; i < nconn; i++) { /* blocking connects: the listen backlog paces us */
        conn_t *c = &cs[i];
        c->id = i;
        c->fd = socket(AF_INET, SOCK_STREAM, 0);
        if (c->fd < 0) die("socket");
        int one = 1;
        setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        while (connect(c->fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
            if (errno != EAGAIN && errno != ECONNREFUSED && errno != EINTR) die("connect");
            if (now_s() > t_end) {
                fprintf(stderr, "echo_client: timeout while connecting\n");
                return 2;
            }
            usleep(1000);
        }
    }
    for (uint32_t i = 0; i < nconn; i++) {
        conn_t *c = &cs[i];
        if (fcntl(c->fd, F_SETFL, fcntl(c->fd, F_GETFL) | O_NONBLOCK) != 0) die("O_NONBLOCK");
        struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
        if (epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev) != 0) die("epoll_ctl");
    }
    double t0 = now_s();
    for (uint32_t i = 0; i < nconn; i++) {
        queue_more(&cs[i]);
        flush_out(&cs[i]);
    }
    uint32_t done = 0;
    struct epoll_event evs[256];
    while (done < nconn) {
        int n = epoll_wait(ep, evs, 256, 1000);
        if (n < 0 && errno != EINTR) die("epoll_wait");
        if (now_s() > t_end) {
            fprintf(stderr, "echo_client: timeout: %u of %u connections done\n", done, nconn);
            return 2;
        }
        for (int i = 0; i < n; i++) {
            conn_t *c = evs[i].data.ptr;
            if (c->got >= msgs) continue;
            if (evs[i].events & EPOLLOUT) flush_out(c);
            if ((evs[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP)) && on_readable(c)) done++;
        }
    }
    double secs = now_s() - t0;
    uint64_t total = (uint64_t)nconn * msgs, lost = 0;
    for (uint32_t i = 0; i < nconn; i++) lost += cs[i].got < msgs ? msgs - cs[i].got : 0;
    for (uint32_t i = 0; i < nconn; i++) close(cs[i].fd);
    printf("RESULT conns=%u msgs=%llu seconds=%.6f msgs_per_s=%.1f lost=%llu corrupted=%llu\n", nconn,
           (unsigned long long)total, secs, (double)total / secs, (unsigned long long)lost,
           (unsigned long long)corrupted);
    return lost || corrupted ? 1 : 0;
}
