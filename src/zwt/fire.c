/* fire.c: continuations, re-arming, thread locks, modes, and ULTs waiting on entries. */
#include "zwt.h"

/* The mode of the caller: a running ZWT's own, else user (ULTs, foreign threads). */
static inline int caller_mode(itoi_worker_t *w)
{
    const itoi_zentry_t *cur = w ? (const itoi_zentry_t *)w->unit_cur : NULL;
    /* read as the definition is (ITOI_ZGET): another thread may ito_entry_set the running
     * ZWT's entry (a plain load here was a data race with it, found by an outside tester
     * under TSan, 2026-12-05: test_zwt_mode_race) */
    return cur ? ITOI_ZGET(cur->mode) : ITO_MODE_USER;
}

int itoi_zwt_caller_mode(itoi_worker_t *w) { return caller_mode(w); }

void itoi_zwt_run(itoi_worker_t *w, itoi_unit_t *u)
{
    itoi_zentry_t *e = (itoi_zentry_t *)u;
    uint64_t v = atomic_load_explicit(&e->value, memory_order_relaxed); /* before the entry can be fired again */
    ito_zwt_fn code = ITOI_ZGET(e->code); /* while queued: no set can change it (zwt.h) */
    /* The frame's handle and the index too, while queued: once the entry is marked
     * running, ito_frame_destroy may free the frame and ito_frame_create reuse its memory
     * (reading them after the store below gave the code the new frame's handle, or a
     * frame pointer the new frame's memset had cleared; found by a misuse fuzzer,
     * 2026-12-04). */
    ito_frame_t *h = itoi_frame_handle(e->frame);
    int index = e->index;
    atomic_store_explicit(&e->sync, 0, memory_order_release); /* running: no longer queued */
    w->unit_began = u; /* for ito_zwt_self: in the line of unit_cur, which itoi_unit_run_now wrote */
    w->unit_frame = h;
    w->unit_index = index;
    code(h, index, v);
}

/* A set holding the waiter word (SETTING) keeps it: its arming supersedes this firing,
 * and nobody waits (it took the word from 0 or FIRED). Overwriting it with FIRED let a
 * re-arm turn it to 0 and a ULT install itself there, which the set's release then
 * wiped: that wait never ended (found by a reviewer of 70d7f7d). */
static void wake_waiter(itoi_zentry_t *e)
{
    uintptr_t old = atomic_load_explicit(&e->waiter, memory_order_acquire), to;
    do {
        if (old == ITOI_ZW_SETTING || old == ITOI_ZW_DEAD1) return;
        to = old == ITOI_ZW_DEAD0 ? ITOI_ZW_DEAD1 : ITOI_ZW_FIRED; /* a destroy that fails puts FIRED back */
    } while (!atomic_compare_exchange_weak_explicit(&e->waiter, &old, to, memory_order_acq_rel,
                                                    memory_order_acquire));
    if (itoi_zw_is_ult(old)) itoi_ready(itoi_zw_ult(old)); /* checking or not: its post action sees FIRED */
}

/* A re-arm clears the firing's mark: FIRED to 0, or, while a destroy holds the word, the
 * mark it would put back (DEAD1 to DEAD0). */
static void clear_fired(itoi_zentry_t *e)
{
    uintptr_t v = atomic_load_explicit(&e->waiter, memory_order_acquire), to;
    do {
        if (v == ITOI_ZW_FIRED) to = 0;
        else if (v == ITOI_ZW_DEAD1) to = ITOI_ZW_DEAD0;
        else return;
    } while (!atomic_compare_exchange_weak_explicit(&e->waiter, &v, to, memory_order_acq_rel, memory_order_acquire));
}

/* `take` (the worker's own completion path, itoi_zwt_fire_looked): an entry that becomes
 * ready (ITOI_ZS_QUEUED) is handed back in *taken instead of going to a queue. `io`: the
 * completion of a split-phase request continues as the kernel, whoever reaps it (its
 * poster's mode was checked at the post). */
