/* channel.c: a bounded MPMC channel of fixed-size items, with direct hand-off.
 *
 * A ring of `cap` items under one spinlock, and two FIFOs of parked ULTs: senders
 * waiting for room and receivers waiting for an item. A waiter parks with the address of
 * its item (ult->wait_data): the item to send, or where to receive it. Invariants (under
 * the lock):
 *   - receivers wait only while the ring is empty and no sender waits; senders wait only
 *     while the ring is full (cap items; for cap 0, always) and no receiver waits;
 *   - whoever makes progress possible completes the waiter's operation itself before it
 *     readies it: a send to a waiting receiver copies the item into the receiver's
 *     buffer; a receive that frees a slot moves the first waiting sender's item into the
 *     ring (cap 0: copies it straight out of the sender). A woken waiter's operation is
 *     therefore already done (wait_result ITO_OK), or refused by close (ITO_ECLOSED).
 * Every item is copied whole under the lock, once into the ring and once out, or once
 * from sender to receiver: an item is never torn, duplicated or lost, and FIFO order
 * holds among the items of one sender and among waiters. A timed waiter whose deadline
 * passes takes itself off its queue under the lock; if it is not there any more, a peer
 * completed its operation first and the call succeeds.
 *
 * Handles: the struct lives in a handle-object slot (src/core/hobj.c); every entry point
 * turns the caller's handle `h` into the struct `c` with chan_get() (NULL for a destroyed,
 * forged or non-channel handle: ITO_EINVAL). */
#include <stdlib.h>
#include <string.h>

#include "ito/channel.h"
#include "waitq.h"

struct ito_chan {
    int closed;
    size_t item, cap, head, count;
    itoi_waitq_t senders, receivers;
    uint64_t sends_blocked, recvs_blocked;
    unsigned char *ring;
};

#define MAX_BYTES ((size_t)1 << 30)

_Static_assert(sizeof(struct ito_chan) <= ITOI_HOBJ_MAX, "a channel fits a handle-object slot");

static inline ito_chan_t *chan_get(ito_chan_t *h) { return itoi_hobj_get(h, ITOI_HOBJ_CHAN); }
/* Locks c, checked live under the lock (false: destroyed meanwhile, not locked). */
static inline bool chan_lock(ito_chan_t *c, ito_chan_t *h) { return itoi_hobj_lock_live(c, h, ITOI_HOBJ_CHAN); }
#define LOCK(c) itoi_hobj_lockp(c)

int ito_chan_create(ito_chan_t **out, size_t item_size, size_t capacity)
{
    if (!out || item_size == 0 || item_size > ITO_CHAN_MAX_ITEM || capacity > MAX_BYTES / item_size)
        return ITO_EINVAL;
    void *h;
    ito_chan_t *c = itoi_hobj_alloc(ITOI_HOBJ_CHAN, &h);
    if (!c) return ITO_ENOMEM;
    if (capacity && !(c->ring = itoi_malloc(capacity * item_size))) {
        itoi_hobj_free(c);
        return ITO_ENOMEM;
    }
    c->item = item_size;
    c->cap = capacity;
    *out = h;
    return ITO_OK;
}

int ito_chan_destroy(ito_chan_t *h)
{
    ito_chan_t *c = chan_get(h);
    if (!c || !chan_lock(c, h)) return ITO_EINVAL; /* of two destroys, one frees */
    if (c->senders.head || c->receivers.head) {
        itoi_spin_unlock(LOCK(c));
        return ITO_EBUSY;
    }
    itoi_hobj_retire(c);
    itoi_spin_unlock(LOCK(c));
    free(c->ring);
    itoi_hobj_free(c);
    return ITO_OK;
}

static inline unsigned char *slot(ito_chan_t *c, size_t i) { return c->ring + ((c->head + i) % c->cap) * c->item; }

/* One send without waiting (lock held): ITO_OK, ITO_ECLOSED, or ITO_EAGAIN. */
static int send_now(ito_chan_t *c, const void *item)
{
    if (c->closed) return ITO_ECLOSED;
    itoi_ult_t *r = itoi_waiter_pop(&c->receivers);
    if (r) {
        memcpy((void *)r->wait_data, item, c->item);
        itoi_wake_with(r, ITO_OK);
        return ITO_OK;
    }
    if (c->count == c->cap) return ITO_EAGAIN;
    memcpy(slot(c, c->count), item, c->item);
    c->count++;
    return ITO_OK;
}

