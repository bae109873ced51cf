/* uring.c: the io_uring backend. The submission ring is the common area: a request is
 * written into an SQE when posted, and one io_uring_submit() per bucket crosses into
 * the kernel for all of them. Completions are reaped without a system call (peek),
 * and the ring's eventfd lets an idle worker sleep until one arrives. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "wsc.h"

#if defined(ITOI_HAVE_URING)

/* The completion eventfd is on only while the worker sleeps: writing it costs the
 * kernel about 165 ns per crossing here (measured), which a busy worker does not need
 * since its poller peeks at the completion ring anyway. */
static bool uring_before_sleep(itoi_worker_t *w)
{
    itoi_wscw_t *a = itoi_wsc_area_if_ready(w);
    if (!a || !a->uring) return false;
    io_uring_cq_eventfd_toggle(&a->ring, true);
    return io_uring_cq_ready(&a->ring) != 0; /* arrived before the toggle: do not sleep */
}

static void uring_after_sleep(itoi_worker_t *w)
{
    itoi_wscw_t *a = itoi_wsc_area_if_ready(w);
    if (a && a->uring) io_uring_cq_eventfd_toggle(&a->ring, false);
}

int itoi_uring_setup(itoi_worker_t *w, itoi_wscw_t *a)
{
    int rc = io_uring_queue_init(128, &a->ring, 0);
    if (rc < 0) return rc; /* -EPERM (seccomp), -ENOSYS, -ENOMEM (locked memory) */
    a->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (a->efd < 0 || io_uring_register_eventfd(&a->ring, a->efd) < 0 ||
        itoi_worker_watch_fd(w, a->efd) != ITO_OK) {
        if (a->efd >= 0) close(a->efd);
        a->efd = -1;
        io_uring_queue_exit(&a->ring);
        return -EIO;
    }
    io_uring_cq_eventfd_toggle(&a->ring, false);
    itoi_sleep_hooks_add(uring_before_sleep, uring_after_sleep);
    return 0;
}

void itoi_uring_teardown(itoi_worker_t *w, itoi_wscw_t *a)
{
    itoi_worker_unwatch_fd(w, a->efd);
    close(a->efd);
    io_uring_queue_exit(&a->ring);
}

int itoi_uring_queue(itoi_wscw_t *a, itoi_sysrec_t *r)
{
    const ito_sysreq_t *q = &r->req;
    if (q->op == ITO_SYS_GETPID) return 1;
    struct io_uring_sqe *sqe = io_uring_get_sqe(&a->ring);
    if (!sqe) { /* ring full: this is a bucket too */
        itoi_uring_submit(a);
        sqe = io_uring_get_sqe(&a->ring);
        if (!sqe) return 1;
    }
    switch (q->op) {
    case ITO_SYS_NOP: io_uring_prep_nop(sqe); break;
    case ITO_SYS_READ: io_uring_prep_read(sqe, q->fd, q->buf, (unsigned)q->len, (uint64_t)-1); break;
    case ITO_SYS_WRITE: io_uring_prep_write(sqe, q->fd, q->buf, (unsigned)q->len, (uint64_t)-1); break;
    case ITO_SYS_SEND: io_uring_prep_send(sqe, q->fd, q->buf, q->len, q->flags | MSG_NOSIGNAL); break;
    case ITO_SYS_RECV: io_uring_prep_recv(sqe, q->fd, q->buf, q->len, q->flags); break;
    case ITO_SYS_ACCEPT: io_uring_prep_accept(sqe, q->fd, q->addr, q->addrlen, q->flags); break;
    case ITO_SYS_CONNECT: io_uring_prep_connect(sqe, q->fd, q->addr, q->addr_len); break;
    case ITO_SYS_CLOSE: io_uring_prep_close(sqe, q->fd); break;
    default: io_uring_prep_nop(sqe); break; /* not reached: ops are checked at post */
    }
    io_uring_sqe_set_data(sqe, r);
    a->sq_pending++;
    return 0;
}

void itoi_uring_submit(itoi_wscw_t *a)
{
    if (!a->sq_pending) return;
    int n = io_uring_submit(&a->ring);
    ITOI_BUMP(a->st.crossings);
    if (n > 0) {
        a->inflight += (size_t)n;
        itoi_self_worker()->io_pending = a->inflight;
        a->sq_pending -= (size_t)n < a->sq_pending ? (size_t)n : a->sq_pending;
    }
}

size_t itoi_uring_reap(itoi_worker_t *w, itoi_wscw_t *a)
{
    uint64_t v;
    ssize_t rd = read(a->efd, &v, sizeof v); /* drain the (level-triggered) eventfd */
    (void)rd;
    size_t n = 0;
    struct io_uring_cqe *cqe;
    while (a->inflight && io_uring_peek_cqe(&a->ring, &cqe) == 0 && cqe) {
        itoi_sysrec_t *r = io_uring_cqe_get_data(cqe);
        long res = cqe->res;
        io_uring_cqe_seen(&a->ring, cqe);
        a->inflight--;
        w->io_pending = a->inflight;
        itoi_wsc_complete(w, a, r, res);
        n++;
    }
    return n;
}

#else /* no liburing at build time: the sync backend only */

int itoi_uring_setup(itoi_worker_t *w, itoi_wscw_t *a) { (void)w; (void)a; return -ENOSYS; }
void itoi_uring_teardown(itoi_worker_t *w, itoi_wscw_t *a) { (void)w; (void)a; }
int itoi_uring_queue(itoi_wscw_t *a, itoi_sysrec_t *r) { (void)a; (void)r; return 1; }
void itoi_uring_submit(itoi_wscw_t *a) { (void)a; }
size_t itoi_uring_reap(itoi_worker_t *w, itoi_wscw_t *a) { (void)w; (void)a; return 0; }

#endif