/* An I/O continuation that reserved the firing of an entry with code (QUEUED), in its look
 * at the frame: a destroy that marked the entry's waiter word (DEAD) after it looked at the
 * sync word decides. It ends the frame (FREE: the firing is dropped, as the destroy promises
 * for a request in flight; the frame waits for our look before its memory is reused), or it
 * sees our QUEUED (it re-reads the word after its mark) and gives the word back (ITO_EBUSY):
 * then the firing goes on. Both sides seq_cst: the count's CAS then this read, the mark's
 * CAS then the destroy's re-read. */
static bool io_fire_live(struct ito_frame *fr, itoi_zentry_t *e)
{
    while (itoi_zw_dead(atomic_load(&e->waiter))) {
        if (atomic_load(&fr->magic) != ITOI_FRAME_LIVE) return false;
        itoi_spin_pause();
    }
    return true;
}

static inline __attribute__((always_inline)) int do_continue_at(itoi_worker_t *w, ito_frame_t *f, int entry,
                                                                int has_value, uint64_t value, itoi_unit_t **taken,
                                                                bool io, struct ito_frame *fr);

static inline __attribute__((always_inline)) int do_continue(itoi_worker_t *w, ito_frame_t *f, int entry,
                                                             int has_value, uint64_t value, itoi_unit_t **taken,
                                                             bool io)
{
    if (!io) return do_continue_at(w, f, entry, has_value, value, taken, false, NULL);
    /* The I/O path continues on its own time: the frame may be destroyed meanwhile (allowed
     * for a request in flight, ito_frame_destroy) and its memory taken by a frame of another
     * shape. In a look (itoi_frame_look, zwt.h) the words it reads and CASes stay this life's.
     * (Until 2026-12-06 a completion that had validated its frame before a destroy and a
     * create took a count from the new frame's data: found by an outside tester, h64g,
     * test_zwt_io_cont_race.) */
    struct ito_frame *fr = itoi_frame_get(f);
    if (ITOI_UNLIKELY(!fr)) return ITO_EINVAL;
    int rc = ITO_EINVAL;
    if (ITOI_LIKELY(itoi_frame_look(fr, f))) rc = do_continue_at(w, f, entry, has_value, value, taken, true, fr);
    itoi_frame_look_end(fr);
    return rc;
}

static inline __attribute__((always_inline)) int do_continue_at(itoi_worker_t *w, ito_frame_t *f, int entry,
                                                                int has_value, uint64_t value, itoi_unit_t **taken,
                                                                bool io, struct ito_frame *fr)
{
    int rc;
    /* an I/O continuation validated its handle in its look (fr): the range only */
    itoi_zentry_t *e = fr ? itoi_zwt_entry_of(fr, entry, &rc) : itoi_zwt_entry(f, entry, &rc);
    if (ITOI_UNLIKELY(!e)) return rc;
#ifdef ITOI_FAULT_INJECTION
    if (io && itoi_fault_iocont()) itoi_fault_pause(); /* ITO_FAULT_IOCONT: tests destroy and create meanwhile */
#endif
    if (ITOI_UNLIKELY(!ITOI_ZGET(e->defined))) return ITO_ESTATE;
    if (!io && ITOI_UNLIKELY(ITOI_ZGET(e->mode) == ITO_MODE_KERNEL) && caller_mode(w) == ITO_MODE_USER)
        return ITO_EPERM; /* user threads reach kernel threads only through kernel-interface threads
                           * (the I/O path continues as the kernel: it does not load the mode) */
    /* Take one of the counts the arming set, never below 0: a continuation beyond them is
     * refused and changes nothing. (A decrement undone afterwards let a racing re-arm or
     * another continuation see the transient -1 or the restored value: firings were lost,
     * or the entry was made ready twice.) */
    int32_t s = atomic_load_explicit(&e->sync, memory_order_relaxed);
    for (;;) {
        if (ITOI_UNLIKELY(s <= 0)) return ITO_ESTATE; /* more continuations than the arming expected (or queued, or being set) */
        int32_t to = s > 1 ? s - 1 : ITOI_ZS_QUEUED; /* the last count reserves the firing in the same CAS */
        if (atomic_compare_exchange_weak_explicit(&e->sync, &s, to, io ? memory_order_seq_cst : memory_order_acq_rel,
                                                  memory_order_relaxed))
            break;
    }
    /* the value once the continuation is accepted (a refused one changes nothing), and
     * before the entry is made ready below */
    if (has_value) atomic_store_explicit(&e->value, value, memory_order_relaxed);
    if (ITOI_LIKELY(s > 1)) return ITO_OK;
    /* The code of the definition that armed the count just taken (read after the CAS:
     * a set in force before it wrote the code first; none can start while QUEUED). */
    if (ITOI_UNLIKELY(!ITOI_ZGET(e->code))) {
        wake_waiter(e); /* while QUEUED: re-arms wait for both (zwt.h) */
        uint32_t g = e->fgen + 1; /* ours while QUEUED */
        e->fgen = g;
        atomic_store_explicit(&e->sync, itoi_zs_fired(g), memory_order_release); /* fired: nothing to run */
    } else if (io && ITOI_UNLIKELY(!io_fire_live(fr, e))) {
        return ITO_EINVAL; /* the frame ended: dropped (its sync word stays QUEUED until its next life) */
    } else if (taken) {
        *taken = &e->u;
    } else if (w) { /* the caller's own worker (continue_any): no second TLS look-up */
        itoi_unit_ready_on(w, &e->u);
    } else {
        itoi_unit_ready(&e->u);
    }
    return ITO_OK;
}

