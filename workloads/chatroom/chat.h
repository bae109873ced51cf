/* chat.h: the chatroom workload (CEFOS section 4.4, after the "chatroom" benchmark):
 * rooms of C clients on loopback TCP; each client sends M messages of 100 B to the server,
 * which relays each one to the C-1 other clients of its room.
 *
 * Processes: the parent is the server (ito in modes plain / ito1 / wsc, or one pthread per
 * connection in mode pthreads); a forked child runs the clients as plain pthreads, one per
 * client. Keeping the clients in another process keeps the server's counters (CPU time,
 * cachegrind's per-process files) free of client work.
 *
 * Invariants checked (any violation exits non-zero with a FATAL line): every message
 * carries (room, sender, seq) and a checksum of its body; every client receives each of
 * the (C-1) x M messages of its room's other clients exactly once and none of its own;
 * the server relays exactly rooms x C x M messages with (C-1) sends of 100 B each. */
#ifndef CHAT_H
#define CHAT_H

#include <stdint.h>
#include <stdnoreturn.h>

#define CHAT_MSG 100            /* bytes per message, as in the paper */
#define CHAT_MAX_CLIENTS 64     /* per room */

typedef struct chat_cfg {
    int rooms, clients, messages;   /* paper: clients 20, messages 20 */
    int port;
    int cpu_server, cpu_clients;    /* -1: no pinning */
} chat_cfg_t;

typedef struct chat_msg {           /* exactly CHAT_MSG bytes on the wire */
    uint32_t magic;
    uint16_t room, sender;
    uint32_t seq, sum;
    unsigned char body[CHAT_MSG - 16];
} chat_msg_t;

_Static_assert(sizeof(chat_msg_t) == CHAT_MSG, "message size");

noreturn void chat_die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void chat_msg_make(chat_msg_t *m, int room, int sender, int seq);
/* 0 if well-formed (magic, checksum); -1 otherwise. */
int chat_msg_check(const chat_msg_t *m);

/* The client side: connects rooms x clients sockets to 127.0.0.1:port (each sends a hello
 * message with seq = -1 first), reports readiness on ready_fd, waits for one byte on go_fd,
 * runs, and returns the elapsed ns from the go byte to the last client's last message. */
uint64_t chat_clients_run(const chat_cfg_t *cfg, int ready_fd, int go_fd);

/* Servers: conns[r * clients + i] is the socket of client i of room r. Each returns when
 * every message has been relayed; they check what they relay. */
typedef struct chat_server_stats {
    uint64_t relayed, sends, short_sends;   /* messages in, 100-B sends out, sends finished late */
    uint64_t crossings, buckets;            /* ito modes: from ito_wsc_stats (+ plain sends) */
    uint64_t recv_posts;                    /* ito modes: receive requests posted */
    uint64_t posted;                        /* ito modes: requests posted (ito_wsc_stats) */
    uint64_t cpu_ns;                        /* the server process's CPU time from go to done */
    int backend;                            /* ITO_WSC_URING / ITO_WSC_SYNC, -1 without ito */
} chat_server_stats_t;
/* go() is called once the server is ready; it lets the clients start. */
void chat_server_pthreads(const chat_cfg_t *cfg, const int *conns, chat_server_stats_t *st, void (*go)(void));
/* mode: "plain" (send()), "ito1" (ito_send, threshold 1), "wsc" (C-1 posts, one bucket). */
void chat_server_ito(const chat_cfg_t *cfg, const int *conns, const char *mode, chat_server_stats_t *st,
                     void (*go)(void));
uint64_t chat_cpu_ns(void);  /* this process's user + system CPU time */

/* Read exactly len bytes with plain recv (blocking socket); 0 on success, -1 on EOF/error. */
int chat_read_full(int fd, void *buf, long len);
int chat_write_full(int fd, const void *buf, long len);

uint64_t chat_now_ns(void);
void chat_pin(int cpu);

#endif
