/* test_inbox_bound: a ULT woken by a foreign thread (through the worker's inbox) runs
 * within a bounded number of scheduling points while other ULTs keep yielding to each
 * other on the fast path. The fast path does not look at the inbox; the fairness rule's
 * point (every 64th) does (sched.c), so the wake-up waits at most 63 points, plus the two
 * yielders ahead of it in the queue once it is drained. Five rounds, one worker. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "ito/ito.h"
#include "ito_test.h"

#define ROUNDS 5
#define BOUND 80 /* 64 points + the queue ahead of it + slack */

static ito_sem_t sem;
static atomic_long points;     /* yields made by the two yielders */
static atomic_long at_post;    /* points right after the foreign post */
static atomic_long at_wake;    /* points when the woken ULT ran */
static atomic_int stop;

static void *yielder(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop)) {
        atomic_fetch_add(&points, 1);
        ito_yield();
    }
    return NULL;
}

static void *waiter(void *arg)
{
    (void)arg;
    CHECK_OK(ito_sem_wait(&sem));
    atomic_store(&at_wake, atomic_load(&points));
    atomic_store(&stop, 1);
    return NULL;
}

static void *foreign(void *arg)
{
    (void)arg;
    while (atomic_load(&points) < 10000) ito_test_sleep_us(100); /* the yielders are going */
    CHECK_OK(ito_sem_post(&sem));
    atomic_store(&at_post, atomic_load(&points)); /* read after the post: the bound is from here */
    return NULL;
}

int main(void)
{
    ito_config_t cfg = {.workers = 1};
    CHECK_OK(ito_init(&cfg));
    for (int r = 0; r < ROUNDS; r++) {
        atomic_store(&points, 0);
        atomic_store(&stop, 0);
        atomic_store(&at_post, -1);
        atomic_store(&at_wake, -1);
        CHECK_OK(ito_sem_init(&sem, 0));
        ito_thread_t w, y1, y2;
        CHECK_OK(ito_create(&w, waiter, NULL, NULL));
        ito_yield(); /* the waiter parks in ito_sem_wait */
        CHECK_OK(ito_create(&y1, yielder, NULL, NULL));
        CHECK_OK(ito_create(&y2, yielder, NULL, NULL));
        pthread_t ft;
        CHECK_EQ(pthread_create(&ft, NULL, foreign, NULL), 0);
        CHECK_OK(ito_join(w, NULL));
        CHECK_OK(ito_join(y1, NULL));
        CHECK_OK(ito_join(y2, NULL));
        CHECK_EQ(pthread_join(ft, NULL), 0);
        long post = atomic_load(&at_post), wake = atomic_load(&at_wake);
        CHECK(post >= 10000 && wake >= 0);
        printf("round %d: woken %ld points after the post\n", r, wake - post);
        CHECK(wake - post <= BOUND);
        CHECK_OK(ito_sem_destroy(&sem));
    }
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
