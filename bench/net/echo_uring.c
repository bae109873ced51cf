/* echo_uring: the io_uring floor of the loopback echo benchmark: a C loop on liburing, no
 * runtime, what ito's I/O path does by hand at the least. Each thread owns a ring (single
 * issuer, cooperative task work, as ito's workers set theirs up) and arms a multishot accept
 * on the shared listening socket; a connection stays on the thread that accepted it.
 *
 * Two ways to receive, chosen on the command line:
 *   single   one recv per message into the connection's buffer, re-armed once the echo
 *            of the last one was sent (what a ULT's ito_recv/ito_send loop makes);
 *   multi    one multishot recv per connection for its whole life, into buffers the
 *            kernel picks from a provided buffer ring; each completion is copied into the
 *            connection's pending bytes and the buffer goes back to the ring (the copy is
 *            what an ito_recv into the caller's buffer would add).
 * In both, a send of the pending bytes is in flight at most once per connection; a short
 * send is continued.
 *
 *   echo_uring PORT [N [single|multi [THREADS]]]
 *     prints "READY <port>" once listening; runs until killed, or until N connections have
 *     closed, then exits 0. THREADS defaults to 1 (0: one per CPU). */
#define _GNU_SOURCE
#include <errno.h>
#include <liburing.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "echo_listen.h"

#define SQ_ENTRIES 4096
#define CQ_ENTRIES 65536
#define NBUF 4096          /* provided buffers per thread (a power of two) */
#define BUFSZ 2048
#define PEND 16384         /* a connection's bytes read, not yet sent back */

enum { T_ACCEPT = 1, T_RECV, T_SEND };

typedef struct conn {
    int fd;                /* -1 once closed */
    bool sending, receiving; /* a send, a recv (or a multishot recv) in flight: freed when neither */
    size_t len, off;       /* pend[off, len) not yet sent */
    char pend[PEND];
} conn_t;

typedef struct loop {
    struct io_uring ring;
    struct io_uring_buf_ring *br;
    char *pool;
} loop_t;

static int lfd, multi;
static long exit_after;
static _Atomic long closed;

static _Noreturn void fail(const char *what, int err)
{
    fprintf(stderr, "echo_uring: %s: %s\n", what, strerror(err));
    exit(1);
}

static uint64_t tag(int t, void *p) { return (uint64_t)(uintptr_t)p | (uint64_t)t; } /* conn_t is 8-aligned */

static struct io_uring_sqe *sqe_get(loop_t *l)
{
    struct io_uring_sqe *s = io_uring_get_sqe(&l->ring);
    if (!s) {
        io_uring_submit(&l->ring);
        s = io_uring_get_sqe(&l->ring);
    }
    if (!s) fail("no SQE", EBUSY);
    return s;
}

static void arm_accept(loop_t *l)
{
    struct io_uring_sqe *s = sqe_get(l);
    io_uring_prep_multishot_accept(s, lfd, NULL, NULL, 0);
    io_uring_sqe_set_data64(s, tag(T_ACCEPT, NULL));
}

static void arm_recv(loop_t *l, conn_t *c)
{
    struct io_uring_sqe *s = sqe_get(l);
    if (multi) {
        io_uring_prep_recv_multishot(s, c->fd, NULL, 0, 0);
        s->flags |= IOSQE_BUFFER_SELECT;
        s->buf_group = 0;
    } else {
        io_uring_prep_recv(s, c->fd, c->pend, PEND, 0);
    }
    io_uring_sqe_set_data64(s, tag(T_RECV, c));
    c->receiving = true;
}

static void send_pending(loop_t *l, conn_t *c)
{
    struct io_uring_sqe *s = sqe_get(l);
    io_uring_prep_send(s, c->fd, c->pend + c->off, c->len - c->off, MSG_NOSIGNAL);
    io_uring_sqe_set_data64(s, tag(T_SEND, c));
    c->sending = true;
}

/* Close once; shutdown first, so that a multishot recv still armed ends (closing the
 * descriptor alone would not: the request holds the file). */
static void drop(conn_t *c)
{
    if (c->fd < 0) return;
    shutdown(c->fd, SHUT_RDWR);
    close(c->fd);
    c->fd = -1;
    if (exit_after && atomic_fetch_add(&closed, 1) + 1 == exit_after) exit(0);
}

static void maybe_free(conn_t *c)
{
    if (c->fd < 0 && !c->sending && !c->receiving) free(c);
}

static void on_recv(loop_t *l, conn_t *c, struct io_uring_cqe *cqe)
{
    if (!(cqe->flags & IORING_CQE_F_MORE)) c->receiving = false;
    char *b = NULL;
    if (cqe->flags & IORING_CQE_F_BUFFER) { /* multi: the buffer the kernel picked */
        int bid = (int)(cqe->flags >> IORING_CQE_BUFFER_SHIFT);
        b = l->pool + (size_t)bid * BUFSZ;
        if (cqe->res > 0 && c->fd >= 0) {
            if (c->len + (size_t)cqe->res > PEND) fail("a connection sent more than its pending buffer holds", ENOSPC);
            memcpy(c->pend + c->len, b, (size_t)cqe->res);
        }
        io_uring_buf_ring_add(l->br, b, BUFSZ, (unsigned short)bid, io_uring_buf_ring_mask(NBUF), 0);
        io_uring_buf_ring_advance(l->br, 1);
    }
    if (c->fd < 0) {
        maybe_free(c);
        return;
    }
    if (cqe->res == -ENOBUFS) { /* the ring ran dry: the multishot ended, start it again */
        arm_recv(l, c);
        return;
    }
    if (cqe->res <= 0) {
        drop(c);
        maybe_free(c);
        return;
    }
    size_t n = (size_t)cqe->res;
    if (multi) {
        c->len += n;
        if (!c->receiving) arm_recv(l, c);
    } else {
        c->len = n; /* received into pend[0, n) */
        c->off = 0;
    }
    if (!c->sending) send_pending(l, c);
}

