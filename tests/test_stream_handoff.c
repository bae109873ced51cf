/* test_stream_handoff: a put hands its bytes to the gets that wait, in their order, so a
 * get that comes later cannot take them first. Before (outside tester h75a, 2026-12-07),
 * a put only woke the first waiting get, which looked again when it ran: a running get
 * took the bytes first and the woken one waited again at the tail; with three readers of
 * a busy stream one waited seconds, and its timed get said ITO_ETIMEDOUT while thousands
 * of items went by. One worker: the woken gets cannot run before main's next call. */
#include <string.h>

#include "ito/ito.h"
#include "ito_test.h"

static ito_stream_t *s;

typedef struct {
    char buf[8];
    size_t got;
    int rc;
} getter_t;

static void *getter(void *arg)
{
    getter_t *g = arg;
    g->rc = ito_stream_get_until(s, g->buf, 4, &g->got, ito_deadline_in(10ull * 1000000000));
    return NULL;
}

/* Start n getters and let each park on the stream, in order. */
static void park_getters(ito_thread_t *t, getter_t *g, int n)
{
    for (int i = 0; i < n; i++) {
        uint64_t before, after, puts;
        CHECK_OK(ito_stream_stats(s, &puts, &before));
        memset(&g[i], 0, sizeof g[i]);
        CHECK_OK(ito_create(&t[i], getter, &g[i], NULL));
        do {
            CHECK_OK(ito_yield());
            CHECK_OK(ito_stream_stats(s, &puts, &after));
        } while (after == before);
    }
}

int main(void)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 1}));
    CHECK_OK(ito_stream_create(&s, 16));
    ito_thread_t t[3];
    getter_t g[3];
    char b[16];
    size_t n;

    /* One waiting get: a try_get after the put finds nothing, the woken get has the bytes. */
    park_getters(t, g, 1);
    CHECK_OK(ito_stream_try_put(s, "abcd", 4, &n));
    CHECK_EQ(n, 4);
    CHECK_EQ(ito_stream_try_get(s, b, 4, &n), ITO_EAGAIN); /* before the fix: it took "abcd" */
    CHECK_OK(ito_join(t[0], NULL));
    CHECK_OK(g[0].rc);
    CHECK_EQ(g[0].got, 4);
    CHECK(memcmp(g[0].buf, "abcd", 4) == 0);

    /* Three waiting gets, one put of 12 bytes: each has its 4, in the order they came; the
     * blocking get that comes next waits for the next put. */
    park_getters(t, g, 3);
    CHECK_OK(ito_stream_try_put(s, "AAAABBBBCCCC", 12, &n));
    CHECK_EQ(n, 12);
    CHECK_EQ(ito_stream_try_get(s, b, 4, &n), ITO_EAGAIN);
    for (int i = 0; i < 3; i++) {
        CHECK_OK(ito_join(t[i], NULL));
        CHECK_OK(g[i].rc);
        CHECK_EQ(g[i].got, 4);
        CHECK_EQ(g[i].buf[0], "ABC"[i]);
        CHECK(memcmp(g[i].buf, g[i].buf + 1, 3) == 0);
    }

    /* A put of more than the waiting gets take: the rest stays in the stream. */
    park_getters(t, g, 1);
    CHECK_OK(ito_stream_try_put(s, "wxyz1234", 8, &n));
    CHECK_EQ(n, 8);
    CHECK_OK(ito_stream_try_get(s, b, 8, &n));
    CHECK_EQ(n, 4);
    CHECK(memcmp(b, "1234", 4) == 0);
    CHECK_OK(ito_join(t[0], NULL));
    CHECK_EQ(g[0].got, 4);
    CHECK(memcmp(g[0].buf, "wxyz", 4) == 0);

    /* Close wakes a waiting get with ITO_ECLOSED and nothing. */
    park_getters(t, g, 1);
    CHECK_OK(ito_stream_close(s));
    CHECK_OK(ito_join(t[0], NULL));
    CHECK_EQ(g[0].rc, ITO_ECLOSED);
    CHECK_EQ(g[0].got, 0);

    CHECK_OK(ito_stream_destroy(s));
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
