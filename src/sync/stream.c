/* stream.c: a bounded FIFO of bytes between ULTs.
 *
 * A ring buffer under one spinlock. The write side has one holder at a time (`writer`):
 * a blocking put takes it when nobody holds it and no putter waits, else it waits in
 * `putters` (FIFO) and is handed it by the holder that leaves. Holding it, a put of at
 * most the capacity waits (in `room`) until its whole length fits and writes it in one
 * step; a longer put writes what fits and waits for more. So the bytes of one put are
 * contiguous in the stream: puts never interleave, and a reader that reads whole items
 * never sees a torn one. try_put never takes the write side: it refuses while someone
 * holds it or waits for it, and writes all or nothing up to the capacity.
 *
 * Wake-ups: a get that leaves enough room (`need`) wakes the writer, which re-checks
 * after waking (Mesa). Getters are served by hand-off: a get waits only while the stream
 * is empty, and the put (or try_put) that brings bytes copies them itself into the
 * buffers of the waiting gets, first come first served, and wakes each with its count
 * (serve); so a woken get has its bytes, and a get that comes later cannot take them
 * first. (Until 2026-12-07 a put woke the first getter, which re-checked when it ran: a
 * running get took the bytes before it, and it waited again at the tail; with three
 * readers of a busy stream one waited seconds and its timed get said ITO_ETIMEDOUT while
 * thousands of items went by; found by an outside tester, h75a: test_stream_handoff.)
 * The putters queue is a hand-off too (a woken putter holds the write side already, or
 * was refused by close).
 * close() wakes everybody; puts then fail with ITO_ECLOSED, gets drain what is left.
 *
 * Handles: the struct lives in a handle-object slot (src/core/hobj.c); the pointer the API
 * hands out is that slot's handle, which every entry point turns into the struct with
 * stream_get() (NULL for a destroyed, forged or non-stream handle: ITO_EINVAL). Below,
 * `h` is a caller's handle and `s` the struct. */
#include <stdlib.h>
#include <string.h>

#include "ito/sync.h"
#include "waitq.h"

struct ito_stream {
    unsigned char *buf;
    size_t cap, head, count;
    int closed;
    itoi_ult_t *writer;          /* holder of the write side, or NULL */
    size_t need;                 /* room the writer waits for */
    itoi_waitq_t putters, room, getters;
    size_t inside;               /* blocking puts and gets under way (waiting or not) */
    uint64_t puts_blocked, gets_blocked;
};

_Static_assert(sizeof(struct ito_stream) <= ITOI_HOBJ_MAX, "a stream fits a handle-object slot");

static inline ito_stream_t *stream_get(ito_stream_t *h) { return itoi_hobj_get(h, ITOI_HOBJ_STREAM); }
/* Locks s, checked live under the lock (false: destroyed meanwhile, not locked). */
static inline bool stream_lock(ito_stream_t *s, ito_stream_t *h) { return itoi_hobj_lock_live(s, h, ITOI_HOBJ_STREAM); }
#define LOCK(s) itoi_hobj_lockp(s)

int ito_stream_create(ito_stream_t **out, size_t capacity)
{
    if (!out || capacity == 0 || capacity > ((size_t)1 << 30)) return ITO_EINVAL;
    void *h;
    ito_stream_t *s = itoi_hobj_alloc(ITOI_HOBJ_STREAM, &h);
    if (!s) return ITO_ENOMEM;
    s->buf = itoi_malloc(capacity);
    if (!s->buf) {
        itoi_hobj_free(s);
        return ITO_ENOMEM;
    }
    s->cap = capacity;
    *out = h;
    return ITO_OK;
}

