/**
 * @file
 * @brief Split-phase system calls and Wrapped System Calls (WSC), after CEFOS.
 *
 * A ULT or ZWT posts a request {operation, arguments, result address, continuation}
 * into its worker's common area (the DRD analog: the io_uring submission ring) and goes
 * on. Requests are buffered while the worker has other threads to run; the bucket
 * crosses into the kernel once for all of them when no thread of the worker can run
 * (the paper's design), when K requests are buffered (the threshold), at the busy
 * worker's visit of its scheduler context (at least every 64 scheduling points), or when
 * the oldest has waited the latency bound (see ito_wsc_set_latency_us). Each result (a count, or
 * -errno) is stored at the result address and delivered to the continuation: a ZWT
 * entry fires with the result as its value, or the ULT that used a blocking wrapper
 * wakes.
 *
 * Backends, chosen at ito_init: "uring" (liburing: one io_uring_enter per bucket;
 * operations io_uring has no opcode for, such as getpid, are run by the flusher) when the
 * kernel allows it, else "sync" (also forced by ITO_WSC_BACKEND=sync). The sync backend
 * never blocks a worker: sockets, pipes and other pollable descriptors are used
 * non-blocking and wait for readiness in the worker's epoll (as a netpoller does; a
 * socket that ito_accept or ito_connect is used on is put in O_NONBLOCK mode); regular
 * files and other calls that can only block (openat, fsync) run on a small pool of
 * helper threads. A ULT waiting for I/O costs no CPU on either backend.
 * If the kernel refuses io_uring_enter after ito_init (a seccomp filter the program
 * installs once started), each worker that meets the refusal says so on stderr once: the
 * requests it had queued fail with the refusal's errno (EPERM), and it runs every later
 * request as the sync backend does. Requests the kernel had taken before complete as
 * usual but can no longer be cancelled: a deadline, ito_cancel_io, ito_close and
 * ito_finalize wait for them to end by themselves. Each worker's descriptors (its ring and
 * the ring's eventfd and its readiness epoll, or the sync backend's epoll) are made by
 * ito_init, with those of its idle sleep: up to 5 per worker, so no wrapper call ever
 * needs one of the runtime's own (a process at RLIMIT_NOFILE gets EMFILE from ito_accept
 * or ito_openat, as from accept(2), never from a receive or a send); out of them, ito_init
 * fails with ITO_ENOMEM and one line on stderr names the limit (until 2026-12-07 a
 * worker's first I/O made them, and failed with EMFILE; an io_uring worker's readiness
 * epoll was made at its first wait there, so an ito_send or ito_sendmsg that found no
 * room at RLIMIT_NOFILE failed with EMFILE after part of the transfer had moved).
 * A worker whose ring cannot be made at ito_init for want of memory (ENOMEM:
 * RLIMIT_MEMLOCK before Linux 5.12, a memory cgroup at its limit) is a sync-backend
 * worker, unless ITO_WSC_BACKEND=uring asks for the ring (ito_init's ITO_ENOMEM). So is a
 * worker on a kernel whose io_uring lacks an operation ito's requests use (asked with
 * IORING_REGISTER_PROBE at ito_init; Linux 5.1-5.5 have neither the probe nor READ, WRITE,
 * SEND, RECV, OPENAT and CLOSE): ITO_WSC_BACKEND=uring then makes ito_init fail with
 * ITO_ENOSYS and one line naming the operation.
 * Descriptors that can be neither (a tty, inotify; and a "regular file" of size 0 of
 * /proc, tracefs or debugfs that poll(2) finds not ready, whose read waits for an event:
 * /proc/kmsg, trace_pipe) wait for readiness in the epoll and are then read on a helper,
 * which asks for no more than is there (FIONREAD): a raw tty's
 * VMIN/VTIME framing is not kept (a read returns the bytes that have come, as io_uring
 * does). A write to such a descriptor waits for room on a helper, and one larger than the
 * room left can block that helper in write(2) until a reader takes the bytes (a pty nobody
 * reads): known limit, 2026-12-03.
 *
 * Blocking wrappers (ito_read ... ito_poll) are for ULTs. They return like the POSIX
 * call: the result, or -1 with errno. A call that completes at once (a ready socket or
 * pipe on the sync backend, a regular file in the page cache, an ito_poll that finds an
 * event, ito_close) does not park; so that a ULT looping over such calls does not keep its
 * worker from its timers and its other ULTs, every 16th wrapper call (ito_sys_wait_all
 * included) of a ULT in a row with no scheduling point between them yields first (not
 * inside a preemption-safe region, preempt.h; until
 * 2026-12-07 none did: a `while (!stop)` loop of ready I/O never saw the stop that main,
 * asleep on the same worker, was to set). So any wrapper call may switch the ULT, and
 * move it to another worker, whether or not it waits. Besides the call's own errors:
 *   ETIMEDOUT  the ULT's I/O deadline (ito_io_deadline) passed first; the request was
 *              cancelled (a read or write may still have moved bytes before: the count
 *              is returned then, not the error). A deadline already passed makes the
 *              call a try; a call that ends by itself (on a regular file, directory or
 *              block device, ito_fsync, ito_openat of such a path) then runs to its end,
 *              as O_NONBLOCK, which such files ignore. A deadline that passes while
 *              such a call waits in the kernel's queue (io_uring's workers) or for a
 *              helper thread still cancels it: ETIMEDOUT, and the call had no effect
 *              (nothing written); one the kernel has begun runs to its end and returns
 *              its result. (Known limit, 2026-12-04: on the
 *              sync backend a descriptor that needs a helper thread, such as inotify's
 *              or a tty, is not tried then: ETIMEDOUT even when it is ready.);
 *   ECANCELED  ito_cancel_io() was called for the ULT, or ito_finalize cancelled the
 *              request because it could never complete by itself;
 *   EBADF      another ULT closed the descriptor with ito_close while this one waited;
 *   ENOMEM     no memory for the request record, or (sync backend) for the worker's
 *              readiness table when a wait needs it to grow to a higher descriptor, or
 *              for the kernel's watch of the worker's ring or epoll at its first I/O;
 *   EPERM      the caller is not a ULT (a foreign thread, or a ZWT: ZWTs use ito_sys_post;
 *              also any thread in the child of a fork, see thread.h); also the kernel's own
 *              EPERM, passed on: a call the kernel refuses, or (sync backend) a worker's
 *              first I/O whose epoll instance a seccomp or LSM policy refuses;
 *   EAGAIN     (sync backend) a call that needs a helper thread (regular files past the
 *              page cache, openat, fsync) when none can be started (RLIMIT_NPROC, a
 *              pids cgroup), as pthread_create fails; (io_uring) a request the kernel
 *              gave up 8 times in a row before running it (it ends such a request with
 *              -ECANCELED when it cannot start the worker thread that would run it, e.g.
 *              while a signal such as a preemption tick is pending; the wrapper runs it
 *              again, since it had no effect). A ZWT's request (ito_sys_post) gets that
 *              -ECANCELED as its result;
 *   EFAULT     a NULL buffer, vector or pollfd array with a non-zero length, or a NULL
 *              message, address or path; also a buffer of ito_read, ito_write, ito_pread,
 *              ito_pwrite or ito_send whose length runs past the top of user space (such
 *              as (size_t)-1), as read(2) and the others say it (until 2026-12-07 the
 *              length was clamped first: ito_pread wrote past the buffer, ito_write to
 *              /dev/null claimed 2^64 bytes; ito_recv clamps, as recv(2) does);
 *              all checked before anything is posted (nothing
 *              reaches the kernel with it; other bad pointers reach the kernel, which says
 *              EFAULT). In the kernel's order: a negative ito_pread/ito_pwrite offset is
 *              EINVAL and a descriptor that is not open EBADF before it; errors the kernel
 *              finds in an open descriptor before the pointer (ESPIPE, ENOTSOCK, EBADF for
 *              the access mode) are EFAULT here. Two NULLs go to the kernel as valid: an
 *              ito_recv buffer with MSG_TRUNC (a TCP receive that discards) and an
 *              ito_connect address of length 0 (the kernel's EINVAL). Also not in the
 *              kernel's order: a vector count out of range (ito_readv, ito_writev) is EINVAL
 *              before an access-mode EBADF, which readv(2) gives first; and a read of 0
 *              bytes (ito_read, ito_pread) returns 0 on a directory, as readv(2) of an
 *              empty vector does, where read(2) says EISDIR; so does, where read(2) and
 *              write(2) say EINVAL (a count below 8), an ito_write of 0 bytes on an
 *              eventfd (both backends) and, on the sync backend, an ito_read of 0 bytes
 *              on an eventfd or timerfd (outside tester h78b, 2026-12-08);
 *
 * Whole transfers: ito_write, ito_writev, ito_send and ito_sendmsg return when every byte
 * has moved, as write(2) and send(2) on a blocking descriptor do (except that those move
 * at most 0x7ffff000 bytes a call: on a pipe, socket or character device, /dev/null
 * included, the wrapper goes on past that and returns the whole count; io_uring and the
 * non-blocking attempt of the sync backend move what fits, a pipe's free space or a
 * socket's buffer: the wrapper goes on with the rest; a regular file or block device takes
 * everything in one call unless a limit stops it, RLIMIT_FSIZE or a full disk, and that
 * short count is returned as write(2) returns it); so do ito_recv and ito_recvmsg with
 * MSG_WAITALL, until end of file. A part that fails after others moved ends the call with
 * the count so far (the error comes again on the next call, as after a partial write(2));
 * so do the deadline, ito_cancel_io, ito_close and finalize. (Known limit, 2026-12-06: so
 * may two or more ito_closes of other numbers a multiple of 4096 away from the call's,
 * landing before its second part starts, e.g. while its first part waits; one such close
 * does not, see src/wsc/whole.c. An ito_close of the call's own number from another ULT
 * or worker ends the call before its next part, however the close and a new descriptor
 * taking the number interleave with it: until 2026-12-07 both landing while the caller's
 * worker thread was between starting a later part and posting it could send the rest to
 * the new descriptor. Closing the number the caller waits on ends the call, see ito_close.) An error the socket reports
 * only once (ECONNRESET, ECONNABORTED, ECONNREFUSED, EHOSTUNREACH, ENETUNREACH, ENETDOWN,
 * EHOSTDOWN, and ETIMEDOUT before the ULT's deadline) is kept by ito for the next wrapper
 * call on the same number while it names the same socket: a send or write fails with it
 * at once, a read or receive gets it in place of end of file (after the data still
 * queued), as the kernel reports it. Limits: it is not seen through another number
 * (dup), by ito_poll (no POLLERR), SO_ERROR (0) or a request posted with ito_sys_post;
 * ito_close of the number drops it; at most 64 are kept at once (the oldest is dropped). The wrappers wait for a
 * descriptor whatever its O_NONBLOCK mode (as io_uring does, on both backends); MSG_DONTWAIT
 * makes one attempt (EAGAIN, or a partial count, as send(2)/recv(2); it waits for nothing,
 * though on io_uring the ULT is switched out until the ring gives the attempt's result
 * back, as for any request there), and so does MSG_ERRQUEUE (an empty error queue is
 * EAGAIN at once, as recvmsg(2) says). A request posted
 * with ito_sys_post is one call: a short count is its result. The socket timeouts
 * SO_RCVTIMEO and SO_SNDTIMEO do not apply to the wrappers (io_uring ignores them too):
 * ito_io_deadline is their deadline. Nor does SO_RCVLOWAT: a receive returns what has
 * come (at least one byte), where recv(2) waits for the low-water mark. Shutdown: a
 * send blocked on a full unix *stream* socket is not ended by a plain shutdown(2) SHUT_WR
 * of it by the program, on either backend (the kernel's poll reports nothing for it, as
 * any poll-based loop sees; SHUT_RDWR, SHUT_RD and TCP are fine): use ito_shutdown, which
 * ends it (EPIPE) as shutdown(2) ends a blocked send(2). ito_send and ito_sendmsg never raise SIGPIPE: they
 * send with MSG_NOSIGNAL, so a peer that closed gives -1/EPIPE only (the signal would
 * come to whichever thread runs the request: a worker or io_uring's, not the caller);
 * ito_write and ito_writev on a socket or pipe raise it as write(2) does.
 * File position: ito_read, ito_write, ito_readv and ito_writev on a regular file (or a
 * directory; told by one fstat per call, on a socket or pipe too: servers use ito_recv
 * and ito_send) run as on the sync backend on both backends (RWF_NOWAIT, else a helper
 * thread): io_uring's reads and writes at the file position take no position lock, and
 * ULTs on two workers sharing a descriptor overwrote each other's writes and read the
 * same bytes twice, where read(2) and write(2) are atomic with respect to the position
 * (2026-12-06). A read there that finds only part of its range in the page cache
 * moves the position back for a helper thread to read the whole, under a lock of the
 * file that ito's reads at its position share: a plain read(2) of the same open file by
 * a thread outside ito may still come in between (known limit). Requests at the file
 * position posted with ito_sys_post or ito_sys_wait_all on io_uring are io_uring's: not
 * atomic with respect to the position.
 * Regular files past a limit, io_uring backend (known limits, 2026-12-05, the kernel's:
 * Linux 6.18's io_uring, a plain liburing program shows both): an ito_pwrite past
 * RLIMIT_FSIZE returns EFBIG without SIGXFSZ (write(2) raises it, whose default ends the
 * process); and a short write at the file position posted with ito_sys_post (the limit
 * or a full disk stopped it) leaves the position where the write began, not after the
 * bytes written, so a next write at the position writes over them.
 *
 * Finalize: posted requests and ULTs parked in wrappers are live work. ito_finalize
 * waits for them; once nothing has progressed for the grace period it cancels requests
 * on descriptors that are not regular files (they could wait for ever): their result is
 * -ECANCELED and parked ULTs wake and run to their end. A ULT's I/O deadline or an
 * ito_poll timeout does not delay this (it bounds the wait, it is not work): a wrapper
 * waiting with a deadline a minute away is cancelled after the grace period all the same.
 * Requests on regular files are always waited for: no written byte is lost; so is an
 * ito_openat whose path names a regular file, directory or block device, or nothing yet
 * (an open of a character device, FIFO or socket may wait for ever and is cancelled;
 * so is an openat a ZWT posted on io_uring, whose path finalize cannot read). A readiness
 * wait whose descriptor is ready when the cancel pass looks is left to complete. After the
 * cancel pass a new call on such a descriptor still runs if it can without waiting (a last
 * reply, a log line to a pipe): only a wait ends at once with ECANCELED (ito_accept and
 * ito_connect end at once, untried). If finalize then
 * returns ITO_EBUSY, waits work as before.
 *
 * File systems that are slow or stop answering (FUSE, NFS, other network file systems;
 * checked with a FUSE file system whose every call can be delayed or held, 2026-12-07):
 * their reads, writes, opens and fsyncs are regular-file calls, run by a helper thread
 * (sync backend; ito_read, ito_write, ito_readv and ito_writev at the file position on
 * both) or by io_uring's own workers (the rest on io_uring), not by a worker (but see
 * the known limits below): the other ULTs of the caller's worker go on running while such a call
 * waits. The worker's own look at a descriptor's type asks no server (statx with
 * AT_STATX_DONT_SYNC), and ito_close of a regular file runs close(2), which waits for the
 * file system's flush (FUSE's FLUSH, NFS's write-back of dirty pages), off the worker too
 * (a helper thread on the sync backend, io_uring's own workers on io_uring), while the
 * caller parks; that close is never cancelled (close(2) cannot be restarted): neither
 * ito_cancel_io nor the I/O deadline ends it, and finalize waits for it. A call the kernel has begun on such a file system waits for the
 * server's answer, as the same call in a pthread would: ito_cancel_io and the I/O
 * deadline do not end it (the ULT wakes when the server answers, with the call's
 * result; so it was for reads, writes, fsyncs and opens on both backends, also with a
 * server that honours FUSE's interrupts), and only a call still waiting for a helper
 * thread or in io_uring's queue ends with ECANCELED or ETIMEDOUT. ito_finalize waits for such calls as
 * for any regular-file call (see Finalize above): while the server does not answer,
 * finalize does not return, and waits on sockets and pipes are not cancelled meanwhile
 * (the file call counts as work in progress); once the server answers, the call's ULT
 * runs to its end and finalize returns as usual (nothing is freed before). To bound a
 * program's shutdown by such a file system, end the wait at the file system, as for a
 * pthread blocked in read(2): a FUSE server that ends (or an abort of its connection in
 * /sys/fs/fuse/connections) fails the waiting call with ECONNABORTED, its ULT runs on, and
 * finalize returns (checked on both backends). Known limits: the sync backend has at most four helper threads for the
 * whole process, so four calls waiting on a server that does not answer hold them all,
 * and every later call that needs one (a regular file's read past the page cache, any
 * openat or fsync on the sync backend; ito_read and ito_write at the position of a
 * regular file not in the page cache on both backends) waits in their queue, on any file
 * system, until one is free (its deadline and ito_cancel_io still end it there; sockets,
 * pipes, timers and the rest go on; ito_close of a regular file needs one too); and, on
 * io_uring, an openat (ito_openat, or posted with ito_sys_post) of a path whose
 * directory entries the kernel holds fresh (opened or looked up within the file system's
 * entry timeout): io_uring's first attempt runs inline in the worker's io_uring_enter and
 * calls the file system's open, which FUSE sends to its server (IOSQE_ASYNC would avoid it
 * but would make an open of a FIFO wait for its other end, which io_uring's inline
 * attempt does not); so may finalize's look at the path of an ito_openat in flight (see Finalize), which
 * may wait for the server's lookup.
 *
 * Record locks: the wrappers keep the program's POSIX record locks (fcntl F_SETLK, lockf)
 * as read(2), write(2) and fsync(2) do: a call that runs on a helper thread uses the
 * descriptor's number itself on a regular file (until 2026-12-06 a duplicate, whose close
 * released the locks), and ito_close of that number waits for such a call already
 * running, as close(2) after the write would have come after it.
 *
 * Close: ito_close(fd) first wakes every ULT and request waiting on fd, on every worker
 * (they get -EBADF; ito_poll reports POLLNVAL for that descriptor), then closes it: also
 * a wait that begins on another worker while ito_close runs (after its pass there) ends
 * with EBADF. A plain close(2) does not: use ito_close for descriptors that ULTs may be
 * waiting on. (Known limit, 2026-12-04: with io_uring, an ito_read or ito_write waiting
 * on a pipe or socket whose number was closed with close(2) and taken by a regular file
 * keeps ito_finalize waiting, since the number then looks like a file that ends by
 * itself; the sync backend, and receives, sends, accepts, connects and polls on both,
 * are cancelled as usual.) Only the waits in progress end: a wrapper called with the number after
 * ito_close returned uses whatever the number names then, as with close(2) (a new socket,
 * pipe or file may have taken it); so may a call that entered its wrapper while ito_close
 * ran but had not yet reached its request (on the sync backend, a pwrite whose ULT was
 * still being checked in when another thread closed the number and opened a file in its
 * place wrote into that file; with close(2) and write(2) the same race ends the same way).
 * To stop a loop such as an accept loop without that
 * race, cancel its ULT (ito_cancel_io: a cancellation asked while it is not waiting is
 * kept for its next wrapper call), join it, then close. The cancellation ends whichever
 * wrapper call comes next, not necessarily the accept: a loop that makes other calls
 * between accepts (a "busy" reply, a log line; ito_close leaves it kept) must also check a stop
 * flag that is set before ito_cancel_io, at the top of each round, or it may go back to
 * waiting in accept after the cancellation was spent elsewhere (an HTTP server's acceptor
 * that sent 503 to a connection over its limit hung its shutdown so; outside tester h72e,
 * 2026-12-07). A server that stops on SIGTERM can wait for it in a ULT: block the signal
 * in the main thread before ito_init (the workers inherit the mask), then ito_read a
 * signalfd(2) of it (both backends; checked by the same tester's server).
 * examples/graceful_shutdown.c puts these together: on SIGTERM or SIGINT it stops its
 * accept loop so, gives the connections in flight until a deadline, cancels those still
 * running (ito_cancel_io) and finalizes.
 *
 * errno: its value belongs to the ULT (a switch saves and restores it, see thread.h), but
 * glibc keeps it at a per-kernel-thread address, and a ULT that waits may resume on another
 * kernel thread. glibc declares errno's address function const, so a compiler may compute
 * the address once per function and reuse it after the ULT has moved. This header therefore
 * redefines errno as (*ito_errno_location()), which looks the address up at every use:
 * code that includes ito's headers reads and writes the errno of the thread it runs on
 * (define ITO_NO_ERRNO_OVERRIDE before including them to keep glibc's definition). A
 * failing wrapper also returns to the kernel thread it was called on before it sets
 * errno, which helps code compiled without this header in the common pattern
 * `if (ito_read(...) < 0) use(errno)`.
 */
