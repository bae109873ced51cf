/**
 * @file
 * @brief The runtime and its user-level threads (ULTs).
 *
 * Life of the runtime: ito_init() starts the workers (kernel threads) and turns the
 * caller into the "main" ULT, bound to worker 0; ito_finalize(), called from main,
 * waits for every other ULT to finish, joins the workers and frees every stack.
 *
 * The finalize rule: ito_finalize waits for live work (ULTs not finished, ZWTs made ready
 * and not yet returned from their run, split-phase requests in flight, see syscall.h) as long as the runtime makes progress
 * or holds work that will progress by itself (a sleep or timed wait on an ito object, an
 * armed timer device, a request on a regular file; not the I/O deadline or ito_poll
 * timeout of a ULT parked in a wrapper, which only bounds a wait that finalize cancels).
 * Such a sleep or timed wait is waited out however far its deadline (a wait on an ito
 * semaphore until INT64_MAX keeps finalize waiting for ever, where an untimed one ends in
 * ITO_EBUSY): give waits that may outlive the program a deadline within reach, or none.
 * An armed one-shot timer device is live work of its own: its expiry is delivered (its
 * handler's entry continued; the handler runs if that makes it ready) before finalize
 * returns, unless the device is masked (an event not yet acked: its next delivery waits
 * for an ack that only live work could make), and a handler still running is live work
 * too. A periodic one never ends by
 * itself and is not waited for once nothing else is live, and neither it nor the runs
 * of its handler hold off the cancellation below (a ULT waiting on its handler's
 * code-less entry still counts as progress); a handler that re-arms its
 * one-shot device each time keeps finalize waiting, as a ULT that never ends does.
 * After ITO_FINALIZE_GRACE_MS (default 1000) without progress it
 * cancels the requests that can never complete by themselves (on sockets, pipes and other
 * non-file descriptors): their ULTs wake with ECANCELED and run to their end. If ULTs then
 * stay blocked on ito objects, it returns ITO_EBUSY and the runtime stays up (nothing is
 * freed); ito_finalize may be called again. Foreign threads that call into the runtime
 * after a successful finalize get ITO_ESTATE.
 *
 * Kernel threads: a ULT may resume on another worker (kernel thread) after any call that
 * can block or yield; do not keep the address of a thread-local variable across such
 * calls. errno belongs to the ULT: every switch saves the running ULT's errno and gives
 * the incoming ULT its own (a new ULT starts with 0), so `errno = 0; x = strtol(...);
 * if (errno)` holds across yields, blocking, preemption and moves between workers; its
 * address is looked up anew at every use by ito's headers (see syscall.h) and by code that
 * ito-cc builds (compiler/README.md). C++ exceptions are per ULT, not per kernel
 * thread: a ULT may switch (yield, block, be preempted, move to another worker) inside a
 * catch block and still rethrow its own exception there; an exception that escapes a
 * ULT's function calls std::terminate, as it does for a std::thread; other functions that
 * ito calls back (ZWT entries, ito_create_many's private_init, key destructors) must not
 * let one escape (ito_once's fn may: see sync.h). Other state of the
 * kernel thread belongs to the worker, not to the ULT: thread_local variables, pthread
 * keys (pthread_getspecific/setspecific: use ito keys, ito/tls.h, for a value per ULT), the
 * signal mask (pthread_sigmask), uselocale, CPU affinity. A ULT that changes it changes it for
 * every ULT that runs on that worker (also a ULT that a preemption tick had switched out,
 * which resumes with the worker's mask of then), and leaves it behind when it moves. Code
 * that keeps a per-thread stack there breaks when ULTs interleave on a worker: a setjmp-based
 * try/catch whose try stack is a pthread key or thread_local (pigz's try.h) let one ULT's
 * throw longjmp into another ULT's frame (outside tester h71b, 2026-12-07); such code needs
 * its key calls sent to ito_key_* (e.g. by macros in a header included first). A ULT
 * must not end its kernel thread (pthread_exit, pthread_cancel of a worker): return from its
 * function or call ito_exit. Code built with -fsanitize=safe-stack cannot run in ULTs:
 * its unsafe stack pointer is per kernel thread, so ULTs sharing a worker would share
 * (and corrupt) one unsafe stack (seen by an outside tester, 2026-12-04); ito's sanitizer
 * support covers ASan, UBSan and TSan.
 *
 * Blocking the kernel thread: a ULT, main included, that makes a call which blocks in
 * the kernel (pthread_join, sleep, read(2), a pthread mutex held elsewhere) holds its
 * worker for that long, like a CPU-bound ULT that never yields: the units the worker has
 * not published for thieves (the ULTs it created or readied since its last scheduling
 * point), the split-phase requests in its io_uring ring, its timers and the ULTs bound
 * or returning to it (a failing wrapper returns to its home worker, see syscall.h) wait
 * until the call returns (units a foreign thread makes ready go to an idle worker when
 * their home worker is busy, so they need not wait). So main should wait with ito_join,
 * ito_sleep_ns, the wrappers or ito's synchronization objects, and leave calls that block
 * to foreign threads (which may feed ULTs through streams, channels, futures and
 * ito_close). A child process is waited for without blocking the worker through its pidfd
 * (pidfd_open(2), readable once the child has ended): ito_poll on it, then waitpid with
 * WNOHANG; a plain waitpid, wait or pclose blocks the worker. Example: main
 * creating a server's accept ULT and then calling pthread_join on client threads stops
 * the server until the clients have given up.
 *
 * Kernel locks held across a switch: a lock that blocks the kernel thread (std::mutex,
 * std::recursive_mutex, a pthread mutex, rwlock or spinlock) must not be held across a
 * call that may switch the ULT (ito_yield, a wait on an ito object, ito_join,
 * ito_sleep_ns, a blocking wrapper; with preemption on, any point of the program's own
 * code, see preempt.h), with or without preemption. Another ULT that takes the same lock
 * on the same worker blocks the worker's kernel thread in the kernel, and the holder,
 * parked on that worker, never runs again to release it: the worker hangs, with no
 * message (a std::lock_guard<std::mutex> around ito_sleep_ns in two ULTs, one worker or
 * more; outside tester h74c, 2026-12-07). And the holder may resume on another worker, so
 * its unlock comes from another kernel thread, which an error-checking, recursive or
 * robust pthread mutex refuses (EPERM: the lock stays held; std::recursive_mutex::unlock
 * ignores that error). Around code that may switch, use ito's mutex, rwlock or semaphore
 * (sync.h; ito_mutex_t meets C++'s BasicLockable with two small member functions, so
 * std::lock_guard and std::unique_lock work on a wrapper of it); keep kernel locks for
 * sections that make no such call.
 *
 * fork(): the child of a process with a running runtime is shut out of it (the copy
 * shares the parent's io_uring rings and epoll sets and holds the parent's queued ULTs):
 * every call that needs the running runtime fails there, ITO_ESTATE (ITO_ENOTULT for the
 * calls of a ULT, -1 with EPERM from the blocking wrappers), ito_init too. The handles of
 * the runtime's own objects are refused there as after ito_finalize: a thread's (ito_thread_id,
 * ito_thread_name: ITO_EJOINED), a frame's and a device's (ITO_EINVAL; ito_continue:
 * ITO_ESTATE). Calls that work without a runtime (ito_strerror, the version, keys,
 * destroying sync objects, streams and channels, a stream's or channel's stats) act on the
 * child's copy of the memory only; the process-wide locks they share (streams' and channels'
 * slots, the key table) are held across the fork, so another thread's create or destroy
 * under way does not stop them, but an object on which another thread's call was under way
 * at the fork (its lock held: a try_put, a post) stays locked in the child, where every
 * call on it spins for ever. The child may exec or exit; the parent is unaffected. A
 * ULT that forked is the child's only thread: its return from its function ends the child
 * as exit(0) does (as the return of a process's last thread; until 2026-12-07 it died of
 * SIGSEGV), ito_exit fails there (ITO_ENOTULT), and nothing else of the parent's runs in
 * the child. posix_spawn(3) from a ULT is the lighter way to start a program (its child
 * runs no ito code); either way the new program inherits the worker's signal mask (the
 * mask of the thread that called ito_init, with SIGURG open: a signal blocked there for a
 * signalfd stays blocked in the child: posix_spawnattr_setsigmask gives it another) and
 * the process's ignored signals (SIG_IGN of SIGPIPE), and none of ito's own descriptors
 * (io_uring, epoll, eventfd, timerfd: all close on exec). A job runner's ULT per child:
 * pipes made with pipe2(O_CLOEXEC), ito_write to the child's stdin and ito_read or ito_poll
 * on its stdout and stderr, the pidfd wait above (or a signalfd of SIGCHLD read with
 * ito_read), ito_io_deadline or an ito_poll timeout for a child that hangs; ito_write to a
 * child that has stopped reading raises SIGPIPE as write(2) does (ignore it to get EPIPE).
 * A process that forks without a runtime may start one in the child.
 *
 * Loading and unloading: libito.so, once loaded, stays loaded (it is linked -z nodelete:
 * dlclose never unmaps it). A plugin that links it may be loaded, run ito_init ..
 * ito_finalize and be unloaded any number of times; the next load's runtime reuses what
 * the last one left (the handle arena, the device table, one pthread key), so nothing
 * grows per cycle. A plugin unloaded without ito_finalize leaves its runtime up, idle in
 * libito, until the process exits; none of its ULTs or ZWTs may still run (or be parked in)
 * the plugin's code, and its main ULT stays the thread that called ito_init. A copy of
 * libito.a linked into a shared object goes with that object: unload it only after
 * ito_finalize (else the workers run unmapped code: SIGSEGV), and each load, ito_init,
 * unload cycle leaves its arena behind (64 GiB of address space, two mappings and the
 * chunks it carved, ~130 KB) and, if it opened a device, its device table (~290 KB): a
 * known limit. Link such a plugin with -Wl,-z,nodelete, or link libito.so, to cycle it.
 * Such a plugin also exports the ito_ names of its copy, and the dynamic linker binds its
 * calls to the first definition in the process's global scope: in a host that links
 * libito.so they reach the host's runtime (the plugin's ito_init then gives ITO_ESTATE
 * while the host's runs). For a runtime of its own, link the plugin with
 * -Wl,--exclude-libs,libito.a or load it with RTLD_DEEPBIND (outside tester h78d).
 *
 * A ULT is a stackful thread scheduled by ito: it runs until it yields, blocks on an
 * ito synchronization object, joins, or exits. ULTs are created joinable unless
 * ITO_ATTR_DETACHED is set; a joinable ULT must be joined (or detached) exactly once.
 *
 * Handles (ito_thread_t) carry a generation tag, so using a handle whose thread has
 * already been joined gives ITO_EJOINED instead of touching another thread (the tag
 * has 16 bits: a handle that is 65,536 generations stale may alias a new thread).
 */
