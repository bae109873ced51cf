/* future.c: a value set once and read by many (a future and its promise in one object).
 *
 * Under the spinlock: `set` flag and value, the queue of ULTs waiting for it, and the
 * list of ZWT continuations registered by ito_future_then. set stores the value, marks
 * the future set (a release store: the lock-free fast path of wait and try_get is one
 * acquire load), takes the waiters and the continuation list, wakes the waiters under
 * the lock, each with the value written where it asked (ult->wait_data, on its own
 * stack: a woken waiter does not touch the future again, which its owner may destroy
 * and free as soon as set returns; until 2026-12-04 it read the value from the future
 * when it ran, found by a misuse fuzzer as a use after free), and fires the
 * continuations after releasing it (ito_continue_value may run
 * arbitrary ZWT scheduling work). After set nothing changes any more: every later read
 * sees the same value, and a continuation registered later fires at once.
 * Continuation nodes are the runtime's (malloc'd by then, freed when they fire or when
 * the future is destroyed). */
#include <assert.h>
#include <stdlib.h>

#include "ito/future.h"
#include "waitq.h"
#include "../zwt/zwt.h"

typedef struct cont {
    struct cont *next;
    ito_frame_t *frame;
    int entry;
} cont_t;

typedef struct future_impl {
    itoi_spinlock_t lock;
    uint32_t mark; /* ITOI_MARK_FUTURE while initialised (waitq.h) */
    _Atomic int set;
    uint64_t value;
    itoi_waitq_t waiters;
    cont_t *conts;             /* registered continuations, newest first */
    const void *conts_of;      /* the future conts was filled for: this one (see conts_own) */
} future_impl_t;

static_assert(sizeof(future_impl_t) <= sizeof(ito_future_t), "ito_future_t too small");
ITOI_MARK_FIRST(future_impl_t);

/* A continuation list filled for another future is not this one's own: the future is a
 * byte copy of one with registrations (struct assignment, memcpy, realloc of an array of
 * futures), whose nodes the original fires and frees. The copy gets an empty list of its
 * own (under the lock, by every path that reads or changes the list), decided without
 * reading a node, which may be freed already. As itoi_waitq_own (waitq.h) for waiters:
 * copies stay undefined, the runtime stays whole. (Before, setting or destroying the copy
 * fired or freed the original's nodes, which the original then fired again: a use after
 * free. Found by an outside tester, h68b, 2026-12-06; test_future_copied_then.) */
static void conts_own(future_impl_t *x)
{
    if (ITOI_UNLIKELY(x->conts != NULL && x->conts_of != (const void *)x)) x->conts = NULL;
}

int ito_future_init(ito_future_t *f)
{
    if (!f) return ITO_EINVAL;
    future_impl_t *x = (future_impl_t *)f;
    itoi_spin_init(&x->lock);
    atomic_init(&x->set, 0);
    x->value = 0;
    x->waiters = (itoi_waitq_t){0};
    x->conts = NULL;
    x->conts_of = x;
    x->mark = ITOI_MARK_FUTURE;
    return ITO_OK;
}

int ito_future_destroy(ito_future_t *f)
{
    if (!itoi_marked(f, ITOI_MARK_FUTURE)) return ITO_EINVAL;
    future_impl_t *x = (future_impl_t *)f;
    bool foreign;
    bool running = itoi_any_enter(&foreign) == ITO_OK;
    itoi_spin_lock(&x->lock);
    /* A continuation whose frame is gone can never fire: its frame was destroyed, or
     * finalize freed every frame (ito_future_then, then ito_finalize). It no longer holds
     * the future, and its node is freed here (until 2026-12-05 such a future could not be
     * destroyed at all and the node leaked; found by an outside tester, h58c). */
    conts_own(x);
    for (cont_t **pp = &x->conts; *pp;) {
        cont_t *c = *pp;
        if (running && itoi_frame_get(c->frame)) {
            pp = &c->next;
            continue;
        }
        *pp = c->next;
        itoi_free(c); /* under the lock: the program may define free (fault.c) */
    }
    int busy = itoi_waitq_head(&x->waiters) != NULL || x->conts != NULL;
    int rc = busy ? ITO_EBUSY : itoi_mark_clear(&x->mark) ? ITO_OK : ITO_EINVAL;
    itoi_spin_unlock(&x->lock);
    if (running) itoi_any_leave(foreign, ITO_OK);
    return rc;
}

/* Fire the continuations of list c, oldest first; the first error, or ITO_OK. */
static int fire(cont_t *c, uint64_t value)
{
    cont_t *rev = NULL;
    while (c) {
        cont_t *next = c->next;
        c->next = rev;
        rev = c;
        c = next;
    }
    int first = ITO_OK;
    while (rev) {
        cont_t *next = rev->next;
        int rc = ito_continue_value(rev->frame, rev->entry, value);
        if (first == ITO_OK) first = rc;
        free(rev);
        rev = next;
    }
    return first;
}