static void on_send(loop_t *l, conn_t *c, int res)
{
    c->sending = false;
    if (res < 0) drop(c);
    if (c->fd < 0) {
        maybe_free(c);
        return;
    }
    c->off += (size_t)res;
    if (c->off < c->len) {
        send_pending(l, c);
        return;
    }
    c->off = c->len = 0;
    if (!multi) arm_recv(l, c);
}

static void on_accept(loop_t *l, struct io_uring_cqe *cqe)
{
    if (cqe->res >= 0) {
        conn_t *c = malloc(sizeof *c);
        if (!c) fail("malloc", ENOMEM);
        c->fd = cqe->res;
        c->sending = c->receiving = false;
        c->len = c->off = 0;
        int one = 1;
        setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        arm_recv(l, c);
    } else if (cqe->res != -EAGAIN && cqe->res != -EMFILE && cqe->res != -ENFILE && cqe->res != -ECONNABORTED) {
        fail("accept", -cqe->res);
    }
    if (!(cqe->flags & IORING_CQE_F_MORE)) arm_accept(l);
}

static void *run(void *arg)
{
    loop_t *l = arg;
    struct io_uring_params p = {
        .flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_COOP_TASKRUN | IORING_SETUP_CQSIZE,
        .cq_entries = CQ_ENTRIES,
    };
    int rc = io_uring_queue_init_params(SQ_ENTRIES, &l->ring, &p);
    if (rc < 0) fail("io_uring_queue_init", -rc);
    if (multi) { /* liburing 2.3 (Debian 12): the buffer ring is mapped and registered by hand */
        l->br = mmap(NULL, NBUF * sizeof(struct io_uring_buf), PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
        l->pool = malloc((size_t)NBUF * BUFSZ);
        if (l->br == MAP_FAILED || !l->pool) fail("buffer ring memory", ENOMEM);
        io_uring_buf_ring_init(l->br);
        struct io_uring_buf_reg reg = {.ring_addr = (uintptr_t)l->br, .ring_entries = NBUF, .bgid = 0};
        rc = io_uring_register_buf_ring(&l->ring, &reg, 0);
        if (rc < 0) fail("io_uring_register_buf_ring", -rc);
        for (int i = 0; i < NBUF; i++)
            io_uring_buf_ring_add(l->br, l->pool + (size_t)i * BUFSZ, BUFSZ, (unsigned short)i, io_uring_buf_ring_mask(NBUF), i);
        io_uring_buf_ring_advance(l->br, NBUF);
    }
    arm_accept(l);
    for (;;) {
        rc = io_uring_submit_and_wait(&l->ring, 1);
        if (rc < 0 && rc != -EINTR && rc != -EBUSY) fail("io_uring_submit_and_wait", -rc);
        unsigned head, seen = 0;
        struct io_uring_cqe *cqe;
        io_uring_for_each_cqe(&l->ring, head, cqe) {
            seen++;
            uint64_t ud = io_uring_cqe_get_data64(cqe);
            conn_t *c = (conn_t *)(uintptr_t)(ud & ~(uint64_t)7);
            switch ((int)(ud & 7)) {
            case T_ACCEPT: on_accept(l, cqe); break;
            case T_RECV: on_recv(l, c, cqe); break;
            default: on_send(l, c, cqe->res); break;
            }
        }
        io_uring_cq_advance(&l->ring, seen);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    struct io_uring probe; /* before READY: a machine without io_uring says so at once */
    int rc = io_uring_queue_init(8, &probe, 0);
    if (rc < 0) {
        fprintf(stderr, "echo_uring: io_uring unavailable: %s\n", strerror(-rc));
        return 1;
    }
    io_uring_queue_exit(&probe);
    lfd = echo_listen(argc > 1 ? atoi(argv[1]) : 0);
    exit_after = argc > 2 ? atol(argv[2]) : 0;
    multi = argc > 3 && !strcmp(argv[3], "multi");
    if (argc > 3 && !multi && strcmp(argv[3], "single")) {
        fprintf(stderr, "usage: echo_uring PORT [N [single|multi [THREADS]]]\n");
        return 1;
    }
    long threads = argc > 4 ? atol(argv[4]) : 1;
    if (threads <= 0) threads = sysconf(_SC_NPROCESSORS_ONLN);
    if (threads < 1 || threads > 64) threads = 1;
    static loop_t loops[64];
    for (long i = 1; i < threads; i++) {
        pthread_t t;
        if (pthread_create(&t, NULL, run, &loops[i]) != 0) fail("pthread_create", EAGAIN);
    }
    run(&loops[0]);
    return 0;
}