#ifndef ITO_THREAD_H
#define ITO_THREAD_H

#include <stddef.h>
#include <stdint.h>
#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/** A ULT's handle (tagged with a generation); NULL is never valid. */
typedef struct ito_thread_opaque *ito_thread_t;
/** The function a ULT runs; what it returns is the ULT's result (ito_join). */
typedef void *(*ito_fn_t)(void *arg);

/** Smallest and largest ULT stack (bytes). Sizes are rounded up to a power of two in
 * this range. Stacks are carved from large mappings (not a kernel mapping each), with a
 * guard below every one (64 KiB below stacks of 64 KiB or more, 16 KiB below smaller
 * ones) where the kernel allows (MADV_GUARD_INSTALL, Linux 6.13; else mprotect while
 * mappings last; else a canary checked when the ULT ends). A ULT that runs into its
 * guard ends the process with "ito: fatal: stack overflow in ULT '<name>'". Compile with
 * -fstack-clash-protection (pkg-config --cflags ito and ito-cc add it) so that a frame
 * larger than the guard still hits it. Stacks are executable when the program asks for
 * executable stacks at ito_init's first stack (PT_GNU_STACK with PF_X in the executable or
 * a library then loaded, as glibc makes thread stacks executable: a GCC nested function's
 * trampoline), else not. The 64 KiB default suits plain C; an interpreter run in a ULT
 * needs far more (Lua 5.4 at its limit of 200 nested C calls overflowed 256 KiB and ran in
 * 1 MiB; outside tester h72d), as does deep recursion: set stack_size. */
