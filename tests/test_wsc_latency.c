/* test_wsc_latency: on a worker whose threads can always run, a partial bucket still goes,
 * at the scheduler's look every 64 scheduling points (src/wsc/area.c, the flush policy;
 * syscall.h, ito_wsc_set_latency_us). One worker, threshold 64: a ULT posts one NOP and
 * then alternates with a second ULT, each computing about 100 us between its yields, so
 * that a thread is always ready and the worker never idles. The NOP must complete within
 * one look: at most 33 of the poster's yields (64 points shared by two ULTs, plus the
 * point where it posted), counted, not timed. Five rounds with the latency bound off, then
 * five with it at 300 us: the same, since the bound's timer is lazy (it places no look of
 * its own; measured: 31-33 yields, about 6 ms, either way). On both backends.
 * History (2026-12-05): the test's ULTs only yielded and it checked only that the NOP came
 * at all (mutation testing, h60e, showed it passed with the latency rule removed); it fails
 * now if the look stops sending buckets (the bound's own rule needs a second look, more
 * than 33 yields, and with it off nothing would send the NOP: 10 s, abort). Its rounds
 * without the bound used to run after those with it, whose leftover ticks sent the bucket:
 * that hid that on the sync backend with the bound off a bucket never went (only an
 * io_uring worker's watched eventfd brought the look's visit; wsc_probe now does). */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "ito/ito.h"
#include "ito_test.h"

#define SLICE_NS 100000u /* compute between two yields */
#define ROUNDS 5
#define MAX_YIELDS 33 /* one fairness visit (64 scheduling points, sched.c) for two ULTs */

static volatile long result;
static atomic_int stop;
static long yields; /* the poster's, until its result came */

static void compute(void)
{
    ito_test_busy_ns(SLICE_NS);
}

static void *other(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop)) {
        compute();
        CHECK_OK(ito_yield());
    }
    return NULL;
}

static void *poster(void *arg)
{
    (void)arg;
    ito_sysreq_t q = {.op = ITO_SYS_NOP, .result = (long *)&result};
    result = -9999;
    CHECK_OK(ito_sys_post(&q));
    uint64_t t0 = ito_test_now_ns();
    yields = 0;
    while (result == -9999) {
        compute();
        CHECK_OK(ito_yield());
        yields++;
        if (ito_test_now_ns() - t0 > 10000000000u) {
            fprintf(stderr, "test_wsc_latency: the bucket was never flushed\n");
            abort();
        }
    }
    CHECK_EQ(result, 0);
    atomic_store(&stop, 1);
    return NULL;
}

static void rounds(const char *backend, unsigned bound_us)
{
    CHECK_OK(ito_wsc_set_threshold(64));
    CHECK_OK(ito_wsc_set_latency_us(bound_us));
    for (int r = 0; r < ROUNDS; r++) {
        ito_wsc_stats_t s0, s1;
        CHECK_OK(ito_wsc_stats(&s0));
        atomic_store(&stop, 0);
        ito_test_run_two(poster, other);
        CHECK_OK(ito_wsc_stats(&s1));
        CHECK_EQ((long)(s1.completed - s0.completed), 1);
        CHECK_EQ((long)(s1.flush_threshold - s0.flush_threshold), 0);
        CHECK_EQ((long)(s1.flush_explicit - s0.flush_explicit), 0);
        if (yields > MAX_YIELDS)
            fprintf(stderr, "%s, bound %u us: the NOP came after %ld of the poster's yields\n", backend, bound_us,
                    yields);
        CHECK(yields <= MAX_YIELDS);
    }
}

static void round_(const char *backend)
{
    rounds(backend, 0); /* first: the bound's ticks, left over, would send the bucket */
    rounds(backend, 300);
}

int main(void)
{
    ito_test_each_backend(1, round_);
    TEST_DONE();
}
