/* server_pthreads.c: the outside peer: one kernel thread per client connection, plain
 * blocking recv and one send() per relayed message. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "chat.h"

typedef struct pconn {
    const chat_cfg_t *cfg;
    const int *conns;
    int room, idx;
    uint64_t relayed, sends;
} pconn_t;

static void *serve(void *arg)
{
    pconn_t *c = arg;
    int nc = c->cfg->clients;
    const int *room = &c->conns[c->room * nc];
    chat_msg_t msg;
    for (int s = 0; s < c->cfg->messages; s++) {
        if (chat_read_full(room[c->idx], &msg, sizeof msg) != 0) chat_die("server: client %d/%d closed", c->room, c->idx);
        if (chat_msg_check(&msg) != 0 || msg.room != c->room || msg.sender != c->idx || msg.seq != (uint32_t)s)
            chat_die("server: bad message from %d/%d", c->room, c->idx);
        for (int j = 0; j < nc; j++) {
            if (j == c->idx) continue;
            if (chat_write_full(room[j], &msg, sizeof msg) != 0) chat_die("server: send to %d/%d", c->room, j);
            c->sends++;
        }
        c->relayed++;
    }
    return NULL;
}

void chat_server_pthreads(const chat_cfg_t *cfg, const int *conns, chat_server_stats_t *st, void (*go)(void))
{
    int n = cfg->rooms * cfg->clients;
    pconn_t *cs = calloc((size_t)n, sizeof *cs);
    pthread_t *th = calloc((size_t)n, sizeof *th);
    if (!cs || !th) chat_die("out of memory");
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setstacksize(&at, 256 * 1024);
    uint64_t c0 = chat_cpu_ns();
    go();
    for (int i = 0; i < n; i++) {
        cs[i] = (pconn_t){cfg, conns, i / cfg->clients, i % cfg->clients, 0, 0};
        if (pthread_create(&th[i], &at, serve, &cs[i]) != 0) chat_die("pthread_create server %d", i);
    }
    for (int i = 0; i < n; i++) {
        pthread_join(th[i], NULL);
        st->relayed += cs[i].relayed;
        st->sends += cs[i].sends;
    }
    st->cpu_ns = chat_cpu_ns() - c0;
    st->crossings = st->sends; /* one send() each (plus the recvs, not counted) */
    st->backend = -1;
    free(cs);
    free(th);
}