/* From a foreign thread: entered (itoi_foreign_enter), so that a racing ito_finalize
 * either counts the unit it makes ready or refuses the call, and never frees the worker
 * queue under it. Out of line: the hot path below stays a leaf without a frame. */
__attribute__((noinline, cold)) static int continue_foreign(ito_frame_t *f, int entry, int has_value, uint64_t value,
                                                        bool io)
{
    if (itoi_foreign_enter() != ITO_OK) /* no runtime: every frame is stale (ito_finalize
                                          * invalidates them); else it is closing */
        return atomic_load(&itoi_rt.state) == 0 ? ITO_EINVAL : ITO_ESTATE;
    int rc = do_continue(NULL, f, entry, has_value, value, NULL, io);
    itoi_foreign_exit();
    return rc;
}

/* From a ULT or ZWT: no door (finalize cannot tear down under a worker). */
static inline __attribute__((always_inline)) int continue_any(ito_frame_t *f, int entry, int has_value, uint64_t value,
                                                              bool io)
{
    itoi_worker_t *w = itoi_self_worker();
    if (ITOI_LIKELY(w != NULL)) return do_continue(w, f, entry, has_value, value, NULL, io);
    return continue_foreign(f, entry, has_value, value, io);
}

int ito_continue(ito_frame_t *f, int entry) { return continue_any(f, entry, 0, 0, false); }

int ito_continue_value(ito_frame_t *f, int entry, uint64_t value) { return continue_any(f, entry, 1, value, false); }

int itoi_zwt_continue_io(ito_frame_t *f, int entry, uint64_t value) { return continue_any(f, entry, 1, value, true); }

itoi_unit_t *itoi_zwt_fire_looked(itoi_worker_t *w, itoi_zlook_t *lk, ito_frame_t *f, int entry, uint64_t value,
                                  bool take)
{
    if (ITOI_UNLIKELY(f != lk->h)) { /* another frame (or the reap's first): move the look */
        itoi_zwt_look_close(lk);
        struct ito_frame *fr = itoi_frame_get(f);
        if (ITOI_UNLIKELY(!fr)) return NULL; /* a stale frame: dropped, as ito_continue_value */
        if (ITOI_UNLIKELY(!itoi_frame_look(fr, f))) {
            itoi_frame_look_end(fr);
            return NULL; /* destroyed meanwhile: dropped */
        }
        lk->h = f;
        lk->fr = fr;
    }
    itoi_unit_t *u = NULL;
    /* refused (a bad entry, a destroy deciding in io_fire_live): dropped, as ito_continue_value */
    (void)do_continue_at(w, f, entry, 1, value, take ? &u : NULL, true, lk->fr);
    return u;
}

