/* spinlock.h: a test-and-test-and-set lock for the runtime's short critical sections
 * (wait queues, the shared part of ready queues). Never held across a context switch
 * except when it is released by the post action of that switch. */
#ifndef ITO_CORE_SPINLOCK_H
#define ITO_CORE_SPINLOCK_H

#include <stdatomic.h>

typedef struct itoi_spinlock { atomic_int v; } itoi_spinlock_t;

static inline void itoi_spin_pause(void) { __builtin_ia32_pause(); }

static inline void itoi_spin_init(itoi_spinlock_t *l) { atomic_init(&l->v, 0); }

static inline int itoi_spin_trylock(itoi_spinlock_t *l)
{
    return atomic_load_explicit(&l->v, memory_order_relaxed) == 0 &&
           atomic_exchange_explicit(&l->v, 1, memory_order_acquire) == 0;
}

static inline void itoi_spin_lock(itoi_spinlock_t *l)
{
    while (atomic_exchange_explicit(&l->v, 1, memory_order_acquire) != 0)
        while (atomic_load_explicit(&l->v, memory_order_relaxed) != 0) itoi_spin_pause();
}

/* Whether the lock word holds a value a lock can hold (0 or 1): a check of storage that
 * may not be an object at all. */
static inline int itoi_spin_plausible(itoi_spinlock_t *l)
{
    return (unsigned)atomic_load_explicit(&l->v, memory_order_relaxed) <= 1u;
}

static inline void itoi_spin_unlock(itoi_spinlock_t *l)
{
    atomic_store_explicit(&l->v, 0, memory_order_release);
}

#endif
