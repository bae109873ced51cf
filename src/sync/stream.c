/* stream.c: a bounded FIFO of bytes between ULTs.
 *
 * A ring buffer under one spinlock, with two wait queues (putters waiting for room,
 * getters waiting for bytes). Every change that could let a waiter progress wakes
 * the first waiter of the other side, and a woken waiter that leaves room or bytes
 * behind passes the wake-up on to the next one of its own side, so no waiter sleeps
 * while it could progress. Woken waiters re-check (Mesa semantics). close() wakes
 * everybody; puts then fail with ITO_ECLOSED, gets drain what is left. */
#include <stdlib.h>
#include <string.h>

#include "ito/sync.h"
#include "waitq.h"

struct ito_stream {
    itoi_spinlock_t lock;
    unsigned char *buf;
    size_t cap, head, count;
    int closed;
    itoi_queue_t putters, getters;
    uint64_t puts_blocked, gets_blocked;
};

int ito_stream_create(ito_stream_t **out, size_t capacity)
{
    if (!out || capacity == 0 || capacity > ((size_t)1 << 30)) return ITO_EINVAL;
    ito_stream_t *s = itoi_calloc(1, sizeof *s);
    if (!s) return ITO_ENOMEM;
    s->buf = itoi_malloc(capacity);
    if (!s->buf) {
        free(s);
        return ITO_ENOMEM;
    }
    s->cap = capacity;
    itoi_spin_init(&s->lock);
    *out = s;
    return ITO_OK;
}

int ito_stream_destroy(ito_stream_t *s)
{
    if (!s) return ITO_EINVAL;
    itoi_spin_lock(&s->lock);
    int busy = s->putters.head || s->getters.head;
    itoi_spin_unlock(&s->lock);
    if (busy) return ITO_EBUSY;
    free(s->buf);
    free(s);
    return ITO_OK;
}

/* Copy in as much as fits; caller holds the lock. */
static size_t put_some(ito_stream_t *s, const unsigned char *p, size_t len)
{
    size_t n = s->cap - s->count < len ? s->cap - s->count : len;
    size_t tail = (s->head + s->count) % s->cap;
    size_t first = n < s->cap - tail ? n : s->cap - tail;
    memcpy(s->buf + tail, p, first);
    memcpy(s->buf, p + first, n - first);
    s->count += n;
    return n;
}

static size_t get_some(ito_stream_t *s, unsigned char *p, size_t len)
{
    size_t n = s->count < len ? s->count : len;
    size_t first = n < s->cap - s->head ? n : s->cap - s->head;
    memcpy(p, s->buf + s->head, first);
    memcpy(p + first, s->buf, n - first);
    s->head = (s->head + n) % s->cap;
    s->count -= n;
    return n;
}

/* After a change, wake whoever can now progress (caller holds the lock). */
static void pass_on(ito_stream_t *s)
{
    if (s->count) itoi_wake_first(&s->getters);
    if (s->count < s->cap) itoi_wake_first(&s->putters);
}

static bool stream_unlink(itoi_ult_t *t, void *obj)
{
    ito_stream_t *s = obj;
    return itoi_queue_remove(&s->putters, &t->u) || itoi_queue_remove(&s->getters, &t->u);
}

int ito_stream_put_until(ito_stream_t *s, const void *buf, size_t len, uint64_t deadline, size_t *put)
{
    if (put) *put = 0;
    if (!s || (!buf && len)) return ITO_EINVAL;
    itoi_worker_t *w = itoi_ult_worker();
    if (!w) return ITO_ENOTULT;
    const unsigned char *p = buf;
    size_t done = 0;
    int rc = ITO_OK;
    itoi_spin_lock(&s->lock);
    for (;;) {
        if (s->closed) {
            rc = ITO_ECLOSED;
            break;
        }
        size_t n = put_some(s, p + done, len - done);
        done += n;
        if (done == len) break;
        if (n) itoi_wake_first(&s->getters);
        if (itoi_deadline_passed(deadline)) {
            rc = ITO_ETIMEDOUT;
            break;
        }
        s->puts_blocked++;
        rc = itoi_wait_on_until(w, &s->putters, &s->lock, deadline, stream_unlink, s, "stream put");
        w = itoi_self_worker();
        itoi_spin_lock(&s->lock);
        if (rc == ITO_ETIMEDOUT) {
            done += put_some(s, p + done, len - done); /* room may have come with the deadline */
            if (done == len) rc = ITO_OK;
            break;
        }
    }
    pass_on(s);
    itoi_spin_unlock(&s->lock);
    if (put) *put = done;
    return rc;
}

