/* hooks.c: the registries through which mechanisms plug into the scheduler (pollers,
 * idle probes, sleep hooks; see itoi.h), and the one way mechanisms fill them and the
 * fini tables (runtime.c): a record of a mechanism's hooks, registered once per process
 * (itoi_mech_register).
 *
 * Invariants: an entry is added under the table's lock and never removed while the
 * process lives (the functions stay valid; the tables outlive ito_finalize, and the next
 * runtime calls the same hooks); the count is published with a release store after the
 * entry is written, so a reader that loads the count with acquire (itoi_hook_count) calls
 * complete entries without taking the lock. Adding is idempotent: the same pair again is
 * not a new entry. A record's `registered` is set (release) only after every one of its
 * hooks is in, so a caller that sees it set (acquire) finds them all in their tables;
 * until then every call adds again, which the idempotent adds make harmless. Whether a
 * mechanism starts once or a thousand times, in one runtime or in dozens (ito_init and
 * ito_finalize in a loop), its hooks are each in their table once and run once per
 * call site (tests/test_hooks_once.c). Registration at ito_init instead would have every
 * worker call every linked mechanism's poller at every scheduler pass, used or not. */
#include "itoi.h"

int itoi_mech_register_slow(itoi_mech_hooks_t *m)
{
    int rc = ITO_OK;
    if ((m->poll && (rc = itoi_poller_add(m->poll)) != ITO_OK) ||
        (m->probe && (rc = itoi_idle_probe_add(m->probe)) != ITO_OK) ||
        ((m->presleep || m->postsleep) && (rc = itoi_sleep_hooks_add(m->presleep, m->postsleep)) != ITO_OK) ||
        (m->fini && (rc = itoi_fini_add(m->fini)) != ITO_OK) ||
        (m->fini_ops && (rc = itoi_fini_ops_add(m->fini_ops)) != ITO_OK))
        return rc;
    atomic_store_explicit(&m->registered, true, memory_order_release);
    return ITO_OK;
}

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
