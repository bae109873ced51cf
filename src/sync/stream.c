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

int ito_stream_put(ito_stream_t *s, const void *buf, size_t len)
{
    if (!s || (!buf && len)) return ITO_EINVAL;
    itoi_worker_t *w = itoi_ult_worker();
    if (!w) return ITO_ENOTULT;
    const unsigned char *p = buf;
    itoi_spin_lock(&s->lock);
    for (;;) {
        if (s->closed) {
            pass_on(s);
            itoi_spin_unlock(&s->lock);
            return ITO_ECLOSED;
        }
        size_t n = put_some(s, p, len);
        p += n;
        len -= n;
        if (len == 0) break;
        if (n) itoi_wake_first(&s->getters);
        s->puts_blocked++;
        itoi_wait_on(w, &s->putters, &s->lock);
        w = itoi_self_worker();
        itoi_spin_lock(&s->lock);
    }
    pass_on(s);
    itoi_spin_unlock(&s->lock);
    return ITO_OK;
}

int ito_stream_get(ito_stream_t *s, void *buf, size_t len, size_t *got)
{
    if (!s || !got || (!buf && len)) return ITO_EINVAL;
    *got = 0;
    if (len == 0) return ITO_OK;
    itoi_worker_t *w = itoi_ult_worker();
    if (!w) return ITO_ENOTULT;
    itoi_spin_lock(&s->lock);
    while (s->count == 0) {
        if (s->closed) {
            pass_on(s);
            itoi_spin_unlock(&s->lock);
            return ITO_ECLOSED;
        }
        s->gets_blocked++;
        itoi_wait_on(w, &s->getters, &s->lock);
        w = itoi_self_worker();
        itoi_spin_lock(&s->lock);
    }
    *got = get_some(s, buf, len);
    pass_on(s);
    itoi_spin_unlock(&s->lock);
    return ITO_OK;
}

int ito_stream_try_put(ito_stream_t *s, const void *buf, size_t len, size_t *put)
{
    if (!s || !put || (!buf && len)) return ITO_EINVAL;
    *put = 0;
    itoi_spin_lock(&s->lock);
    int rc = ITO_OK;
    if (s->closed) rc = ITO_ECLOSED;
    else if (len && s->count == s->cap) rc = ITO_EAGAIN;
    else *put = put_some(s, buf, len);
    if (*put) pass_on(s);
    itoi_spin_unlock(&s->lock);
    return rc;
}

int ito_stream_try_get(ito_stream_t *s, void *buf, size_t len, size_t *got)
{
    if (!s || !got || (!buf && len)) return ITO_EINVAL;
    *got = 0;
    itoi_spin_lock(&s->lock);
    int rc = ITO_OK;
    if (len && s->count == 0) rc = s->closed ? ITO_ECLOSED : ITO_EAGAIN;
    else *got = get_some(s, buf, len);
    if (*got) pass_on(s);
    itoi_spin_unlock(&s->lock);
    return rc;
}

int ito_stream_close(ito_stream_t *s)
{
    if (!s) return ITO_EINVAL;
    itoi_spin_lock(&s->lock);
    if (s->closed) {
        itoi_spin_unlock(&s->lock);
        return ITO_ECLOSED;
    }
    s->closed = 1;
    itoi_wake_every(&s->getters);
    itoi_wake_every(&s->putters);
    itoi_spin_unlock(&s->lock);
    return ITO_OK;
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
