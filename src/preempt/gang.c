/* gang.c: thread groups ("programs") and gang scheduling.
 *
 * Groups take turns round-robin, one quantum each, advanced by worker 0's timer: the
 * running group is published in itoi_gang_group with a new epoch, every worker is woken,
 * and the scheduler (src/core/worker.c) runs only ULTs of that group or of no group,
 * parking the others until their turn. A ULT of another group that is running when the
 * turn ends is preempted by its worker's own tick, at its next safe point.
 * Compensation (the preemption-safe policy): a group that used extra time inside
 * preemption-safe regions has that time as debt; when its turn comes it sits the turn
 * out while its debt is at least a quantum (the debt shrinks by a quantum per turn). */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "preempt_int.h"

static itoi_group_t *groups[ITOI_MAX_GROUPS];
static itoi_spinlock_t groups_lock;
static int turn; /* index of the running group; worker 0's timer only */

int ito_group_create(ito_group_t **out)
{
    if (!out) return ITO_EINVAL;
    if (atomic_load(&itoi_rt.state) != 1) return ITO_ESTATE;
    itoi_group_t *g = calloc(1, sizeof *g);
    if (!g) return ITO_ENOMEM;
    itoi_spin_lock(&groups_lock);
    int slot = -1;
    for (int i = 0; i < ITOI_MAX_GROUPS; i++)
        if (!groups[i]) {
            slot = i;
            break;
        }
    if (slot >= 0) {
        g->slot = slot;
        groups[slot] = g;
    }
    itoi_spin_unlock(&groups_lock);
    if (slot < 0) {
        free(g);
        return ITO_ENOMEM;
    }
    *out = (ito_group_t *)g;
    return ITO_OK;
}

int ito_group_destroy(ito_group_t *gp)
{
    itoi_group_t *g = (itoi_group_t *)gp;
    if (!g) return ITO_EINVAL;
    if (atomic_load(&g->members) > 0) return ITO_EBUSY;
    itoi_spin_lock(&groups_lock);
    if (groups[g->slot] == g) groups[g->slot] = NULL;
    itoi_spin_unlock(&groups_lock);
    if (atomic_load(&itoi_gang_group) == (void *)g) atomic_store(&itoi_gang_group, NULL);
    free(g);
    return ITO_OK;
}

static void leave_group(itoi_ult_t *t)
{
    itoi_group_t *g = t->group;
    if (g) atomic_fetch_sub(&g->members, 1);
}

int ito_group_add(ito_group_t *gp, ito_thread_t h)
{
    itoi_group_t *g = (itoi_group_t *)gp;
    if (!g || !h) return ITO_EINVAL;
    itoi_ult_t *t = itoi_handle_get(h);
    if (!t) return ITO_EJOINED;
    if (t->group || t->on_exit) return ITO_EBUSY; /* one group per ULT; not for bulk-created ones */
    if (atomic_load(&t->state) != ITOI_LIVE && atomic_load(&t->state) != ITOI_DETACHED) return ITO_ESTATE;
    atomic_fetch_add(&g->members, 1);
    t->group = g;
    t->on_exit = leave_group;
    return ITO_OK;
}

int ito_group_stats(ito_group_t *gp, ito_preempt_stats_t *out)
{
    itoi_group_t *g = (itoi_group_t *)gp;
    if (!g || !out) return ITO_EINVAL;
    out->ticks = 0;
    out->preemptions = atomic_load(&g->st.preemptions);
    out->deferred = atomic_load(&g->st.deferred);
    out->delayed = atomic_load(&g->st.delayed);
    out->delay_ns = atomic_load(&g->st.delay_ns);
    out->forced = atomic_load(&g->st.forced);
    return ITO_OK;
}

void itoi_gang_start(void)
{
    turn = -1;
    itoi_gang_tick();
}

void itoi_gang_stop(void)
{
    atomic_store(&itoi_gang_group, NULL);
    atomic_fetch_add(&itoi_gang_epoch, 1);
    itoi_wake_all();
}

/* Runs in worker 0's signal handler: atomics and syscalls only (no lock, no malloc). */
void itoi_gang_tick(void)
{
    itoi_group_t *next = NULL;
    for (int k = 1; k <= ITOI_MAX_GROUPS; k++) {
        int i = (turn + k) % ITOI_MAX_GROUPS;
        itoi_group_t *g = groups[i];
        if (!g || atomic_load(&g->members) == 0) continue;
        uint64_t d = atomic_load(&g->debt_ns);
        if (d >= itoi_pre.quantum_ns) { /* compensation: it sits this turn out */
            atomic_fetch_sub(&g->debt_ns, itoi_pre.quantum_ns);
            continue;
        }
        next = g;
        turn = i;
        break;
    }
    if (atomic_load(&itoi_gang_group) == (void *)next) return;
    atomic_store(&itoi_gang_group, next);
    atomic_fetch_add(&itoi_gang_epoch, 1);
    itoi_wake_all();
}