static int rearm_in(ito_frame_t *f, int entry, uint32_t count);

/* Any thread; a foreign caller inside the runtime's door (see ito_frame_destroy). */
int ito_rearm(ito_frame_t *f, int entry, uint32_t count) { ITOI_ANY_RETURN(ITO_EINVAL, rearm_in(f, entry, count)); }

static int rearm_in(ito_frame_t *f, int entry, uint32_t count)
{
    int rc;
    itoi_zentry_t *e = itoi_zwt_entry(f, entry, &rc);
    if (!e) return rc;
    if (!ITOI_ZGET(e->defined)) return ITO_ESTATE;
    if (count > (1u << 30)) return ITO_EINVAL;
    for (;;) {
        int32_t s = itoi_zentry_settle(e); /* never SETTING */
        if (s == ITOI_ZS_QUEUED) return ITO_EBUSY;
        if (!ITOI_ZGET(e->code)) clear_fired(e);
#ifdef ITOI_FAULT_INJECTION
        itoi_fault_window_rearm(); /* ITO_FAULT_REARM: tests race other threads into the window */
#endif
        /* A CAS, not a store: a continuation may fire the entry meanwhile (never overwrite
         * ITOI_ZS_QUEUED, or the entry is made ready twice; a code-less firing leaves a
         * word never seen before, zwt.h), or a set or re-arm begin: look again. */
        int32_t to = (int32_t)(count ? count : ITOI_ZGET(e->fan_in));
        if (atomic_compare_exchange_strong_explicit(&e->sync, &s, to, memory_order_acq_rel, memory_order_acquire))
            return ITO_OK;
    }
}

static int trylock_in(ito_frame_t *f, int entry);

/* Any thread; a foreign caller inside the runtime's door (see ito_frame_destroy). */
int ito_trylock(ito_frame_t *f, int entry) { ITOI_ANY_RETURN(ITO_EINVAL, trylock_in(f, entry)); }

static int trylock_in(ito_frame_t *f, int entry)
{
    int rc;
    itoi_zentry_t *e = itoi_zwt_entry(f, entry, &rc);
    if (!e) return rc;
    if (atomic_load_explicit(&e->lock, memory_order_relaxed) != 0) return ITO_EBUSY;
    return atomic_exchange_explicit(&e->lock, 1, memory_order_acquire) == 0 ? ITO_OK : ITO_EBUSY;
}

static int unlock_in(ito_frame_t *f, int entry);

/* Any thread; a foreign caller inside the runtime's door (see ito_frame_destroy). */
int ito_unlock(ito_frame_t *f, int entry) { ITOI_ANY_RETURN(ITO_EINVAL, unlock_in(f, entry)); }

static int unlock_in(ito_frame_t *f, int entry)
{
    int rc;
    itoi_zentry_t *e = itoi_zwt_entry(f, entry, &rc);
    if (!e) return rc;
    return atomic_exchange_explicit(&e->lock, 0, memory_order_release) == 1 ? ITO_OK : ITO_ESTATE;
}

int ito_zwt_self(ito_frame_t **f, int *entry)
{
    if (!f || !entry) return ITO_EINVAL;
    itoi_worker_t *w = itoi_self_worker();
    const itoi_zentry_t *e = w ? (const itoi_zentry_t *)w->unit_cur : NULL;
    if (!e) return ITO_EPERM;
    if (w->unit_began == &e->u) { /* as its run began: the frame may be gone */
        *f = w->unit_frame;
        *entry = w->unit_index;
        return ITO_OK;
    }
    *f = itoi_frame_handle(e->frame);
    *entry = e->index;
    return ITO_OK;
}

