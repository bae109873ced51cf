/* test_stream_items: what ito_stream guarantees about the bytes of one put. The issue's
 * case (64 producers putting 8-byte items into a 132-byte stream, which tore half of them
 * when a put wrote what fitted and waited for the rest) on all workers: no item is torn,
 * lost or duplicated. Puts longer than the capacity are never interleaved with other puts;
 * try_put of at most the capacity is all or nothing and refuses while a blocking put waits;
 * a timed put of at most the capacity that times out puts nothing. */
#include <stdatomic.h>
#include <stdint.h>

#include "ito/ito.h"
#include "ito_test.h"

#define PRODUCERS 64
#define PER 300

static ito_stream_t *s;
static _Atomic uint8_t seen[PRODUCERS][PER];

/* An item: producer, sequence number, and a check byte pattern in between. */
static uint64_t item(uint32_t p, uint32_t q) { return (uint64_t)p << 48 | (uint64_t)(q ^ 0xa5a5) << 16 | q; }

static void *producer(void *arg)
{
    uint32_t p = (uint32_t)(uintptr_t)arg;
    for (uint32_t q = 0; q < PER; q++) {
        uint64_t v = item(p, q);
        CHECK_OK(ito_stream_put(s, &v, sizeof v));
    }
    return NULL;
}

static void *consumer(void *arg)
{
    long n = (long)(intptr_t)arg;
    for (long i = 0; i < n; i++) {
        uint64_t v;
        size_t got;
        CHECK_OK(ito_stream_get(s, &v, sizeof v, &got));
        CHECK_EQ(got, sizeof v); /* whole items only: every put is 8 bytes */
        uint32_t p = (uint32_t)(v >> 48), q = (uint32_t)(v & 0xffff);
        CHECK(p < PRODUCERS && q < PER);
        CHECK_EQ(v, item(p, q)); /* not torn */
        CHECK_EQ(atomic_fetch_add(&seen[p][q], 1), 0);
    }
    return NULL;
}

static void check_no_torn_items(void)
{
    CHECK_OK(ito_stream_create(&s, 132)); /* not a multiple of 8 */
    ito_thread_t c[4], p[PRODUCERS];
    for (int i = 0; i < 4; i++) CHECK_OK(ito_create(&c[i], consumer, (void *)(intptr_t)(PRODUCERS * PER / 4), NULL));
    for (uintptr_t i = 0; i < PRODUCERS; i++) CHECK_OK(ito_create(&p[i], producer, (void *)i, NULL));
    for (int i = 0; i < PRODUCERS; i++) CHECK_OK(ito_join(p[i], NULL));
    for (int i = 0; i < 4; i++) CHECK_OK(ito_join(c[i], NULL));
    for (int i = 0; i < PRODUCERS; i++)
        for (int q = 0; q < PER; q++) CHECK_EQ(atomic_load(&seen[i][q]), 1);
    CHECK_OK(ito_stream_destroy(s));
}

/* Three putters of 1000 bytes each (capacity 64): each put's bytes arrive contiguous. */
#define BIG 1000
static void *big_putter(void *arg)
{
    unsigned char buf[BIG];
    memset(buf, (int)(uintptr_t)arg, sizeof buf);
    CHECK_OK(ito_stream_put(s, buf, sizeof buf));
    return NULL;
}

static void check_long_puts_whole(void)
{
    CHECK_OK(ito_stream_create(&s, 64));
    ito_thread_t t[3];
    for (uintptr_t i = 0; i < 3; i++) CHECK_OK(ito_create(&t[i], big_putter, (void *)('A' + i), NULL));
    static unsigned char all[3 * BIG];
    size_t have = 0, got;
    while (have < sizeof all) {
        CHECK_OK(ito_stream_get(s, all + have, 17, &got));
        have += got;
    }
    for (int i = 0; i < 3; i++) CHECK_OK(ito_join(t[i], NULL));
    int letters = 0;
    for (size_t k = 0; k < 3; k++) { /* three runs of one letter each */
        unsigned char x = all[k * BIG];
        CHECK(x >= 'A' && x <= 'C');
        letters |= 1 << (x - 'A');
        for (size_t j = 0; j < BIG; j++) CHECK_EQ(all[k * BIG + j], x);
    }
    CHECK_EQ(letters, 7);
    CHECK_OK(ito_stream_destroy(s));
}

static void *blocked_putter(void *arg)
{
    (void)arg;
    return (void *)(intptr_t)ito_stream_put(s, "0123456789", 10);
}

static void check_try_and_timed(void)
{
    CHECK_OK(ito_stream_create(&s, 8));
    size_t n = 99;
    CHECK_OK(ito_stream_try_put(s, "abcde", 5, &n));
    CHECK_EQ(n, 5);
    CHECK_EQ(ito_stream_try_put(s, "wxyz", 4, &n), ITO_EAGAIN); /* 3 bytes free: none put */
    CHECK_EQ(n, 0);
    CHECK_EQ(ito_stream_put_until(s, "wxyz", 4, &n, ito_deadline_in(1000000)), ITO_ETIMEDOUT);
    CHECK_EQ(n, 0); /* all or nothing */
    CHECK_OK(ito_stream_try_put(s, "fgh", 3, &n));
    CHECK_EQ(n, 3);
    /* A blocking put waits for room; a try_put does not jump ahead of it. */
    ito_attr_t a;
    CHECK_OK(ito_attr_init(&a));
    a.worker = 0;
    ito_thread_t t;
    CHECK_OK(ito_create(&t, blocked_putter, NULL, &a));
    for (int i = 0; i < 5; i++) CHECK_OK(ito_yield());
    char b[32];
    CHECK_OK(ito_stream_try_get(s, b, 1, &n)); /* one byte of room: the putter still waits */
    CHECK_EQ(ito_stream_try_put(s, "!", 1, &n), ITO_EAGAIN);
    CHECK_EQ(n, 0);
    size_t have = 1;
    while (have < 8 + 10) {
        CHECK_OK(ito_stream_get(s, b + have, sizeof b - have, &n));
        have += n;
    }
    void *rc;
    CHECK_OK(ito_join(t, &rc));
    CHECK_EQ((intptr_t)rc, ITO_OK);
    CHECK(memcmp(b, "abcdefgh0123456789", 18) == 0);
    CHECK_OK(ito_stream_destroy(s));
}

int main(void)
{
    CHECK_OK(ito_init(NULL));
    check_no_torn_items();
    check_long_puts_whole();
    check_try_and_timed();
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
