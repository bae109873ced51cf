/* gang.c: thread groups ("programs") and gang scheduling.
 *
 * Groups take turns round-robin, one quantum each, advanced by worker 0's timer: the
 * running group is published in itoi_gang_group with a new epoch, every worker is woken,
 * and the scheduler (src/core/sched.c) passes every ULT it is about to run through this
 * file's pick filter, which parks the ULTs of other groups in the worker's parked queue
 * (itoi_pworker_t) until their turn; a poller gives them back when the epoch changes. A ULT of another group that is running when the
 * turn ends is preempted by its worker's own tick, at its next safe point.
 * Preemption-safe regions act on the whole gang, as in the paper: while any ULT of the
 * running group is inside a region, worker 0's tick extends the group's turn (a delayed
 * switch, recorded) instead of ending it, up to the bound, then ends it anyway (forced).
 * The ito_psafe_end that leaves the group's last region ends the turn at once. A ULT
 * still inside a region when its group's turn ends keeps its worker (preempt.c: on_tick,
 * under the per-ULT bound) and leaves at its ito_psafe_end; ito_psafe_begin off the turn
 * first waits for the next one. If worker 0's tick is a quantum overdue, an idle worker
 * with parked ULTs makes its decision (tick_overdue). turn_next: written under turn_lock,
 * read by anyone.
 * Compensation: the time a turn overran becomes the group's debt (at most a quantum per
 * tick that extended it); when its turn comes it sits the turn out while its debt is at
 * least a quantum (the debt shrinks by a quantum per turn). */
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../core/sanitizer.h"
#include "preempt_int.h"

_Atomic(void *) itoi_gang_group;
_Atomic uint64_t itoi_gang_epoch;

/* Groups live in a static table (never freed, so a stale handle never reads freed
 * memory); a handle is (generation << 8) | (slot + 1), checked under groups_lock, and a
 * slot's generation moves when its group is destroyed or the runtime finalizes. */
static itoi_group_t group_tab[ITOI_MAX_GROUPS];
static _Atomic(itoi_group_t *) groups[ITOI_MAX_GROUPS]; /* the live ones: written under groups_lock,
                                                         * read by the tick without it (advance) */
static itoi_spinlock_t groups_lock;

static itoi_spinlock_t turn_lock; /* taken with trylock in signal handlers: never waits there */
static int turn;                  /* index of the running group (under turn_lock) */
/* Gang scheduling is on (under turn_lock): a tick that came before ito_preempt_disable but
 * reaches itoi_gang_tick after itoi_gang_stop (worker 0's handler, or an idle worker's
 * overdue-tick poller, both running beside the disabling thread) must not publish a turn
 * again. It did: with preemption off, a ULT of another group then waited in
 * ito_psafe_begin for a turn that no tick would ever end (test_gang_late_tick). */
static bool gang_on;
static _Atomic uint64_t turn_next; /* when the next tick is due to decide on the turn */

static void advance(uint64_t now, int forced);

/* A slot's generation: its group's, which moves when the group ends (destroy, finalize);
 * changed under groups_lock, read without it by the tick (preempt.c). */
static uint32_t slot_gen(int slot) { return atomic_load_explicit(&group_tab[slot].gen, memory_order_relaxed); }

/* Handles are keyed with the process's secret, as thread, frame, stream and channel
 * handles are: a small integer or another guess names no live group. (Until 2026-12-05 the
 * first group's handle was (void *)1, and ito_group_destroy((void *)1) ended it; found by
 * an outside tester, h62d.) The top bit is set in the key and never in a raw handle (slot
 * and a 32-bit generation): a keyed handle is never NULL. */
static inline uintptr_t group_key(void)
{
    return (itoi_arena.key * (uintptr_t)0x9e3779b97f4a7c15u) | ((uintptr_t)1 << 63);
}

static ito_group_t *group_handle(int slot)
{
    return (ito_group_t *)((((uintptr_t)slot_gen(slot) << 8) | (uintptr_t)(slot + 1)) ^ group_key());
}

/* The live group a handle names, or NULL (stale, forged, destroyed, other runtime); the
 * caller holds groups_lock, and the answer holds as long as it does (a group destroyed and
 * another created in its slot meanwhile sits at the same address in group_tab: a check made
 * before the lock was taken again let a late destroy of the old handle end the new group). */