int ito_zwt_retry(void)
{
    ito_frame_t *f;
    int entry, rc = ito_zwt_self(&f, &entry);
    if (rc != ITO_OK) return rc;
    itoi_zentry_t *e = itoi_zwt_entry(f, entry, &rc);
    if (!e) return rc;
    /* it is running (not queued): a CAS, as ito_rearm, in case another thread's re-arm
     * and continuation made it ready again meanwhile */
    int32_t s = atomic_load_explicit(&e->sync, memory_order_acquire);
    do {
        if (s == ITOI_ZS_QUEUED || s == ITOI_ZS_SETTING) return ITO_ESTATE; /* as ito_continue refuses them */
    } while (!atomic_compare_exchange_weak_explicit(&e->sync, &s, 1, memory_order_acq_rel, memory_order_acquire));
    return ito_continue(f, entry);
}

/* A wait on a code-less entry: the entry, and the handle it came through (its frame's
 * life). On the waiting ULT's stack while it is parked. */
typedef struct zwait {
    itoi_zentry_t *e;
    struct ito_frame *f;
    ito_frame_t *h;
} zwait_t;

/* Post action of ito_frame_wait: the waiting ULT's context is saved. It ends the look
 * that ito_frame_wait_until began (itoi_frame_look, zwt.h). */
static void wait_post(void *arg)
{
    zwait_t *zw = arg;
    /* Everything the checks need, copied off the ULT's stack before the install: once
     * installed, a firing may ready the ULT, which may run on another worker (an untimed
     * wait is not pinned) and reuse that stack, or end. After the install this post action
     * touches the ULT only if its back-out CAS wins (the ULT is still ours then). */
    itoi_zentry_t *e = zw->e;
    struct ito_frame *f = zw->f;
    itoi_worker_t *w = itoi_self_worker();
    itoi_ult_t *me = w->prev;
    uintptr_t expect = 0, checking = (uintptr_t)me | ITOI_ZW_CHECKING;
    bool installed;
#ifdef ITOI_FAULT_INJECTION
    bool slow = itoi_fault_waitpost(); /* ITO_FAULT_WAITPOST: tests act before and after the install */
    if (slow) itoi_fault_pause();
#endif
    while (!(installed = atomic_compare_exchange_strong_explicit(&e->waiter, &expect, checking,
                                                                 memory_order_acq_rel, memory_order_acquire)) &&
           (expect == ITOI_ZW_SETTING || itoi_zw_checking(expect))) {
        (void)itoi_zentry_waiter(e); /* a set holds it, or another waiter checks: wait that out, then try from 0 */
        expect = 0;
    }
    if (installed) {
#ifdef ITOI_FAULT_INJECTION
        if (slow) itoi_fault_pause();
#endif
        /* Installed as checking (zwt.h). Our frame's life lasts while we look (a destroy
         * waits for the look, itoi_frame_look). The entry's code: a set gave it code after
         * our first read (it released the waiter word after writing the code, which our
         * CAS read): its firings wake nobody, so we back out, the word 0 again. */
        bool has_code = ITOI_ZGET(e->code) != NULL;
        expect = checking;
        if (ITOI_LIKELY(!has_code)) {
            (void)atomic_compare_exchange_strong_explicit(&e->waiter, &expect, (uintptr_t)me, memory_order_acq_rel,
                                                          memory_order_acquire);
            itoi_frame_look_end(f);
            return; /* settled: the firing continuation will ready us; or it fired meanwhile and did */
        }
        if (!atomic_compare_exchange_strong_explicit(&e->waiter, &expect, 0, memory_order_acq_rel,
                                                     memory_order_acquire)) {
            itoi_frame_look_end(f);
            return; /* fired meanwhile (the old definition's last continuation): readied, and
                     * perhaps running on another worker already: its result is not ours to
                     * write (until 2026-12-06 ITO_EINVAL was written here before the CAS,
                     * into the ULT's next wait: test_zwt_wait_checking) */
        }
        me->wait_result = ITO_EINVAL; /* as a wait on an entry with code */
    } else {
        me->wait_result = expect == ITOI_ZW_FIRED ? ITO_OK : itoi_zw_dead(expect) ? ITO_EINVAL : ITO_EBUSY;
    }
    itoi_frame_look_end(f);
    itoi_ready_local(w, &me->u);
}

