/* test_spawn_split: a worker that has used up its part of ito_create_many and finds no
 * unclaimed index splits the upper half off another worker's claimed-but-uncreated
 * indices (src/spawn/spawn.c, "Splitting"). Made to happen here: with CHUNK and COMBINED
 * on two workers, the threads worker 0 runs take a while and those worker 1 runs none,
 * so worker 1 is done with its half long before worker 0 and splits worker 0's rest,
 * again and again. Whatever the splits:
 *  - every index is created and run exactly once (ito_spawn_index), the call returns
 *    ITO_OK after all n are created (joinable: every handle joins with its index);
 *  - in some CHUNK or COMBINED call, worker 1 creates a number of threads that is not a
 *    whole number of chunks (each thread reads which worker created it from its id,
 *    core/itoi.h): without splits a worker creates whole chunks of N / 2 (0, N / 2 or N:
 *    a late issuer may find both claimed), and stealing moves created threads, not
 *    indices. (Some call, not every one: a worker the OS keeps off the CPU under load may
 *    not take part in a call at all.) */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/itoi.h"
#include "ito/ito.h"
#include "ito_test.h"

#define N 40000

static _Atomic uint8_t seen[N];
static _Atomic size_t ran_on[2], made_by[2];

static void spin_us(uint64_t us)
{
    uint64_t until = ito_now_ns() + us * 1000;
    while (ito_now_ns() < until) {}
}

/* Slow on worker 0, instant on worker 1. */
static void *mark(void *unused)
{
    (void)unused;
    size_t i = ito_test_spawn_mark(seen, N);
    int w = ito_worker_id();
    CHECK(w == 0 || w == 1);
    uint64_t id;
    CHECK_OK(ito_thread_id(ito_self(), &id));
    int creator = (int)(id % ITOI_MAX_WORKERS);
    CHECK(creator == 0 || creator == 1);
    atomic_fetch_add(&made_by[creator], 1);
    /* counted as run last: run() waits for ran_on and then reads made_by (until
     * 2026-12-06 ran_on came first, and a detached call's last thread, on the other
     * worker, could be between the two when run() looked: 39999 of 40000 in a CI run
     * under load 30) */
    atomic_fetch_add(&ran_on[w], 1);
    if (w == 0 && i % 64 == 0) spin_us(50);
    return (void *)(uintptr_t)i;
}

static ito_thread_t hs[N];

/* One call; returns how many threads worker 1 created. */
static size_t run(ito_spawn_scheme_t scheme, int detached)
{
    for (size_t i = 0; i < N; i++) atomic_store(&seen[i], 0);
    for (int w = 0; w < 2; w++) {
        atomic_store(&ran_on[w], 0);
        atomic_store(&made_by[w], 0);
    }
    ito_spawn_attr_t a;
    CHECK_OK(ito_spawn_attr_init(&a));
    a.scheme = scheme;
    a.flags = detached ? ITO_ATTR_DETACHED : 0;
    CHECK_OK(ito_create_many(N, mark, NULL, 0, NULL, detached ? NULL : hs, NULL, &a));
    if (!detached) {
        for (size_t i = 0; i < N; i++) {
            void *r;
            CHECK_OK(ito_join(hs[i], &r));
            CHECK_EQ((uintptr_t)r, i);
        }
    }
    while (atomic_load(&ran_on[0]) + atomic_load(&ran_on[1]) < N) CHECK_OK(ito_yield());
    for (size_t i = 0; i < N; i++) CHECK_EQ(atomic_load(&seen[i]), 1);
    CHECK_EQ(atomic_load(&made_by[0]) + atomic_load(&made_by[1]), N);
    return atomic_load(&made_by[1]);
}

/* The issuer: a ULT bound to worker 0, so that the creates of worker 1 are its helper's. */
static void *issuer(void *unused)
{
    (void)unused;
    ito_spawn_scheme_t schemes[] = {ITO_SPAWN_CHUNK, ITO_SPAWN_COMBINED, ITO_SPAWN_SIMPLE, ITO_SPAWN_SERIAL};
    int split_seen = 0; /* CHUNK or COMBINED calls in which worker 1 created a part of a chunk */
    for (int rep = 0; rep < 3; rep++)
        for (size_t s = 0; s < sizeof schemes / sizeof schemes[0]; s++)
            for (int detached = 0; detached < 2; detached++) {
                size_t k = run(schemes[s], detached);
                if ((schemes[s] == ITO_SPAWN_CHUNK || schemes[s] == ITO_SPAWN_COMBINED) && k % (N / 2) != 0)
                    split_seen++;
            }
    printf("%d of 12 CHUNK/COMBINED calls split a chunk between the workers\n", split_seen);
    CHECK(split_seen > 0);
    return NULL;
}

int main(void)
{
    ito_config_t cfg = {.workers = 2};
    CHECK_OK(ito_init(&cfg));
    ito_attr_t a;
    CHECK_OK(ito_attr_init(&a));
    a.worker = 0;
    ito_thread_t t;
    CHECK_OK(ito_create(&t, issuer, NULL, &a));
    CHECK_OK(ito_join(t, NULL));
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
