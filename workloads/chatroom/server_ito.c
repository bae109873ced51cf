/* server_ito.c: the chatroom server on ito: one ULT per client connection.
 *
 * Receiving is the same in every mode: the ULT posts a split-phase RECV whose continuation
 * is a code-less entry of its frame, flushes it at once (so the receive is its own crossing
 * whatever the threshold) and waits on the entry. Relaying a message to the C-1 others:
 *   plain  C-1 plain send() calls (the ordinary system call convention);
 *   ito1   C-1 ito_send() calls at threshold 1: each one crosses on its own;
 *   wsc    C-1 SEND requests posted with one join entry (fan-in C-1) as continuation, at
 *          threshold C-1 and an explicit flush after the last post: the C-1 sends cross
 *          into the kernel as one bucket (with io_uring: one io_uring_enter). The ULT waits
 *          on the join entry, then checks every result (100 B; a short send is finished
 *          with ito_send and counted; an error is fatal).
 * The message buffer is the ULT's own and stays untouched until the join fires. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "chat.h"
#include "ito/ito.h"

enum { MODE_PLAIN, MODE_ITO1, MODE_WSC };
enum { E_RECV, E_SEND, E_COUNT };

typedef struct iconn {
    const chat_cfg_t *cfg;
    const int *conns;
    int room, idx, mode;
    ito_frame_t *f;
    long rres;
    long sres[CHAT_MAX_CLIENTS];
    uint64_t relayed, sends, short_sends, recv_posts;
} iconn_t;

static void check(int rc, const char *what)
{
    if (rc != ITO_OK) chat_die("server: %s: %s", what, ito_strerror(rc));
}

static void recv_msg(iconn_t *c, int fd, chat_msg_t *msg)
{
    char *p = (char *)msg;
    long got = 0;
    while (got < (long)sizeof *msg) {
        check(ito_rearm(c->f, E_RECV, 0), "rearm recv");
        ito_sysreq_t q = {.op = ITO_SYS_RECV, .fd = fd, .buf = p + got, .len = sizeof *msg - (size_t)got,
                          .result = &c->rres, .frame = c->f, .entry = E_RECV};
        check(ito_sys_post(&q), "post recv");
        c->recv_posts++;
        check(ito_wsc_flush(), "flush recv");
        check(ito_frame_wait(c->f, E_RECV), "wait recv");
        if (c->rres <= 0) chat_die("server: recv from %d/%d: %s", c->room, c->idx, c->rres ? strerror((int)-c->rres) : "closed");
        got += c->rres;
    }
}

static void send_rest(iconn_t *c, int fd, const chat_msg_t *msg, long done)
{
    while (done < (long)sizeof *msg) {
        ssize_t n = ito_send(fd, (const char *)msg + done, sizeof *msg - (size_t)done, 0);
        if (n <= 0) chat_die("server: send to room %d: %s", c->room, n < 0 ? strerror(errno) : "0 bytes");
        done += n;
    }
}

static void relay(iconn_t *c, const chat_msg_t *msg)
{
    int nc = c->cfg->clients;
    const int *room = &c->conns[c->room * nc];
    if (c->mode == MODE_WSC) {
        check(ito_rearm(c->f, E_SEND, 0), "rearm send");
        for (int j = 0; j < nc; j++) {
            if (j == c->idx) continue;
            c->sres[j] = -9999;
            ito_sysreq_t q = {.op = ITO_SYS_SEND, .fd = room[j], .buf = (void *)msg, .len = sizeof *msg,
                              .result = &c->sres[j], .frame = c->f, .entry = E_SEND};
            check(ito_sys_post(&q), "post send");
        }
        check(ito_wsc_flush(), "flush sends");
        check(ito_frame_wait(c->f, E_SEND), "wait sends");
    }
    for (int j = 0; j < nc; j++) {
        if (j == c->idx) continue;
        long r;
        switch (c->mode) {
        case MODE_PLAIN: r = send(room[j], msg, sizeof *msg, MSG_NOSIGNAL); if (r < 0) r = -errno; break;
        case MODE_ITO1: r = ito_send(room[j], msg, sizeof *msg, 0); if (r < 0) r = -errno; break;
        default: r = c->sres[j]; break;
        }
        if (r <= 0) chat_die("server: send to %d/%d: %s", c->room, j, r ? strerror((int)-r) : "0 bytes");
        if (r < (long)sizeof *msg) {
            c->short_sends++;
            send_rest(c, room[j], msg, r);
        }
        c->sends++;
    }
}

static void *serve(void *arg)
{
    iconn_t *c = arg;
    int fd = c->conns[c->room * c->cfg->clients + c->idx];
    chat_msg_t msg;
    for (int s = 0; s < c->cfg->messages; s++) {
        recv_msg(c, fd, &msg);
        if (chat_msg_check(&msg) != 0 || msg.room != c->room || msg.sender != c->idx || msg.seq != (uint32_t)s)
            chat_die("server: bad message from %d/%d", c->room, c->idx);
        relay(c, &msg);
        c->relayed++;
    }
    return NULL;
}

void chat_server_ito(const chat_cfg_t *cfg, const int *conns, const char *mode, chat_server_stats_t *st,
                     void (*go)(void))
{
    int m = !strcmp(mode, "plain") ? MODE_PLAIN : !strcmp(mode, "ito1") ? MODE_ITO1 : !strcmp(mode, "wsc") ? MODE_WSC : -1;
    if (m < 0) chat_die("unknown mode %s", mode);
    if (cfg->clients - 1 > 64) chat_die("wsc needs clients - 1 <= 64 (the largest threshold)");
    check(ito_init(NULL), "ito_init");
    check(ito_wsc_set_threshold(m == MODE_WSC ? cfg->clients - 1 : 1), "threshold");
    int n = cfg->rooms * cfg->clients;
    iconn_t *cs = calloc((size_t)n, sizeof *cs);
    ito_thread_t *th = calloc((size_t)n, sizeof *th);
    if (!cs || !th) chat_die("out of memory");
    for (int i = 0; i < n; i++) {
        cs[i] = (iconn_t){.cfg = cfg, .conns = conns, .room = i / cfg->clients, .idx = i % cfg->clients, .mode = m};
        check(ito_frame_create(&cs[i].f, E_COUNT, 0), "frame");
        check(ito_entry_set(cs[i].f, E_RECV, NULL, 1, ITO_MODE_USER), "entry recv");
        check(ito_entry_set(cs[i].f, E_SEND, NULL, (uint32_t)(cfg->clients - 1), ITO_MODE_USER), "entry send");
    }
    st->backend = ito_wsc_backend();
    ito_wsc_stats_t s0, s1;
    check(ito_wsc_stats(&s0), "stats");
    uint64_t c0 = chat_cpu_ns();
    go();
    for (int i = 0; i < n; i++) check(ito_create(&th[i], serve, &cs[i], NULL), "ito_create");
    for (int i = 0; i < n; i++) {
        check(ito_join(th[i], NULL), "ito_join");
        st->relayed += cs[i].relayed;
        st->sends += cs[i].sends;
        st->short_sends += cs[i].short_sends;
        st->recv_posts += cs[i].recv_posts;
    }
    st->cpu_ns = chat_cpu_ns() - c0;
    check(ito_wsc_stats(&s1), "stats");
    if (s1.posted - s0.posted != s1.completed - s0.completed)
        chat_die("server: %llu requests posted, %llu completed", (unsigned long long)(s1.posted - s0.posted),
                 (unsigned long long)(s1.completed - s0.completed));
    st->posted = s1.posted - s0.posted;
    /* the sync backend tries a send in the ULT first: only the sends that had to wait post */
    uint64_t want_posts =
        st->recv_posts + (m == MODE_PLAIN || (m == MODE_ITO1 && st->backend == ITO_WSC_SYNC) ? 0 : st->sends + st->short_sends);
    if (s1.posted - s0.posted < want_posts)
        chat_die("server: %llu requests posted, expected at least %llu", (unsigned long long)(s1.posted - s0.posted),
                 (unsigned long long)want_posts);
    st->crossings = s1.crossings - s0.crossings + (m == MODE_PLAIN ? st->sends : 0);
    st->buckets = (s1.flush_threshold - s0.flush_threshold) + (s1.flush_idle - s0.flush_idle) +
                  (s1.flush_latency - s0.flush_latency) + (s1.flush_explicit - s0.flush_explicit);
    for (int i = 0; i < n; i++) check(ito_frame_destroy(cs[i].f), "frame destroy");
    check(ito_finalize(), "ito_finalize");
    free(cs);
    free(th);
}
