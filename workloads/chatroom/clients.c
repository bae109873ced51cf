/* clients.c: the chatroom's clients, one plain pthread per client (in the child process).
 * A client connects, says hello (its room and index, seq = -1), waits for the go signal,
 * sends its M messages, then reads until it has every message of the other C-1 clients of
 * its room: each exactly once, well-formed, from its own room, never its own. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "chat.h"

typedef struct client {
    const chat_cfg_t *cfg;
    int room, idx, fd;
    pthread_barrier_t *start;
} client_t;

static int connect_one(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) chat_die("socket");
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) chat_die("connect to port %d", port);
    return fd;
}

static void *client_main(void *arg)
{
    client_t *c = arg;
    const chat_cfg_t *cfg = c->cfg;
    int m = cfg->messages, nc = cfg->clients;
    pthread_barrier_wait(c->start);
    chat_msg_t msg;
    for (int s = 0; s < m; s++) {
        chat_msg_make(&msg, c->room, c->idx, s);
        if (chat_write_full(c->fd, &msg, sizeof msg) != 0) chat_die("client %d/%d: send", c->room, c->idx);
    }
    unsigned char *seen = calloc((size_t)nc * (size_t)m, 1);
    if (!seen) chat_die("out of memory");
    long want = (long)(nc - 1) * m;
    for (long got = 0; got < want; got++) {
        if (chat_read_full(c->fd, &msg, sizeof msg) != 0)
            chat_die("client %d/%d: connection closed after %ld of %ld messages", c->room, c->idx, got, want);
        if (chat_msg_check(&msg) != 0) chat_die("client %d/%d: corrupt message", c->room, c->idx);
        if (msg.room != c->room || msg.sender >= nc || msg.sender == c->idx || msg.seq >= (uint32_t)m)
            chat_die("client %d/%d: stray message room %d sender %d seq %u", c->room, c->idx, msg.room,
                     msg.sender, msg.seq);
        if (seen[msg.sender * m + msg.seq]++)
            chat_die("client %d/%d: duplicate message %d/%u", c->room, c->idx, msg.sender, msg.seq);
    }
    free(seen);
    return NULL;
}

uint64_t chat_clients_run(const chat_cfg_t *cfg, int ready_fd, int go_fd)
{
    chat_pin(cfg->cpu_clients);
    int n = cfg->rooms * cfg->clients;
    client_t *cs = calloc((size_t)n, sizeof *cs);
    pthread_t *th = calloc((size_t)n, sizeof *th);
    pthread_barrier_t start;
    if (!cs || !th || pthread_barrier_init(&start, NULL, (unsigned)n + 1) != 0) chat_die("client setup");
    for (int i = 0; i < n; i++) {
        cs[i] = (client_t){cfg, i / cfg->clients, i % cfg->clients, connect_one(cfg->port), &start};
        chat_msg_t hello;
        chat_msg_make(&hello, cs[i].room, cs[i].idx, -1);
        if (chat_write_full(cs[i].fd, &hello, sizeof hello) != 0) chat_die("hello");
    }
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setstacksize(&at, 256 * 1024);
    for (int i = 0; i < n; i++)
        if (pthread_create(&th[i], &at, client_main, &cs[i]) != 0) chat_die("pthread_create client %d", i);
    char b = 'r';
    if (write(ready_fd, &b, 1) != 1 || read(go_fd, &b, 1) != 1) chat_die("client handshake");
    uint64_t t0 = chat_now_ns();
    pthread_barrier_wait(&start);
    for (int i = 0; i < n; i++) pthread_join(th[i], NULL);
    uint64_t t1 = chat_now_ns();
    for (int i = 0; i < n; i++) close(cs[i].fd);
    pthread_barrier_destroy(&start);
    free(cs);
    free(th);
    return t1 - t0;
}
