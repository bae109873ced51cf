/* test_thread_id_unique: thread ids are unique for the life of the runtime (thread.h
 * ito_thread_id): main's and those of ULTs created from main (worker 0, the first ones
 * included), from ULTs on other workers, and from ito_create_many, all differ; also
 * after a second ito_init. (With worker 0's id counter starting at 0 instead of 1, the
 * first ULT created from main had main's id, 0.) */
#include <stdint.h>
#include <stdlib.h>

#include "ito/ito.h"
#include "ito_test.h"

#define N 64

static int cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void *report(void *arg)
{
    CHECK_OK(ito_thread_id(ito_self(), (uint64_t *)arg));
    return NULL;
}

static uint64_t ids[1 + 3 * N];

static void *creator(void *arg)
{
    uint64_t *out = arg;
    ito_thread_t t[N];
    for (int i = 0; i < N; i++) CHECK_OK(ito_create(&t[i], report, &out[i], NULL));
    for (int i = 0; i < N; i++) CHECK_OK(ito_join(t[i], NULL));
    return NULL;
}

int main(void)
{
    for (int round = 0; round < 2; round++) {
        ito_config_t cfg = {0};
        cfg.workers = 2;
        CHECK_OK(ito_init(&cfg));
        CHECK_OK(ito_thread_id(ito_self(), &ids[0]));
        creator(&ids[1]); /* from main: worker 0's first ids */
        ito_attr_t at;
        CHECK_OK(ito_attr_init(&at));
        at.worker = 1;
        ito_thread_t c;
        CHECK_OK(ito_create(&c, creator, &ids[1 + N], &at)); /* from worker 1 */
        CHECK_OK(ito_join(c, NULL));
        at.worker = 0;
        CHECK_OK(ito_create(&c, creator, &ids[1 + 2 * N], &at));
        CHECK_OK(ito_join(c, NULL));
        uint64_t s[1 + 3 * N];
        for (int i = 0; i < 1 + 3 * N; i++) s[i] = ids[i];
        qsort(s, 1 + 3 * N, sizeof s[0], cmp);
        int dups = 0;
        for (int i = 1; i < 1 + 3 * N; i++) dups += s[i] == s[i - 1];
        CHECK_EQ(dups, 0);
        CHECK_OK(ito_finalize());
    }
    TEST_DONE();
}