int ito_stream_put(ito_stream_t *s, const void *buf, size_t len)
{
    return ito_stream_put_until(s, buf, len, ITO_FOREVER, NULL);
}

int ito_stream_get_until(ito_stream_t *s, void *buf, size_t len, size_t *got, uint64_t deadline)
{
    if (!s || !got || (!buf && len)) return ITO_EINVAL;
    *got = 0;
    if (len == 0) return ITO_OK;
    itoi_worker_t *w = itoi_ult_worker();
    if (!w) return ITO_ENOTULT;
    itoi_spin_lock(&s->lock);
    while (s->count == 0) {
        int rc = ITO_OK;
        if (s->closed) rc = ITO_ECLOSED;
        else if (itoi_deadline_passed(deadline)) rc = ITO_ETIMEDOUT;
        if (rc != ITO_OK) {
            pass_on(s);
            itoi_spin_unlock(&s->lock);
            return rc;
        }
        s->gets_blocked++;
        rc = itoi_wait_on_until(w, &s->getters, &s->lock, deadline, stream_unlink, s, "stream get");
        w = itoi_self_worker();
        itoi_spin_lock(&s->lock);
        if (rc == ITO_ETIMEDOUT && s->count == 0) {
            itoi_spin_unlock(&s->lock);
            return ITO_ETIMEDOUT;
        }
    }
    *got = get_some(s, buf, len);
    pass_on(s);
    itoi_spin_unlock(&s->lock);
    return ITO_OK;
}

int ito_stream_get(ito_stream_t *s, void *buf, size_t len, size_t *got)
{
    return ito_stream_get_until(s, buf, len, got, ITO_FOREVER);
}

/* The try-variants and close may come from any thread; a foreign thread enters the
 * runtime, so that finalize cannot free a waiter under it. */
static int enter(bool *foreign)
{
    *foreign = itoi_self_worker() == NULL;
    return *foreign && itoi_foreign_enter() != ITO_OK ? ITO_ESTATE : ITO_OK;
}

static int leave(bool foreign, int rc)
{
    if (foreign) itoi_foreign_exit();
    return rc;
}

int ito_stream_try_put(ito_stream_t *s, const void *buf, size_t len, size_t *put)
{
    if (!s || !put || (!buf && len)) return ITO_EINVAL;
    *put = 0;
    bool foreign;
    if (enter(&foreign) != ITO_OK) return ITO_ESTATE;
    itoi_spin_lock(&s->lock);
    int rc = ITO_OK;
    if (s->closed) rc = ITO_ECLOSED;
    else if (len && s->count == s->cap) rc = ITO_EAGAIN;
    else *put = put_some(s, buf, len);
    if (*put) pass_on(s);
    itoi_spin_unlock(&s->lock);
    return leave(foreign, rc);
}

int ito_stream_try_get(ito_stream_t *s, void *buf, size_t len, size_t *got)
{
    if (!s || !got || (!buf && len)) return ITO_EINVAL;
    *got = 0;
    bool foreign;
    if (enter(&foreign) != ITO_OK) return ITO_ESTATE;
    itoi_spin_lock(&s->lock);
    int rc = ITO_OK;
    if (len && s->count == 0) rc = s->closed ? ITO_ECLOSED : ITO_EAGAIN;
    else *got = get_some(s, buf, len);
    if (*got) pass_on(s);
    itoi_spin_unlock(&s->lock);
    return leave(foreign, rc);
}

int ito_stream_close(ito_stream_t *s)
{
    if (!s) return ITO_EINVAL;
    bool foreign;
    if (enter(&foreign) != ITO_OK) return ITO_ESTATE;
    itoi_spin_lock(&s->lock);
    int rc = ITO_OK;
    if (s->closed) {
        rc = ITO_ECLOSED;
    } else {
        s->closed = 1;
        itoi_wake_every(&s->getters);
        itoi_wake_every(&s->putters);
    }
    itoi_spin_unlock(&s->lock);
    return leave(foreign, rc);
}

int ito_stream_stats(ito_stream_t *s, uint64_t *puts_blocked, uint64_t *gets_blocked)
{
    if (!s) return ITO_EINVAL;
    itoi_spin_lock(&s->lock);
    if (puts_blocked) *puts_blocked = s->puts_blocked;
    if (gets_blocked) *gets_blocked = s->gets_blocked;
    itoi_spin_unlock(&s->lock);
    return ITO_OK;
}