/* A timed wait gives up: still the registered waiter unless the firing exchanged it. The
 * firing may have been followed by the frame's destroy and a new life of its memory, in
 * which the entry's word may be another entry's or the program's data: the CAS only in a
 * look at our frame's life (itoi_frame_look; a frame destroyed meanwhile had no waiter
 * in its words, so the firing readied us). Until 2026-12-06 the CAS went to whatever was
 * there (a data race with the program's writes under TSan; found by an outside tester,
 * h64a: test_zwt_wait_timeout_reuse). */
static bool wait_unlink(itoi_ult_t *me, void *obj)
{
    zwait_t *zw = obj; /* on our stack: we are parked */
    struct ito_frame *f = zw->f;
    uintptr_t expect = (uintptr_t)me;
    bool ours = itoi_frame_look(f, zw->h) &&
                atomic_compare_exchange_strong_explicit(&zw->e->waiter, &expect, 0, memory_order_acq_rel,
                                                        memory_order_acquire);
    itoi_frame_look_end(f);
    return ours;
}

int ito_frame_wait(ito_frame_t *f, int entry) { return ito_frame_wait_until(f, entry, ITO_FOREVER); }

int ito_frame_wait_until(ito_frame_t *f, int entry, uint64_t deadline)
{
    /* A look (itoi_frame_look, zwt.h) from before the first read of the entry to the end
     * of the post action: the frame's words stay this life's (a destroy waits the look
     * out). Until 2026-12-06 the definition was read before any look: after a destroy and
     * a create of another shape there, it was the program's data (a data race under TSan,
     * test_zwt_wait_timeout_reuse), and the waiter could put itself into that data
     * (test_zwt_wait_reshape; both found by an outside tester, h64a). */
    struct ito_frame *fr = itoi_frame_get(f);
    if (!fr) return ITO_EINVAL;
    if (!itoi_frame_look(fr, f)) {
        itoi_frame_look_end(fr);
        return ITO_EINVAL; /* destroyed meanwhile */
    }
    int rc;
    itoi_zentry_t *e = itoi_zwt_entry(f, entry, &rc);
    itoi_worker_t *w = itoi_self_worker();
    if (!e) {
        /* rc set: destroyed meanwhile (ITO_EINVAL) or a bad entry (ITO_ERANGE) */
    } else if (!ITOI_ZGET(e->defined)) {
        rc = ITO_ESTATE;
    } else if (ITOI_ZGET(e->code)) {
        rc = ITO_EINVAL; /* only code-less entries can be waited on */
    } else if (!w || !w->cur) {
        rc = ITO_ENOTULT;
    } else {
        zwait_t zw = {.e = e, .f = fr, .h = f};
        uintptr_t v = itoi_zentry_waiter(e);
        if (itoi_zw_dead(v)) rc = ITO_EINVAL; /* being destroyed */
        else if (v == ITOI_ZW_FIRED) rc = ITO_OK;
        else if (v != 0) rc = ITO_EBUSY; /* another waiter */
        else if (deadline != ITO_FOREVER && itoi_now_ns() >= deadline) rc = ITO_ETIMEDOUT;
        else {
            w->cur->wait_result = ITO_OK;
            return itoi_block_until(w, wait_post, &zw, deadline, NULL, wait_unlink, &zw, "frame"); /* look_end there */
        }
    }
    itoi_frame_look_end(fr);
    return rc;
}

int ito_zwt_stats(uint64_t *fired, uint64_t *stolen)
{
    if (!fired && !stolen) return ITO_EINVAL;
    bool in;
    if (itoi_any_enter(&in) != ITO_OK) return ITO_ESTATE;
    uint64_t f = 0, s = 0;
    for (int i = 0; i < itoi_rt.nworkers; i++) { /* stackless units are ZWTs */
        f += atomic_load_explicit(&itoi_rt.workers[i].n_units_run, memory_order_relaxed);
        s += atomic_load_explicit(&itoi_rt.workers[i].n_steals_stackless, memory_order_relaxed);
    }
    itoi_any_leave(in, ITO_OK);
    if (fired) *fired = f;
    if (stolen) *stolen = s;
    return ITO_OK;
}
