/**
 * @file
 * @brief Synchronization that switches ULTs instead of blocking the worker: mutex,
 * condition variable, readers-writer lock, counting semaphore, barrier, once, wait group,
 * and a bounded byte stream. (Channels: ito/channel.h; futures: ito/future.h;
 * thread-specific values: ito/tls.h.)
 *
 * A ULT that must wait is parked on the object's wait queue and its worker runs other
 * ULTs; waking makes it ready again. All objects are FIFO-fair among waiters.
 *
 * Who may call what (the contexts of each function are listed with it):
 *  - Calls that may wait are for ULTs: from a ZWT or a foreign kernel thread (one that is
 *    not a ULT) they return ITO_ENOTULT. A mutex and a rwlock belong to a ULT, so even
 *    their try-variants need one.
 *  - Wake-side calls (ito_cond_signal/broadcast, ito_sem_post/trywait,
 *    ito_waitgroup_add/done, the stream's try-variants and close) work from any thread:
 *    a ULT, a ZWT, or a foreign thread. From a foreign thread when the runtime is not
 *    running (before ito_init, after ito_finalize) they return ITO_ESTATE.
 *    A condition variable is the exception in practice: a foreign thread (or a ZWT)
 *    cannot hold the ito_mutex that guards the predicate, so its change of the predicate
 *    and its ito_cond_signal can fall between a waiter's look at the predicate and its
 *    ito_cond_wait, and the signal is lost (nobody waits yet, and a signal is not
 *    remembered): the waiter then waits for ever (a flag set by a pthread, then
 *    ito_cond_signal, 20,000 hand-offs to a ULT: 1,344 missed; outside tester h75a,
 *    2026-12-07). From a foreign thread, hand over through an object that keeps what it
 *    is given: a semaphore (ito_sem_post), a stream, a channel, a future or a wait group;
 *    or give the ULT's wait a deadline and look at the predicate again.
 *  - None may be called from a signal handler (they take spinlocks).
 *
 * Timed variants (*_until) take an absolute deadline (ito/time.h) and return
 * ITO_ETIMEDOUT when it passes first, with no effect (except where a function says
 * otherwise: a stream's timed put and get take what is there when their deadline's wake-up
 * runs). A deadline in the past makes them a try.
 * Objects are initialised (ito_*_init) before use and destroyed when no ULT uses them;
 * destroying an object that has waiters gives ITO_EBUSY. Initialising an object that is
 * in use is undefined. The object types are storage of a fixed size whose fields are
 * private to the runtime.
 * There is no static initializer (no PTHREAD_MUTEX_INITIALIZER): a static mutex or condition
 * variable is set up by its init, e.g. inside ito_once, which needs none (ITO_ONCE_INIT).
 * Bad objects are refused: every call but ito_*_init returns ITO_EINVAL for storage that
 * was never initialised (also all-zero storage), was destroyed (a second destroy too), or
 * holds an object of another type (also one initialised over a live object of the first
 * type), where the functions below say "ITO_EINVAL if m is NULL". Init writes a 32-bit
 * mark of the type into the object, at the same place for every type, and destroy replaces
 * it with a mark of a destroyed object under the object's lock (ito_once refuses that
 * storage too), so random bytes pass for an object once in 2^32, of two
 * destroys at once one says ITO_OK, and a lock, barrier, semaphore, wait-group, condition
 * or future wait that reaches the object after a destroy returns ITO_EINVAL, never owns,
 * passes or parks in the destroyed object (a destroy of a mutex takes its owner word, so
 * a lock racing it either locked first, and the destroy says ITO_EBUSY, or says
 * ITO_EINVAL; a wait racing a destroy is still the caller's error). (ito_once_t is the exception: it
 * needs no init, ITO_ONCE_INIT is all zero; ito_once refuses a state or lock word that no
 * once object holds.)
 */
#ifndef ITO_SYNC_H
#define ITO_SYNC_H

