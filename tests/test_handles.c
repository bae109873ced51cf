/* test_handles: stale handles get error codes, never freed memory (run in the ASan tree,
 * any read of freed memory fails the test): a group destroyed twice or used after its
 * destruction; thread, frame and group handles kept across ito_finalize, and a thread
 * handle kept across ito_finalize and a new ito_init (the earlier runtime's descriptors
 * are reused by the new one); a frame destroyed and created again at the same address
 * (its old handle names the old life: refused); forged thread and frame handles (pointers
 * to the stack, the heap, unmapped memory, the middle of a live descriptor or frame, a
 * copy of a live frame's header inside another frame's data) are ITO_EINVAL and are
 * refused before anything is read through them; streams and channels destroyed (twice,
 * then used), created again in the same slot, forged, or passed as the other type, are
 * ITO_EINVAL for every call that takes them (regression test: a destroyed stream or
 * channel was freed memory that every call then read or wrote); pointers into the middle
 * of a channel that a foreign thread is using are refused without reading its words
 * (regression test for the TSan tree: the check read them). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ito/ito.h"
#include "ito_test.h"

static void *noop(void *a) { return a; }
static void zfn(ito_frame_t *f, int e, uint64_t v)
{
    (void)f;
    (void)e;
    (void)v;
}

#define TAG(h) ((uintptr_t)(h) & ~(((uintptr_t)1 << 48) - 1)) /* the generation bits */
#define ADDR(h) ((uintptr_t)(h) & (((uintptr_t)1 << 48) - 1))

static void forged_threads(ito_thread_t live)
{
    uint64_t id;
    char name[32];
    unsigned char on_stack[512];
    memset(on_stack, 0xff, sizeof on_stack);
    void *heap = malloc(4096);
    CHECK(heap != NULL);
    memset(heap, 0, 4096);
    uintptr_t forged[] = {
        (uintptr_t)on_stack, (uintptr_t)heap, 0x1000, 0x7fff00ff0000u, (uintptr_t)-8,
        (ADDR(live) + 8) | TAG(live), (ADDR(live) + 64) | TAG(live), (uintptr_t)heap | TAG(live),
    };
    for (size_t i = 0; i < sizeof forged / sizeof forged[0]; i++) {
        ito_thread_t h = (ito_thread_t)forged[i];
        CHECK_EQ(ito_join(h, NULL), ITO_EINVAL);
        CHECK_EQ(ito_detach(h), ITO_EINVAL);
        CHECK_EQ(ito_thread_id(h, &id), ITO_EINVAL);
        CHECK_EQ(ito_thread_name(h, name, sizeof name), ITO_EINVAL);
        CHECK_EQ(ito_yield_to(h), ITO_EINVAL);
    }
    free(heap);
}

static void forged_frames(void)
{
    ito_frame_t *a, *b;
    CHECK_OK(ito_frame_create(&a, 1, 512));
    CHECK_OK(ito_frame_create(&b, 1, 512));
    CHECK_OK(ito_entry_set(a, 0, zfn, 2, ITO_MODE_USER));
    /* b's data holds a copy of a's header: a forged frame that looks live */
    unsigned char *data = ito_frame_data(b);
    CHECK(data != NULL);
    memcpy(data, (const void *)ADDR(a), 256);
    unsigned char on_stack[256];
    memcpy(on_stack, (const void *)ADDR(a), sizeof on_stack);
    void *heap = malloc(512);
    CHECK(heap != NULL);
    memcpy(heap, (const void *)ADDR(a), 256);
    uintptr_t forged[] = {
        (uintptr_t)data | TAG(a), (uintptr_t)on_stack | TAG(a), (uintptr_t)heap | TAG(a),
        (ADDR(a) + 16) | TAG(a), (ADDR(a) + 3) | TAG(a), (ADDR(a) + 4096) | TAG(a), 0x1000, 0x7fff00ff0000u,
        (uintptr_t)-64,
    };
    for (size_t i = 0; i < sizeof forged / sizeof forged[0]; i++) {
        ito_frame_t *h = (ito_frame_t *)forged[i];
        CHECK_EQ(ito_continue(h, 0), ITO_EINVAL);
        CHECK_EQ(ito_entry_set(h, 0, zfn, 1, ITO_MODE_USER), ITO_EINVAL);
        CHECK(ito_frame_data(h) == NULL);
        CHECK_EQ(ito_frame_destroy(h), ITO_EINVAL);
    }
    free(heap);
    /* a's count was not touched by any of them */
    CHECK_OK(ito_continue(a, 0));
    CHECK_OK(ito_continue(a, 0));
    while (ito_frame_destroy(a) == ITO_EBUSY) CHECK_OK(ito_yield());
    CHECK_OK(ito_frame_destroy(b));
}

/* Every call that takes a stream or a channel, on a handle that is not a live one of its
 * type: ITO_EINVAL, nothing read through it. */
