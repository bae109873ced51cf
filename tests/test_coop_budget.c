/* test_coop_budget: the budget word of ito/coop.h (code built with ito-cc --ito-check=budget).
 * The checks are written by hand here, as the plugin emits them (subtract the weight from
 * ito_coop_budget, yield through the compiled-yield entry when it goes negative), so that
 * the sanitizer trees, which have no plugin, run it too:
 *   - two ULTs bound to one worker interleave with no timer at all, once per quantum;
 *   - every compiled yield refills the word with the quantum (also outside a ULT, where it
 *     does not switch), and the flag is cleared as before;
 *   - with a slice, an expired budget switches only once the slice has passed;
 *   - inside a preemption-safe region an expired budget is refilled, never switched;
 *   - ito_coop_set_budget refuses values out of range and changes nothing then;
 *   - ITO_COOP_BUDGET sets the quantum at ito_init. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>

#include "ito/ito.h"
#include "ito_test.h"

#define W 10 /* what each hand-written check subtracts */

static inline void check(void)
{
    if ((ito_coop_budget -= W) < 0) ito_coop_yield_abi();
}

enum { STEPS = 3000 };
static char trace[2 * STEPS + 8];
static int ntrace;
static int in_region; /* run the loop inside ito_psafe_begin/end */

static void *loop(void *arg)
{
    char me = (char)(intptr_t)arg;
    if (in_region) CHECK_OK(ito_psafe_begin());
    for (int i = 0; i < STEPS; i++) {
        trace[ntrace++] = me;
        check();
    }
    if (in_region) CHECK_OK(ito_psafe_end());
    return NULL;
}

/* Runs A and B on worker 0; returns how many times the trace changes hands. */
static int pair(void)
{
    ntrace = 0;
    ito_attr_t at;
    CHECK_OK(ito_attr_init(&at));
    at.worker = 0;
    ito_thread_t a, b;
    CHECK_OK(ito_create(&a, loop, (void *)(intptr_t)'A', &at));
    CHECK_OK(ito_create(&b, loop, (void *)(intptr_t)'B', &at));
    CHECK_OK(ito_join(a, NULL));
    CHECK_OK(ito_join(b, NULL));
    CHECK_EQ(ntrace, 2 * STEPS);
    int hands = 0;
    for (int i = 1; i < ntrace; i++) hands += trace[i] != trace[i - 1];
    return hands;
}

static void *foreign(void *unused)
{
    (void)unused;
    ito_coop_budget = -5;
    ito_coop_flag = 1;
    ito_coop_yield_abi(); /* outside a ULT: no switch, but refilled and cleared */
    CHECK_EQ(ito_coop_budget, 777);
    CHECK_EQ(ito_coop_flag, 0);
    return NULL;
}

/* A new quantum takes effect at each worker's next refill: main, on worker 0 with the
 * pairs, takes one there at once. */
static void set_quantum(long q, unsigned long long slice_ns)
{
    CHECK_OK(ito_coop_set_budget(q, slice_ns));
    ito_coop_budget = 0;
    ito_coop_yield_abi();
    CHECK_EQ(ito_coop_budget, q);
}

int main(void)
{
    /* out of range: refused, nothing changes */
    CHECK_EQ(ito_coop_set_budget(0, 0), ITO_EINVAL);
    CHECK_EQ(ito_coop_set_budget(-1, 0), ITO_EINVAL);
    CHECK_EQ(ito_coop_set_budget(ITO_COOP_BUDGET_MAX + 1, 0), ITO_EINVAL);
    CHECK_EQ(ito_coop_set_budget(100, ITO_COOP_SLICE_MAX_NS + 1), ITO_EINVAL);
    /* before ito_init: allowed, and a compiled yield outside a ULT refills */
    CHECK_OK(ito_coop_set_budget(777, 0));
    ito_coop_budget = -1;
    ito_coop_yield_full();
    CHECK_EQ(ito_coop_budget, 777);

    CHECK_OK(ito_init(NULL));
    /* a quantum of 100 with checks of 10: the ULTs change hands every ~11 steps */
    set_quantum(100, 0);
    int h = pair();
    CHECK(h >= 2 * STEPS / 11 - 20);
    CHECK(h <= 2 * STEPS / 10 + 20);
    /* a quantum larger than the whole run: A runs to its end, then B (one or two hands:
     * the words start from whatever the last refill left) */
    set_quantum(ITO_COOP_BUDGET_MAX, 0);
    CHECK(pair() <= 2);
    /* a slice of 1000 s: after the first switch through an expired budget the worker's
     * clock has not run out again, so the expired budget is refilled without a switch */
    set_quantum(100, 1000000000000ULL);
    CHECK(pair() <= 3);
    /* inside preemption-safe regions: no switch at all */
    set_quantum(100, 0);
    in_region = 1;
    CHECK(pair() <= 1);
    in_region = 0;
    CHECK(pair() >= 2 * STEPS / 11 - 20); /* and again after the regions */
    /* outside a ULT */
    CHECK_OK(ito_coop_set_budget(777, 0));
    pthread_t pt;
    CHECK_EQ(pthread_create(&pt, NULL, foreign, NULL), 0);
    CHECK_EQ(pthread_join(pt, NULL), 0);
    CHECK_OK(ito_finalize());

    /* ITO_COOP_BUDGET sets the quantum at ito_init */
    CHECK_OK(setenv("ITO_COOP_BUDGET", "40", 1));
    CHECK_OK(ito_init(NULL));
    h = pair();
    CHECK(h >= 2 * STEPS / 5 - 20);
    CHECK_OK(ito_finalize());
    CHECK_OK(unsetenv("ITO_COOP_BUDGET"));
    TEST_DONE();
}
