/* test_desc_locality: the descriptors a loop of ito_create gets stay together in memory
 * even after bulk creation on two workers has shuffled the pools. Every scheme of
 * ito_create_many runs twice on 2 workers (500,000 threads, joined), then rounds of
 * 10,000 single creates: by the fifth round their descriptors must span at most three
 * times what 10,000 descriptors need. With LIFO pools of batches the order bulk creation
 * left stayed for good (a round spread over 18.5 MB here, 37 MB after 10^6 threads, and
 * every create missed the cache: docs/reproductions/spawn.md); the global pool now hands
 * out the lowest chunks first (src/core/thread.c). A thread handle is its descriptor's
 * address with the generation in the top bits (itoi.h). */
#include <stdint.h>

#include "core/itoi.h"
#include "ito/ito.h"
#include "ito_test.h"

#define BULK 50000
#define ROUND 10000

static void *empty(void *a) { return a; }

static ito_thread_t hs[BULK];

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
    double span_mb = 0;
    for (int round = 0; round < 5; round++) {
        for (int i = 0; i < ROUND; i++) CHECK_OK(ito_create(&hs[i], empty, NULL, NULL));
        uintptr_t lo = UINTPTR_MAX, hi = 0;
        for (int i = 0; i < ROUND; i++) {
            uintptr_t d = (uintptr_t)hs[i] & mask;
            lo = d < lo ? d : lo;
            hi = d > hi ? d : hi;
        }
        span_mb = (double)(hi - lo) / 1e6;
        printf("round %d: %d descriptors span %.1f MB\n", round, ROUND, span_mb);
        for (int i = 0; i < ROUND; i++) CHECK_OK(ito_join(hs[i], NULL));
    }
    double need_mb = (double)ROUND * sizeof(itoi_ult_t) / 1e6;
    CHECK(span_mb <= 3 * need_mb);
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
