/* test_stream_getters_chain: a put wakes the first waiting get; a get that leaves bytes in
 * the stream wakes the next waiting get (src/sync/stream.c after_get), so several gets
 * waiting on one put all get their bytes. Without the second wake-up the next get waited
 * for a put that never came, and no test saw it (found by
 * mutation testing, h60e, 2026-12-05). Four gets of 5 bytes wait; one put of 20 bytes
 * (try_put, from a foreign thread too) must feed all four. */
#define _GNU_SOURCE
#include <pthread.h>
#include <time.h>
#include <stdatomic.h>

#include "ito/ito.h"
#include "ito/sync.h"
#include "ito_test.h"

#define GETTERS 4

static ito_stream_t *s;
static atomic_int got_ok, waiting;

static void *getter(void *arg)
{
    (void)arg;
    unsigned char b[5];
    size_t have = 0;
    atomic_fetch_add(&waiting, 1);
    while (have < 5) {
        size_t got = 0;
        int rc = ito_stream_get(s, b + have, 5 - have, &got);
        if (rc != ITO_OK) break;
        have += got;
    }
    if (have == 5) atomic_fetch_add(&got_ok, 1);
    return NULL;
}

static void *foreign_put(void *arg)
{
    size_t n = 0;
    CHECK_OK(ito_stream_try_put(s, arg, 5 * GETTERS, &n));
    CHECK_EQ(n, (size_t)(5 * GETTERS));
    return NULL;
}

static void round_of(int foreign)
{
    unsigned char data[5 * GETTERS];
    for (int i = 0; i < 5 * GETTERS; i++) data[i] = (unsigned char)i;
    CHECK_OK(ito_stream_create(&s, 64));
    atomic_store(&got_ok, 0);
    atomic_store(&waiting, 0);
    ito_thread_t t[GETTERS];
    for (int i = 0; i < GETTERS; i++) CHECK_OK(ito_create(&t[i], getter, NULL, NULL));
    while (atomic_load(&waiting) < GETTERS) CHECK_OK(ito_yield());
    for (int i = 0; i < 10; i++) CHECK_OK(ito_yield()); /* all four wait */
    if (foreign) {
        pthread_t p;
        CHECK_EQ(pthread_create(&p, NULL, foreign_put, data), 0);
        CHECK_EQ(pthread_join(p, NULL), 0);
    } else {
        CHECK_OK(ito_stream_put(s, data, sizeof data));
    }
    uint64_t t0 = ito_test_now_ns(); /* all four fed within a second */
    while (atomic_load(&got_ok) < GETTERS && ito_test_now_ns() - t0 < 1000000000ull) CHECK_OK(ito_yield());
    CHECK_EQ(atomic_load(&got_ok), GETTERS);
    CHECK_OK(ito_stream_close(s)); /* a get never woken ends now (with the bytes left) */
    for (int i = 0; i < GETTERS; i++) CHECK_OK(ito_join(t[i], NULL));
    CHECK_OK(ito_stream_destroy(s));
}

int main(void)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 1}));
    round_of(0);
    round_of(1);
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
