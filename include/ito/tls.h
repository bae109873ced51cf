/**
 * @file
 * @brief Thread-specific values of ULTs: keys with destructors (pthread_key_create's
 * analog).
 *
 * A key names one value slot in every ULT. Each ULT sees only its own value, NULL until
 * it stores one. (A pthread key used in ULTs is per worker, shared by the ULTs that run
 * there: ported code sends pthread_key_create/getspecific/setspecific here, thread.h.) When a ULT exits (it returns from its function or calls ito_exit), the
 * destructor of each key is called with that ULT's value, on the ULT itself, if the value
 * is not NULL and the key still exists; a destructor may use any ito call a ULT may make
 * (it may block) and may store values again: up to ITO_KEY_DESTRUCTOR_ROUNDS rounds are
 * run, then what is left is dropped. The main ULT's destructors run in ito_finalize,
 * first, before it waits for other work: a wait there that nothing ends (an ito_read
 * of a pipe nobody writes) holds ito_finalize, since finalize cancels only the waits of
 * other ULTs.
 *
 * A key outlives ito_init/ito_finalize (it belongs to the process, as a pthread key does).
 * Deleting a key runs no destructor: the values that ULTs still hold for it are no longer
 * seen, and a new key never sees them. Keys carry a generation, so a deleted key's handle
 * gives ITO_EINVAL rather than another key's values (up to 2^22 - 1 deletions of one
 * key slot: see error.h).
 */
#ifndef ITO_TLS_H
#define ITO_TLS_H

#include <stdint.h>
#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/** A key (a handle); 0 is never a valid key. */
typedef uint32_t ito_key_t;
/** A key's destructor: called with a ULT's non-NULL value as that ULT exits. */
typedef void (*ito_key_destructor_t)(void *value);

/** Keys that may exist at once. */
#define ITO_KEYS_MAX 256
/** Rounds of destructor calls at a ULT's exit (values stored by destructors are destructed again). */
#define ITO_KEY_DESTRUCTOR_ROUNDS 4

/**
 * @brief Creates a key (stored in *key) with an optional destructor (NULL: none), called
 * with a ULT's non-NULL value as that ULT exits.
 * @return ITO_OK; ITO_EINVAL if key is NULL; ITO_ERANGE if ITO_KEYS_MAX keys exist.
 * @contexts any thread (ULT, ZWT, foreign thread), before ito_init too; not a signal handler.
 */
int ito_key_create(ito_key_t *key, ito_key_destructor_t destructor);

/**
 * @brief Deletes a key. No destructor runs; values held for it are forgotten.
 * @return ITO_OK; ITO_EINVAL for a key that does not exist (0, deleted, or never created).
 * @contexts any thread (ULT, ZWT, foreign thread), before ito_init too; not a signal handler.
 */
int ito_key_delete(ito_key_t key);

/**
 * @brief Stores the calling ULT's value for key (NULL clears it).
 * @return ITO_OK; ITO_EINVAL for a key that does not exist; ITO_ENOTULT outside a ULT;
 * ITO_ENOMEM if the ULT's value table could not grow (the old value stays).
 * @contexts ULT only (ZWTs and foreign threads have no thread-specific values).
 */
int ito_key_set(ito_key_t key, const void *value);

/**
 * @brief Reads the calling ULT's value for key into *value (NULL if the ULT has stored none).
 * @return ITO_OK; ITO_EINVAL for a NULL value pointer or a key that does not exist;
 * ITO_ENOTULT outside a ULT (then *value is NULL).
 * @contexts ULT only.
 */
int ito_key_get(ito_key_t key, void **value);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
