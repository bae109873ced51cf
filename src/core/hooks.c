/* hooks.c: the registries through which mechanisms plug into the scheduler (pollers,
 * idle probes, sleep hooks; see itoi.h).
 *
 * Invariants: an entry is added under the table's lock and never removed while the
 * process lives (mechanisms register once, at their first use, and the functions stay
 * valid); the count is published with a release store after the entry is written, so a
 * reader that loads the count with acquire (itoi_hook_count) calls complete entries
 * without taking the lock. Adding is idempotent: the same pair again is not a new entry. */
#include "itoi.h"

int itoi_hook_add(itoi_hook_table_t *t, itoi_hook_fn a, itoi_hook_fn b)
{
    int rc = ITO_OK;
    itoi_spin_lock(&t->lock);
    int n = atomic_load_explicit(&t->n, memory_order_relaxed);
    for (int i = 0; i < n; i++)
        if (t->a[i] == a && t->b[i] == b) goto out;
    if (n == t->cap) {
        rc = ITO_ENOMEM;
        goto out;
    }
    t->a[n] = a;
    t->b[n] = b;
    atomic_store_explicit(&t->n, n + 1, memory_order_release);
out:
    itoi_spin_unlock(&t->lock);
    return rc;
}
