/* sync.c: running a request in the calling thread: the fallback backend, and the calls
 * io_uring has no opcode for. With `nonblocking`, calls that could wait are made so
 * that they return -EAGAIN instead (the caller retries them later). */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "wsc.h"

static int would_block(int fd, short ev)
{
    struct pollfd p = {.fd = fd, .events = ev};
    int n = poll(&p, 1, 0);
    return n == 0; /* not ready; errors (n < 0, POLLNVAL) are left to the call itself */
}

long itoi_wsc_run_now(const ito_sysreq_t *q, int nonblocking)
{
    long r;
    int dw = nonblocking ? MSG_DONTWAIT : 0;
    switch (q->op) {
    case ITO_SYS_NOP: r = 0; break;
    case ITO_SYS_GETPID: r = syscall(SYS_getpid); break;
    case ITO_SYS_READ:
        if (nonblocking && would_block(q->fd, POLLIN)) return -EAGAIN;
        r = read(q->fd, q->buf, q->len);
        break;
    case ITO_SYS_WRITE:
        if (nonblocking && would_block(q->fd, POLLOUT)) return -EAGAIN;
        r = write(q->fd, q->buf, q->len);
        break;
    case ITO_SYS_SEND: r = send(q->fd, q->buf, q->len, q->flags | dw | MSG_NOSIGNAL); break;
    case ITO_SYS_RECV: r = recv(q->fd, q->buf, q->len, q->flags | dw); break;
    case ITO_SYS_ACCEPT:
        if (nonblocking && would_block(q->fd, POLLIN)) return -EAGAIN;
        r = accept4(q->fd, q->addr, q->addrlen, q->flags);
        break;
    case ITO_SYS_CONNECT: r = connect(q->fd, q->addr, q->addr_len); break;
    case ITO_SYS_CLOSE: r = close(q->fd); break;
    default: return -EINVAL;
    }
    if (r < 0) {
        r = -errno;
        if (r == -EWOULDBLOCK) r = -EAGAIN;
    }
    return r;
}