#ifndef ITO_SYSCALL_H
#define ITO_SYSCALL_H

#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>
#include "error.h"
#include "thread.h"
#include "time.h"
#include "zwt.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/** The operations of a split-phase request (ito_sysreq_t.op). */
typedef enum ito_sysop {
    ITO_SYS_NOP = 0,   /**< a kernel crossing that does nothing (io_uring's NOP) */
    ITO_SYS_GETPID,    /**< a thin call with no io_uring opcode */
    ITO_SYS_READ,      /**< fd, buf, len; at the file position */
    ITO_SYS_WRITE,     /**< fd, buf, len; at the file position */
    ITO_SYS_SEND,      /**< fd, buf, len, flags (MSG_*) */
    ITO_SYS_RECV,      /**< fd, buf, len, flags (MSG_*) */
    ITO_SYS_ACCEPT,    /**< fd, addr, addrlen (both may be NULL), flags (SOCK_NONBLOCK, SOCK_CLOEXEC) */
    ITO_SYS_CONNECT,   /**< fd, addr, addr_len */
    ITO_SYS_CLOSE,     /**< fd (a plain close: waiters are not woken; see ito_close) */
    ITO_SYS_PREAD,     /**< fd, buf, len, offset */
    ITO_SYS_PWRITE,    /**< fd, buf, len, offset */
    ITO_SYS_READV,     /**< fd, iov, iovcnt, offset (-1: the file position) */
    ITO_SYS_WRITEV,    /**< fd, iov, iovcnt, offset (-1: the file position) */
    ITO_SYS_SENDMSG,   /**< fd, msg, flags */
    ITO_SYS_RECVMSG,   /**< fd, msg, flags */
    ITO_SYS_POLL,      /**< fd, events (POLLIN, POLLOUT, ...): waits until one holds; result: revents */
    ITO_SYS_OPENAT,    /**< fd (the directory, or AT_FDCWD), path, flags (O_*), mode; result: the fd */
    ITO_SYS_FSYNC,     /**< fd, flags (1: fdatasync) */
    ITO_SYS_OP_COUNT   /**< the number of operations */
} ito_sysop_t;

