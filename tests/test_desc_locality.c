/* test_desc_locality: the descriptors a loop of ito_create gets stay together in memory
 * even after bulk creation on two workers has shuffled the pools. Every scheme of
 * ito_create_many runs twice on 2 workers (500,000 threads, joined), then rounds of
 * 10,000 single creates: by the fifth round their descriptors must lie in at most twice
 * as many arena chunks (64 KiB slabs) as 10,000 descriptors fill. (The address span,
 * the check before, is not the footprint: one batch of a worker's own pool far from the
 * rest made the span 21-22 MB in 75 chunks, 71 needed, when the suite ran beside other
 * ASan tests: a failure in 1 of 2 runs there.) With LIFO pools of batches the order bulk creation
 * left stayed for good (a round spread over 18.5 MB here, 37 MB after 10^6 threads, and
 * every create missed the cache: docs/reproductions/spawn.md); the global pool now hands
 * out the lowest chunks first (src/core/thread.c). A thread handle is its descriptor's
 * address with the generation in the top bits (itoi.h). */
#include <stdint.h>
#include <stdlib.h>

#include "core/itoi.h"
#include "ito/ito.h"
#include "ito_test.h"

#define BULK 50000
#define ROUND 10000

static void *empty(void *a) { return a; }

static ito_thread_t hs[BULK];

static int by_address(const void *a, const void *b)
{
    uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
    return x < y ? -1 : x > y;
}

int main(void)
{
    ito_config_t cfg = {.workers = 2};
    CHECK_OK(ito_init(&cfg));
    for (int k = 0; k < 2; k++)
        for (int s = 0; s <= ITO_SPAWN_COMBINED; s++) {
            ito_spawn_attr_t a;
            CHECK_OK(ito_spawn_attr_init(&a));
            a.scheme = (ito_spawn_scheme_t)s;
            CHECK_OK(ito_create_many(BULK, empty, NULL, 0, NULL, hs, NULL, &a));
            for (int i = 0; i < BULK; i++) CHECK_OK(ito_join(hs[i], NULL));
        }
    const uintptr_t mask = ((uintptr_t)1 << ITOI_HANDLE_PTR_BITS) - 1;
    static uintptr_t d[ROUND];
    size_t chunks = 0;
    for (int round = 0; round < 5; round++) {
        for (int i = 0; i < ROUND; i++) CHECK_OK(ito_create(&hs[i], empty, NULL, NULL));
        uintptr_t base = atomic_load(&itoi_arena.base); /* chunks are counted from here */
        for (int i = 0; i < ROUND; i++) d[i] = ((uintptr_t)hs[i] & mask) - base;
        qsort(d, ROUND, sizeof d[0], by_address);
        chunks = 1;
        for (int i = 1; i < ROUND; i++) chunks += (d[i] >> ITOI_ARENA_CHUNK_SHIFT) != (d[i - 1] >> ITOI_ARENA_CHUNK_SHIFT);
        printf("round %d: %d descriptors in %zu chunks, span %.1f MB\n", round, ROUND, chunks,
               (double)(d[ROUND - 1] - d[0]) / 1e6);
        for (int i = 0; i < ROUND; i++) CHECK_OK(ito_join(hs[i], NULL));
    }
    size_t need = (ROUND + ITOI_ULTS_PER_CHUNK - 1) / ITOI_ULTS_PER_CHUNK;
    CHECK(chunks <= 2 * need);
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
