/* tls.c: thread-specific values of ULTs (keys with destructors).
 *
 * Keys: one process-wide table of ITO_KEYS_MAX slots under keys_lock. A key is
 * (generation << KEY_BITS) | index with a generation >= 1, so 0 is never a key and a
 * deleted key's handle never matches the slot's next key. keys[i].id is the live key of
 * slot i (0: free); it is written under keys_lock and read with acquire loads, so set/get
 * check a key without the lock. The destructor is read under the lock only.
 *
 * Values: each ULT that stores a value gets a table (itoi_ult_t.store) of slots
 * {value, key}, grown to the highest index it used; only the ULT itself touches it. A slot
 * counts only while its key is the slot's live key, so a value stored for a key that was
 * deleted (and perhaps re-created) is never seen. The table starts with the core's
 * release hook (itoi_ult_store_t): the core calls it on the ULT's own stack as the ULT
 * exits, and ito_finalize calls it for main; it runs the destructors in rounds and frees
 * the table. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ito/tls.h"
#include "waitq.h"

#define KEY_BITS 10
_Static_assert(ITO_KEYS_MAX <= (1u << KEY_BITS), "key index bits");

static struct {
    _Atomic uint32_t id;          /* the live key of this slot, 0 when free */
    uint32_t next_gen;            /* generation of the slot's next key */
    ito_key_destructor_t dtor;
} keys[ITO_KEYS_MAX];
static itoi_spinlock_t keys_lock;

/* fork(): the key table's lock is held across it by the forking thread and released on
 * both sides (with the handle objects' locks, by arena.c's fork handlers), so that a child
 * forked while another thread created or deleted a key does not spin for ever in its own
 * ito_key_create, which thread.h says works there. */
void itoi_keys_fork_lock(void) { itoi_spin_lock(&keys_lock); }
void itoi_keys_fork_unlock(void) { itoi_spin_unlock(&keys_lock); }

typedef struct slot {
    void *value;
    ito_key_t key;
} slot_t;

typedef struct store {
    itoi_ult_store_t hdr;
    size_t n;
    int round;      /* the destructor round running now, -1 when none (store_release) */
    slot_t slot[];
} store_t;

static inline uint32_t key_index(ito_key_t key) { return key & ((1u << KEY_BITS) - 1); }

static inline bool key_live(ito_key_t key)
{
    return key != 0 && key_index(key) < ITO_KEYS_MAX &&
           atomic_load_explicit(&keys[key_index(key)].id, memory_order_acquire) == key;
}

int ito_key_create(ito_key_t *key, ito_key_destructor_t destructor)
{
    if (!key) return ITO_EINVAL;
    int rc = ITO_ERANGE;
    itoi_spin_lock(&keys_lock);
    for (uint32_t i = 0; i < ITO_KEYS_MAX; i++) {
        if (atomic_load_explicit(&keys[i].id, memory_order_relaxed) != 0) continue;
        uint32_t gen = keys[i].next_gen + 1;
        if (gen >= (1u << (32 - KEY_BITS))) gen = 1;
        keys[i].next_gen = gen;
        keys[i].dtor = destructor;
        *key = gen << KEY_BITS | i;
        atomic_store_explicit(&keys[i].id, *key, memory_order_release);
        rc = ITO_OK;
        break;
    }
    itoi_spin_unlock(&keys_lock);
    return rc;
}

int ito_key_delete(ito_key_t key)
{
    int rc = ITO_EINVAL;
    itoi_spin_lock(&keys_lock);
    if (key_live(key)) {
        atomic_store_explicit(&keys[key_index(key)].id, 0, memory_order_release);
        keys[key_index(key)].dtor = NULL;
        rc = ITO_OK;
    }
    itoi_spin_unlock(&keys_lock);
    return rc;
}

/* The destructor of a key that is still live, or NULL. */
static ito_key_destructor_t dtor_of(ito_key_t key)
{
    itoi_spin_lock(&keys_lock);
    ito_key_destructor_t d = key_live(key) ? keys[key_index(key)].dtor : NULL;
    itoi_spin_unlock(&keys_lock);
    return d;
}

/* The core's exit hook: destructor rounds, then the table goes. */
static void store_release(itoi_ult_t *t)
{
    store_t *s = (store_t *)t->store;
    /* A destructor that calls ito_exit enters here again, on the same table, and the outer
     * call never resumes: go on with the next round instead of starting over, so the
     * rounds stay bounded (starting at 0, a destructor that stored a value again and
     * exited recursed until its stack overflowed; found by an outside tester, h65g,
     * 2026-12-06: test_key_dtor_exit_rounds). */
    for (int round = s->round + 1; round < ITO_KEY_DESTRUCTOR_ROUNDS; round++) {
        s->round = round;
        bool called = false;
        for (size_t i = 0; i < s->n; i++) {
            void *v = s->slot[i].value;
            if (!v) continue;
            s->slot[i].value = NULL;
            ito_key_destructor_t d = dtor_of(s->slot[i].key);
            if (!d) continue;
            d(v); /* may block, and may store values again (into s, which stays ours) */
            called = true;
            s = (store_t *)t->store; /* a set may have grown the table */
            s->round = round;
        }
        if (!called) break;
    }
    t->store = NULL;
    free(s);
}

/* The running ULT, or NULL outside a ULT. */
static inline itoi_ult_t *self_ult(void)
{
    itoi_worker_t *w = itoi_ult_worker();
    return w ? w->cur : NULL;
}

int ito_key_set(ito_key_t key, const void *value)
{
    if (!key_live(key)) return ITO_EINVAL;
    itoi_ult_t *t = self_ult();
    if (!t) return ITO_ENOTULT;
    size_t i = key_index(key);
    store_t *s = (store_t *)t->store;
    if (!s || s->n <= i) {
        if (!value) return ITO_OK; /* nothing stored, nothing to clear */
        size_t n = s ? s->n : 0, want = i + 1 > 2 * n ? i + 1 : 2 * n;
        if (want > ITO_KEYS_MAX) want = ITO_KEYS_MAX;
        store_t *g = itoi_malloc(sizeof *g + want * sizeof g->slot[0]);
        if (!g) return ITO_ENOMEM;
        g->hdr.release = store_release;
        g->n = want;
        g->round = s ? s->round : -1;
        if (n) memcpy(g->slot, s->slot, n * sizeof g->slot[0]);
        memset(g->slot + n, 0, (want - n) * sizeof g->slot[0]);
        free(s);
        t->store = &g->hdr;
        s = g;
    }
    s->slot[i].value = (void *)value;
    s->slot[i].key = key;
    return ITO_OK;
}

int ito_key_get(ito_key_t key, void **value)
{
    if (!value) return ITO_EINVAL;
    *value = NULL;
    if (!key_live(key)) return ITO_EINVAL;
    itoi_ult_t *t = self_ult();
    if (!t) return ITO_ENOTULT;
    const store_t *s = (const store_t *)t->store;
    size_t i = key_index(key);
    if (s && i < s->n && s->slot[i].key == key) *value = s->slot[i].value;
    return ITO_OK;
}