static void bad_stream(ito_stream_t *s)
{
    char b[8] = "abcdefg";
    size_t n = 99;
    uint64_t x, y;
    CHECK_EQ(ito_stream_try_put(s, b, 4, &n), ITO_EINVAL);
    CHECK_EQ(ito_stream_try_get(s, b, 4, &n), ITO_EINVAL);
    CHECK_EQ(ito_stream_put(s, b, 4), ITO_EINVAL);
    CHECK_EQ(ito_stream_get(s, b, 4, &n), ITO_EINVAL);
    CHECK_EQ(ito_stream_put_until(s, b, 4, &n, ito_deadline_in(1000)), ITO_EINVAL);
    CHECK_EQ(ito_stream_get_until(s, b, 4, &n, ito_deadline_in(1000)), ITO_EINVAL);
    CHECK_EQ(ito_stream_stats(s, &x, &y), ITO_EINVAL);
    CHECK_EQ(ito_stream_close(s), ITO_EINVAL);
    CHECK_EQ(ito_stream_destroy(s), ITO_EINVAL);
}

static void bad_chan(ito_chan_t *c)
{
    long v = 7;
    ito_chan_stats_t st;
    CHECK_EQ(ito_chan_try_send(c, &v), ITO_EINVAL);
    CHECK_EQ(ito_chan_try_recv(c, &v), ITO_EINVAL);
    CHECK_EQ(ito_chan_send(c, &v), ITO_EINVAL);
    CHECK_EQ(ito_chan_recv(c, &v), ITO_EINVAL);
    CHECK_EQ(ito_chan_send_until(c, &v, ito_deadline_in(1000)), ITO_EINVAL);
    CHECK_EQ(ito_chan_recv_until(c, &v, ito_deadline_in(1000)), ITO_EINVAL);
    CHECK_EQ(ito_chan_stats(c, &st), ITO_EINVAL);
    CHECK_EQ(ito_chan_close(c), ITO_EINVAL);
    CHECK_EQ(ito_chan_destroy(c), ITO_EINVAL);
}

static _Atomic int traffic_stop;
static void *traffic(void *arg) /* a foreign thread: one item in, one out, until told */
{
    ito_chan_t *c = arg;
    long v = 9, got;
    while (!atomic_load(&traffic_stop)) {
        CHECK_OK(ito_chan_try_send(c, &v));
        CHECK_OK(ito_chan_try_recv(c, &got));
        CHECK_EQ(got, 9);
    }
    return NULL;
}

static void streams_and_channels(ito_thread_t live_thread, ito_frame_t *live_frame)
{
    ito_stream_t *s, *s2;
    CHECK_OK(ito_stream_create(&s, 64));
    CHECK_OK(ito_stream_destroy(s));
    bad_stream(s); /* destroyed: twice, and every use */
    CHECK_OK(ito_stream_create(&s2, 64)); /* most likely s's slot again: s stays stale */
    CHECK(s2 != s);
    bad_stream(s);
    size_t n;
    CHECK_OK(ito_stream_try_put(s2, "xy", 2, &n)); /* s2 is untouched by all that */
    CHECK_EQ(n, 2);

    ito_chan_t *c, *c2;
    CHECK_OK(ito_chan_create(&c, sizeof(long), 4));
    CHECK_OK(ito_chan_destroy(c));
    bad_chan(c);
    CHECK_OK(ito_chan_create(&c2, sizeof(long), 4));
    CHECK(c2 != c);
    bad_chan(c);
    long v = 5;
    CHECK_OK(ito_chan_try_send(c2, &v));

    /* the other type, other kinds of handles, forged pointers */
    bad_stream((ito_stream_t *)c2);
    bad_chan((ito_chan_t *)s2);
    bad_stream((ito_stream_t *)live_thread);
    bad_chan((ito_chan_t *)live_frame);
    unsigned char on_stack[512];
    memset(on_stack, 0, sizeof on_stack);
    void *heap = calloc(1, 4096);
    CHECK(heap != NULL);
    /* the last two: s2's and c2's slots under another generation than their own */
    uintptr_t forged[] = {(uintptr_t)on_stack, (uintptr_t)heap, 0x1000, 0x7fff00ff0000u, (uintptr_t)-8,
                          ADDR(s2) + 8, ADDR(s2) + 16, ADDR(c2) + 16, (uintptr_t)s2 ^ ((uintptr_t)1 << 52),
                          (uintptr_t)c2 ^ ((uintptr_t)7 << 48)};
    for (size_t i = 0; i < sizeof forged / sizeof forged[0]; i++) {
        bad_stream((ito_stream_t *)forged[i]);
        bad_chan((ito_chan_t *)forged[i]);
    }
    free(heap);

    /* forged pointers into the middle of c3 while a foreign thread uses it: refused
     * without reading its words (TSan saw a race between such a read and the traffic) */
    ito_chan_t *c3;
    CHECK_OK(ito_chan_create(&c3, sizeof(long), 4));
    pthread_t pt;
    atomic_store(&traffic_stop, 0);
    CHECK_EQ(pthread_create(&pt, NULL, traffic, c3), 0);
    for (int r = 0; r < 2000; r++)
        for (uintptr_t off = 8; off < 256; off += 8) {
            long z = 0;
            CHECK_EQ(ito_chan_try_recv((ito_chan_t *)((ADDR(c3) + off) | TAG(c3)), &z), ITO_EINVAL);
        }
    atomic_store(&traffic_stop, 1);
    CHECK_EQ(pthread_join(pt, NULL), 0);
    CHECK_OK(ito_chan_destroy(c3));

    /* the live ones still work, and are destroyed once */
    long got = 0;
    CHECK_OK(ito_chan_try_recv(c2, &got));
    CHECK_EQ(got, 5);
    char b[2];
    CHECK_OK(ito_stream_try_get(s2, b, 2, &n));
    CHECK(n == 2 && b[0] == 'x' && b[1] == 'y');
    CHECK_OK(ito_stream_destroy(s2));
    CHECK_OK(ito_chan_destroy(c2));
    CHECK_EQ(ito_stream_destroy(s2), ITO_EINVAL);
    CHECK_EQ(ito_chan_destroy(c2), ITO_EINVAL);
}