#include <stddef.h>
#include <stdint.h>
#include "error.h"
#include "time.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/** Storage of a mutex (ito_mutex_init). */
typedef struct ito_mutex { uint64_t opaque_[5]; } ito_mutex_t;
/** Storage of a condition variable (ito_cond_init). */
typedef struct ito_cond { uint64_t opaque_[4]; } ito_cond_t;
/** Storage of a readers-writer lock (ito_rwlock_init). */
typedef struct ito_rwlock { uint64_t opaque_[9]; } ito_rwlock_t;
/** Storage of a counting semaphore (ito_sem_init). */
typedef struct ito_sem { uint64_t opaque_[5]; } ito_sem_t;
/** Storage of a barrier (ito_barrier_init). */
typedef struct ito_barrier { uint64_t opaque_[5]; } ito_barrier_t;
/** Storage of a once-object: initialise statically with ITO_ONCE_INIT (all zero). */
typedef struct ito_once_s { uint64_t opaque_[5]; } ito_once_t;
/** Storage of a wait group (ito_waitgroup_init). */
typedef struct ito_waitgroup { uint64_t opaque_[5]; } ito_waitgroup_t;
/** A bounded byte stream (ito_stream_create). */
typedef struct ito_stream ito_stream_t;

/** The initializer of an ito_once_t. */
#define ITO_ONCE_INIT {{0}}
/** The largest value of a semaphore. */
#define ITO_SEM_VALUE_MAX 0x7fffffffu
/** What ito_barrier_wait returns to exactly one ULT of each round (the last to arrive). */
#define ITO_BARRIER_SERIAL 1

/* ---- mutex ---- */

/**
 * @brief Initialises a mutex, unlocked.
 * @return ITO_OK; ITO_EINVAL if m is NULL.
 * @contexts any thread; not a signal handler.
 */
int ito_mutex_init(ito_mutex_t *m);
/**
 * @brief Destroys an unlocked mutex.
 * @return ITO_OK; ITO_EINVAL if m is NULL; ITO_EBUSY if it is locked.
 * @contexts any thread; not a signal handler.
 */
int ito_mutex_destroy(ito_mutex_t *m);
/**
 * @brief Locks m, parked while another ULT holds it. Waiters get it in FIFO order: an
 * unlock hands it straight to the first waiter.
 * @return ITO_OK; ITO_EINVAL if m is NULL; ITO_EDEADLK if the caller holds it already;
 * ITO_ENOTULT outside a ULT.
 * @contexts ULT only.
 */
int ito_mutex_lock(ito_mutex_t *m);
/**
 * @brief ito_mutex_lock with a deadline.
 * @return as ito_mutex_lock, and ITO_ETIMEDOUT (not locked) when the deadline passes first.
 * @contexts ULT only.
 */
int ito_mutex_lock_until(ito_mutex_t *m, uint64_t deadline);
/**
 * @brief Locks m if it is free, without waiting.
 * @return ITO_OK; ITO_EBUSY if another ULT holds it; ITO_EDEADLK if the caller does;
 * ITO_EINVAL if m is NULL; ITO_ENOTULT outside a ULT.
 * @contexts ULT only (the owner of a mutex is a ULT).
 */
int ito_mutex_trylock(ito_mutex_t *m);
/**
 * @brief Unlocks m (held by the caller); the first waiter, if any, gets it.
 * @return ITO_OK; ITO_EPERM if the caller does not hold it; ITO_EINVAL if m is NULL;
 * ITO_ENOTULT outside a ULT.
 * @contexts ULT only.
 */
int ito_mutex_unlock(ito_mutex_t *m);

/* ---- condition variable ---- */

/**
 * @brief Initialises a condition variable.
 * @return ITO_OK; ITO_EINVAL if c is NULL.
 * @contexts any thread; not a signal handler.
 */
int ito_cond_init(ito_cond_t *c);
/**
 * @brief Destroys a condition variable nobody waits on.
 * @return ITO_OK; ITO_EINVAL if c is NULL; ITO_EBUSY if ULTs wait on it.
 * @contexts any thread; not a signal handler.
 */
int ito_cond_destroy(ito_cond_t *c);
/**
 * @brief Releases m (held by the caller), waits for a signal, and takes m again before it
 * returns. Wake-ups are FIFO; re-check the predicate after waking (Mesa semantics).
 * @return ITO_OK; ITO_EINVAL if c or m is NULL; ITO_EPERM if the caller does not hold m;
 * ITO_ENOTULT outside a ULT.
 * @contexts ULT only.
 */
int ito_cond_wait(ito_cond_t *c, ito_mutex_t *m);
/**
 * @brief ito_cond_wait with a deadline: ITO_ETIMEDOUT when not signalled by then; m is
 * held again on return either way.
 * @return as ito_cond_wait, and ITO_ETIMEDOUT.
 * @contexts ULT only.
 */