/** A split-phase request: the operation, its arguments, where the result goes, and the
 * continuation thread it fires. */
typedef struct ito_sysreq {
    ito_sysop_t op;             /**< the operation */
    int fd;                     /**< the descriptor */
    void *buf;                  /**< READ, WRITE, SEND, RECV, PREAD, PWRITE */
    size_t len;                 /**< the length of buf (as in read(2), at most 0x7ffff000 bytes move in one call: more gives a short count; a buf+len past the top of user space is a bad request, ITO_EINVAL, except for RECV) */
    int flags;                  /**< see the operations */
    struct sockaddr *addr;      /**< ACCEPT (may be NULL), CONNECT */
    socklen_t *addrlen;         /**< ACCEPT (may be NULL) */
    socklen_t addr_len;         /**< CONNECT */
    int64_t offset;             /**< PREAD, PWRITE, READV, WRITEV */
    const struct iovec *iov;    /**< READV, WRITEV */
    int iovcnt;                 /**< READV, WRITEV */
    struct msghdr *msg;         /**< SENDMSG, RECVMSG */
    short events;               /**< POLL */
    const char *path;           /**< OPENAT */
    unsigned mode;              /**< OPENAT */
    long *result;               /**< where the result goes (a count, or -errno; may be NULL) */
    ito_frame_t *frame;         /**< the continuation thread, fired with the result (NULL: none) */
    int entry;                  /**< its entry */
} ito_sysreq_t;

