/* echo_epoll: the floor of the loopback echo benchmark: one thread, one epoll,
 * level-triggered, non-blocking sockets; it reads what is there and writes it back
 * (keeping what the socket does not take yet). No runtime at all.
 *
 *   echo_epoll PORT [N]   (prints "READY <port>" once listening; runs until killed, or
 *                          until N connections have closed, then exits 0) */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "echo_listen.h"

typedef struct conn {
    int fd;
    char pend[65536];   /* read, not yet written back */
    size_t len, off;
} conn_t;

static int ep;
static long exit_after, closed;

static void drop(conn_t *c)
{
    close(c->fd);
    free(c);
    if (exit_after && ++closed == exit_after) exit(0);
}

static void set_events(conn_t *c, uint32_t ev)
{
    struct epoll_event e = {.events = ev, .data.ptr = c};
    epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &e);
}

static void serve(conn_t *c)
{
    for (;;) {
        while (c->off < c->len) {
            ssize_t n = send(c->fd, c->pend + c->off, c->len - c->off, MSG_NOSIGNAL);
            if (n < 0) {
                if (errno == EAGAIN) {
                    set_events(c, EPOLLOUT);
                    return;
                }
                drop(c);
                return;
            }
            c->off += (size_t)n;
        }
        c->off = c->len = 0;
        ssize_t n = recv(c->fd, c->pend, sizeof c->pend, 0);
        if (n == 0 || (n < 0 && errno != EAGAIN)) {
            drop(c);
            return;
        }
        if (n < 0) {
            set_events(c, EPOLLIN);
            return;
        }
        c->len = (size_t)n;
    }
}

int main(int argc, char **argv)
{
    int lfd = echo_listen(argc > 1 ? atoi(argv[1]) : 0);
    exit_after = argc > 2 ? atol(argv[2]) : 0;
    ep = epoll_create1(0);
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = NULL};
    epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
    struct epoll_event evs[256];
    for (;;) {
        int n = epoll_wait(ep, evs, 256, -1);
        for (int i = 0; i < n; i++) {
            conn_t *c = evs[i].data.ptr;
            if (!c) {
                int fd;
                while ((fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
                    conn_t *nc = calloc(1, sizeof *nc);
                    nc->fd = fd;
                    int one = 1;
                    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                    struct epoll_event e = {.events = EPOLLIN, .data.ptr = nc};
                    epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e);
                }
                continue;
            }
            serve(c);
        }
    }
}
