/* test_wsc_direct: the continuation of a reaped request runs straight from the poller
 * (src/wsc/area.c, wsc_poll: reaping, direct[]), and everything a ZWT may do there works:
 * 150 chains of 3 requests, started at once on each worker, where every receiver posts
 * its chain's next request from inside the poller's run; more completions per reap than
 * the poller keeps (ITOI_WSC_DIRECT, 64), so the rest take the ready queue; GETPID
 * requests mixed in (the flusher runs those itself: the ordinary path). Checked: every
 * receiver fires once, with the kernel's value; ito_zwt_stats counts every firing; a
 * continuation that is refused (its entry already fired) changes nothing; ito_finalize
 * returns ITO_OK (the firings are counted as made ready and run, so nothing looks
 * pending). Both backends, 1 and 2 workers.
 * And while a worker is idle the poller queues the continuations instead, so that it can
 * steal them: 32 NOPs whose receivers each compute for 2 ms, posted on worker 0 of two,
 * must not all run on worker 0 (they all did before the poller looked at idle workers). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

#define CHAINS 150
#define STEPS 3
#define RECV(c, s) (CHAINS + (c) * STEPS + (s)) /* receiver of chain c's step s */
#define JOIN (CHAINS + CHAINS * STEPS)

static long results[CHAINS][STEPS];
static int fired[CHAINS][STEPS];
static long pid;

static ito_sysop_t op_of(int c, int s) { return (c + s) % 5 == 0 ? ITO_SYS_GETPID : ITO_SYS_NOP; }

static void post_step(ito_frame_t *f, int c, int s)
{
    ito_sysreq_t q = {.op = op_of(c, s), .result = &results[c][s], .frame = f, .entry = RECV(c, s)};
    CHECK_OK(ito_sys_post(&q));
}

static void issuer(ito_frame_t *f, int entry, uint64_t v)
{
    (void)v;
    post_step(f, entry, 0);
}

static void receiver(ito_frame_t *f, int entry, uint64_t v)
{
    int c = (entry - CHAINS) / STEPS, s = (entry - CHAINS) % STEPS;
    long want = op_of(c, s) == ITO_SYS_GETPID ? pid : 0;
    CHECK_EQ((long)v, want);
    CHECK_EQ(results[c][s], want);
    fired[c][s]++;
    /* A second continuation of this entry is refused: it has fired and is not re-armed. */
    CHECK_EQ(ito_continue(f, entry), ITO_ESTATE);
    if (s + 1 < STEPS) post_step(f, c, s + 1); /* posting from the poller's run */
    else CHECK_OK(ito_continue(f, JOIN));
}

static void round_(const char *backend)
{
    (void)backend;
    ito_frame_t *f;
    CHECK_OK(ito_frame_create(&f, JOIN + 1, 0));
    for (int c = 0; c < CHAINS; c++) {
        CHECK_OK(ito_entry_set(f, c, issuer, 1, ITO_MODE_USER));
        for (int s = 0; s < STEPS; s++) {
            CHECK_OK(ito_entry_set(f, RECV(c, s), receiver, 1, ITO_MODE_USER));
            results[c][s] = -9999;
            fired[c][s] = 0;
        }
    }
    CHECK_OK(ito_entry_set(f, JOIN, NULL, CHAINS, ITO_MODE_USER));
    uint64_t before;
    CHECK_OK(ito_zwt_stats(&before, NULL));
    for (int c = 0; c < CHAINS; c++) CHECK_OK(ito_continue(f, c));
    CHECK_OK(ito_frame_wait(f, JOIN));
    uint64_t after;
    CHECK_OK(ito_zwt_stats(&after, NULL));
    CHECK_EQ((long)(after - before), (long)(CHAINS + CHAINS * STEPS)); /* issuers and receivers */
    for (int c = 0; c < CHAINS; c++)
        for (int s = 0; s < STEPS; s++) CHECK_EQ(fired[c][s], 1);
    CHECK_OK(ito_frame_destroy(f));
}

/* ---- receivers that compute, with a worker idle ---- */

#define HEAVY 32
static long heavy_res[HEAVY];
static pid_t heavy_on[HEAVY]; /* the kernel thread (worker) each ran on */

static void heavy_receiver(ito_frame_t *f, int entry, uint64_t v)
{
    CHECK_EQ((long)v, 0);
    heavy_on[entry] = gettid(); /* ito_worker_id is for ULTs */
    ito_test_busy_ns(2000000u);
    CHECK_OK(ito_continue(f, HEAVY));
}

static void heavy_round(const char *backend)
{
    if (strcmp(backend, "uring") || ito_wsc_backend() != ITO_WSC_URING) return; /* the reaped path */
    /* Up to 5 tries: the other worker counts as idle nearly all the time here, but not in
     * the moments between two of its idle spells. */
    int away = 0;
    for (int attempt = 0; attempt < 5 && away == 0; attempt++) {
        ito_frame_t *f;
        CHECK_OK(ito_frame_create(&f, HEAVY + 1, 0));
        for (int i = 0; i < HEAVY; i++) CHECK_OK(ito_entry_set(f, i, heavy_receiver, 1, ITO_MODE_USER));
        CHECK_OK(ito_entry_set(f, HEAVY, NULL, HEAVY, ITO_MODE_USER));
        pid_t home = gettid(); /* main's worker, where the requests are posted and reaped */
        for (int i = 0; i < HEAVY; i++) {
            ito_sysreq_t q = {.op = ITO_SYS_NOP, .result = &heavy_res[i], .frame = f, .entry = i};
            CHECK_OK(ito_sys_post(&q));
        }
        CHECK_OK(ito_frame_wait(f, HEAVY));
        for (int i = 0; i < HEAVY; i++) away += heavy_on[i] != home;
        printf("%d of %d computing receivers ran on the other worker\n", away, HEAVY);
        CHECK_OK(ito_frame_destroy(f));
    }
    CHECK(away > 0);
}

int main(void)
{
    pid = (long)getpid();
    ito_test_each_backend(1, round_);
    ito_test_each_backend(2, round_);
    ito_test_each_backend(2, heavy_round);
    TEST_DONE();
}