static itoi_group_t *group_get_locked(ito_group_t *h)
{
    uintptr_t v = (uintptr_t)h ^ group_key();
    int slot = (int)(v & 0xff) - 1;
    if (slot < 0 || slot >= ITOI_MAX_GROUPS) return NULL;
    /* The whole handle: a value whose bits above the generation are not 0 was never handed
     * out (the generation is 32 bits; comparing only its low 32 let a forged handle with
     * garbage in bits 40..63 name the live group of its low bits). */
    return groups[slot] && (uint64_t)slot_gen(slot) == (uint64_t)(v >> 8) ? groups[slot] : NULL;
}

static itoi_group_t *group_get(ito_group_t *h)
{
    itoi_spin_lock(&groups_lock);
    itoi_group_t *g = group_get_locked(h);
    itoi_spin_unlock(&groups_lock);
    return g;
}

/* ito_finalize: every group ends with the runtime; their handles go stale. */
static void groups_fini(void)
{
    itoi_spin_lock(&groups_lock);
    for (int i = 0; i < ITOI_MAX_GROUPS; i++)
        if (groups[i]) {
            atomic_fetch_add(&groups[i]->gen, 1);
            groups[i] = NULL;
        }
    itoi_spin_unlock(&groups_lock);
    atomic_store(&itoi_gang_group, NULL);
}

/* ULTs parked for another group's turn, on all workers. They are runnable: work that will
 * progress by itself, which ito_finalize waits for (thread.h, the finalize rule). Without
 * this, finalize saw a group's computing ULT parked for its turn as no work while another
 * group's turn ran nothing (runtime.c pending(): an awake worker other than main's was the
 * only sign of a computing ULT, and a worker whose running group has nothing to run idles),
 * and after its grace cancelled a socket receive that the computing ULT was
 * about to send to: ECANCELED, the message lost (found by an outside tester, h68f,
 * 2026-12-06; tests/test_preempt_gang_fin_compute.c). */
static _Atomic size_t gang_parked_n;
static bool gang_fini_pending(void) { return atomic_load_explicit(&gang_parked_n, memory_order_acquire) != 0; }
static const itoi_fini_ops_t gang_fini_ops = {.pending = gang_fini_pending};

/* Gang scheduling's hooks (the parked queues' keepers, below; the groups' clean-up),
 * registered once per process (itoi_mech_register) by the first group or the first enable
 * with gangs (itoi_gang_register: before pre_lock, preempt.c). While no ULT is parked they
 * do nothing. */
static size_t gang_poll(itoi_worker_t *w, size_t budget);
static bool gang_probe(itoi_worker_t *w);
static bool gang_presleep(itoi_worker_t *w);
static itoi_mech_hooks_t gang_hooks = {.poll = gang_poll, .probe = gang_probe, .presleep = gang_presleep,
                                       .fini = groups_fini, .fini_ops = &gang_fini_ops};

static int group_create(ito_group_t **out)
{
    if (itoi_mech_register(&gang_hooks) != ITO_OK) return ITO_ENOMEM;
    itoi_spin_lock(&groups_lock);
    int slot = -1;
    for (int i = 0; i < ITOI_MAX_GROUPS; i++)
        if (!groups[i]) {
            slot = i;
            break;
        }
    if (slot >= 0) {
        /* Field by field, not memset: a tick that read the slot's previous group (the
         * table is static: the same address) may still read these atomics (TSan). */
        itoi_group_t *g = &group_tab[slot];
        atomic_store(&g->members, 0);
        atomic_store(&g->turn_delayed, 0);
        atomic_store(&g->debt_ns, 0);
        atomic_store(&g->st.ticks, 0);
        atomic_store(&g->st.preemptions, 0);
        atomic_store(&g->st.deferred, 0);
        atomic_store(&g->st.delayed, 0);
        atomic_store(&g->st.delay_ns, 0);
        atomic_store(&g->st.forced, 0);
        g->slot = slot;
        atomic_store_explicit(&groups[slot], g, memory_order_release);
        *out = group_handle(slot);
    }
    itoi_spin_unlock(&groups_lock);
    return slot < 0 ? ITO_ENOMEM : ITO_OK;
}