int ito_cond_wait_until(ito_cond_t *c, ito_mutex_t *m, uint64_t deadline);
/**
 * @brief Wakes the first waiter, if any (a signal with no waiter is not remembered). A
 * caller that cannot hold the waiters' mutex (a foreign thread, a ZWT) may lose its
 * signal to a waiter that has looked at the predicate and not yet waited: see "Who may
 * call what" above (use a semaphore there).
 * @return ITO_OK; ITO_EINVAL if c is NULL; ITO_ESTATE from a foreign thread while the
 * runtime is not running.
 * @contexts any thread (ULT, ZWT, foreign thread); not a signal handler.
 */
int ito_cond_signal(ito_cond_t *c);
/**
 * @brief Wakes every waiter.
 * @return as ito_cond_signal.
 * @contexts any thread (ULT, ZWT, foreign thread); not a signal handler.
 */
int ito_cond_broadcast(ito_cond_t *c);

/* ---- readers-writer lock ----
 * Phase-fair: a reader does not enter while a writer waits, and a writer's unlock admits
 * every reader waiting at that moment, so neither side starves. Not recursive: a reader
 * that asks for the write lock (or a second read lock while a writer waits) deadlocks. */

/**
 * @brief Initialises a readers-writer lock, unlocked.
 * @return ITO_OK; ITO_EINVAL if l is NULL.
 * @contexts any thread; not a signal handler.
 */
int ito_rwlock_init(ito_rwlock_t *l);
/**
 * @brief Destroys an unlocked readers-writer lock.
 * @return ITO_OK; ITO_EINVAL if l is NULL; ITO_EBUSY if it is held or waited on.
 * @contexts any thread; not a signal handler.
 */
int ito_rwlock_destroy(ito_rwlock_t *l);
/**
 * @brief Takes l for reading, shared with other readers, parked while a writer holds it or waits.
 * @return ITO_OK; ITO_EINVAL if l is NULL; ITO_EDEADLK if the caller holds it for
 * writing; ITO_ENOTULT outside a ULT.
 * @contexts ULT only.
 */
int ito_rwlock_rdlock(ito_rwlock_t *l);
/**
 * @brief Takes l for writing (exclusive), parked while anyone holds it.
 * @return ITO_OK; ITO_EINVAL if l is NULL; ITO_EDEADLK if the caller holds it for
 * writing; ITO_ENOTULT outside a ULT.
 * @contexts ULT only.
 */
int ito_rwlock_wrlock(ito_rwlock_t *l);
/**
 * @brief ito_rwlock_rdlock with a deadline.
 * @return as ito_rwlock_rdlock, and ITO_ETIMEDOUT (not taken).
 * @contexts ULT only.
 */
int ito_rwlock_rdlock_until(ito_rwlock_t *l, uint64_t deadline);
/**
 * @brief ito_rwlock_wrlock with a deadline.
 * @return as ito_rwlock_wrlock, and ITO_ETIMEDOUT (not taken).
 * @contexts ULT only.
 */
int ito_rwlock_wrlock_until(ito_rwlock_t *l, uint64_t deadline);
/**
 * @brief Takes l for reading if that needs no wait.
 * @return ITO_OK; ITO_EBUSY if a writer holds it or waits; ITO_EDEADLK, ITO_EINVAL,
 * ITO_ENOTULT as ito_rwlock_rdlock.
 * @contexts ULT only.
 */
int ito_rwlock_tryrdlock(ito_rwlock_t *l);
/**
 * @brief Takes l for writing if it is free.
 * @return ITO_OK; ITO_EBUSY if anyone holds it; ITO_EDEADLK, ITO_EINVAL, ITO_ENOTULT as
 * ito_rwlock_wrlock.
 * @contexts ULT only.
 */
int ito_rwlock_trywrlock(ito_rwlock_t *l);
/**
 * @brief Releases the caller's hold on l, for writing if the caller is the writer, else
 * one read hold.
 * Read holds are not tied to one lock: a ULT that holds a read lock on another rwlock
 * can still release one of l's read holds (undefined, as with pthread_rwlock_unlock); a
 * ULT holding no read lock at all cannot.
 * @return ITO_OK; ITO_EPERM if l is not held at all, another ULT holds it for writing,
 * or it is held for reading and the caller holds no read lock; ITO_EINVAL if l is NULL;
 * ITO_ENOTULT outside a ULT.
 * @contexts ULT only.
 */
int ito_rwlock_unlock(ito_rwlock_t *l);

/* ---- counting semaphore ---- */