/** The backends (ito_wsc_backend). */
enum {
    ITO_WSC_SYNC = 0,  /**< non-blocking calls, the workers' epoll and helper threads */
    ITO_WSC_URING = 1, /**< io_uring */
};

/**
 * @brief Split-phase: posts a request into the calling worker's common area and returns
 * at once; the result goes to req->result and the continuation fires when it completes.
 * The request is copied: *req may be reused at once (the buffers it points to may not).
 * @return ITO_OK; ITO_EINVAL for a bad request (bad arguments for its operation, or a
 * continuation frame that is not live: NULL frame means none); ITO_ERANGE if its entry is
 * not an entry of that frame; ITO_EPERM if it is a kernel-mode entry and the caller is in
 * user mode (a ULT, a user-mode ZWT: the mode rule of zwt.h, checked here; an accepted
 * continuation is sent by the I/O path in kernel mode, as a device's, wherever the request
 * completes); ITO_ESTATE if the runtime is not running; ITO_ENOMEM
 * without memory for its record; ITO_ENOSYS (or the backend's error)
 * if the worker's common area could not be set up; ITO_ENOTULT from a foreign thread,
 * whose requests would have no common area.
 * @contexts a ULT or a ZWT (any code running on a worker); not a foreign thread, not a
 * signal handler.
 */
