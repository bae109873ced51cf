/* echo_server: a TCP echo server with one ULT per connection, and its own clients.
 *
 * The server ULT accepts on 127.0.0.1 (an ephemeral port) and starts a ULT per
 * connection that reads with ito_recv and writes back with ito_send: plain blocking code,
 * but while one connection waits for data its worker runs the others. To be a complete
 * program it also starts CLIENTS client ULTs that connect, send MESSAGES lines each and
 * check every echo; then it closes the listening socket (ito_close wakes the accepting
 * ULT) and exits.
 *
 *   echo_server            prints "echo_server: 8 clients x 100 messages echoed"
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <ito/ito.h>

#define CLIENTS 8
#define MESSAGES 100

/* One connection: echo until the client closes. */
static void *serve(void *arg)
{
    int fd = (int)(intptr_t)arg;
    char buf[4096];
    ssize_t n;
    /* ito_send returns when every byte is sent (syscall.h, "Whole transfers"): no loop */
    while ((n = ito_recv(fd, buf, sizeof buf, 0)) > 0 && ito_send(fd, buf, (size_t)n, 0) == n) {
    }
    ito_close(fd);
    return NULL;
}

/* The accept loop: a detached ULT per connection, until the socket is closed. */
static void *acceptor(void *arg)
{
    int lfd = (int)(intptr_t)arg;
    ito_attr_t detached;
    ito_attr_init(&detached);
    detached.flags = ITO_ATTR_DETACHED;
    for (;;) {
        int fd = ito_accept(lfd, NULL, NULL);
        if (fd < 0) return NULL; /* EBADF: main closed the listening socket */
        if (ito_create(NULL, serve, (void *)(intptr_t)fd, &detached) != ITO_OK) ito_close(fd);
    }
}

/* A client: connect, then send each message and read its echo back whole. */
static struct sockaddr_in server;

static void *client(void *arg)
{
    int id = (int)(intptr_t)arg;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0 || ito_connect(fd, (struct sockaddr *)&server, sizeof server) != 0) return (void *)1;
    for (int i = 0; i < MESSAGES; i++) {
        char msg[64], back[64];
        int len = snprintf(msg, sizeof msg, "client %d says hello #%d\n", id, i);
        if (ito_send(fd, msg, (size_t)len, 0) != len) return (void *)1;
        for (int got = 0; got < len;) {
            ssize_t n = ito_recv(fd, back + got, (size_t)(len - got), 0);
            if (n <= 0) return (void *)1;
            got += (int)n;
        }
        if (memcmp(msg, back, (size_t)len) != 0) return (void *)1;
    }
    ito_close(fd);
    return NULL;
}

int main(void)
{
    if (ito_init(NULL) != ITO_OK) return 1;

    /* Listen on 127.0.0.1 with a port the kernel picks. */
    int lfd = socket(AF_INET, SOCK_STREAM, 0);
    server = (struct sockaddr_in){.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof server;
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&server, sizeof server) != 0 || listen(lfd, 64) != 0 ||
        getsockname(lfd, (struct sockaddr *)&server, &len) != 0) {
        perror("echo_server: listen");
        return 1;
    }
    ito_thread_t acc, clients[CLIENTS];
    ito_create(&acc, acceptor, (void *)(intptr_t)lfd, NULL);
    for (int i = 0; i < CLIENTS; i++) ito_create(&clients[i], client, (void *)(intptr_t)i, NULL);

    int failed = 0;
    for (int i = 0; i < CLIENTS; i++) {
        void *bad;
        ito_join(clients[i], &bad);
        failed += bad != NULL;
    }
    ito_close(lfd); /* wakes the acceptor with EBADF */
    ito_join(acc, NULL);
    ito_finalize();
    if (failed) {
        printf("echo_server: %d client(s) failed\n", failed);
        return 1;
    }
    printf("echo_server: %d clients x %d messages echoed\n", CLIENTS, MESSAGES);
    return 0;
}
