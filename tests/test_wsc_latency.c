/* test_wsc_latency: the latency bound of the flush policy (src/wsc/area.c) sends a partial
 * bucket that nothing else would send. One worker, threshold 64, bound 300 us: a ULT
 * posts one NOP and then yields to a second ULT, back and forth, so that a thread is
 * always ready and no scheduling point needs the worker's scheduler context: only the
 * bound's timer brings the worker there, where the bucket goes (with the bound off, the
 * NOP waits forever: checked when this test was written). The NOP's result must arrive
 * while they yield, on both backends; three rounds per backend, so the timer's ticks stop
 * and start again between buckets. A wait that never ends fails after 10 s of yielding
 * instead of hanging. */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ito/ito.h"
#include "ito_test.h"

static volatile long result;
static atomic_int stop;

static void *yielder(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop)) CHECK_OK(ito_yield());
    return NULL;
}

static void *poster(void *arg)
{
    (void)arg;
    ito_sysreq_t q = {.op = ITO_SYS_NOP, .result = (long *)&result};
    result = -9999;
    CHECK_OK(ito_sys_post(&q));
    uint64_t t0 = ito_test_now_ns();
    long spins = 0;
    while (result == -9999) {
        CHECK_OK(ito_yield());
        if ((++spins & 1023) == 0 && ito_test_now_ns() - t0 > 10000000000u) {
            fprintf(stderr, "test_wsc_latency: the bucket was never flushed\n");
            abort();
        }
    }
    CHECK_EQ(result, 0);
    atomic_store(&stop, 1);
    return NULL;
}

static void round_(const char *backend)
{
    (void)backend;
    CHECK_OK(ito_wsc_set_threshold(64));
    CHECK_OK(ito_wsc_set_latency_us(300));
    for (int r = 0; r < 3; r++) {
        ito_wsc_stats_t s0, s1;
        CHECK_OK(ito_wsc_stats(&s0));
        atomic_store(&stop, 0);
        ito_test_run_two(poster, yielder);
        CHECK_OK(ito_wsc_stats(&s1));
        CHECK_EQ((long)(s1.completed - s0.completed), 1);
        CHECK_EQ((long)(s1.flush_threshold - s0.flush_threshold), 0);
        CHECK_EQ((long)(s1.flush_explicit - s0.flush_explicit), 0);
    }
}

int main(void)
{
    ito_test_each_backend(1, round_);
    TEST_DONE();
}
