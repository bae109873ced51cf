/* test_foreign_ready_idle: work that a foreign thread makes ready (a ZWT it continues, an
 * unbound ULT it wakes) runs on an idle worker while its home worker is busy with a ULT
 * that does not yield (sched.c, foreign_target, steal_inbox). Two workers: main, on
 * worker 0, computes without a scheduling point until both have run (at most 10 s).
 *  1. Worker 1 has nothing to do. Before 2026-12-05 both went to worker 0's inbox, which
 *     only worker 0 drained, and waited for main's next scheduling point while worker 1
 *     idled (found by an outside tester, h61b: 888 ms behind a main busy for 1 s).
 *  2. Worker 1 runs a bound ULT that spins until the foreign thread has made both ready,
 *     then ends: no worker idles as the thread looks, so both go to worker 0's inbox, and
 *     worker 1 idles a moment later. Before 2026-12-07 only worker 0 drained that inbox
 *     (outside tester h77b; the same window, narrower, opened in a ping-pong with a
 *     foreign thread when a wake-up came just as the waiter's worker parked it and had not
 *     yet reached its idle loop, which round 1 avoids by waiting 20 ms).
 * Main would spin the whole 10 s in either round and the test fails. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#include "ito/ito.h"
#include "ito_test.h"

static atomic_int zwt_ran, ult_woke, waiting, posted, busy_running;
static ito_frame_t *fr;
static ito_sem_t sem;

static void zwt(ito_frame_t *f, int e, uint64_t v)
{
    (void)f, (void)e, (void)v;
    atomic_store(&zwt_ran, 1);
}

static void *waiter(void *a)
{
    (void)a;
    atomic_store(&waiting, 1);
    CHECK_OK(ito_sem_wait(&sem));
    atomic_store(&ult_woke, 1);
    return NULL;
}

/* Round 2: bound to worker 1, keeps it busy (no scheduling point) until the foreign
 * thread has made both ready. */
static void *busy(void *a)
{
    (void)a;
    atomic_store(&busy_running, 1);
    uint64_t t0 = ito_now_ns();
    while (!atomic_load(&posted) && ito_now_ns() - t0 < 10000000000ull) {
    }
    return NULL;
}

static void *foreign(void *late)
{
    if (!late) {
        struct timespec ts = {0, 20000000}; /* the waiter parks, worker 1 goes idle */
        nanosleep(&ts, NULL);
    }
    CHECK_OK(ito_continue(fr, 0));
    CHECK_OK(ito_sem_post(&sem));
    atomic_store(&posted, 1);
    return NULL;
}

static void round_(int late)
{
    atomic_store(&zwt_ran, 0);
    atomic_store(&ult_woke, 0);
    atomic_store(&waiting, 0);
    atomic_store(&posted, 0);
    CHECK_OK(ito_frame_create(&fr, 1, 0)); /* an entry fires once: a frame per round */
    CHECK_OK(ito_entry_set(fr, 0, zwt, 1, ITO_MODE_USER));
    ito_thread_t b, w;
    if (late) {
        ito_test_create_on(&b, 1, busy, NULL);
        while (!atomic_load(&busy_running)) CHECK_OK(ito_yield());
    }
    /* Unbound; its home is main's worker. In round 2 it runs here, worker 1 being busy,
     * and has parked when main runs again. */
    CHECK_OK(ito_create(&w, waiter, NULL, NULL));
    while (!atomic_load(&waiting)) CHECK_OK(ito_yield());
    pthread_t th;
    CHECK(pthread_create(&th, NULL, foreign, late ? &th : NULL) == 0);
    uint64_t t0 = ito_now_ns();
    while ((!atomic_load(&zwt_ran) || !atomic_load(&ult_woke)) && ito_now_ns() - t0 < 10000000000ull) {
        /* no scheduling point */
    }
    int zr = atomic_load(&zwt_ran), uw = atomic_load(&ult_woke);
    printf("round %d, while main computed: ZWT ran %d, ULT woke %d\n", late + 1, zr, uw);
    CHECK(zr && uw);
    CHECK(pthread_join(th, NULL) == 0);
    CHECK_OK(ito_join(w, NULL));
    if (late) CHECK_OK(ito_join(b, NULL));
    CHECK_OK(ito_frame_destroy(fr));
}

int main(void)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
    CHECK_OK(ito_sem_init(&sem, 0));
    round_(0);
    round_(1);
    CHECK_OK(ito_sem_destroy(&sem));
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