static int group_destroy(ito_group_t *gp)
{
    itoi_spin_lock(&groups_lock); /* members are added under it too (group_add) */
    itoi_group_t *g = group_get_locked(gp);
    if (!g) {
        itoi_spin_unlock(&groups_lock);
        return ITO_EINVAL;
    }
    if (atomic_load(&g->members) > 0) {
        itoi_spin_unlock(&groups_lock);
        return ITO_EBUSY;
    }
    atomic_fetch_add(&g->gen, 1); /* also a tick's kept pointer no longer counts on it (preempt.c) */
    groups[g->slot] = NULL;
    itoi_spin_unlock(&groups_lock);
    if (atomic_load(&itoi_gang_group) == (void *)g) atomic_store(&itoi_gang_group, NULL);
    return ITO_OK;
}

/* Membership (the invariant; itoi.h, ITOI_ST_MEMBER): a life is in group g iff its state
 * word has ITOI_ST_MEMBER, and then its group slot holds g; g->members counts the lives
 * with the bit and the slot on g, plus, for a moment, an add under groups_lock that has
 * not yet tried its CAS. The bit is set only here, by a CAS expecting the generation of
 * the handle's life and an unfinished kind, under groups_lock, after the slot was stored
 * (the slot is written only under the lock and only while the descriptor's bit is clear;
 * creation never writes it, so a slot store that lands on a life reused meanwhile is a
 * clear-bit slot nobody reads, and that add's CAS fails on the generation). The bit goes
 * only with the life's end, which leaves g first (group_member_exit, through the core's
 * hook itoi_member_exit, before the ULT's final state CAS, sched.c). Hence
 * a stale handle never adds another life, an add either precedes the end (and the end
 * sees it) or finds the life finished (ITO_ESTATE) or gone (ITO_EJOINED), and members
 * comes back to 0 once every member has ended.
 * Two kinds of end take no state CAS, which a concurrent CAS here could not be ordered
 * against (and both paths are hot): a ULT created detached (sched.c frees it with a plain
 * store) and one its joiner runs in place (thread.c, run_inline: ITOI_ST_INLINE in its
 * state). Only the ULT itself may add such a one (it cannot be ending meanwhile), and it
 * leaves through its on_exit, which both ends call (a ULT run in place is never in a group
 * before: ito_join runs only one without ITOI_ST_MEMBER in place). From another thread:
 * ITO_EPERM for one created detached (create it joinable, add it, then ito_detach it),
 * ITO_EBUSY for one run in place (it ends before its joiner's ito_join returns). */
static void group_member_exit(itoi_ult_t *t)
{
    /* acquire: the slot stored before the add's CAS (a release, followed only by RMWs) */
    (void)atomic_load_explicit(&t->state, memory_order_acquire);
    itoi_group_t *g = __atomic_load_n(&t->slot[ITOI_USLOT_GROUP].p, __ATOMIC_RELAXED);
    atomic_fetch_sub(&g->members, 1);
}

static void leave_on_exit(itoi_worker_t *w, itoi_ult_t *t)
{
    (void)w;
    group_member_exit(t);
}

/* t (the caller itself, or the flags may be another life's) ends without a state CAS */
static bool no_cas_end(itoi_ult_t *t, uintptr_t s)
{
    return (s & ITOI_ST_INLINE) || (__atomic_load_n(&t->flags, __ATOMIC_RELAXED) & ITOI_F_DETACHED);
}

