/* test_foreign_ready_idle: work that a foreign thread makes ready (a ZWT it continues, an
 * unbound ULT it wakes) runs on an idle worker while its home worker is busy with a ULT
 * that does not yield (sched.c, foreign_target). Two workers: main, on worker 0, computes
 * without a scheduling point until both have run (at most 10 s); worker 1 has nothing to
 * do. Before 2026-12-05 both went to worker 0's inbox, which only worker 0 drains, and
 * waited for main's next scheduling point while worker 1 idled (found by an outside
 * tester, h61b: 888 ms behind a main busy for 1 s; here main would spin the whole 10 s
 * and the test fails). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#include "ito/ito.h"
#include "ito_test.h"

static atomic_int zwt_ran, ult_woke, waiting;
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

static void *foreign(void *a)
{
    (void)a;
    while (!atomic_load(&waiting)) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    struct timespec ts = {0, 20000000}; /* the waiter parks, worker 1 goes idle */
    nanosleep(&ts, NULL);
    CHECK_OK(ito_continue(fr, 0));
    CHECK_OK(ito_sem_post(&sem));
    return NULL;
}

int main(void)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
    CHECK_OK(ito_frame_create(&fr, 1, 0));
    CHECK_OK(ito_entry_set(fr, 0, zwt, 1, ITO_MODE_USER));
    CHECK_OK(ito_sem_init(&sem, 0));
    ito_thread_t w;
    CHECK_OK(ito_create(&w, waiter, NULL, NULL)); /* unbound; its home is main's worker */
    while (!atomic_load(&waiting)) CHECK_OK(ito_yield());
    pthread_t th;
    CHECK(pthread_create(&th, NULL, foreign, NULL) == 0);
    uint64_t t0 = ito_now_ns();
    while ((!atomic_load(&zwt_ran) || !atomic_load(&ult_woke)) && ito_now_ns() - t0 < 10000000000ull) {
        /* no scheduling point */
    }
    int zr = atomic_load(&zwt_ran), uw = atomic_load(&ult_woke);
    printf("while main computed: ZWT ran %d, ULT woke %d\n", zr, uw);
    CHECK(zr && uw);
    CHECK(pthread_join(th, NULL) == 0);
    CHECK_OK(ito_join(w, NULL));
    CHECK_OK(ito_frame_destroy(fr));
    CHECK_OK(ito_sem_destroy(&sem));
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