int ito_sys_post(const ito_sysreq_t *req);
/**
 * @brief The paper's batching by one thread: posts n requests, flushes them in one
 * crossing, and parks the calling ULT until every one has completed. Results go to each
 * req->result (NULL: dropped) and continuations fire as for ito_sys_post. The ULT's I/O
 * deadline and ito_cancel_io apply: what has not completed by then is cancelled (its
 * result then is -ETIMEDOUT or -ECANCELED). A cancellation kept from before the call
 * (n > 0) ends the batch at once: nothing is posted, every result is -ECANCELED and
 * every continuation is sent -ECANCELED. One that comes while the batch waits is
 * consumed if it ended a request (-ECANCELED), else kept for the next call. A request
 * that io_uring gives up by itself before running it is posted again, as a blocking
 * wrapper runs it again (see EAGAIN at the top of this file): at once, while the others
 * still wait, up to 7 times (until 2026-12-08 only once all the others had ended: a file
 * write batched with a pipe read waited for the read, and a deadline or ito_cancel_io
 * that ended the read ended the write unrun); one given up more often is posted again by
 * the batch once the others have ended, 8 rounds at most, then -EAGAIN. Its result and
 * continuation come from the run that ends it.
 * @return ITO_OK once all are done; ITO_EINVAL (nothing posted) for a bad request (as
 * for ito_sys_post); ITO_ERANGE (nothing posted) for n > 1024 or a continuation entry
 * not in its frame; ITO_EPERM (nothing posted) for a continuation that is a kernel-mode
 * entry (a ULT is in user mode, see ito_sys_post); ITO_ENOMEM (nothing posted) without
 * memory for the requests' records;
 * ITO_ENOTULT outside a ULT; ITO_ENOSYS (or the backend's error)
 * if the worker's common area could not be set up.
 * @contexts ULT only.
 */
int ito_sys_wait_all(ito_sysreq_t *reqs, size_t n);

/**
 * @brief The flush threshold K (1..64; default 32; 1: every request crosses alone), for
 * every worker from its next post.
 * @return ITO_OK; ITO_EINVAL out of range.
 * @contexts any thread; not a signal handler.
 */
int ito_wsc_set_threshold(int k);
/**
 * @brief The latency bound in microseconds (default 50; 0: none; at most 1 s), for every
 * worker from its next post. The bound is a timer of the worker (it ticks every half
 * bound while requests are buffered), looked at when the worker's scheduler context runs:
 * at once when the worker idles, and on a busy worker at its look every 64 scheduling
 * points (or at a preemption tick), where the bucket goes anyway. Unlike other timers
 * (time.h) it places no look of its own: that held a bucket about the bound but cost a
 * busy echo server about 10 % of its messages (a visit near every tick, each flushing a
 * partial bucket). So on a busy worker a bucket waits at most the later of the bound and
 * 64 scheduling points, also with the bound off; the bound itself adds to that only while
 * rounds of ready ZWTs hold the bucket back, or under preemption (measured, 2026-12-05:
 * two ULTs computing 100 us between yields, bound 300 us: the bucket went after 62
 * scheduling points, about 6 ms, with the bound on or off; test_wsc_latency).
 * @return ITO_OK; ITO_EINVAL out of range.
 * @contexts any thread; not a signal handler.
 */
int ito_wsc_set_latency_us(unsigned us);
/**
 * @brief Flushes the calling worker's bucket now.
 * @return ITO_OK; ITO_ENOTULT from a foreign thread; ITO_ENOSYS (or the backend's error)
 * if the worker's common area could not be set up.
 * @contexts a ULT or a ZWT; not a foreign thread, not a signal handler.
 */
int ito_wsc_flush(void);
/**
 * @brief The backend in use.
 * @return ITO_WSC_URING or ITO_WSC_SYNC; ITO_ESTATE if the runtime is not running;
 * ITO_ENOTULT from a foreign thread; ITO_ENOSYS (or the backend's error) if the common
 * area could not be set up.
 * @contexts a ULT or a ZWT; not a signal handler.
 */