static int group_add(ito_group_t *gp, ito_thread_t h)
{
    itoi_group_t *g = group_get(gp);
    if (!g) return ITO_EINVAL;
    itoi_ult_t *t = itoi_handle_get(h);
    if (!t) return itoi_handle_err(h);
    uint16_t hg = itoi_handle_gen(h);
    itoi_worker_t *w = itoi_self_worker();
    /* Under groups_lock, while the group is still the handle's: a destroy that raced us
     * either saw the member (ITO_EBUSY) or ended the group first (ITO_EINVAL here), and of
     * two adds of one ULT one says ITO_EBUSY (both returned ITO_OK: a member in two groups,
     * one of them never destroyable). Everything about t is decided from its state word,
     * read here and then the expected value of the CAS (the handle check above may be
     * stale by now: the life ended, the descriptor was reused). */
    int rc;
    itoi_spin_lock(&groups_lock);
    uintptr_t s = atomic_load_explicit(&t->state, memory_order_acquire);
    for (;;) {
        uintptr_t kind = itoi_st_kind(s);
        /* (t is the caller, in this life: it cannot be ending meanwhile) */
        bool self = w && __atomic_load_n(&w->cur, __ATOMIC_RELAXED) == t;
        if (group_get_locked(gp) != g) rc = ITO_EINVAL;
        else if ((s & ITOI_ST_GEN_MASK) != itoi_st(hg, 0)) rc = ITO_EJOINED; /* another life: stale */
        else if (kind == ITOI_DONE || kind == ITOI_REAPED) rc = ITO_ESTATE; /* finished */
        else if (s & ITOI_ST_MEMBER) rc = ITO_EBUSY;                         /* one group per ULT */
        else if ((s & ITOI_ST_INLINE) && !self) rc = ITO_EBUSY; /* run by its joiner: ends without a CAS */
        else if ((__atomic_load_n(&t->flags, __ATOMIC_RELAXED) & ITOI_F_DETACHED) && !self)
            rc = ITO_EPERM; /* created detached: ends without a CAS */
        else if (no_cas_end(t, s) && t->on_exit)
            rc = ITO_EBUSY; /* (itself, created detached in bulk: its on_exit is the bulk's) */
        else {
            atomic_fetch_add(&g->members, 1);
            __atomic_store_n(&t->slot[ITOI_USLOT_GROUP].p, (void *)g, __ATOMIC_RELAXED);
            atomic_store_explicit(&itoi_member_exit, group_member_exit, memory_order_relaxed); /* (the CAS publishes it) */
            if (atomic_compare_exchange_strong_explicit(&t->state, &s, s | ITOI_ST_MEMBER, memory_order_acq_rel,
                                                        memory_order_acquire)) {
                /* (t itself, so this write is ordered with its end) */
                if (no_cas_end(t, s)) t->on_exit = leave_on_exit;
                rc = ITO_OK;
                break;
            }
            atomic_fetch_sub(&g->members, 1); /* the state moved (a join, detach, end, reuse): again */
            continue;
        }
        break;
    }
    itoi_spin_unlock(&groups_lock);
    return rc;
}

static int group_stats(ito_group_t *gp, ito_preempt_stats_t *out)
{
    itoi_spin_lock(&groups_lock); /* the handle's group, not a new one at its address */
    itoi_group_t *g = group_get_locked(gp);
    if (!g) {
        itoi_spin_unlock(&groups_lock);
        return ITO_EINVAL;
    }
    out->ticks = 0;
    out->preemptions = atomic_load(&g->st.preemptions);
    out->deferred = atomic_load(&g->st.deferred);
    out->delayed = atomic_load(&g->st.delayed);
    out->delay_ns = atomic_load(&g->st.delay_ns);
    out->forced = atomic_load(&g->st.forced);
    itoi_spin_unlock(&groups_lock);
    return ITO_OK;
}

/* The public calls: any thread, entered (itoi_any_enter) while they touch the runtime. */
int ito_group_create(ito_group_t **out)
{
    if (!out) return ITO_EINVAL;
    ITOI_ANY_RETURN(ITO_ESTATE, group_create(out));
}

int ito_group_destroy(ito_group_t *gp)
{
    if (!gp) return ITO_EINVAL;
    ITOI_ANY_RETURN(ITO_ESTATE, group_destroy(gp));
}

int ito_group_add(ito_group_t *gp, ito_thread_t h)
{
    if (!gp || !h) return ITO_EINVAL;
    ITOI_ANY_RETURN(ITO_ESTATE, group_add(gp, h));
}

int ito_group_stats(ito_group_t *gp, ito_preempt_stats_t *out)
{
    if (!gp || !out) return ITO_EINVAL;
    ITOI_ANY_RETURN(ITO_ESTATE, group_stats(gp, out));
}

/* ---- the scheduler's side: parking ULTs whose group's turn it is not ---- */

/* Whether w holds ULTs parked for another group's turn. */
static bool has_parked(const itoi_pworker_t *pw) { return pw && pw->parked.head; }