/**
 * @brief Initialises a semaphore with `value` units (0 .. ITO_SEM_VALUE_MAX).
 * @return ITO_OK; ITO_EINVAL if s is NULL or value is too large.
 * @contexts any thread; not a signal handler.
 */
int ito_sem_init(ito_sem_t *s, unsigned value);
/**
 * @brief Destroys a semaphore nobody waits on.
 * @return ITO_OK; ITO_EINVAL if s is NULL; ITO_EBUSY if ULTs wait on it.
 * @contexts any thread; not a signal handler.
 */
int ito_sem_destroy(ito_sem_t *s);
/**
 * @brief Takes one unit, parked until one is there. Units go to waiters in FIFO order.
 * @return ITO_OK; ITO_EINVAL if s is NULL; ITO_ENOTULT outside a ULT.
 * @contexts ULT only.
 */
int ito_sem_wait(ito_sem_t *s);
/**
 * @brief ito_sem_wait with a deadline.
 * @return as ito_sem_wait, and ITO_ETIMEDOUT (no unit taken).
 * @contexts ULT only.
 */
int ito_sem_wait_until(ito_sem_t *s, uint64_t deadline);
/**
 * @brief Takes one unit if one is there (never from a waiter that was first).
 * @return ITO_OK; ITO_EAGAIN if none is; ITO_EINVAL if s is NULL; ITO_ESTATE from a
 * foreign thread while the runtime is not running.
 * @contexts any thread (ULT, ZWT, foreign thread); not a signal handler.
 */
int ito_sem_trywait(ito_sem_t *s);
/**
 * @brief Gives one unit: to the first waiter if any, else to the count.
 * @return ITO_OK; ITO_ERANGE if the count is at ITO_SEM_VALUE_MAX (nothing changes);
 * ITO_EINVAL if s is NULL; ITO_ESTATE from a foreign thread while the runtime is not running.
 * @contexts any thread (ULT, ZWT, foreign thread); not a signal handler.
 */
int ito_sem_post(ito_sem_t *s);
/**
 * @brief Reads the count (0 while ULTs wait). A timed waiter whose deadline has passed no
 * longer waits from the moment its timeout is decided, though it leaves the queue a moment
 * later: a post in between goes to the count (the value may read 1 while that ULT is still
 * inside ito_sem_wait_until, which returns ITO_ETIMEDOUT, and ito_sem_destroy still says
 * ITO_EBUSY).
 * @return ITO_OK; ITO_EINVAL if s or value is NULL.
 * @contexts any thread; not a signal handler.
 */
int ito_sem_value(ito_sem_t *s, unsigned *value);

/* ---- barrier ---- */

/**
 * @brief Initialises a reusable barrier for `count` ULTs (count >= 1).
 * @return ITO_OK; ITO_EINVAL if b is NULL or count is 0.
 * @contexts any thread; not a signal handler.
 */
int ito_barrier_init(ito_barrier_t *b, unsigned count);
/**
 * @brief Destroys a barrier no ULT waits at.
 * @return ITO_OK; ITO_EINVAL if b is NULL; ITO_EBUSY if a round has begun (ULTs wait).
 * @contexts any thread; not a signal handler.
 */
int ito_barrier_destroy(ito_barrier_t *b);
/**
 * @brief Waits until `count` ULTs have called it in this round; then all leave and the
 * barrier is ready for the next round.
 * @return ITO_BARRIER_SERIAL (1) to exactly one ULT of each round (the last to arrive),
 * ITO_OK to the others; ITO_EINVAL if b is NULL; ITO_ENOTULT outside a ULT.
 * @contexts ULT only.
 */
int ito_barrier_wait(ito_barrier_t *b);

/* ---- once ---- */

/**
 * @brief Runs fn exactly once per once-object, however many threads call at once; every
 * call returns after fn has returned (and sees what it wrote). A C++ fn that throws is as
 * with std::call_once: the exception reaches that caller, fn counts as not run, and the
 * next caller (a waiting one, or a later one) runs it again. fn must return (or throw):
 * a fn that ends its ULT with ito_exit, or leaves by longjmp (an interpreter's error, such
 * as a Lua error raised in code fn calls; a setjmp-based try/catch), leaves the object
 * running for ever, so every later caller waits for ever (the ULT that longjmped out, and
 * one whose ULT reuses an ended runner's descriptor, get ITO_EDEADLK): catch such errors
 * inside fn.
 * @return ITO_OK; ITO_EINVAL if o or fn is NULL, or if o holds what no once object holds
 * (o has no init and no mark: most garbage is caught, not all; the storage of a destroyed
 * object of another type always is); ITO_EDEADLK if fn itself
 * calls ito_once on the same object; ITO_ENOTULT if a caller that is not a ULT (a ZWT or a
 * foreign thread) would have to wait for another caller's fn.
 * @contexts any thread (a ULT waits while another runs fn; others get ITO_ENOTULT then),
 * before ito_init too; not a signal handler.
 */
