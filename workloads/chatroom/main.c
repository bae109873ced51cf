/* main.c: the chatroom driver. Listens on 127.0.0.1, forks the client process, accepts
 * and sorts the connections by their hello message, runs the chosen server, and prints
 *   RESULT kind=chatroom mode=<m> backend=<b> rooms=R clients=C messages=M total_ns=...
 *          server_cpu_ns=... relayed=... sends=... crossings=... buckets=... ...
 * total_ns is the clients' wall time from the go signal to the last message received;
 * server_cpu_ns the server process's CPU time over the same span. Exit status 0 only if
 * every message reached every client it should, exactly once (see chat.h). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "chat.h"
#include "ito/syscall.h"

static int go_pipe[2];

static void go_signal(void)
{
    char b = 'g';
    if (write(go_pipe[1], &b, 1) != 1) chat_die("go signal");
}

static void usage(void)
{
    fprintf(stderr, "usage: chatroom [--mode plain|ito1|wsc|pthreads] [--rooms R] [--clients C] [--messages M]\n"
                    "                [--cpu-server N] [--cpu-clients N]\n"
                    "  ito modes take the backend from ITO_WSC_BACKEND (uring|sync) and workers from ITO_WORKERS\n");
    exit(1);
}

static int listen_loopback(int *port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) chat_die("socket");
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 4096) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) != 0)
        chat_die("listen: %s", strerror(errno));
    *port = ntohs(a.sin_port);
    return fd;
}

int main(int argc, char **argv)
{
    chat_cfg_t cfg = {.rooms = 1, .clients = 20, .messages = 20, .cpu_server = -1, .cpu_clients = -1};
    const char *mode = "wsc";
    if (argc % 2 == 0) usage(); /* options come in pairs */
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *a = argv[i], *v = argv[i + 1];
        if (!strcmp(a, "--mode")) mode = v;
        else if (!strcmp(a, "--rooms")) cfg.rooms = atoi(v);
        else if (!strcmp(a, "--clients")) cfg.clients = atoi(v);
        else if (!strcmp(a, "--messages")) cfg.messages = atoi(v);
        else if (!strcmp(a, "--cpu-server")) cfg.cpu_server = atoi(v);
        else if (!strcmp(a, "--cpu-clients")) cfg.cpu_clients = atoi(v);
        else usage();
    }
    int is_ito = strcmp(mode, "pthreads") != 0;
    if (cfg.rooms < 1 || cfg.clients < 2 || cfg.clients > CHAT_MAX_CLIENTS || cfg.messages < 1) usage();
    if (is_ito && strcmp(mode, "plain") && strcmp(mode, "ito1") && strcmp(mode, "wsc")) usage();
    int lfd = listen_loopback(&cfg.port);
    int ready[2], result[2];
    if (pipe(ready) || pipe(go_pipe) || pipe(result)) chat_die("pipe");
    fflush(stdout);
    pid_t child = fork();
    if (child < 0) chat_die("fork");
    if (child == 0) {
        close(lfd);
        uint64_t ns = chat_clients_run(&cfg, ready[1], go_pipe[0]);
        if (write(result[1], &ns, sizeof ns) != (ssize_t)sizeof ns) _exit(4);
        _exit(0);
    }
    chat_pin(cfg.cpu_server);
    int n = cfg.rooms * cfg.clients;
    int *conns = malloc(sizeof(int) * (size_t)n);
    if (!conns) chat_die("out of memory");
    for (int i = 0; i < n; i++) conns[i] = -1;
    for (int i = 0; i < n; i++) {
        int fd = accept(lfd, NULL, NULL);
        if (fd < 0) chat_die("accept: %s", strerror(errno));
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        chat_msg_t hello;
        if (chat_read_full(fd, &hello, sizeof hello) != 0 || chat_msg_check(&hello) != 0 ||
            hello.seq != (uint32_t)-1 || hello.room >= cfg.rooms || hello.sender >= cfg.clients)
            chat_die("bad hello");
        int slot = hello.room * cfg.clients + hello.sender;
        if (conns[slot] >= 0) chat_die("client %d/%d connected twice", hello.room, hello.sender);
        conns[slot] = fd;
    }
    close(lfd);
    char b;
    if (read(ready[0], &b, 1) != 1) chat_die("clients did not get ready");
    chat_server_stats_t st = {0};
    if (is_ito) chat_server_ito(&cfg, conns, mode, &st, go_signal);
    else chat_server_pthreads(&cfg, conns, &st, go_signal);
    uint64_t total = 0;
    if (read(result[0], &total, sizeof total) != (ssize_t)sizeof total) chat_die("no result from the clients");
    int status;
    if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        chat_die("the client process failed (status %d)", status);
    for (int i = 0; i < n; i++) close(conns[i]);
    uint64_t want = (uint64_t)cfg.rooms * (uint64_t)cfg.clients * (uint64_t)cfg.messages;
    if (st.relayed != want || st.sends != want * (uint64_t)(cfg.clients - 1))
        chat_die("relayed %llu of %llu messages, %llu sends", (unsigned long long)st.relayed,
                 (unsigned long long)want, (unsigned long long)st.sends);
    printf("RESULT kind=chatroom mode=%s backend=%s rooms=%d clients=%d messages=%d total_ns=%llu "
           "server_cpu_ns=%llu relayed=%llu sends=%llu crossings=%llu buckets=%llu recv_posts=%llu "
           "short_sends=%llu posted=%llu server_pid=%ld\n",
           mode, st.backend == ITO_WSC_URING ? "uring" : st.backend == ITO_WSC_SYNC ? "sync" : "none", cfg.rooms,
           cfg.clients, cfg.messages, (unsigned long long)total, (unsigned long long)st.cpu_ns,
           (unsigned long long)st.relayed, (unsigned long long)st.sends, (unsigned long long)st.crossings,
           (unsigned long long)st.buckets, (unsigned long long)st.recv_posts, (unsigned long long)st.short_sends,
           (unsigned long long)st.posted, (long)getpid());
    free(conns);
    return 0;
}