/* w's record for the parked queue's keepers (the poller, the idle probe, the sleep hook):
 * the record itself, not the worker's preemption slot, which ito_preempt_disable clears
 * right after stopping the gangs. ULTs parked then must still be given back (through the
 * slot, the poller saw no record, and they waited in the queue for ever: a join of them
 * and ito_finalize hung; test_preempt_gang_disable). The records live from the first
 * enable until finalize (preempt.c). */
static itoi_pworker_t *parked_pw(itoi_worker_t *w)
{
    itoi_pworker_t *pw = itoi_pre_records();
    return pw ? &pw[w->index] : NULL;
}

/* Give back the parked ULTs when another group's turn has come (or gang scheduling
 * stopped): they waited a whole turn, so they go first, the ones that ran in the most
 * recent turn among them last. When a turn is one quantum, one member of a group runs
 * per worker per turn: the member whose quantum ended with the turn must not lead the
 * next turn again, or a second member of its group on the same worker never runs (seen
 * under two CPU hogs and with other timings: test_preempt's gang part, one spinner at 0
 * after 10 s). Which member is parked first depends on timing (the kicked one, or one
 * the worker picked earlier in the other group's turn), so the order is by when each
 * last ran (ITOI_USLOT_GANG_RAN, stamped by the filter), not by parking order. */
static size_t unpark(itoi_worker_t *w)
{
    itoi_pworker_t *pw = parked_pw(w);
    if (!has_parked(pw)) return 0;
    uint64_t e = atomic_load_explicit(&itoi_gang_epoch, memory_order_acquire);
    if (e == pw->gang_seen && atomic_load_explicit(&itoi_gang_group, memory_order_relaxed)) return 0;
    pw->gang_seen = e;
    size_t n = pw->parked.n;
    uintptr_t latest = 0;
    for (itoi_unit_t *u = pw->parked.head; u; u = u->next) {
        uintptr_t ran = ((itoi_ult_t *)u)->slot[ITOI_USLOT_GANG_RAN].w;
        if (ran > latest) latest = ran;
    }
    itoi_queue_t first = {0}, last = {0};
    for (itoi_unit_t *u; (u = itoi_queue_pop(&pw->parked));)
        itoi_queue_push(((itoi_ult_t *)u)->slot[ITOI_USLOT_GANG_RAN].w == latest ? &last : &first, u);
    itoi_queue_append(&first, &last);
    itoi_queue_append(&first, &w->rq);
    w->rq = first;
    atomic_fetch_sub_explicit(&gang_parked_n, n, memory_order_release);
    return n;
}

static bool gang_filter(itoi_worker_t *w, itoi_ult_t *t)
{
    itoi_pworker_t *pw = itoi_pworker(w);
    if (!pw) return true;
    itoi_group_t *tg = itoi_group_of(t);
    if (unpark(w) && tg) {
        /* t was taken from the queue before the parked ULTs came back in front of it:
         * they waited a whole turn, t goes behind them (else the member that ran last
         * turn is taken first again each turn, and another member of its group on this
         * worker never runs: test_preempt's gang part, one spinner at 0 after 10 s). */
        itoi_queue_push(&w->rq, &t->u);
        return false;
    }
    void *g = atomic_load_explicit(&itoi_gang_group, memory_order_relaxed);
    if (!g || !tg || tg == g) {
        if (tg) t->slot[ITOI_USLOT_GANG_RAN].w = atomic_load_explicit(&itoi_gang_epoch, memory_order_relaxed);
        return true;
    }
    atomic_fetch_add_explicit(&gang_parked_n, 1, memory_order_release);
    itoi_queue_push(&pw->parked, &t->u);
    return false;
}

/* The leave test (itoi_must_leave): a ULT of a group whose turn is over. */
static bool gang_leave(itoi_worker_t *w, itoi_ult_t *t)
{
    (void)w;
    void *g = atomic_load_explicit(&itoi_gang_group, memory_order_relaxed);
    itoi_group_t *tg = itoi_group_of(t);
    return g && tg && tg != g;
}