int ito_once(ito_once_t *o, void (*fn)(void));

/* ---- wait group ---- */

/**
 * @brief Initialises a wait group with a count of 0.
 * @return ITO_OK; ITO_EINVAL if g is NULL.
 * @contexts any thread; not a signal handler.
 */
int ito_waitgroup_init(ito_waitgroup_t *g);
/**
 * @brief Destroys a wait group nobody waits on.
 * @return ITO_OK; ITO_EINVAL if g is NULL; ITO_EBUSY if ULTs wait on it.
 * @contexts any thread; not a signal handler.
 */
int ito_waitgroup_destroy(ito_waitgroup_t *g);
/**
 * @brief Adds delta (may be negative) to the count; when it reaches 0, every waiter wakes.
 * @return ITO_OK; ITO_ERANGE if the count would go below 0 or overflow (nothing changes);
 * ITO_EINVAL if g is NULL; ITO_ESTATE from a foreign thread while the runtime is not running.
 * @contexts any thread (ULT, ZWT, foreign thread); not a signal handler.
 */
int ito_waitgroup_add(ito_waitgroup_t *g, int64_t delta);
/**
 * @brief ito_waitgroup_add(g, -1): one task is done.
 * @return as ito_waitgroup_add.
 * @contexts any thread (ULT, ZWT, foreign thread); not a signal handler.
 */
int ito_waitgroup_done(ito_waitgroup_t *g);
/**
 * @brief Waits until the count is 0 (returns at once if it is).
 * @return ITO_OK; ITO_EINVAL if g is NULL; ITO_ENOTULT outside a ULT.
 * @contexts ULT only.
 */
int ito_waitgroup_wait(ito_waitgroup_t *g);
/**
 * @brief ito_waitgroup_wait with a deadline.
 * @return as ito_waitgroup_wait, and ITO_ETIMEDOUT.
 * @contexts ULT only.
 */
int ito_waitgroup_wait_until(ito_waitgroup_t *g, uint64_t deadline);
/**
 * @brief Reads the count.
 * @return ITO_OK; ITO_EINVAL if g or count is NULL.
 * @contexts any thread; not a signal handler.
 */
int ito_waitgroup_count(ito_waitgroup_t *g, int64_t *count);

/* ---- stream ----
 * A bounded FIFO of bytes between ULTs (a pipe without the kernel).
 * What it guarantees about the bytes of one put (the pipe's PIPE_BUF rule, made stronger):
 *  - a blocking put (ito_stream_put, ito_stream_put_until) is never interleaved with
 *    another put: its len bytes are contiguous in the stream. A put of at most the
 *    capacity is written in one step once there is room for all of it; a longer put is
 *    written in pieces as readers make room, and no other put writes meanwhile. Puts are
 *    served in FIFO order.
 *  - ito_stream_try_put of at most the capacity puts all its bytes or none (ITO_EAGAIN);
 *    a longer one puts what fits (and ITO_EAGAIN if nothing fits).
 *  - get returns up to len bytes of what is there. So, when the capacity and every put
 *    and every get length are multiples of one item size, every get returns whole items:
 *    items are never torn. (With a capacity that is not, a put longer than the capacity
 *    is written in pieces of what fits, and a get can return part of an item.)
 * After close: put gives ITO_ECLOSED; get drains what is left, then gives ITO_ECLOSED
 * with *got = 0.
 * Handles: below, "s is NULL" stands for every handle that is not a live stream (NULL,
 * destroyed, forged, a channel): all are ITO_EINVAL (error.h, "Handles"). */

/**
 * @brief Creates a stream of `capacity` bytes (1 .. 1 GiB).
 * @return ITO_OK; ITO_EINVAL if out is NULL or capacity is out of range; ITO_ENOMEM.
 * @contexts any thread; not a signal handler.
 */
