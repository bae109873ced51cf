/**
 * @file
 * @brief The error codes every public function returns.
 *
 * Every ito function that can fail returns an int: ITO_OK (0) on success, or one of
 * the negative codes below (the README lists the few functions that return something
 * else). ito_strerror() gives a one-line message for each.
 *
 * Handles. Every handle the API hands out is checked on every use, in release builds too:
 * a thread handle carries a generation tag (a joined, detached-and-ended or earlier
 * runtime's thread is ITO_EJOINED, and so is a guessed handle of a descriptor's next
 * life before a thread has it; a value that names no thread descriptor at all, a
 * forged one, is ITO_EINVAL); a group handle is a generation-tagged table index
 * (destroyed, forged or earlier runtime's: ITO_EINVAL); a frame handle carries its frame's
 * generation (destroyed, forged, or a handle of an earlier life of the same memory:
 * ITO_EINVAL); a device handle is checked against the device table (closed or forged:
 * ITO_EINVAL; a slot closed and opened again names the new device); a stream or channel
 * handle carries its object's generation and type (destroyed, forged, of the other type,
 * or of an earlier life of the same memory: ITO_EINVAL; streams and channels outlive
 * ito_finalize: their handles stay checkable, and they can be created, destroyed and their stats
 * read then, while their other calls give ITO_ESTATE without a runtime, see sync.h and
 * channel.h). Thread descriptors, frames, streams and
 * channels live in one reserved address range that is never given back, and groups in a
 * fixed table, not even at ito_finalize (known limit: the range's 64 KiB chunks keep the kind
 * of object they first held, so under a tight RLIMIT_AS, where the range is a quarter of
 * it, a burst of frames or channels destroyed again can leave no room for ULTs: ITO_ENOMEM,
 * also after a new ito_init; see ARCHITECTURE.md): a handle is checked against the range before it
 * is read, so no stale or forged handle reads freed or foreign memory (each object also
 * holds its handle keyed with a per-process secret; only a program that reads the secret
 * and builds a fake object on purpose is not caught). The generations of thread
 * descriptors, frames, devices, streams and channels have 16 bits: a handle kept across 65,536
 * destroy/create cycles of the same memory (freed objects are reused last in, first
 * out) may name the object that lives there now; key handles wrap after 2^22 - 1
 * deletions of one slot. Do not keep handles of destroyed objects around. A
 * mutex's or a rwlock writer's owner is a ULT, not a descriptor (a new ULT on a reused
 * descriptor is not the owner: ITO_EPERM).
 */
#ifndef ITO_ERROR_H
#define ITO_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/** The error codes (negative), and ITO_OK. */
typedef enum ito_err {
    ITO_OK        = 0,   /**< success */
    ITO_EINVAL    = -1,  /**< a NULL, destroyed or forged handle (a stale thread handle: ITO_EJOINED), a NULL pointer, an out-of-range value, a bad attribute */
    ITO_ENOMEM    = -2,  /**< memory ran out (malloc, mmap, stack space; at ito_init also threads or descriptors) */
    ITO_ESTATE    = -3,  /**< not allowed in this state: before ito_init, after ito_finalize, in a fork child, done already (a future set twice), or see the function */
    ITO_EDEADLK   = -4,  /**< the call would wait for itself (join of self, relock of own mutex) */
    ITO_EJOINED   = -5,  /**< thread already joined or detached, or a stale thread handle */
    ITO_EBUSY     = -6,  /**< the object is in use: a try-variant found it taken, or a destroy found waiters */
    ITO_EAGAIN    = -7,  /**< a try-variant would have to wait (a stream or channel full or empty, a future not set) */
    ITO_ECLOSED   = -8,  /**< the stream or channel is closed (a closed device: ITO_EINVAL) */
    ITO_EPERM     = -9,  /**< the caller is not allowed to do this (not the owner, mode rule) */
    ITO_ENOSYS    = -10, /**< not supported on this CPU/kernel/build (e.g. CET shadow stacks) */
    ITO_ENOTULT   = -11, /**< must be called from a ULT (not from a foreign kernel thread or a ZWT) */
    ITO_ERANGE    = -12, /**< an index or count beyond its bound */
    ITO_ETIMEDOUT = -13, /**< a timed wait expired */
    ITO_EIO       = -14, /**< an operating-system call failed; see errno where documented */
} ito_err_t;

/**
 * @brief A static, one-line message for an error code (unknown codes included).
 * @return a static string, never NULL.
 * @contexts any thread, before ito_init too, and a signal handler (it only reads a table).
 */
const char *ito_strerror(int err);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
