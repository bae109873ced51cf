/* wrappers.c: blocking-style system calls for ULTs on top of split-phase requests.
 * The ULT posts its request with itself as the continuation and parks; its worker's
 * scheduler context completes the request (after the bucket's crossing) and wakes it.
 * If the request completed inside the post (a threshold of 1 with the sync backend, or
 * a thin call), the ULT does not park at all. */
#define _GNU_SOURCE
#include <errno.h>

#include "wsc.h"

int itoi_wsc_post(itoi_worker_t *w, const ito_sysreq_t *req, itoi_ult_t *ult, itoi_sysrec_t **out);

static long call(ito_sysreq_t *q)
{
    itoi_worker_t *w = itoi_self_worker();
    if (!w || !w->cur) return -EPERM;
    itoi_sysrec_t *r;
    int rc = itoi_wsc_post(w, q, w->cur, &r);
    if (rc != ITO_OK) return rc == ITO_ENOMEM ? -ENOMEM : rc == ITO_EINVAL ? -EINVAL : -ENOSYS;
    if (!r->done) {
        r->parked = 1;
        itoi_block(w, NULL, NULL);
    }
    long res = r->res;
    /* Back on some worker: the record goes to that worker's free list. */
    itoi_worker_t *now = itoi_self_worker();
    itoi_wscw_t *a = itoi_wsc_area(now);
    r->next = a->free;
    a->free = r;
    return res;
}

static long ret(long r)
{
    if (r < 0) {
        errno = (int)-r;
        return -1;
    }
    return r;
}

ssize_t ito_read(int fd, void *buf, size_t len)
{
    ito_sysreq_t q = {.op = ITO_SYS_READ, .fd = fd, .buf = buf, .len = len};
    return ret(call(&q));
}

ssize_t ito_write(int fd, const void *buf, size_t len)
{
    ito_sysreq_t q = {.op = ITO_SYS_WRITE, .fd = fd, .buf = (void *)buf, .len = len};
    return ret(call(&q));
}

ssize_t ito_send(int fd, const void *buf, size_t len, int flags)
{
    ito_sysreq_t q = {.op = ITO_SYS_SEND, .fd = fd, .buf = (void *)buf, .len = len, .flags = flags};
    return ret(call(&q));
}

ssize_t ito_recv(int fd, void *buf, size_t len, int flags)
{
    ito_sysreq_t q = {.op = ITO_SYS_RECV, .fd = fd, .buf = buf, .len = len, .flags = flags};
    return ret(call(&q));
}

int ito_accept(int fd, struct sockaddr *addr, socklen_t *addrlen)
{
    ito_sysreq_t q = {.op = ITO_SYS_ACCEPT, .fd = fd, .addr = addr, .addrlen = addrlen};
    return (int)ret(call(&q));
}

int ito_connect(int fd, const struct sockaddr *addr, socklen_t len)
{
    ito_sysreq_t q = {.op = ITO_SYS_CONNECT, .fd = fd, .addr = (struct sockaddr *)addr, .addr_len = len};
    return (int)ret(call(&q));
}

int ito_close(int fd)
{
    ito_sysreq_t q = {.op = ITO_SYS_CLOSE, .fd = fd};
    return (int)ret(call(&q));
}

long ito_getpid(void)
{
    ito_sysreq_t q = {.op = ITO_SYS_GETPID};
    return ret(call(&q));
}
