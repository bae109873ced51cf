/* test_stream_timed_writer: the write side of a stream passes on when a putter waiting for
 * it times out. Writer W (worker 0) holds the write side, waiting for room; a timed putter
 * P (worker 1) waits for the write side; main takes one item at about P's deadline, so W
 * writes and leaves just as P's timer fires, and W at once puts again (no deadline). Once
 * P has returned, W must get the write side. Found by a test of the timed-wait claim
 * (2026-12-03, itoi.h wait_claim): W, leaving, passed P by (its timer had claimed it) and
 * handed the write side to nobody, W's next put queued behind P, and P's timeout did not
 * hand it on: W waited for ever (1-2 rounds in 3000). A stress: it reaches that window
 * rarely. Bytes are counted: every byte put is got. */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdint.h>

#include "ito/ito.h"
#include "ito_test.h"

#if defined(ITOI_TSAN) || defined(ITOI_ASAN)
#define ROUNDS 300
#else
#define ROUNDS 2000
#endif
#define CAP 64
#define ITEM 16

static ito_stream_t *s;
static _Atomic uint64_t deadline;
static _Atomic int w_done;
static _Atomic long put_bytes;

static void *writer(void *arg)
{
    (void)arg;
    char b[ITEM] = {0};
    for (int i = 0; i < CAP / ITEM + 1; i++) { /* the last one waits for room */
        CHECK_OK(ito_stream_put(s, b, ITEM));
        atomic_fetch_add(&put_bytes, ITEM);
    }
    CHECK_OK(ito_stream_put(s, b, ITEM)); /* no deadline: it must get the write side */
    atomic_fetch_add(&put_bytes, ITEM);
    atomic_store(&w_done, 1);
    return NULL;
}

static void *putter(void *arg)
{
    (void)arg;
    char b[ITEM] = {0};
    size_t put = 0;
    int rc = ito_stream_put_until(s, b, ITEM, &put, atomic_load(&deadline));
    CHECK(rc == ITO_OK || rc == ITO_ETIMEDOUT);
    CHECK_EQ(put, rc == ITO_OK ? (size_t)ITEM : 0);
    atomic_fetch_add(&put_bytes, (long)put);
    return NULL;
}

int main(void)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
    uint64_t seed = 1;
    for (int it = 0; it < ROUNDS; it++) {
        CHECK_OK(ito_stream_create(&s, CAP));
        atomic_store(&put_bytes, 0);
        atomic_store(&w_done, 0);
        seed = seed * 6364136223846793005u + 1442695040888963407u;
        uint64_t d = ito_deadline_in(100000 + (seed >> 33) % 200000);
        atomic_store(&deadline, d);
        ito_thread_t w, p;
        ito_test_create_on(&w, 0, writer, NULL);
        while (atomic_load(&put_bytes) < CAP) CHECK_OK(ito_yield());
        for (int k = 0; k < 5; k++) CHECK_OK(ito_yield()); /* W waits for room */
        ito_test_create_on(&p, 1, putter, NULL);
        seed = seed * 6364136223846793005u + 1442695040888963407u;
        uint64_t at_ns = d + (seed >> 33) % 20000 - 15000;
        while (ito_now_ns() < at_ns) {
        }
        char buf[CAP];
        size_t got;
        long sum = 0;
        CHECK_OK(ito_stream_get(s, buf, ITEM, &got));
        sum += (long)got;
        /* drain until W is done: with the bug W waits for ever once P has returned (the
         * test's timeout ends it) */
        while (!atomic_load(&w_done)) {
            if (ito_stream_try_get(s, buf, ITEM, &got) == ITO_OK) sum += (long)got;
            else CHECK_OK(ito_yield());
        }
        CHECK_OK(ito_join(w, NULL));
        CHECK_OK(ito_join(p, NULL));
        while (ito_stream_try_get(s, buf, CAP, &got) == ITO_OK) sum += (long)got;
        CHECK_EQ(sum, atomic_load(&put_bytes));
        CHECK_OK(ito_stream_destroy(s));
    }
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
