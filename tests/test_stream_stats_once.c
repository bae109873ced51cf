/* test_stream_stats_once: ito_stream_stats counts the puts and gets that had to wait, each
 * once (sync.h). Found by an outside tester (h58c, 2026-12-05): the get side counted every
 * wait of a get woken for bytes that a try_get took first (2 here); since 2026-12-07 a put
 * hands its bytes to the waiting get itself (test_stream_handoff), so the try_get finds
 * nothing and the get waits once. The put side: one put that waits twice for room. */
#include "ito/ito.h"
#include "ito_test.h"

static ito_stream_t *st;

static void *getter(void *arg)
{
    (void)arg;
    char b;
    size_t n;
    CHECK_OK(ito_stream_get(st, &b, 1, &n));
    CHECK_EQ(n, 1);
    CHECK_EQ(b, 'b');
    return NULL;
}

static void *putter(void *arg)
{
    (void)arg;
    CHECK_OK(ito_stream_put(st, "cd", 2)); /* waits: the stream is full */
    return NULL;
}

int main(void)
{
    ito_config_t cfg = {.workers = 1}; /* the getter runs only when main yields */
    CHECK_OK(ito_init(&cfg));
    CHECK_OK(ito_stream_create(&st, 2));
    ito_thread_t t;
    size_t n;
    char b[2];
    CHECK_OK(ito_create(&t, getter, NULL, NULL));
    CHECK_OK(ito_yield());                           /* it waits */
    CHECK_OK(ito_stream_try_put(st, "b", 1, &n));    /* hands it the byte and wakes it */
    CHECK_EQ(ito_stream_try_get(st, b, 1, &n), ITO_EAGAIN); /* nothing left to take first */
    CHECK_OK(ito_yield());
    CHECK_OK(ito_join(t, NULL));
    uint64_t puts, gets;
    CHECK_OK(ito_stream_stats(st, &puts, &gets));
    CHECK_EQ(gets, 1);
    CHECK_EQ(puts, 0);

    /* the put side: one put that waits twice for room is one too */
    CHECK_OK(ito_stream_try_put(st, "xy", 2, &n));   /* full */
    CHECK_OK(ito_create(&t, putter, NULL, NULL));
    CHECK_OK(ito_yield());                           /* it waits for room */
    CHECK_OK(ito_stream_try_get(st, b, 1, &n));      /* one byte of room: not enough */
    CHECK_OK(ito_yield());
    CHECK_OK(ito_stream_try_get(st, b, 1, &n));      /* now it fits */
    CHECK_OK(ito_join(t, NULL));
    CHECK_OK(ito_stream_stats(st, &puts, &gets));
    CHECK_EQ(puts, 1);
    CHECK_EQ(gets, 1);
    CHECK_OK(ito_stream_destroy(st));
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
