/* test_stream: the bounded byte FIFO. Order, partial gets, wrap-around of the ring,
 * try-variants (partial try_put, EAGAIN), blocking put larger than the capacity, close
 * semantics (drain, then ITO_ECLOSED; blocked putters and getters woken), statistics,
 * and the try-variants from a foreign pthread. */
#include <pthread.h>
#include <stdint.h>

#include "ito/ito.h"
#include "ito_test.h"

static void check_order_and_wrap(void)
{
    ito_stream_t *s;
    CHECK_OK(ito_stream_create(&s, 7));
    unsigned char in[64], out[64];
    unsigned next_in = 0, next_out = 0;
    /* Sizes that walk head and tail around the 7-byte ring many times. */
    for (int round = 0; round < 200; round++) {
        size_t put = (size_t)(round * 5 % 8); /* 0..7 */
        size_t n;
        for (size_t i = 0; i < put; i++) in[i] = (unsigned char)(next_in + i);
        int rc = ito_stream_try_put(s, in, put, &n);
        if (rc == ITO_EAGAIN) {
            CHECK_EQ(n, 0);
        } else {
            CHECK_OK(rc);
            CHECK(n <= put);
        }
        next_in += (unsigned)n;
        size_t want = (size_t)(round * 3 % 6) + 1;
        rc = ito_stream_try_get(s, out, want, &n);
        if (rc == ITO_EAGAIN) {
            CHECK_EQ(n, 0);
            CHECK_EQ(next_in, next_out);
        } else {
            CHECK_OK(rc);
            CHECK(n >= 1 && n <= want);
            CHECK(n == want || next_out + n == next_in); /* partial only when drained */
        }
        for (size_t i = 0; i < n; i++) CHECK_EQ(out[i], (unsigned char)(next_out + i));
        next_out += (unsigned)n;
    }
    CHECK(next_out > 300); /* the ring wrapped many times */

    /* A partial try_put fills exactly the room left. */
    size_t n;
    while (ito_stream_try_get(s, out, sizeof out, &n) == ITO_OK) {
    }
    CHECK_OK(ito_stream_try_put(s, "abcdefghij", 10, &n));
    CHECK_EQ(n, 7);
    CHECK_EQ(ito_stream_try_put(s, "k", 1, &n), ITO_EAGAIN);
    CHECK_OK(ito_stream_try_put(s, "k", 0, &n)); /* zero bytes always fit */
    CHECK_EQ(n, 0);
    /* A blocking get returns what is there, not waiting for len bytes. */
    CHECK_OK(ito_stream_get(s, out, 3, &n));
    CHECK_EQ(n, 3);
    CHECK(memcmp(out, "abc", 3) == 0);
    CHECK_OK(ito_stream_get(s, out, 64, &n));
    CHECK_EQ(n, 4);
    CHECK(memcmp(out, "defg", 4) == 0);
    CHECK_OK(ito_stream_get(s, out, 0, &n)); /* zero-length get does not wait */
    CHECK_EQ(n, 0);
    CHECK_OK(ito_stream_destroy(s));
}

/* A put larger than the capacity goes through in pieces as the reader drains. */
#define BIG 10000
static unsigned char big_in[BIG], big_out[BIG];

static void *big_reader(void *arg)
{
    ito_stream_t *s = arg;
    size_t have = 0, n;
    while (have < BIG) {
        CHECK_OK(ito_stream_get(s, big_out + have, 37, &n));
        CHECK(n >= 1 && n <= 37);
        have += n;
    }
    return NULL;
}

static void check_big_put(void)
{
    ito_stream_t *s;
    CHECK_OK(ito_stream_create(&s, 13));
    for (int i = 0; i < BIG; i++) big_in[i] = (unsigned char)(i * 31 + i / 256);
    ito_thread_t t;
    CHECK_OK(ito_create(&t, big_reader, s, NULL));
    CHECK_OK(ito_stream_put(s, big_in, BIG));
    CHECK_OK(ito_join(t, NULL));
    CHECK(memcmp(big_in, big_out, BIG) == 0);
    uint64_t pb = 0, gb = 0;
    CHECK_OK(ito_stream_stats(s, &pb, &gb));
    CHECK(pb > 0); /* the put had to wait for room */
    CHECK_OK(ito_stream_stats(s, NULL, NULL));
    CHECK_OK(ito_stream_destroy(s));
}

/* close: what is buffered is still delivered, then ITO_ECLOSED with *got = 0. */
static void *closed_putter(void *arg)
{
    return (void *)(intptr_t)ito_stream_put(arg, "0123456789", 10); /* blocks: capacity 4 */
}

static void *closed_getter(void *arg)
{
    size_t n = 99;
    char b[4];
    int rc = ito_stream_get(arg, b, 4, &n);
    return (void *)(intptr_t)(rc == ITO_ECLOSED && n == 0 ? 1 : -1);
}