int ito_wsc_backend(void);

/** Counters of the split-phase calls since ito_init (ito_wsc_stats). */
typedef struct ito_wsc_stats_s {
    uint64_t posted;          /**< requests posted */
    uint64_t completed;       /**< requests completed */
    uint64_t crossings;       /**< kernel crossings: submits (uring) or syscalls (sync) */
    uint64_t flush_threshold; /**< flushes because K requests were buffered */
    uint64_t flush_idle;      /**< flushes at a visit of the worker's scheduler context: no thread could run, or the busy worker's look (at least every 64 scheduling points) */
    uint64_t flush_latency;   /**< flushes because the oldest request waited the latency bound */
    uint64_t flush_explicit;  /**< flushes asked for (ito_wsc_flush, ito_sys_wait_all) */
    uint64_t cancelled;       /**< requests that ended with a cancellation */
} ito_wsc_stats_t;
/**
 * @brief Sums every worker's counters into *out.
 * @return ITO_OK; ITO_EINVAL if out is NULL; ITO_ESTATE if the runtime is not running.
 * @contexts any thread; not a signal handler.
 */
int ito_wsc_stats(ito_wsc_stats_t *out);

/**
 * @brief The calling ULT's deadline for every blocking wrapper it calls from now on (an
 * absolute time, see ito/time.h; ITO_FOREVER: none, the default). A wrapper still
 * waiting at the deadline is cancelled and fails with ETIMEDOUT.
 * @return ITO_OK; ITO_ENOTULT outside a ULT.
 * @contexts ULT only.
 */
int ito_io_deadline(uint64_t deadline);
/**
 * @brief Cancels the blocking wrapper that ULT t waits in: it fails with ECANCELED. If t
 * is not waiting in one, the cancellation is kept and its next wrapper call fails with
 * ECANCELED at once (a cancellation is never lost, and consumed once). A call that its
 * arguments refuse before anything is posted (EBADF for a negative descriptor, EFAULT
 * for a NULL buffer, EINVAL) fails with that error and leaves the cancellation kept for
 * the next call. Only the wrappers (ito_poll included) and ito_sys_wait_all are ended: a
 * ULT parked elsewhere (on an ito_mutex, ito_cond, semaphore, stream, channel, future,
 * wait group or barrier, in ito_join, ito_frame_wait or ito_sleep_ns) is not woken, and
 * the cancellation stays kept for its next wrapper call, which may be much later and
 * unrelated (a log write). End such a wait through its object (close the stream or
 * channel, set the future, signal the condition) or give it a deadline; a sleep that
 * ito_cancel_io should end is ito_poll(NULL, 0, ms) (examples/graceful_shutdown.c).
 * @return ITO_OK; ITO_EINVAL for NULL; ITO_EJOINED for a thread that has ended;
 * ITO_ESTATE without a runtime.
 * @contexts any thread (ULT, ZWT, foreign thread); not a signal handler.
 */
int ito_cancel_io(ito_thread_t t);

/**
 * @brief read(2) for a ULT.
 * @return the bytes read (0 at end of file); -1 with errno set on failure (the call's own errors, and those listed at
 * the top of this file: ETIMEDOUT, ECANCELED, EBADF, ENOMEM, EPERM outside a ULT).
 * @contexts ULT only (EPERM elsewhere; ZWTs use ito_sys_post).
 */
ssize_t ito_read(int fd, void *buf, size_t len);
/**
 * @brief write(2) for a ULT: all of len (see "Whole transfers" above).
 * @return the bytes written (len, or fewer when an error, the deadline, cancellation or close came after a part); -1 with errno set on failure (the call's own errors, and those listed at
 * the top of this file: ETIMEDOUT, ECANCELED, EBADF, ENOMEM, EPERM outside a ULT).
 * @contexts ULT only (EPERM elsewhere; ZWTs use ito_sys_post).
 */
ssize_t ito_write(int fd, const void *buf, size_t len);
/**
 * @brief pread(2) for a ULT. On a descriptor without a file offset (a pipe, a socket) the
 * sync backend fails with ESPIPE as pread(2) does, while io_uring ignores the offset and
 * reads (a known difference of the backends, not checked per call to keep the path free of
 * an extra system call): on a pipe or FIFO with no data it waits for data.
 * @return the bytes read; -1 with errno set on failure (the call's own errors, and those listed at
 * the top of this file: ETIMEDOUT, ECANCELED, EBADF, ENOMEM, EPERM outside a ULT).
 * @contexts ULT only (EPERM elsewhere; ZWTs use ito_sys_post).
 */
ssize_t ito_pread(int fd, void *buf, size_t len, off_t offset);
/**
 * @brief pwrite(2) for a ULT. On a pipe or socket: ESPIPE on the sync backend, the offset
 * ignored by io_uring (as for ito_pread). So for a file that takes writes but refuses
 * pwrite(2) (ESPIPE; a seq_file of /proc such as /proc/self/comm): io_uring writes there
 * as write(2) would (known limit, outside tester h78b, 2026-12-08).
 * @return the bytes written; -1 with errno set on failure (the call's own errors, and those listed at
 * the top of this file: ETIMEDOUT, ECANCELED, EBADF, ENOMEM, EPERM outside a ULT).
 * @contexts ULT only (EPERM elsewhere; ZWTs use ito_sys_post).
 */
ssize_t ito_pwrite(int fd, const void *buf, size_t len, off_t offset);
/**
 * @brief readv(2) for a ULT.
 * @return the bytes read; -1 with errno set on failure (the call's own errors, and those listed at
 * the top of this file: ETIMEDOUT, ECANCELED, EBADF, ENOMEM, EPERM outside a ULT).
 * @contexts ULT only (EPERM elsewhere; ZWTs use ito_sys_post).
 */
