/* ito_test_net.h: loopback sockets for the I/O tests (with ito_test.h's checks). */
#ifndef ITO_TEST_NET_H
#define ITO_TEST_NET_H

#include <arpa/inet.h>
#include <netinet/in.h>
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

#endif