static void check_close(void)
{
    ito_stream_t *s;
    char b[16];
    size_t n;
    CHECK_OK(ito_stream_create(&s, 4));
    ito_attr_t a;
    CHECK_OK(ito_attr_init(&a));
    a.worker = 0;
    /* A putter blocked on a full stream gets ITO_ECLOSED. */
    ito_thread_t tp;
    CHECK_OK(ito_create(&tp, closed_putter, s, &a));
    for (int i = 0; i < 20; i++) CHECK_OK(ito_yield());
    uint64_t pb;
    CHECK_OK(ito_stream_stats(s, &pb, NULL));
    CHECK_EQ(pb, 1);
    CHECK_OK(ito_stream_close(s));
    void *r;
    CHECK_OK(ito_join(tp, &r));
    CHECK_EQ((intptr_t)r, ITO_ECLOSED);
    /* The 4 bytes that fitted before the close are drained, then ECLOSED. */
    CHECK_OK(ito_stream_get(s, b, 3, &n));
    CHECK_EQ(n, 3);
    CHECK(memcmp(b, "012", 3) == 0);
    CHECK_OK(ito_stream_try_get(s, b, 16, &n));
    CHECK_EQ(n, 1);
    CHECK_EQ(b[0], '3');
    CHECK_EQ(ito_stream_get(s, b, 3, &n), ITO_ECLOSED);
    CHECK_EQ(n, 0);
    CHECK_OK(ito_stream_destroy(s));

    /* Getters blocked on an empty stream are all woken by close. */
    CHECK_OK(ito_stream_create(&s, 4));
    ito_thread_t tg[3];
    for (int i = 0; i < 3; i++) CHECK_OK(ito_create(&tg[i], closed_getter, s, &a));
    for (int i = 0; i < 20; i++) CHECK_OK(ito_yield());
    uint64_t gb;
    CHECK_OK(ito_stream_stats(s, NULL, &gb));
    CHECK_EQ(gb, 3);
    CHECK_OK(ito_stream_close(s));
    for (int i = 0; i < 3; i++) {
        CHECK_OK(ito_join(tg[i], &r));
        CHECK_EQ((intptr_t)r, 1);
    }
    CHECK_OK(ito_stream_destroy(s));
}

/* Blocked getters are served in FIFO order. */
static int served[4], nserved;
static void *fifo_getter(void *arg)
{
    ito_stream_t **sp = arg;
    char b;
    size_t n;
    CHECK_OK(ito_stream_get(*sp, &b, 1, &n));
    CHECK_EQ(n, 1);
    served[nserved++] = b - 'a';
    return NULL;
}

static void check_getter_fifo(void)
{
    static ito_stream_t *s;
    CHECK_OK(ito_stream_create(&s, 8));
    ito_attr_t a;
    CHECK_OK(ito_attr_init(&a));
    a.worker = 0;
    ito_thread_t t[4];
    for (int i = 0; i < 4; i++) {
        CHECK_OK(ito_create(&t[i], fifo_getter, &s, &a));
        for (int y = 0; y < 5; y++) CHECK_OK(ito_yield());
    }
    /* One byte at a time: the i-th byte goes to the i-th getter to have blocked. */
    for (int i = 0; i < 4; i++) {
        char c = (char)('a' + i);
        CHECK_OK(ito_stream_put(s, &c, 1));
        for (int y = 0; y < 5; y++) CHECK_OK(ito_yield());
    }
    for (int i = 0; i < 4; i++) CHECK_OK(ito_join(t[i], NULL));
    CHECK_EQ(nserved, 4);
    for (int i = 0; i < 4; i++) CHECK_EQ(served[i], i);
    CHECK_OK(ito_stream_destroy(s));
}

/* try-variants from a kernel thread that is not a ULT. */
static void *foreign(void *arg)
{
    ito_stream_t *s = arg;
    size_t n;
    CHECK_OK(ito_stream_try_put(s, "xyz", 3, &n));
    CHECK_EQ(n, 3);
    return NULL;
}

static void check_foreign(void)
{
    ito_stream_t *s;
    CHECK_OK(ito_stream_create(&s, 8));
    pthread_t pt;
    CHECK_EQ(pthread_create(&pt, NULL, foreign, s), 0);
    CHECK_EQ(pthread_join(pt, NULL), 0);
    char b[8];
    size_t n;
    CHECK_OK(ito_stream_get(s, b, 8, &n));
    CHECK_EQ(n, 3);
    CHECK(memcmp(b, "xyz", 3) == 0);
    CHECK_OK(ito_stream_destroy(s));
}

int main(void)
{
    CHECK_OK(ito_init(NULL));
    check_order_and_wrap();
    check_big_put();
    check_close();
    check_getter_fifo();
    check_foreign();
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