int ito_stream_create(ito_stream_t **out, size_t capacity);
/**
 * @brief Destroys a stream nobody waits on.
 * A call that checks the handle after the destroy gets ITO_EINVAL (checked again under the
 * stream's lock: of two destroys of one stream, one says ITO_OK); a blocking put or get
 * counts as waiting from its start to its return, also once woken (by a peer, close or
 * its deadline) and not yet returned.
 * @return ITO_OK; ITO_EINVAL if s is NULL or not a live stream (destroyed already);
 * ITO_EBUSY if a put or get is under way on it.
 * @contexts any thread; not a signal handler.
 */
int ito_stream_destroy(ito_stream_t *s);
/**
 * @brief Puts all len bytes, waiting for room as needed (see the guarantees above).
 * @return ITO_OK; ITO_ECLOSED if the stream is or gets closed (a long put may have put
 * part of its bytes); ITO_EINVAL if s is NULL, or buf is NULL with len > 0; ITO_ENOTULT
 * outside a ULT.
 * @contexts ULT only.
 */
int ito_stream_put(ito_stream_t *s, const void *buf, size_t len);
/**
 * @brief Gets up to len bytes into buf, waiting until at least one is there; *got receives
 * the number of bytes got (0 on any error).
 * @return ITO_OK; ITO_ECLOSED once the stream is closed and empty; ITO_EINVAL if s or
 * got is NULL, or buf is NULL with len > 0; ITO_ENOTULT outside a ULT. len 0 returns at once.
 * @contexts ULT only.
 */
int ito_stream_get(ito_stream_t *s, void *buf, size_t len, size_t *got);
/**
 * @brief ito_stream_put with a deadline. *put (may be NULL) receives the bytes put, also
 * on ITO_ETIMEDOUT and ITO_ECLOSED: 0 for a put of at most the capacity (all or
 * nothing), possibly a part of a longer one.
 * @return as ito_stream_put, and ITO_ETIMEDOUT.
 * @contexts ULT only.
 */
int ito_stream_put_until(ito_stream_t *s, const void *buf, size_t len, size_t *put, uint64_t deadline);
/**
 * @brief ito_stream_get with a deadline: ITO_ETIMEDOUT with *got = 0 when no byte came in time.
 * A waiting get whose deadline has passed is no longer served by puts (they serve the gets
 * behind it); when it runs it still takes bytes the stream holds then and returns ITO_OK,
 * as ito_stream_put_until takes room that came with its deadline: so such a get may
 * receive bytes later than gets that waited after it, and ITO_ETIMEDOUT always means
 * nothing was taken.
 * @return as ito_stream_get, and ITO_ETIMEDOUT.
 * @contexts ULT only.
 */
int ito_stream_get_until(ito_stream_t *s, void *buf, size_t len, size_t *got, uint64_t deadline);
/**
 * @brief Puts without waiting: all or nothing for len up to the capacity, what fits for
 * a longer len. Refuses (ITO_EAGAIN) while a blocking put is in progress or waiting.
 * *put receives the bytes put.
 * @return ITO_OK; ITO_EAGAIN if nothing was put; ITO_ECLOSED; ITO_EINVAL if s or put is
 * NULL, or buf is NULL with len > 0; ITO_ESTATE from a foreign thread while the runtime
 * is not running.
 * @contexts any thread (ULT, ZWT, foreign thread); not a signal handler.
 */
int ito_stream_try_put(ito_stream_t *s, const void *buf, size_t len, size_t *put);
/**
 * @brief Gets up to len bytes without waiting; *got receives the bytes got.
 * @return ITO_OK; ITO_EAGAIN if the stream is empty; ITO_ECLOSED if it is closed and
 * empty; ITO_EINVAL and ITO_ESTATE as ito_stream_try_put.
 * @contexts any thread (ULT, ZWT, foreign thread); not a signal handler.
 */
int ito_stream_try_get(ito_stream_t *s, void *buf, size_t len, size_t *got);
/**
 * @brief Closes the stream and wakes every waiter.
 * @return ITO_OK; ITO_ECLOSED if it was closed already; ITO_EINVAL if s is NULL;
 * ITO_ESTATE from a foreign thread while the runtime is not running.
 * @contexts any thread (ULT, ZWT, foreign thread); not a signal handler.
 */
int ito_stream_close(ito_stream_t *s);
/**
 * @brief How many puts and gets had to wait since creation (either pointer may be NULL).
 * @return ITO_OK; ITO_EINVAL if s is NULL.
 * @contexts any thread; not a signal handler.
 */
int ito_stream_stats(ito_stream_t *s, uint64_t *puts_blocked, uint64_t *gets_blocked);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
