/**
 * @file
 * @brief Channels: bounded multi-producer multi-consumer queues of fixed-size items
 * between ULTs (Go's channels, without select).
 *
 * A channel carries items of one size, fixed at creation, in FIFO order, and holds at
 * most `capacity` of them; capacity 0 makes an unbuffered channel, where a send waits
 * for a receiver to take its item (a rendezvous). Every item is copied whole: an item
 * is never torn, duplicated or lost, whatever the number of senders and receivers.
 * Waiters are served in FIFO order, and a waiter that is woken has already completed its
 * transfer (the peer that woke it copied the item), so no waiter is woken for nothing.
 *
 * Blocking calls (send, recv, and their _until forms) are for ULTs; the try-variants and
 * close work from any thread (ULT, ZWT, foreign thread; from a foreign thread while the
 * runtime is not running they give ITO_ESTATE). None may be called from a signal handler.
 *
 * Close: later sends give ITO_ECLOSED, and so do sends waiting at the close (their item
 * is not sent); receives drain the items still in the channel, then give ITO_ECLOSED.
 *
 * Typed use: ITO_CHAN_TYPED(name, T) defines a channel type `name_t` carrying items of
 * type T, and functions name_create/destroy/send/recv/send_until/recv_until/try_send/
 * try_recv/close/stats that take `name_t` (and `T *`), so that the compiler checks the item type
 * (items are copied byte by byte: in C++, T must be trivially copyable, a static_assert says so):
 * @code
 *   ITO_CHAN_TYPED(job_chan, struct job)
 *   job_chan_t jobs;
 *   job_chan_create(&jobs, 64);
 *   struct job j = {...};
 *   job_chan_send(jobs, &j);
 * @endcode
 *
 * Handles: below, "c is NULL" stands for every handle that is not a live channel (NULL,
 * destroyed, forged, a stream): all are ITO_EINVAL (error.h, "Handles").
 */
#ifndef ITO_CHANNEL_H
#define ITO_CHANNEL_H

#include <stddef.h>
#include <stdint.h>
#include "error.h"
#include "time.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/** A channel (ito_chan_create). */
typedef struct ito_chan ito_chan_t;

/** The largest item, in bytes. */
#define ITO_CHAN_MAX_ITEM 65536

/** A snapshot of a channel (ito_chan_stats). */
typedef struct ito_chan_stats_s {
    size_t item_size;       /**< bytes per item */
    size_t capacity;        /**< items it holds at most (0: unbuffered) */
    size_t count;           /**< items in the channel now */
    int closed;             /**< 1 once closed */
    uint64_t sends_blocked; /**< sends that had to wait */
    uint64_t recvs_blocked; /**< receives that had to wait */
} ito_chan_stats_t;

/**
 * @brief Creates a channel of items of item_size bytes (1 .. ITO_CHAN_MAX_ITEM) holding
 * at most capacity items (0: unbuffered; capacity * item_size at most 1 GiB).
 * @return ITO_OK; ITO_EINVAL if out is NULL or a size is out of range; ITO_ENOMEM.
 * @contexts any thread; not a signal handler.
 */
int ito_chan_create(ito_chan_t **out, size_t item_size, size_t capacity);
/**
 * @brief Frees a channel nobody waits on (the items still in it are dropped).
 * A call that checks the handle after the destroy gets ITO_EINVAL (checked again under the
 * channel's lock: of two destroys of one channel, one says ITO_OK); a woken sender or
 * receiver has finished with the channel before it is readied.
 * @return ITO_OK; ITO_EINVAL if c is NULL or not a live channel (destroyed already);
 * ITO_EBUSY if ULTs wait on it.
 * @contexts any thread; not a signal handler.
 */
int ito_chan_destroy(ito_chan_t *c);
/**
 * @brief Sends the item_size bytes at item, waiting while the channel is full (for an
 * unbuffered channel: until a receiver takes it).
 * @return ITO_OK; ITO_ECLOSED if the channel is or gets closed (not sent); ITO_EINVAL if
 * c or item is NULL; ITO_ENOTULT outside a ULT.
 * @contexts ULT only.
 */
int ito_chan_send(ito_chan_t *c, const void *item);
/**
 * @brief Receives one item into the item_size bytes at item, waiting while there is none.
 * @return ITO_OK; ITO_ECLOSED once the channel is closed and empty; ITO_EINVAL if c or
 * item is NULL; ITO_ENOTULT outside a ULT.
 * @contexts ULT only.
 */
int ito_chan_recv(ito_chan_t *c, void *item);
/**
 * @brief ito_chan_send with a deadline.
 * @return as ito_chan_send, and ITO_ETIMEDOUT (the item was not sent).
 * @contexts ULT only.
 */
