/* test_coop_slice_len: with the budget check and a slice, an expired budget switches only
 * once slice_ns have passed since the worker's last such switch (coop.h
 * ito_coop_set_budget). test_coop_budget checks a slice of 1000 s (no second switch) and
 * none (a switch per quantum); a slice honoured at half its length passed both. Two ULTs
 * on one worker run hand-written budget checks for 600 ms with a 60 ms slice: the hands
 * change at most 600/60 + 3 times (and at least 3). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "ito/ito.h"
#include "ito_test.h"

#define W 10
#define SLICE_NS (60ull * 1000000)
#define RUN_NS (600ull * 1000000)

static uint64_t end_at;
static volatile char last;
static int hands;

static void *loop(void *arg)
{
    char me = (char)(intptr_t)arg;
    while (ito_test_now_ns() < end_at) {
        if (last != me) {
            hands++;
            last = me;
        }
        ito_coop_budget -= W;
        if (ito_coop_budget < 0) ito_coop_yield_abi();
    }
    return NULL;
}

int main(void)
{
    ito_config_t cfg = {0};
    cfg.workers = 2;
    CHECK_OK(ito_init(&cfg));
    CHECK_OK(ito_coop_set_budget(100, SLICE_NS));
    ito_attr_t at;
    CHECK_OK(ito_attr_init(&at));
    at.worker = 1;
    ito_thread_t a, b;
    end_at = ito_test_now_ns() + RUN_NS;
    CHECK_OK(ito_create(&a, loop, (void *)(intptr_t)'A', &at));
    CHECK_OK(ito_create(&b, loop, (void *)(intptr_t)'B', &at));
    CHECK_OK(ito_join(a, NULL));
    CHECK_OK(ito_join(b, NULL));
    printf("%d hand changes in %llu ms with a %llu ms slice\n", hands, RUN_NS / 1000000, SLICE_NS / 1000000);
    CHECK(hands <= (int)(RUN_NS / SLICE_NS) + 3);
    CHECK(hands >= 3);
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