/* One receive without waiting (lock held): ITO_OK, ITO_ECLOSED, or ITO_EAGAIN. */
static int recv_now(ito_chan_t *c, void *item)
{
    itoi_ult_t *s;
    if (c->count) {
        memcpy(item, slot(c, 0), c->item);
        c->head = (c->head + 1) % c->cap;
        c->count--;
        if ((s = itoi_waiter_pop(&c->senders)) != NULL) { /* its item takes the freed slot */
            memcpy(slot(c, c->count), (const void *)s->wait_data, c->item);
            c->count++;
            itoi_wake_with(s, ITO_OK);
        }
        return ITO_OK;
    }
    if ((s = itoi_waiter_pop(&c->senders)) != NULL) { /* capacity 0: straight from the sender */
        memcpy(item, (const void *)s->wait_data, c->item);
        itoi_wake_with(s, ITO_OK);
        return ITO_OK;
    }
    return c->closed ? ITO_ECLOSED : ITO_EAGAIN;
}

static bool chan_unlink(itoi_ult_t *t, void *obj)
{
    ito_chan_t *c = obj;
    return itoi_waiter_remove(&c->senders, t) || itoi_waiter_remove(&c->receivers, t);
}

/* send or receive, waiting until `deadline` */
static int xfer_until(ito_chan_t *h, void *item, uint64_t deadline, bool send)
{
    ito_chan_t *c = chan_get(h);
    if (!c || !item) return ITO_EINVAL;
    itoi_worker_t *w = itoi_ult_worker();
    if (!w) return ITO_ENOTULT;
    if (!chan_lock(c, h)) return ITO_EINVAL;
    int rc = send ? send_now(c, item) : recv_now(c, item);
    if (rc != ITO_EAGAIN) {
        itoi_spin_unlock(LOCK(c));
        return rc;
    }
    if (itoi_deadline_passed(deadline)) {
        itoi_spin_unlock(LOCK(c));
        return ITO_ETIMEDOUT;
    }
    w->cur->wait_data = (uintptr_t)item;
    if (send) c->sends_blocked++;
    else c->recvs_blocked++;
    return itoi_wait_on_until(w, send ? &c->senders : &c->receivers, LOCK(c), deadline, chan_unlink, c,
                              send ? "chan send" : "chan recv");
}

int ito_chan_send(ito_chan_t *c, const void *item) { return xfer_until(c, (void *)item, ITO_FOREVER, true); }
int ito_chan_recv(ito_chan_t *c, void *item) { return xfer_until(c, item, ITO_FOREVER, false); }
int ito_chan_send_until(ito_chan_t *c, const void *item, uint64_t deadline)
{
    return xfer_until(c, (void *)item, deadline, true);
}
int ito_chan_recv_until(ito_chan_t *c, void *item, uint64_t deadline) { return xfer_until(c, item, deadline, false); }

/* try-variants and close: any thread (itoi_any_enter) */
static int try_xfer(ito_chan_t *h, void *item, bool send)
{
    ito_chan_t *c = chan_get(h);
    if (!c || !item) return ITO_EINVAL;
    bool foreign;
    if (itoi_any_enter(&foreign) != ITO_OK) return ITO_ESTATE;
    if (!chan_lock(c, h)) return itoi_any_leave(foreign, ITO_EINVAL);
    int rc = send ? send_now(c, item) : recv_now(c, item);
    itoi_spin_unlock(LOCK(c));
    return itoi_any_leave(foreign, rc);
}

int ito_chan_try_send(ito_chan_t *c, const void *item) { return try_xfer(c, (void *)item, true); }
int ito_chan_try_recv(ito_chan_t *c, void *item) { return try_xfer(c, item, false); }

int ito_chan_close(ito_chan_t *h)
{
    ito_chan_t *c = chan_get(h);
    if (!c) return ITO_EINVAL;
    bool foreign;
    if (itoi_any_enter(&foreign) != ITO_OK) return ITO_ESTATE;
    if (!chan_lock(c, h)) return itoi_any_leave(foreign, ITO_EINVAL);
    int rc = ITO_OK;
    if (c->closed) {
        rc = ITO_ECLOSED;
    } else {
        c->closed = 1;
        itoi_wake_every_with(&c->senders, ITO_ECLOSED);
        itoi_wake_every_with(&c->receivers, ITO_ECLOSED);
    }
    itoi_spin_unlock(LOCK(c));
    return itoi_any_leave(foreign, rc);
}

int ito_chan_stats(ito_chan_t *h, ito_chan_stats_t *out)
{
    ito_chan_t *c = chan_get(h);
    if (!c || !out || !chan_lock(c, h)) return ITO_EINVAL;
    *out = (ito_chan_stats_t){.item_size = c->item,
                              .capacity = c->cap,
                              .count = c->count,
                              .closed = c->closed,
                              .sends_blocked = c->sends_blocked,
                              .recvs_blocked = c->recvs_blocked};
    itoi_spin_unlock(LOCK(c));
    return ITO_OK;
}
