/* ito_test_net.h: loopback sockets for the I/O tests (with ito_test.h's checks). */
#ifndef ITO_TEST_NET_H
#define ITO_TEST_NET_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ito_test.h"

/* A connected TCP pair on 127.0.0.1 made with the blocking calls: *x connected, *y
 * accepted; the listener is closed. */
__attribute__((unused)) static void ito_test_tcp_pair(int *x, int *y)
{
    int l = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    CHECK_EQ(bind(l, (void *)&a, sizeof a), 0);
    CHECK_EQ(listen(l, 1), 0);
    socklen_t al = sizeof a;
    CHECK_EQ(getsockname(l, (void *)&a, &al), 0);
    *x = socket(AF_INET, SOCK_STREAM, 0);
    CHECK_EQ(connect(*x, (void *)&a, sizeof a), 0);
    *y = accept(l, NULL, NULL);
    CHECK(*y >= 0);
    close(l);
}

/* A UDP pair on 127.0.0.1 made with the plain calls: *rx bound, *tx connected to it. */
__attribute__((unused)) static void ito_test_udp_pair(int *tx, int *rx)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;
    *rx = socket(AF_INET, SOCK_DGRAM, 0);
    CHECK_EQ(bind(*rx, (void *)&a, sizeof a), 0);
    CHECK_EQ(getsockname(*rx, (void *)&a, &al), 0);
    *tx = socket(AF_INET, SOCK_DGRAM, 0);
    CHECK_EQ(connect(*tx, (void *)&a, sizeof a), 0);
}

/* Closes fd with a reset (SO_LINGER 0): the peer's next call sees ECONNRESET. */
__attribute__((unused)) static void ito_test_reset(int fd)
{
    struct linger lg = {1, 0};
    CHECK_EQ(setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg), 0);
    close(fd);
}

/* A pthread body: sends 10 bytes ("0123456789") on the socket its argument names, waits
 * 50 ms, and resets it. */
__attribute__((unused)) static void *ito_test_send10_reset(void *p)
{
    int fd = (int)(intptr_t)p;
    CHECK_EQ(send(fd, "0123456789", 10, 0), 10);
    usleep(50000);
    ito_test_reset(fd);
    return NULL;
}

/* The full-receiver datagram tests: drains fd (a unix datagram receiver filled with 1-byte
 * "x" datagrams, maybe one "hello"), checking that every datagram is one of those (none
 * empty); returns how many there were, *hello how many were "hello". */
__attribute__((unused)) static int ito_test_drain_x_hello(int fd, int *hello)
{
    char b[16];
    int n = 0;
    *hello = 0;
    for (ssize_t k; (k = recv(fd, b, sizeof b, MSG_DONTWAIT)) >= 0; n++) {
        if (k == 5 && memcmp(b, "hello", 5) == 0) ++*hello;
        else CHECK(k == 1 && b[0] == 'x'); /* no empty datagram */
    }
    return n;
}

#endif