#define ITO_STACK_MIN ((size_t)8 << 10)
#define ITO_STACK_MAX ((size_t)1 << 30) /**< see ITO_STACK_MIN */

/** Runtime configuration; zero fields take their defaults. */
typedef struct ito_config {
    int workers;       /**< kernel threads; 0: $ITO_WORKERS, else the CPUs of the affinity mask. Max 256 */
    size_t stack_size; /**< default ULT stack in bytes; 0: 64 KiB. ITO_STACK_MIN .. ITO_STACK_MAX */
} ito_config_t;

/**
 * @brief Starts the runtime: the workers, and the caller becomes the main ULT (bound to
 * worker 0). cfg NULL: all defaults. Reads and validates the ITO_* environment
 * (docs/ENVIRONMENT.md). The workers start with the caller's signal mask, except that
 * SIGURG (the preemption tick, ito/preempt.h) is open in the caller and in every worker
 * while the runtime runs; ito_finalize gives the caller its own mask back.
 * @return ITO_OK; ITO_ESTATE if already initialized (or in the child of a fork of a
 * running runtime); ITO_EINVAL for a bad configuration or environment variable (one line
 * on stderr says which); ITO_ENOMEM (memory, threads or file descriptors ran out: ito_init
 * makes up to 5 descriptors per worker, for its idle sleep and its I/O, see syscall.h; one
 * line on stderr names RLIMIT_NOFILE then: with one worker per CPU, a host of 256 CPUs
 * needs more than the common soft limit of 1024); ITO_ENOSYS when
 * CET shadow stacks are enabled, or ITO_WSC_BACKEND=uring is asked for and the kernel
 * refuses io_uring; ITO_EIO when the kernel refuses, for another reason than resources, a
 * call every worker needs (its epoll instance or eventfd: a seccomp or LSM policy's EPERM;
 * one line on stderr says which).
 * That thread must call ito_finalize before it ends: if it ends first (returns from its
 * start function, pthread_exit), worker 0 and the ULTs waiting on it stop with it and the
 * runtime can no longer be finalized; one line on stderr says so.
 * @contexts a kernel thread that is not a ULT (usually main()); not a signal handler.
 */
