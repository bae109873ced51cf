/* ult_barrier.c: generation-counting barrier on ito's mutex and condition variable.
 * Invariant: gen changes exactly once per round, under the mutex, when the n-th ULT arrives;
 * a waiter leaves only when the generation it arrived in has ended (spurious wake-ups loop). */
#include "ult_barrier.h"

int psr_barrier_init(psr_barrier *b, int n)
{
    if (n < 1)
        return ITO_EINVAL;
    b->n = n;
    b->count = 0;
    b->gen = 0;
    int rc = ito_mutex_init(&b->m);
    if (rc)
        return rc;
    rc = ito_cond_init(&b->c);
    if (rc)
        ito_mutex_destroy(&b->m);
    return rc;
}

int psr_barrier_wait(psr_barrier *b)
{
    int rc = ito_mutex_lock(&b->m);
    if (rc)
        return rc;
    unsigned long gen = b->gen;
    if (++b->count == b->n) {
        b->count = 0;
        b->gen++;
        rc = ito_cond_broadcast(&b->c);
    } else {
        while (rc == ITO_OK && gen == b->gen)
            rc = ito_cond_wait(&b->c, &b->m);
    }
    int rc2 = ito_mutex_unlock(&b->m);
    return rc ? rc : rc2;
}

int psr_barrier_destroy(psr_barrier *b)
{
    int rc = ito_cond_destroy(&b->c);
    int rc2 = ito_mutex_destroy(&b->m);
    return rc ? rc : rc2;
}