/* Worker 0's tick is overdue by a quantum: it sleeps where its signal waits (under TSan,
 * which holds a signal back until the thread calls an intercepted function, and an idle
 * worker sleeps in a raw futex call: every group's ULTs parked, all workers asleep, the
 * program hung). An idle worker with parked ULTs then makes the tick's decision itself. */
static bool tick_overdue(void)
{
    return itoi_now_ns() >= atomic_load_explicit(&turn_next, memory_order_relaxed) + ITOI_PRE_GET(quantum_ns);
}

/* ... and whether they wait for a turn (with no group running, unpark gives them back). */
static bool waits_for_turn(const itoi_pworker_t *pw)
{
    return has_parked(pw) && atomic_load(&itoi_gang_group);
}

/* An idle worker with parked ULTs whose turn has come must not sleep; its poller
 * (below) gives them back. */
static bool gang_probe(itoi_worker_t *w)
{
    itoi_pworker_t *pw = parked_pw(w);
    return has_parked(pw) &&
           (atomic_load(&itoi_gang_epoch) != pw->gang_seen || !atomic_load(&itoi_gang_group) || tick_overdue());
}

/* ... and sleeps no longer than until that tick would be overdue. */
static bool gang_presleep(itoi_worker_t *w)
{
    if (waits_for_turn(parked_pw(w)))
        w->sleep_cap = atomic_load_explicit(&turn_next, memory_order_relaxed) + ITOI_PRE_GET(quantum_ns);
    return false;
}

static size_t gang_poll(itoi_worker_t *w, size_t budget)
{
    (void)budget;
    if (waits_for_turn(parked_pw(w)) && tick_overdue()) itoi_gang_tick();
    return unpark(w);
}

int itoi_gang_register(void) { return itoi_mech_register(&gang_hooks); }

void itoi_gang_start(void)
{
    atomic_store(&itoi_pick_filter, gang_filter);
    atomic_store(&itoi_must_leave, gang_leave);
    itoi_hooks_changed();
    itoi_spin_lock(&turn_lock);
    gang_on = true;
    turn = -1; /* (under the lock: a late tick of an earlier enable may be in advance) */
    advance(itoi_now_ns(), 0);
    itoi_spin_unlock(&turn_lock);
}

void itoi_gang_stop(void)
{
    atomic_store(&itoi_pick_filter, NULL);
    atomic_store(&itoi_must_leave, NULL);
    itoi_hooks_changed();
    /* Under turn_lock: a tick deciding now finishes first, and later ones see gang_on
     * clear. (The handler only tries the lock, so this wait cannot deadlock with it.) */
    itoi_spin_lock(&turn_lock);
    gang_on = false;
    atomic_store(&itoi_gang_group, NULL);
    atomic_fetch_add(&itoi_gang_epoch, 1);
    itoi_spin_unlock(&turn_lock);
    itoi_wake_all();
}

/* Whether worker i runs a ULT of g (inside a preemption-safe region, if `region`). Reads
 * the worker's running ULT and its region depth, which their owners write without atomics
 * (the switch, the region's calls); a stale view only moves a decision by a tick, and
 * descriptors live until ito_finalize, so a stale one is still memory. So the reads are
 * hidden from TSan (sanitizer.h). */
static int runs_of(int i, itoi_group_t *g, int region)
{
    ITOI_SAN_IGNORE_BEGIN();
    itoi_ult_t *c = __atomic_load_n(&itoi_rt.workers[i].cur, __ATOMIC_RELAXED);
    int yes = c && itoi_group_of(c) == g && (!region || ITOI_PSAFE(c));
    ITOI_SAN_IGNORE_END();
    return yes;
}

/* Is any ULT of g inside a preemption-safe region right now? */
static int in_region(itoi_group_t *g)
{
    for (int i = 0; i < itoi_rt.nworkers; i++)
        if (runs_of(i, g, 1)) return 1;
    return 0;
}

/* Make the ULTs of the group whose turn just ended leave at once (their handlers see it). */
static void kick_others(itoi_group_t *old)
{
    pid_t pid = getpid();
    itoi_worker_t *self = itoi_tls_worker;
    for (int i = 0; i < itoi_rt.nworkers; i++) {
        itoi_worker_t *w = &itoi_rt.workers[i];
        if (w != self && runs_of(i, old, 0)) syscall(SYS_tgkill, pid, atomic_load(&w->tid), SIGURG);
    }
}

