/* test_thread_id_stale_race: ito_thread_id and ito_thread_name of a handle whose thread
 * ends, is joined, and whose freed descriptor ito_create gives to a new thread while the
 * call reads it. thread.h promises ITO_OK or, once the handle is stale, ITO_EJOINED (never
 * the new thread's id), and the read is checked again after it (a
 * seqlock reader, thread.c), so the answer was right; but the descriptor's id and name
 * were read with plain loads while ito_create wrote them with plain stores: a data race
 * (undefined in C11) that TSan reported (create_general / create_fast against
 * ito_thread_id / itoi_ult_name). Found by an outside tester's random misuse fuzzer,
 * h64d, 2026-12-06 (1 seed of 31 in the TSan tree); this test fails under TSan without
 * the fix (the id and name are now written and read as relaxed atomics).
 * A ULT on worker 1 and a foreign pthread read the latest handle while the main ULT
 * on worker 0 creates and joins short threads (freed descriptors are reused last in,
 * first out, so the next create reuses the one just joined). Bounded: ROUNDS creates.
 * Then the same with ito_create_many (every scheme, BULK_ROUNDS calls of 2 threads): its
 * make_one wrote the id with a plain store, and its template path (TEMPLATE, COMBINED)
 * the flags with a plain struct copy, while stale handles read them: TSan reported
 * make_one against ito_thread_id (found by an outside tester's concurrent misuse program,
 * h66b, 2026-12-06, 1 TSan seed of 49; this part failed 5/5 under TSan without the fix;
 * the flags half, read by a stale ito_detach, is by inspection). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "ito/ito.h"
#include "ito_test.h"

#define ROUNDS 20000
#define BULK_ROUNDS 6000

static _Atomic(ito_thread_t) stale;
static atomic_int stop;
static atomic_long bad, reads;

static void *child(void *arg)
{
    ito_yield();
    return arg;
}

static void reader(void)
{
    uint64_t id;
    char name[32];
    while (!atomic_load(&stop)) {
        ito_thread_t h = atomic_load(&stale);
        if (!h) continue;
        int rc = ito_thread_id(h, &id);
        if (rc != ITO_EJOINED && rc != ITO_OK) atomic_fetch_add(&bad, 1);
        rc = ito_thread_name(h, name, sizeof name);
        if (rc != ITO_EJOINED && rc != ITO_OK) atomic_fetch_add(&bad, 1);
        atomic_fetch_add(&reads, 1);
    }
}

static void *ult_reader(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop)) {
        for (int i = 0; i < 64 && !atomic_load(&stop); i++) {
            ito_thread_t h = atomic_load(&stale);
            uint64_t id;
            char name[32];
            if (!h) continue;
            int rc = ito_thread_id(h, &id);
            if (rc != ITO_EJOINED && rc != ITO_OK) atomic_fetch_add(&bad, 1);
            rc = ito_thread_name(h, name, sizeof name);
            if (rc != ITO_EJOINED && rc != ITO_OK) atomic_fetch_add(&bad, 1);
        }
        ito_yield();
    }
    return NULL;
}

static void *foreign_reader(void *arg)
{
    (void)arg;
    reader();
    return NULL;
}

int main(void)
{
    ito_config_t cfg = {.workers = 2};
    CHECK_OK(ito_init(&cfg));
    ito_attr_t a;
    CHECK_OK(ito_attr_init(&a));
    a.worker = 1;
    ito_thread_t r;
    CHECK_OK(ito_create(&r, ult_reader, NULL, &a));
    pthread_t p;
    CHECK(pthread_create(&p, NULL, foreign_reader, NULL) == 0);
    a.worker = 0;
    for (int i = 0; i < ROUNDS; i++) {
        ito_thread_t t;
        a.name = (i & 1) ? "named-child" : NULL; /* both name paths: given and "ult-<id>" */
        CHECK_OK(ito_create(&t, child, NULL, &a));
        atomic_store(&stale, t); /* read while it runs, ends, and its descriptor is reused */
        CHECK_OK(ito_join(t, NULL));
    }
    ito_spawn_attr_t sa;
    CHECK_OK(ito_spawn_attr_init(&sa));
    sa.workers = 1; /* the issuer alone: descriptors come from worker 0's free list */
    for (int i = 0; i < BULK_ROUNDS; i++) {
        ito_thread_t t[2];
        sa.scheme = (ito_spawn_scheme_t)(i % 5);
        CHECK_OK(ito_create_many(2, child, NULL, 0, NULL, t, NULL, &sa));
        atomic_store(&stale, (i & 1) ? t[0] : t[1]);
        CHECK_OK(ito_join(t[0], NULL));
        CHECK_OK(ito_join(t[1], NULL));
    }
    atomic_store(&stop, 1);
    CHECK_OK(ito_join(r, NULL));
    CHECK(pthread_join(p, NULL) == 0);
    CHECK_EQ(atomic_load(&bad), 0);
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