int ito_stream_destroy(ito_stream_t *h)
{
    ito_stream_t *s = stream_get(h);
    if (!s || !stream_lock(s, h)) return ITO_EINVAL; /* of two destroys, one frees */
    if (s->inside) { /* waiting, or woken and not yet gone (the queues say less) */
        itoi_spin_unlock(LOCK(s));
        return ITO_EBUSY;
    }
    itoi_hobj_retire(s);
    itoi_spin_unlock(LOCK(s));
    free(s->buf);
    itoi_hobj_free(s);
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

/* A waiting get (its ULT's wait_data while it is on `getters`): where serve puts its bytes. */
typedef struct {
    unsigned char *buf;
    size_t len, got;
} stream_wait_t;

/* Hand the stream's bytes to the waiting gets in their order, each up to its length, and
 * wake them; then wake the writer if its need is met (caller holds the lock). A getter
 * whose timer has claimed it is passed by (itoi_waiter_pop): it times out with nothing.
 * Inline, the test that nobody waits (two loads); the rest out of line. */
static __attribute__((noinline)) void serve_waiters(ito_stream_t *s)
{
    itoi_ult_t *t;
    while (s->count && (t = itoi_waiter_pop(&s->getters)) != NULL) {
        stream_wait_t *g = (stream_wait_t *)t->wait_data;
        g->got = get_some(s, g->buf, g->len);
        itoi_wake_with(t, ITO_OK);
    }
    if (s->room.head && s->cap - s->count >= s->need) itoi_wake_first(&s->room);
}

static inline void serve(ito_stream_t *s)
{
    if (ITOI_UNLIKELY(s->getters.head != NULL || s->room.head != NULL)) serve_waiters(s);
}

static bool stream_unlink(itoi_ult_t *t, void *obj)
{
    ito_stream_t *s = obj;
    if (itoi_waiter_remove(&s->putters, t)) {
        /* A writer that left passed this putter by (its timer had claimed it: waitq.h) and
         * handed the write side to nobody: the next putter takes it now (left alone, a
         * later put queued behind and waited for ever; found by a test of the claim). */
        if (!s->writer && (s->writer = itoi_waiter_pop(&s->putters)) != NULL) itoi_wake_with(s->writer, ITO_OK);
        return true;
    }
    return itoi_waiter_remove(&s->room, t) || itoi_waiter_remove(&s->getters, t);
}

/* Write what the rule allows now (lock held): a remainder of at most the capacity only
 * whole, a longer one what fits, and again while waiting gets take what it wrote (the
 * room they leave is there before the writer could wait for it: nobody would wake it).
 * Returns the bytes written. */
static size_t put_allowed(ito_stream_t *s, const unsigned char *p, size_t left)
{
    size_t room = s->cap - s->count;
    if (left <= s->cap ? room < left : room == 0) return 0;
    size_t n = 0;
    do {
        n += put_some(s, p + n, left - n);
        serve(s);
    } while (n < left && s->count < s->cap);
    return n;
}

/* Take the write side, waiting in FIFO order (lock held; returns with it held). */
static int take_writer(ito_stream_t *s, itoi_worker_t *w, uint64_t deadline, bool *waited)
{
    if (!s->writer && !s->putters.head) {
        s->writer = w->cur;
        return ITO_OK;
    }
    if (itoi_deadline_passed(deadline)) return ITO_ETIMEDOUT;
    *waited = true;
    s->puts_blocked++;
    int rc = itoi_wait_on_until(w, &s->putters, LOCK(s), deadline, stream_unlink, s, "stream put");
    itoi_spin_lock(LOCK(s));
    return rc; /* ITO_OK: handed the write side; else refused by close, or timed out */
}

/* A put (lock held; returns with it held); *done: the bytes written. */
static int put_locked(ito_stream_t *s, itoi_worker_t *w, const unsigned char *p, size_t len, uint64_t deadline,
                      size_t *done_out)
{
    size_t done = 0;
    bool waited = false;
    int rc = s->closed ? ITO_ECLOSED : len == 0 ? ITO_OK : take_writer(s, w, deadline, &waited);
    if (rc != ITO_OK || len == 0) return rc;
    w = itoi_self_worker(); /* take_writer may have waited: the ULT may have moved */
    for (;;) {
        if (s->closed) {
            rc = ITO_ECLOSED;
            break;
        }
        done += put_allowed(s, p + done, len - done);
        if (done == len) break;
        if (itoi_deadline_passed(deadline)) {
            rc = ITO_ETIMEDOUT;
            break;
        }
        s->need = len - done <= s->cap ? len - done : 1;
        if (!waited) s->puts_blocked++; /* once per put */
        waited = true;
        rc = itoi_wait_on_until(w, &s->room, LOCK(s), deadline, stream_unlink, s, "stream put");
        w = itoi_self_worker();
        itoi_spin_lock(LOCK(s));
        if (rc == ITO_ETIMEDOUT && !s->closed) {
            done += put_allowed(s, p + done, len - done); /* room may have come with the deadline */
            if (done == len) rc = ITO_OK;
            break;
        }
    }
    /* Leave the write side: to the first waiting putter. */
    s->writer = itoi_waiter_pop(&s->putters);
    if (s->writer) itoi_wake_with(s->writer, ITO_OK);
    *done_out = done;
    return rc;
}

/* A call that may wait counts itself in `inside` from its first look to its last: a
 * waiter that a peer, close or its own deadline has taken off its queue but that has not
 * run yet is on no queue, and it takes the lock again and goes on with the stream. Destroy
 * says ITO_EBUSY while any is inside (it looked at the queues only: such a waiter then
 * used a destroyed stream, or the next one in its slot; found by a reviewer). */
int ito_stream_put_until(ito_stream_t *h, const void *buf, size_t len, size_t *put, uint64_t deadline)
{
    ito_stream_t *s = stream_get(h);
    if (put) *put = 0;
    if (!s || (!buf && len)) return ITO_EINVAL;
    itoi_worker_t *w = itoi_ult_worker();
    if (!w) return ITO_ENOTULT;
    if (!stream_lock(s, h)) return ITO_EINVAL;
    size_t done = 0;
    s->inside++;
    int rc = put_locked(s, w, buf, len, deadline, &done);
    s->inside--;
    itoi_spin_unlock(LOCK(s));
    if (put) *put = done;
    return rc;
}

int ito_stream_put(ito_stream_t *s, const void *buf, size_t len)
{
    return ito_stream_put_until(s, buf, len, NULL, ITO_FOREVER);
}

/* A get of len > 0 (lock held; returns with it held). */
static int get_locked(ito_stream_t *s, itoi_worker_t *w, unsigned char *buf, size_t len, uint64_t deadline,
                      size_t *got)
{
    bool waited = false;
    while (s->count == 0) {
        int rc = ITO_OK;
        if (s->closed) rc = ITO_ECLOSED;
        else if (itoi_deadline_passed(deadline)) rc = ITO_ETIMEDOUT;
        if (rc != ITO_OK) return rc;
        if (!waited) s->gets_blocked++; /* once per get, as puts (counted twice until 2026-12-05) */
        waited = true;
        stream_wait_t g = {buf, len, 0};
        w->cur->wait_data = (uintptr_t)&g;
        rc = itoi_wait_on_until(w, &s->getters, LOCK(s), deadline, stream_unlink, s, "stream get");
        w = itoi_self_worker();
        itoi_spin_lock(LOCK(s));
        if (g.got) { /* served by a put (serve) */
            *got = g.got;
            return ITO_OK;
        }
        if (rc == ITO_ETIMEDOUT && s->count == 0) return ITO_ETIMEDOUT;
    }
    *got = get_some(s, buf, len);
    serve(s);
    return ITO_OK;
}

int ito_stream_get_until(ito_stream_t *h, void *buf, size_t len, size_t *got, uint64_t deadline)
{
    ito_stream_t *s = stream_get(h);
    if (got) *got = 0; /* "0 on any error" (sync.h), EINVAL included */
    if (!s || !got || (!buf && len)) return ITO_EINVAL;
    if (len == 0) return ITO_OK;
    itoi_worker_t *w = itoi_ult_worker();
    if (!w) return ITO_ENOTULT;
    if (!stream_lock(s, h)) return ITO_EINVAL;
    s->inside++; /* (see ito_stream_put_until) */
    int rc = get_locked(s, w, buf, len, deadline, got);
    s->inside--;
    itoi_spin_unlock(LOCK(s));
    return rc;
}

int ito_stream_get(ito_stream_t *s, void *buf, size_t len, size_t *got)
{
    return ito_stream_get_until(s, buf, len, got, ITO_FOREVER);
}

/* The try-variants and close may come from any thread (itoi_any_enter). */
int ito_stream_try_put(ito_stream_t *h, const void *buf, size_t len, size_t *put)
{
    ito_stream_t *s = stream_get(h);
    if (put) *put = 0; /* also on ITO_EINVAL, as the gets (sync.h) */
    if (!s || !put || (!buf && len)) return ITO_EINVAL;
    bool foreign;
    if (itoi_any_enter(&foreign) != ITO_OK) return ITO_ESTATE;
    if (!stream_lock(s, h)) return itoi_any_leave(foreign, ITO_EINVAL);
    int rc = ITO_OK;
    if (s->closed) rc = ITO_ECLOSED;
    else if (len && (s->writer || s->putters.head || !(*put = put_allowed(s, buf, len)))) rc = ITO_EAGAIN;
    itoi_spin_unlock(LOCK(s));
    return itoi_any_leave(foreign, rc);
}

int ito_stream_try_get(ito_stream_t *h, void *buf, size_t len, size_t *got)
{
    ito_stream_t *s = stream_get(h);
    if (got) *got = 0;
    if (!s || !got || (!buf && len)) return ITO_EINVAL;
    bool foreign;
    if (itoi_any_enter(&foreign) != ITO_OK) return ITO_ESTATE;
    if (!stream_lock(s, h)) return itoi_any_leave(foreign, ITO_EINVAL);
    int rc = ITO_OK;
    if (len && s->count == 0) rc = s->closed ? ITO_ECLOSED : ITO_EAGAIN;
    else if (len) *got = get_some(s, buf, len); /* (len 0: buf may be NULL, no memcpy of it) */
    if (*got) serve(s);
    itoi_spin_unlock(LOCK(s));
    return itoi_any_leave(foreign, rc);
}

int ito_stream_close(ito_stream_t *h)
{
    ito_stream_t *s = stream_get(h);
    if (!s) return ITO_EINVAL;
    bool foreign;
    if (itoi_any_enter(&foreign) != ITO_OK) return ITO_ESTATE;
    if (!stream_lock(s, h)) return itoi_any_leave(foreign, ITO_EINVAL);
    int rc = ITO_OK;
    if (s->closed) {
        rc = ITO_ECLOSED;
    } else {
        s->closed = 1;
        itoi_wake_every(&s->getters);
        itoi_wake_every(&s->room);                       /* the writer sees closed */
        itoi_wake_every_with(&s->putters, ITO_ECLOSED);  /* not handed the write side */
    }
    itoi_spin_unlock(LOCK(s));
    return itoi_any_leave(foreign, rc);
}

int ito_stream_stats(ito_stream_t *h, uint64_t *puts_blocked, uint64_t *gets_blocked)
{
    ito_stream_t *s = stream_get(h);
    if (!s || !stream_lock(s, h)) return ITO_EINVAL;
    if (puts_blocked) *puts_blocked = s->puts_blocked;
    if (gets_blocked) *gets_blocked = s->gets_blocked;
    itoi_spin_unlock(LOCK(s));
    return ITO_OK;
}