int ito_future_set(ito_future_t *f, uint64_t value)
{
    if (!itoi_marked(f, ITOI_MARK_FUTURE)) return ITO_EINVAL;
    bool foreign;
    if (itoi_any_enter(&foreign) != ITO_OK) return ITO_ESTATE;
    future_impl_t *x = (future_impl_t *)f;
    itoi_spin_lock(&x->lock);
    if (atomic_load_explicit(&x->set, memory_order_relaxed)) {
        itoi_spin_unlock(&x->lock);
        return itoi_any_leave(foreign, ITO_ESTATE);
    }
    x->value = value;
    atomic_store_explicit(&x->set, 1, memory_order_release);
    conts_own(x);
    cont_t *c = x->conts;
    x->conts = NULL;
    for (itoi_ult_t *t; (t = itoi_waiter_pop(&x->waiters)) != NULL;) {
        *(uint64_t *)t->wait_data = value;
        itoi_ready(t);
    }
    itoi_spin_unlock(&x->lock);
    return itoi_any_leave(foreign, fire(c, value));
}

int ito_future_try_get(ito_future_t *f, uint64_t *value)
{
    if (!itoi_marked(f, ITOI_MARK_FUTURE) || !value) return ITO_EINVAL;
    future_impl_t *x = (future_impl_t *)f;
    if (!atomic_load_explicit(&x->set, memory_order_acquire)) return ITO_EAGAIN;
    *value = x->value;
    return ITO_OK;
}

int ito_future_wait(ito_future_t *f, uint64_t *value) { return ito_future_wait_until(f, value, ITO_FOREVER); }

int ito_future_wait_until(ito_future_t *f, uint64_t *value, uint64_t deadline)
{
    if (!itoi_marked(f, ITOI_MARK_FUTURE)) return ITO_EINVAL;
    future_impl_t *x = (future_impl_t *)f;
    if (!atomic_load_explicit(&x->set, memory_order_acquire)) {
        itoi_worker_t *w = itoi_ult_worker();
        if (!w) return ITO_ENOTULT;
        itoi_spin_lock(&x->lock);
        if (!itoi_marked(f, ITOI_MARK_FUTURE)) { /* destroyed meanwhile: see ito_sem_wait_until */
            itoi_spin_unlock(&x->lock);
            return ITO_EINVAL;
        }
        if (!atomic_load_explicit(&x->set, memory_order_relaxed)) {
            if (itoi_deadline_passed(deadline)) {
                itoi_spin_unlock(&x->lock);
                return ITO_ETIMEDOUT;
            }
            uint64_t got = 0;
            w->cur->wait_data = (uintptr_t)&got; /* set writes the value here (see the top) */
            int rc = itoi_wait_on_until(w, &x->waiters, &x->lock, deadline, itoi_waitq_unlink, &x->waiters,
                                        "future");
            if (rc != ITO_OK) return rc;
            if (value) *value = got;
            return ITO_OK;
        } else {
            itoi_spin_unlock(&x->lock);
        }
    }
    if (value) *value = x->value;
    return ITO_OK;
}

int ito_future_then(ito_future_t *f, ito_frame_t *frame, int entry)
{
    if (!itoi_marked(f, ITOI_MARK_FUTURE) || !frame || !ito_frame_data(frame)) return ITO_EINVAL; /* a freed or foreign frame */
    bool foreign;
    if (itoi_any_enter(&foreign) != ITO_OK) return ITO_ESTATE;
    future_impl_t *x = (future_impl_t *)f;
    int rc;
    if (!itoi_zwt_entry(frame, entry, &rc)) /* checked now, not first at the set (until 2026-12-03) */
        return itoi_any_leave(foreign, rc);
    cont_t *c = itoi_malloc(sizeof *c);
    if (!c) return itoi_any_leave(foreign, ITO_ENOMEM);
    c->frame = frame;
    c->entry = entry;
    itoi_spin_lock(&x->lock);
    /* Destroyed since the mark check (the destroy clears the mark under the lock): a node
     * added now could never fire, and a new init of the storage dropped it (leaked); until
     * 2026-12-06 it said ITO_OK (test_future_then_destroy, found by an outside tester, h64h). */
    if (!itoi_marked(f, ITOI_MARK_FUTURE)) {
        itoi_spin_unlock(&x->lock);
        itoi_free(c);
        return itoi_any_leave(foreign, ITO_EINVAL);
    }
    if (!atomic_load_explicit(&x->set, memory_order_relaxed)) {
        conts_own(x);
        c->next = x->conts;
        x->conts = c;
        x->conts_of = x;
        itoi_spin_unlock(&x->lock);
        return itoi_any_leave(foreign, ITO_OK);
    }
    itoi_spin_unlock(&x->lock);
    c->next = NULL;
    return itoi_any_leave(foreign, fire(c, x->value)); /* already set: fire now */
}
