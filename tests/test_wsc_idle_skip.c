/* test_wsc_idle_skip: the idle flush waits while stackless units are still ready
 * (src/wsc/area.c, wsc_poll): 48 issuer ZWTs, each posting one NOP, made ready at once on
 * one worker among 180 other ZWTs, cross into the kernel together, not one visit of the
 * pollers at a time. The scheduler visits the pollers after every 64 stackless units
 * (sched.c, UNITS_PER_ROUND); without the skip each visit that finds a partial bucket
 * flushes it (here: 4 crossings per round instead of 1). io_uring backend (the sync backend crosses once
 * per call by design); skipped where io_uring is refused. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>

#include "ito/ito.h"
#include "ito_test.h"

#define N 48
#define FILL 60 /* other ZWTs after every 16 issuers */
#define JOIN (2 * N)
#define FILLER (JOIN + 1)

static long results[N];
static int fired[N];

static void issuer(ito_frame_t *f, int entry, uint64_t v)
{
    (void)v;
    ito_sysreq_t q = {.op = ITO_SYS_NOP, .result = &results[entry], .frame = f, .entry = N + entry};
    CHECK_OK(ito_sys_post(&q));
}

static void filler(ito_frame_t *f, int entry, uint64_t v)
{
    (void)f;
    (void)entry;
    (void)v;
}

static void receiver(ito_frame_t *f, int entry, uint64_t v)
{
    CHECK_EQ((long)v, 0);
    fired[entry - N]++;
    CHECK_OK(ito_continue(f, JOIN));
}

int main(void)
{
    CHECK_OK(setenv("ITO_WSC_BACKEND", "uring", 1));
    ito_config_t one = {.workers = 1};
    int rc = ito_init(&one);
    if (rc != ITO_OK || ito_wsc_backend() != ITO_WSC_URING) {
        printf("io_uring refused here (rc %d): skipped\n", rc);
        if (rc == ITO_OK) CHECK_OK(ito_finalize());
        TEST_DONE();
    }
    CHECK_OK(ito_wsc_set_threshold(64)); /* over N: only the idle flush may cross */
    CHECK_OK(ito_wsc_set_latency_us(0));    /* no latency bound */
    ito_frame_t *f;
    CHECK_OK(ito_frame_create(&f, FILLER + 3 * FILL, 0));
    for (int i = 0; i < 3 * FILL; i++) CHECK_OK(ito_entry_set(f, FILLER + i, filler, 1, ITO_MODE_USER));
    for (int i = 0; i < N; i++) {
        CHECK_OK(ito_entry_set(f, i, issuer, 1, ITO_MODE_USER));
        CHECK_OK(ito_entry_set(f, N + i, receiver, 1, ITO_MODE_USER));
    }
    CHECK_OK(ito_entry_set(f, JOIN, NULL, N, ITO_MODE_USER));
    uint64_t worst = 0;
    for (int round = 0; round < 20; round++) {
        for (int i = 0; i < N; i++) {
            results[i] = -1;
            fired[i] = 0;
            if (round) {
                CHECK_OK(ito_rearm(f, i, 0));
                CHECK_OK(ito_rearm(f, N + i, 0));
            }
        }
        if (round) {
            CHECK_OK(ito_rearm(f, JOIN, 0));
            for (int i = 0; i < 3 * FILL; i++) CHECK_OK(ito_rearm(f, FILLER + i, 0));
        }
        ito_wsc_stats_t s0, s1;
        CHECK_OK(ito_wsc_stats(&s0));
        for (int b = 0; b < 3; b++) { /* all ready, none run yet: 16 issuers, 60 fillers, ... */
            for (int i = 0; i < N / 3; i++) CHECK_OK(ito_continue(f, b * (N / 3) + i));
            for (int i = 0; i < FILL; i++) CHECK_OK(ito_continue(f, FILLER + b * FILL + i));
        }
        CHECK_OK(ito_frame_wait(f, JOIN));
        CHECK_OK(ito_wsc_stats(&s1));
        for (int i = 0; i < N; i++) {
            CHECK_EQ(results[i], 0);
            CHECK_EQ(fired[i], 1);
        }
        CHECK_EQ(s1.posted - s0.posted, N);
        CHECK_EQ(s1.flush_threshold - s0.flush_threshold, 0);
        uint64_t x = s1.crossings - s0.crossings;
        if (x > worst) worst = x;
    }
    printf("%d NOPs from %d of %d ready ZWTs: at most %llu crossings per round\n", N, N, N + 3 * FILL,
           (unsigned long long)worst);
    /* the skip holds the bucket for up to 8 visits in a row while ZWTs are ready: the
     * 48 requests cross together once the ZWTs are done (2 allows one visit of the
     * pollers while main was still making them ready) */
    CHECK(worst <= 2);
    while (ito_frame_destroy(f) == ITO_EBUSY) CHECK_OK(ito_yield());
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
