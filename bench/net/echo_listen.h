/* echo_listen.h: the listening socket of the C echo servers: 127.0.0.1, a given port (0:
 * any), backlog 4096, the file limit raised to its maximum; prints "READY <port>". */
#ifndef ITO_BENCH_ECHO_LISTEN_H
#define ITO_BENCH_ECHO_LISTEN_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/socket.h>

static inline int echo_listen(int port)
{
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 4096) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) != 0) {
        perror("echo server: listen");
        exit(1);
    }
    printf("READY %d\n", ntohs(a.sin_port));
    fflush(stdout);
    return fd;
}

#endif