int ito_init(const ito_config_t *cfg);
/**
 * @brief Stops the runtime: waits for every other ULT, ZWT and split-phase request (the
 * rule is in src/core/runtime.c and docs/ARCHITECTURE.md), runs main's thread-specific
 * destructors (ito/tls.h), joins the workers and frees every stack. Afterwards the caller
 * is a plain kernel thread again and may call ito_init again. Known limit (io_uring backend,
 * Linux 6.18, 2026-12-07): the caller's next interruptible wait after ito_finalize (an
 * epoll_wait, a select, a recv with SO_RCVTIMEO) may fail once with EINTR with no signal
 * sent: the kernel tears worker 0's ring down (the caller's thread used it) in a work item
 * that interrupts that thread; a plain liburing program that closes a ring shows it too
 * (outside tester h75d). Retry on EINTR there, as after any signal.
 * @return ITO_OK; ITO_ESTATE if the runtime is not running; ITO_ENOTULT from a foreign
 * thread; ITO_EPERM from a ULT other than main; ITO_EBUSY if ULTs stay blocked with
 * nothing left that could wake them (they are listed on stderr; the runtime stays up and
 * the call may be repeated); ITO_EDEADLK from one of main's thread-specific destructors,
 * which ito_finalize runs (the outer call goes on).
 * @contexts the main ULT only.
 */
int ito_finalize(void);
/**
 * @brief Whether the runtime is running.
 * @return 1 between ito_init and ito_finalize, else 0.
 * @contexts any thread; a signal handler (one atomic load).
 */