/* The next group's turn; the caller holds turn_lock. */
static void advance(uint64_t now, int forced)
{
    atomic_store_explicit(&turn_next, now + ITOI_PRE_GET(quantum_ns), memory_order_relaxed);
    itoi_group_t *cur = atomic_load(&itoi_gang_group);
    if (cur && atomic_load_explicit(&cur->turn_delayed, memory_order_relaxed)) { /* compensation: the program sits out what it overran */
        /* At most a quantum per tick that extended the turn, as the debt is paid back a
         * quantum per turn: in wall time, an extension during which the OS had worker 0's
         * thread descheduled was charged many quanta while a sat-out turn stretched the same
         * way paid back one, and under CPU contention the group with regions got a fraction
         * of the other's CPU (ratio 0.06-0.45 instead of about 1: test_gang_debt, its run with hogs). */
        uint64_t extra = now - cur->delay_since, cap = (uint64_t)cur->turn_ticks * ITOI_PRE_GET(quantum_ns);
        if (extra > cap) extra = cap;
        atomic_fetch_add(&cur->st.delay_ns, extra);
        atomic_fetch_add(&cur->debt_ns, extra);
        if (forced) atomic_fetch_add(&cur->st.forced, 1);
        atomic_store_explicit(&cur->turn_delayed, 0, memory_order_relaxed);
    }
    itoi_group_t *next = NULL;
    for (int k = 1; k <= ITOI_MAX_GROUPS; k++) {
        int i = (turn + k) % ITOI_MAX_GROUPS;
        itoi_group_t *g = groups[i];
        if (!g || atomic_load(&g->members) == 0) continue;
        uint64_t d = atomic_load(&g->debt_ns);
        if (d >= ITOI_PRE_GET(quantum_ns)) { /* compensation: it sits this turn out */
            atomic_fetch_sub(&g->debt_ns, ITOI_PRE_GET(quantum_ns));
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
    if (cur) kick_others(cur);
}

/* Runs in worker 0's signal handler (or on an idle worker whose ULTs wait for a tick that
 * is overdue): atomics, syscalls and a trylock only. The turn of a group with a ULT inside
 * a preemption-safe region is extended (recorded), up to the bound; then it ends anyway
 * (forced). */
void itoi_gang_tick(void)
{
    if (!itoi_spin_trylock(&turn_lock)) return; /* ito_psafe_end is advancing it: next tick */
    if (!gang_on) { /* a late tick: gang scheduling stopped meanwhile */
        itoi_spin_unlock(&turn_lock);
        return;
    }
    uint64_t now = itoi_now_ns();
    itoi_group_t *cur = atomic_load(&itoi_gang_group);
    int forced = 0;
    if (cur && in_region(cur)) {
        bool first = !atomic_load_explicit(&cur->turn_delayed, memory_order_relaxed);
        if (first) {
            atomic_store_explicit(&cur->turn_delayed, 1, memory_order_relaxed);
            cur->delay_since = now;
            cur->turn_ticks = 0;
            atomic_fetch_add(&cur->st.delayed, 1);
        }
        if (first || now - cur->delay_since < ITOI_PRE_GET(max_delay_ns)) { /* extended: decide next tick */
            cur->turn_ticks++;
            atomic_store_explicit(&turn_next, now + ITOI_PRE_GET(quantum_ns), memory_order_relaxed);
            itoi_spin_unlock(&turn_lock);
            return;
        }
        forced = 1;
    }
    advance(now, forced); /* sets turn_next too */
    itoi_spin_unlock(&turn_lock);
}

/* From ito_psafe_end: the last region of a group whose turn was extended has ended, so
 * the turn ends now (the paper: the pending switch happens at once). */
void itoi_gang_region_ended(itoi_group_t *g)
{
    if (!itoi_spin_trylock(&turn_lock)) return; /* the tick is deciding: it will see it */
    if (gang_on && atomic_load(&itoi_gang_group) == (void *)g && atomic_load_explicit(&g->turn_delayed, memory_order_relaxed) && !in_region(g))
        advance(itoi_now_ns(), 0);
    itoi_spin_unlock(&turn_lock);
}