ssize_t ito_readv(int fd, const struct iovec *iov, int iovcnt);
/**
 * @brief writev(2) for a ULT: every byte of the vector (see "Whole transfers" above).
 * A vector of nothing returns 0 and reaches no file, as writev(2) (and readv(2)): a
 * vector of no entries (iovcnt 0) is the ULT's own call on both backends (until
 * 2026-12-08 io_uring's READV and WRITEV reached the file: EINVAL on an eventfd or
 * timerfd, an empty message on a datagram socket). Entries that are all of length 0 do
 * reach it on io_uring: on a datagram or seqpacket socket the io_uring backend sends an
 * empty message there, where writev(2) (and the sync backend) sends none
 * (io_uring's WRITEV reaches the socket; known limit, 2026-12-07: telling would mean
 * reading the caller's vector before the kernel does, and a bad vector pointer must stay
 * the kernel's EFAULT). Send an empty message with ito_write or ito_send of 0 bytes.
 * @return the bytes written; -1 with errno set on failure (the call's own errors, and those listed at
 * the top of this file: ETIMEDOUT, ECANCELED, EBADF, ENOMEM, EPERM outside a ULT).
 * @contexts ULT only (EPERM elsewhere; ZWTs use ito_sys_post).
 */
ssize_t ito_writev(int fd, const struct iovec *iov, int iovcnt);
/**
 * @brief send(2) for a ULT: all of len unless MSG_DONTWAIT (see "Whole transfers" above).
 * @return the bytes sent (len, or fewer when an error, the deadline, cancellation or close came after a part); -1 with errno set on failure (the call's own errors, and those listed at
 * the top of this file: ETIMEDOUT, ECANCELED, EBADF, ENOMEM, EPERM outside a ULT).
 * @contexts ULT only (EPERM elsewhere; ZWTs use ito_sys_post).
 */
ssize_t ito_send(int fd, const void *buf, size_t len, int flags);
/**
 * @brief recv(2) for a ULT (MSG_WAITALL: until len bytes or end of file; see "Whole transfers" above).
 * MSG_WAITALL waits for the whole length on a stream socket only: a datagram or seqpacket
 * receive is one message, as recv(2) gives it; with MSG_PEEK it is one peek of what is
 * there (at least one byte; recv(2) would wait for len bytes), never the same bytes twice.
 * @return the bytes received (0: the peer closed); -1 with errno set on failure (the call's own errors, and those listed at
 * the top of this file: ETIMEDOUT, ECANCELED, EBADF, ENOMEM, EPERM outside a ULT).
 * @contexts ULT only (EPERM elsewhere; ZWTs use ito_sys_post).
 */
ssize_t ito_recv(int fd, void *buf, size_t len, int flags);
/**
 * @brief sendmsg(2) for a ULT: every byte unless MSG_DONTWAIT (see "Whole transfers" above).
 * To a unix address (msg_name, an unconnected unix datagram socket) whose receiver's
 * queue is full it waits as sendmsg(2) does, in attempts with MSG_DONTWAIT (io_uring's own
 * retry sent an empty datagram, Linux 6.18), by time, since no event says when the
 * receiver reads: again after 1, 2, 4 ... 64 ms; the deadline, ito_cancel_io and finalize
 * end the wait as any. On io_uring every send (ito_send, ito_sendmsg) is one attempt
 * with MSG_DONTWAIT in the request; without room it waits for POLLOUT in the worker's
 * epoll and sends itself, as the sync backend does (io_uring's own wait and retry sent an
 * empty datagram on a connected unix datagram socket whose receiver's queue was full, a
 * syslog client of /dev/log).
 * @return the bytes sent; -1 with errno set on failure (the call's own errors, and those listed at
 * the top of this file: ETIMEDOUT, ECANCELED, EBADF, ENOMEM, EPERM outside a ULT).
 * @contexts ULT only (EPERM elsewhere; ZWTs use ito_sys_post).
 */
ssize_t ito_sendmsg(int fd, const struct msghdr *msg, int flags);
/**
 * @brief recvmsg(2) for a ULT (MSG_WAITALL: until the vector is full or end of file).
 * MSG_WAITALL as for ito_recv; on a unix socket the call also ends after the part that
 * brought descriptors (SCM_RIGHTS), as recvmsg(2) does, so none is lost: the caller's
 * msg_controllen and MSG_CTRUNC describe it; with no room for them (no control buffer,
 * or one too small: MSG_CTRUNC) it ends there too. Timestamps do not end it. Limit: on a
 * unix socket that passes credentials, security labels or pidfds (SO_PASSCRED,
 * SO_PASSSEC, SO_PASSPIDFD), which come with every part, the call ends after the first
 * part with any control data (or MSG_CTRUNC): it may return less than asked where
 * recvmsg(2) would go on (same writer); call again for the rest. Nothing is lost: no
 * descriptor, and no data of two writers under one writer's credentials.
 * @return the bytes received; -1 with errno set on failure (the call's own errors, and those listed at
 * the top of this file: ETIMEDOUT, ECANCELED, EBADF, ENOMEM, EPERM outside a ULT).
 * @contexts ULT only (EPERM elsewhere; ZWTs use ito_sys_post).
 */
ssize_t ito_recvmsg(int fd, struct msghdr *msg, int flags);
/**
 * @brief accept(2) for a ULT (the listening socket is put in O_NONBLOCK mode on the sync backend).
 * @return the new descriptor; -1 with errno set on failure (the call's own errors, and those listed at
 * the top of this file: ETIMEDOUT, ECANCELED, EBADF, ENOMEM, EPERM outside a ULT).
 * @contexts ULT only (EPERM elsewhere; ZWTs use ito_sys_post).
 */
int ito_accept(int fd, struct sockaddr *addr, socklen_t *addrlen);
/**
 * @brief accept4(2) for a ULT (flags: SOCK_NONBLOCK, SOCK_CLOEXEC).
 * @return the new descriptor; -1 with errno set on failure (the call's own errors, and those listed at
 * the top of this file: ETIMEDOUT, ECANCELED, EBADF, ENOMEM, EPERM outside a ULT).
 * @contexts ULT only (EPERM elsewhere; ZWTs use ito_sys_post).
 */