int ito_initialized(void);

/** Thread attribute flags (ito_attr_t.flags). */
enum {
    ITO_ATTR_DETACHED    = 1u << 0, /**< no join: resources are freed when it exits */
    ITO_ATTR_CHILD_FIRST = 1u << 1, /**< the creating ULT yields to the new ULT at once (direct hand-off);
                                      *  ignored when the new ULT is bound to another worker or the
                                      *  creator is a ZWT (see ito_create) */
};
/** Thread attributes: initialise with ito_attr_init, then set fields. */
typedef struct ito_attr {
    size_t stack_size; /**< 0: the runtime default; else ITO_STACK_MIN .. ITO_STACK_MAX */
    int worker;        /**< -1: any worker (stealable); else bind to this worker */
    unsigned flags;    /**< ITO_ATTR_* */
    const char *name;  /**< copied (at most 31 bytes kept); NULL: "ult-<id>" */
} ito_attr_t;

/**
 * @brief Sets attr to the defaults: default stack, any worker, joinable, no name.
 * @return ITO_OK; ITO_EINVAL if attr is NULL.
 * @contexts any thread; not a signal handler.
 */
int ito_attr_init(ito_attr_t *attr);

/**
 * @brief Creates a ULT running fn(arg) and stores its handle in *out (out may be NULL
 * only for a detached ULT). The new ULT is ready at once, queued on the calling worker:
 * it starts at the caller's next scheduling point at the earliest (a yield, a block, a
 * join, its end), where idle workers may take it (with ITO_ATTR_CHILD_FIRST, the calling
 * ULT switches to it at once; a ULT bound to another worker (ito_attr_t.worker) goes to
 * that worker's queue instead, and a ZWT, which cannot yield, only queues it: the flag is
 * ignored then); its stack is promised now (a credit against memory
 * mapped ahead) and attached when it first runs, so creation reports
 * ITO_ENOMEM itself. When the kernel refuses more memory for stacks, a creation may find
 * the credits in other workers' hands (ULTs that ended there): it fails with ITO_ENOMEM
 * and asks them back, and the creations after it find them once those workers have
 * answered (an idle one at once, a busy one within 64 of its scheduling points).
 * @return ITO_OK; ITO_EINVAL for a NULL fn, a NULL out without ITO_ATTR_DETACHED, or a
 * bad attribute (stack size, worker, unknown flag); ITO_ENOMEM; ITO_ESTATE if the runtime
 * is not running; ITO_ENOTULT from a foreign thread.
 * @contexts a ULT or a ZWT (any code on a worker); not a foreign thread, not a signal handler.
 */
int ito_create(ito_thread_t *out, ito_fn_t fn, void *arg, const ito_attr_t *attr);
/**
 * @brief Waits until t has finished, stores its result in *retval (retval may be NULL)
 * and frees it.
 * @return ITO_OK; ITO_EINVAL for a NULL or forged handle; ITO_EJOINED if t was already joined or
 * detached (or the handle is stale); ITO_EDEADLK for the caller itself; ITO_EPERM for
 * main; ITO_ESTATE if the runtime is not running; ITO_ENOTULT outside a ULT.
 * @contexts ULT only.
 */
int ito_join(ito_thread_t t, void **retval);
/**
 * @brief ito_join with a deadline (ito/time.h).
 * @return as ito_join, and ITO_ETIMEDOUT when t has not finished by then (t stays joinable).
 * @contexts ULT only.
 */
int ito_join_until(ito_thread_t t, void **retval, uint64_t deadline);
/**
 * @brief Detaches t: it will free itself when it finishes (now, if it has finished).
 * @return ITO_OK; ITO_EINVAL for NULL or a forged handle; ITO_EJOINED if already joined or detached;
 * ITO_EPERM for main; ITO_ESTATE if the runtime is not running; ITO_ENOTULT from a
 * foreign thread when t has already finished (it stays joinable and detachable).
 * @contexts any thread (ULT, ZWT, foreign thread); not a signal handler.
 */