int main(void)
{
    CHECK_OK(ito_init(NULL));
    ito_thread_t t, joined;
    CHECK_OK(ito_create(&t, noop, NULL, NULL));
    CHECK_OK(ito_create(&joined, noop, NULL, NULL));
    CHECK_OK(ito_join(joined, NULL));
    ito_frame_t *f;
    CHECK_OK(ito_frame_create(&f, 2, 16));
    CHECK_OK(ito_entry_set(f, 0, zfn, 1, ITO_MODE_USER));

    /* groups: double destroy, use after destroy, forged */
    ito_group_t *g, *kept;
    CHECK_OK(ito_group_create(&g));
    CHECK_OK(ito_group_create(&kept));
    CHECK_OK(ito_group_destroy(g));
    CHECK_EQ(ito_group_destroy(g), ITO_EINVAL);
    CHECK_EQ(ito_group_add(g, t), ITO_EINVAL);
    ito_preempt_stats_t ps;
    CHECK_EQ(ito_group_stats(g, &ps), ITO_EINVAL);
    CHECK_EQ(ito_group_destroy((ito_group_t *)(uintptr_t)0x7fff00ff), ITO_EINVAL);
    ito_group_t *g2;
    CHECK_OK(ito_group_create(&g2)); /* may take g's slot: g stays stale */
    CHECK_EQ(ito_group_destroy(g), ITO_EINVAL);
    CHECK_OK(ito_group_destroy(g2));

    /* a frame destroyed and created again, most likely at the same address */
    ito_frame_t *old, *again;
    CHECK_OK(ito_frame_create(&old, 2, 16));
    CHECK_OK(ito_entry_set(old, 0, zfn, 2, ITO_MODE_USER));
    CHECK_OK(ito_frame_destroy(old));
    CHECK_OK(ito_frame_create(&again, 2, 16));
    CHECK_OK(ito_entry_set(again, 0, zfn, 2, ITO_MODE_USER));
    CHECK(old != again); /* the handles differ even when the memory is the same */
    CHECK_EQ(ito_continue(old, 0), ITO_EINVAL); /* would have consumed again's count */
    CHECK_EQ(ito_entry_set(old, 0, zfn, 1, ITO_MODE_USER), ITO_EINVAL);
    CHECK(ito_frame_data(old) == NULL);
    CHECK_EQ(ito_frame_destroy(old), ITO_EINVAL);
    CHECK_OK(ito_continue(again, 0)); /* again's owner still has both of its counts */
    CHECK_OK(ito_continue(again, 0));
    while (ito_frame_destroy(again) == ITO_EBUSY) CHECK_OK(ito_yield());

    forged_threads(t);
    forged_frames();
    streams_and_channels(t, f);

    /* a joined thread */
    uint64_t id;
    char name[32];
    CHECK_EQ(ito_thread_id(joined, &id), ITO_EJOINED);
    CHECK_EQ(ito_join(joined, NULL), ITO_EJOINED);

    CHECK_OK(ito_join(t, NULL));
    CHECK_OK(ito_finalize());

    /* after ito_finalize */
    CHECK_EQ(ito_thread_id(t, &id), ITO_EJOINED);
    CHECK_EQ(ito_thread_name(t, name, sizeof name), ITO_EJOINED);
    CHECK_EQ(ito_continue(f, 0), ITO_EINVAL);
    CHECK(ito_frame_data(f) == NULL);
    CHECK_EQ(ito_frame_destroy(f), ITO_EINVAL);
    CHECK_EQ(ito_group_destroy(kept), ITO_ESTATE);

    /* a new runtime reuses the earlier one's descriptors and frames: old handles stay stale */
    CHECK_OK(ito_init(NULL));
    ito_thread_t fresh[64];
    for (int i = 0; i < 64; i++) CHECK_OK(ito_create(&fresh[i], noop, NULL, NULL));
    CHECK_EQ(ito_join(t, NULL), ITO_EJOINED);
    CHECK_EQ(ito_detach(joined), ITO_EJOINED);
    CHECK_EQ(ito_thread_id(t, &id), ITO_EJOINED);
    CHECK_EQ(ito_group_destroy(kept), ITO_EINVAL); /* an earlier runtime's group */
    for (int i = 0; i < 64; i++) CHECK_OK(ito_join(fresh[i], NULL));
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