int ito_accept4(int fd, struct sockaddr *addr, socklen_t *addrlen, int flags);
/**
 * @brief connect(2) for a ULT (the socket is put in O_NONBLOCK mode on the sync backend).
 * It behaves as connect(2) on a blocking socket, also when called again: EISCONN once
 * connected, a new attempt after a refusal, and after a call that ended early (its
 * deadline, ito_cancel_io) while the kernel's connect went on, it waits for that connect
 * and returns its outcome.
 * @return 0; -1 with errno set on failure (the call's own errors, and those listed at
 * the top of this file: ETIMEDOUT, ECANCELED, EBADF, ENOMEM, EPERM outside a ULT).
 * @contexts ULT only (EPERM elsewhere; ZWTs use ito_sys_post).
 */
int ito_connect(int fd, const struct sockaddr *addr, socklen_t len);
/**
 * @brief openat(2) for a ULT. A FIFO is never waited for (on both backends, as io_uring's
 * openat does): for reading it opens at once, for writing with no reader it fails with
 * ENXIO (as with O_NONBLOCK); the descriptor then has the mode asked for.
 * @return the new descriptor; -1 with errno set on failure (the call's own errors, and those listed at
 * the top of this file: ETIMEDOUT, ECANCELED, EBADF, ENOMEM, EPERM outside a ULT).
 * @contexts ULT only (EPERM elsewhere; ZWTs use ito_sys_post).
 */
int ito_openat(int dirfd, const char *path, int flags, unsigned mode);
/**
 * @brief fsync(2) for a ULT.
 * @return 0; -1 with errno set on failure (the call's own errors, and those listed at
 * the top of this file: ETIMEDOUT, ECANCELED, EBADF, ENOMEM, EPERM outside a ULT).
 * @contexts ULT only (EPERM elsewhere; ZWTs use ito_sys_post).
 */
int ito_fsync(int fd);
/**
 * @brief fdatasync(2) for a ULT.
 * @return 0; -1 with errno set on failure (the call's own errors, and those listed at
 * the top of this file: ETIMEDOUT, ECANCELED, EBADF, ENOMEM, EPERM outside a ULT).
 * @contexts ULT only (EPERM elsewhere; ZWTs use ito_sys_post).
 */
int ito_fdatasync(int fd);
/**
 * @brief Wakes every ULT and request waiting on fd, on every worker (they get EBADF), then closes it.
 * The ULT's I/O deadline and a cancellation do not apply: ito_close never fails with
 * ETIMEDOUT or ECANCELED (failing would leave the descriptor open), and a cancellation kept
 * for the ULT stays kept for its next call.
 * @return 0; -1 with errno set on failure (close(2)'s own errors; EBADF; EPERM outside a
 * ULT). A number that names no open descriptor is EBADF before anything else: no waiter
 * and no transfer on another descriptor is touched.
 * @contexts ULT only (EPERM elsewhere; ZWTs use ito_sys_post).
 */
int ito_close(int fd);
/**
 * @brief shutdown(2) for a ULT: shuts fd down as shutdown(2) does, then (SHUT_WR,
 * SHUT_RDWR) ends every send and write waiting on fd, on every worker, as the kernel
 * ends a send(2) blocked in another thread: -1/EPIPE, or the count a whole transfer moved
 * before (a send the kernel completed first keeps its result). ito_send and ito_sendmsg
 * raise no SIGPIPE; an ito_write that io_uring runs again by itself when shutdown(2) wakes
 * it may, as write(2) does. A plain shutdown(2) SHUT_WR does not end a send waiting
 * on a full unix stream socket (see "Shutdown" above). Receives, accepts and polls are left
 * to the kernel: SHUT_RD makes a socket readable (end of file), which
 * wakes them, queued data first; a receive waiting when the program shuts its own socket
 * for writing goes on waiting, as recv(2) does. The I/O deadline and a cancellation do not
 * apply (as ito_close).
 * @return 0; -1 with errno set on failure (shutdown(2)'s own errors: EBADF, EINVAL,
 * ENOTCONN, ENOTSOCK; EPERM outside a ULT); nothing is woken then.
 * @contexts ULT only (EPERM elsewhere).
 */
int ito_shutdown(int fd, int how);
/**
 * @brief poll(2) for a ULT: one or several descriptors (at most 1024: more is EINVAL), timeout in ms (-1: none, 0: do not wait); the ULT's I/O deadline applies as well (then -1/ETIMEDOUT).
 * A descriptor that another ULT closes with ito_close while this call waits gets
 * revents POLLNVAL (as poll(2) reports a closed descriptor) and ends the wait, in every
 * entry that names it. Entries with a negative fd are skipped (revents 0, as poll(2));
 * with none left (or nfds 0) the call waits for its timeout only, and ito_cancel_io and
 * finalize end that wait as any other; with no timeout either it is EINVAL (nothing could
 * end it).
 * @return the number of descriptors with events, 0 on timeout; -1 with errno set on failure (the call's own errors, and those listed at
 * the top of this file: ETIMEDOUT, ECANCELED, EBADF, ENOMEM, EPERM outside a ULT).
 * @contexts ULT only (EPERM elsewhere; ZWTs use ito_sys_post).
 */
int ito_poll(struct pollfd *fds, nfds_t nfds, int timeout_ms);
/**
 * @brief getpid(2) as a split-phase request (a thin call, for measurements).
 * @return the process id; -1 with errno set on failure (the call's own errors, and those listed at
 * the top of this file: ETIMEDOUT, ECANCELED, EBADF, ENOMEM, EPERM outside a ULT).
 * @contexts ULT only (EPERM elsewhere; ZWTs use ito_sys_post).
 */
long ito_getpid(void);

/**
 * @brief The calling kernel thread's errno, looked up anew at each call (see errno above).
 * @return its address, never NULL.
 * @contexts any thread; a signal handler.
 */
int *ito_errno_location(void);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#if !defined(ITO_NO_ERRNO_OVERRIDE)
#undef errno
/** errno, looked up at every use (see the top of this file; ITO_NO_ERRNO_OVERRIDE keeps glibc's). */
#define errno (*ito_errno_location())
#endif
#endif