int ito_detach(ito_thread_t t);
/**
 * @brief Lets the other ready ULTs of the worker run; the caller goes to the back of the
 * ready queue.
 * @return ITO_OK; ITO_ENOTULT outside a ULT.
 * @contexts ULT only.
 */
int ito_yield(void);
/**
 * @brief Runs t next if it is ready on this worker (a direct hand-off), else a plain yield.
 * @return ITO_OK; ITO_EINVAL for NULL or a forged handle; ITO_EJOINED for a stale handle; ITO_ENOTULT
 * outside a ULT.
 * @contexts ULT only.
 */
int ito_yield_to(ito_thread_t t);
/**
 * @brief Ends the calling ULT with result retval (its thread-specific destructors run
 * first, on it). Does not return. (pthread_exit in a ULT would end its worker's kernel
 * thread, and with it the worker and its ULTs: the runtime then says so on stderr and
 * aborts rather than let joins and ito_finalize wait for ever.) It does not unwind the
 * ULT's stack, as glibc's pthread_exit does: destructors of C++ objects on it do not run
 * (a std::lock_guard's lock stays held, a std::vector's memory leaks), and an exception
 * being handled when it is called (ito_exit in a catch block) is never freed. From C++,
 * end a ULT by returning from its function (throw to it to unwind).
 * @return only on error: ITO_EPERM from main (main ends in ito_finalize); ITO_ENOTULT
 * outside a ULT.
 * @contexts a ULT other than main.
 */
int ito_exit(void *retval);
/**
 * @brief The calling ULT's handle.
 * @return the handle, or NULL outside a ULT.
 * @contexts any thread (NULL in a ZWT or a foreign thread); not a signal handler.
 */
ito_thread_t ito_self(void);
/**
 * @brief Stores t's id (unique for the life of the runtime) in *id.
 * @return ITO_OK; ITO_EINVAL if t or id is NULL or t is forged; ITO_EJOINED for a stale handle.
 * @contexts any thread; not a signal handler.
 */
int ito_thread_id(ito_thread_t t, uint64_t *id);
/**
 * @brief Copies t's name ("ult-<id>" if it has none) into buf (len bytes, truncated,
 * always NUL-terminated).
 * @return ITO_OK; ITO_EINVAL if t or buf is NULL, t is forged or len is 0; ITO_EJOINED for a stale handle.
 * @contexts any thread; not a signal handler.
 */
int ito_thread_name(ito_thread_t t, char *buf, size_t len);

/**
 * @brief The number of workers.
 * @return the number (>= 1), or ITO_ESTATE if the runtime is not running.
 * @contexts any thread; not a signal handler.
 */
int ito_worker_count(void);
/**
 * @brief The worker the calling ULT runs on now (it may move between calls unless bound).
 * @return the index (>= 0), or ITO_ENOTULT outside a ULT.
 * @contexts ULT only.
 */
int ito_worker_id(void);

/** Counters of the process since ito_init (for tests and benchmarks). */
typedef struct ito_stats_s {
    uint64_t created;       /**< ULTs created */
    uint64_t finished;      /**< ULTs finished */
    uint64_t switches;      /**< context switches */
    uint64_t steals;        /**< units (ULTs and ZWT entries) that idle workers took from others:
                                 their steal queues, and inboxes (units foreign threads made ready) */
    uint64_t sleeps;        /**< times an idle worker went to sleep */
    uint64_t stacks_mapped; /**< stacks carved so far (from regions mapped ahead) */
    uint64_t stacks_live;   /**< stacks in use now (attached to a ULT that has started) */
    uint64_t idles;         /**< times a worker ran out of work and looked for more */
    uint64_t idle_spin_ns;  /**< time workers spent spinning for work before sleeping */
} ito_stats_t;
/**
 * @brief Sums the workers' counters into *out.
 * @return ITO_OK; ITO_EINVAL if out is NULL; ITO_ESTATE if the runtime is not running.
 * @contexts any thread; not a signal handler.
 */
int ito_stats(ito_stats_t *out);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