int ito_chan_send_until(ito_chan_t *c, const void *item, uint64_t deadline);
/**
 * @brief ito_chan_recv with a deadline.
 * @return as ito_chan_recv, and ITO_ETIMEDOUT (nothing received).
 * @contexts ULT only.
 */
int ito_chan_recv_until(ito_chan_t *c, void *item, uint64_t deadline);
/**
 * @brief Sends if that needs no wait (room in the channel, or a receiver waiting).
 * @return ITO_OK; ITO_EAGAIN if it would have to wait; ITO_ECLOSED; ITO_EINVAL if c or
 * item is NULL; ITO_ESTATE from a foreign thread while the runtime is not running.
 * @contexts any thread (ULT, ZWT, foreign thread); not a signal handler.
 */
int ito_chan_try_send(ito_chan_t *c, const void *item);
/**
 * @brief Receives if that needs no wait (an item there, or a sender waiting).
 * @return ITO_OK; ITO_EAGAIN if it would have to wait; ITO_ECLOSED if closed and empty;
 * ITO_EINVAL and ITO_ESTATE as ito_chan_try_send.
 * @contexts any thread (ULT, ZWT, foreign thread); not a signal handler.
 */
int ito_chan_try_recv(ito_chan_t *c, void *item);
/**
 * @brief Closes the channel: waiting senders fail with ITO_ECLOSED, waiting receivers
 * (the channel is empty then) too; later receives drain what is left.
 * @return ITO_OK; ITO_ECLOSED if it was closed already; ITO_EINVAL if c is NULL;
 * ITO_ESTATE from a foreign thread while the runtime is not running.
 * @contexts any thread (ULT, ZWT, foreign thread); not a signal handler.
 */
int ito_chan_close(ito_chan_t *c);
/**
 * @brief A snapshot of the channel's sizes, fill and counters.
 * @return ITO_OK; ITO_EINVAL if c or out is NULL.
 * @contexts any thread; not a signal handler.
 */
int ito_chan_stats(ito_chan_t *c, ito_chan_stats_t *out);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#define ITO_CHAN_FN_ static inline __attribute__((unused))
#ifdef __cplusplus
/** Items are copied byte by byte (memcpy): in C++ the item type of a typed channel must be
 * trivially copyable (a std::string item would be freed twice, by the sender's copy and
 * the receiver's), checked at compile time. */
#define ITO_CHAN_ITEM_CHECK_(name, T)                                                            \
    static_assert(__is_trivially_copyable(T), "ITO_CHAN_TYPED(" #name ", " #T "): a channel "    \
                  "copies its items byte by byte, so the item type must be trivially copyable");
#else
/** C has no such check. */
#define ITO_CHAN_ITEM_CHECK_(name, T)
#endif
/** Defines a typed channel `name_t` of items of type T and its functions (see above). */
#define ITO_CHAN_TYPED(name, T)                                                                  \
    ITO_CHAN_ITEM_CHECK_(name, T)                                                                \
    typedef struct name##_s { ito_chan_t *chan; } name##_t;                                      \
    ITO_CHAN_FN_ int name##_create(name##_t *c, size_t capacity)                                \
    {                                                                                            \
        return ito_chan_create(&c->chan, sizeof(T), capacity);                                   \
    }                                                                                            \
    ITO_CHAN_FN_ int name##_destroy(name##_t c) { return ito_chan_destroy(c.chan); }            \
    ITO_CHAN_FN_ int name##_send(name##_t c, const T *v) { return ito_chan_send(c.chan, v); }   \
    ITO_CHAN_FN_ int name##_recv(name##_t c, T *v) { return ito_chan_recv(c.chan, v); }         \
    ITO_CHAN_FN_ int name##_send_until(name##_t c, const T *v, uint64_t deadline)               \
    {                                                                                            \
        return ito_chan_send_until(c.chan, v, deadline);                                         \
    }                                                                                            \
    ITO_CHAN_FN_ int name##_recv_until(name##_t c, T *v, uint64_t deadline)                     \
    {                                                                                            \
        return ito_chan_recv_until(c.chan, v, deadline);                                         \
    }                                                                                            \
    ITO_CHAN_FN_ int name##_try_send(name##_t c, const T *v) { return ito_chan_try_send(c.chan, v); } \
    ITO_CHAN_FN_ int name##_try_recv(name##_t c, T *v) { return ito_chan_try_recv(c.chan, v); } \
    ITO_CHAN_FN_ int name##_close(name##_t c) { return ito_chan_close(c.chan); }               \
    ITO_CHAN_FN_ int name##_stats(name##_t c, ito_chan_stats_t *out) { return ito_chan_stats(c.chan, out); }
#endif
