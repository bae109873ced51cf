/* ito/syscall.h: split-phase system calls and Wrapped System Calls (WSC), after CEFOS.
 *
 * A ULT or ZWT posts a request {operation, arguments, result address, continuation}
 * into the worker's common area (the DRD analog: the io_uring submission ring, or a
 * plain array for the fallback backend) and goes on. Requests are buffered until the
 * threshold K is reached, then cross into the kernel once for the whole bucket. Other
 * flushes: whenever the worker has no thread ready to run (buffered requests never
 * stall an idle runtime), after an optional latency bound, on ito_wsc_flush(), and at
 * ito_finalize (requests that cannot complete then get -ECANCELED; none is lost).
 * Each result (a count, or -errno) is stored at the result address and then delivered
 * to the continuation: a ZWT entry fires with the result as its value, or the ULT that
 * used a blocking wrapper wakes.
 *
 * Backends: "uring" (liburing; one io_uring_submit per bucket; operations io_uring has
 * no opcode for, such as getpid, are run by the flusher, one syscall each) and "sync"
 * (the flusher runs each request itself, non-blocking, retrying those that would
 * block). Chosen at ito_init: uring when the kernel allows it (it may refuse under
 * seccomp or the locked-memory limit), else sync; ITO_WSC_BACKEND=uring|sync forces
 * one. ITO_WSC_THRESHOLD and ITO_WSC_LATENCY_US set the initial policy. */
#ifndef ITO_SYSCALL_H
#define ITO_SYSCALL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include "error.h"
#include "zwt.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

typedef enum ito_sysop {
    ITO_SYS_NOP = 0,   /* a kernel crossing that does nothing (io_uring's NOP) */
    ITO_SYS_GETPID,    /* a thin call with no io_uring opcode */
    ITO_SYS_READ,
    ITO_SYS_WRITE,
    ITO_SYS_SEND,
    ITO_SYS_RECV,
    ITO_SYS_ACCEPT,
    ITO_SYS_CONNECT,
    ITO_SYS_CLOSE,
    ITO_SYS_OP_COUNT
} ito_sysop_t;

typedef struct ito_sysreq {
    ito_sysop_t op;
    int fd;
    void *buf;                  /* READ, WRITE, SEND, RECV */
    size_t len;
    int flags;                  /* SEND, RECV (MSG_*), ACCEPT (SOCK_*) */
    struct sockaddr *addr;      /* ACCEPT (may be NULL), CONNECT */
    socklen_t *addrlen;         /* ACCEPT (may be NULL) */
    socklen_t addr_len;         /* CONNECT */
    long *result;               /* where the result goes (may be NULL) */
    ito_frame_t *frame;         /* the continuation thread: fired with the result */
    int entry;                  /*   (frame NULL: no continuation) */
} ito_sysreq_t;

enum { ITO_WSC_SYNC = 0, ITO_WSC_URING = 1 };

int ito_sys_post(const ito_sysreq_t *req);      /* split-phase: returns at once */
int ito_wsc_set_threshold(int k);               /* 1..64 */
int ito_wsc_set_latency_us(unsigned us);        /* 0: no latency bound; max 1 s */
int ito_wsc_flush(void);                        /* this worker's bucket, now */
int ito_wsc_backend(void);                      /* ITO_WSC_URING or ITO_WSC_SYNC */

typedef struct ito_wsc_stats {
    uint64_t posted, completed, crossings;      /* crossings: submits (uring) or syscalls (sync) */
    uint64_t flush_threshold, flush_idle, flush_latency, flush_explicit;
} ito_wsc_stats_t;
int ito_wsc_stats(ito_wsc_stats_t *out);

/* Blocking-style wrappers for ULTs: post, park until the result, return it like the
 * POSIX call (-1 and errno on error). Outside a ULT they return -1 with errno = EPERM. */
ssize_t ito_read(int fd, void *buf, size_t len);
ssize_t ito_write(int fd, const void *buf, size_t len);
ssize_t ito_send(int fd, const void *buf, size_t len, int flags);
ssize_t ito_recv(int fd, void *buf, size_t len, int flags);
int ito_accept(int fd, struct sockaddr *addr, socklen_t *addrlen);
int ito_connect(int fd, const struct sockaddr *addr, socklen_t len);
int ito_close(int fd);
long ito_getpid(void);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
