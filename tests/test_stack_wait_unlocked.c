/* test_stack_wait_unlocked: a worker whose next ULT finds no stack waits for one in its
 * scheduler context, not in the pick of a ULT that parks (sched.c, pick_ult_slow). That
 * pick runs with the parking ULT's object locked; until 2026-12-06 it picked the
 * stackless ULT again and again there, so the object's lock stayed held for ever: a
 * ito_sem_post on main's worker spun on it, and that worker, whose own pool held the free
 * stacks, never reached the call that gives them back (found by an outside tester, h69e,
 * with ito_create_many's template scheme under RLIMIT_AS). Here worker 0's pool holds 256
 * free stacks, RLIMIT_AS leaves no room for more, and ULTs bound to worker 1 are made
 * until ITO_ENOMEM; each waits on one semaphore. Once every ULT that could get a stack has
 * started, main lets worker 1 reach its pick (a short kernel sleep, only to make the old
 * hang likely: the check does not depend on it) and posts the semaphore for all of them;
 * every one must end. A watchdog thread turns the old hang into a failure. Release tree
 * only (the sanitizers reserve terabytes of shadow: no RLIMIT_AS there). */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdio.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

#define POOL 256 /* a worker's own pool (POOL_HIGH) */
#define MAXN 100000

static ito_sem_t sem;
static atomic_int started, done;
static ito_thread_t ts[MAXN];

static void *second(void *arg)
{
    atomic_fetch_add(&started, 1);
    ito_sem_wait(&sem);
    return arg;
}

static void *watchdog(void *arg)
{
    (void)arg;
    for (int i = 0; i < 300 && !atomic_load(&done); i++) {
        struct timespec ts1 = {0, 100 * 1000 * 1000};
        nanosleep(&ts1, NULL);
    }
    if (!atomic_load(&done)) {
        fprintf(stderr, "%s: hang: a ULT never got its stack (started %d)\n", __FILE__, atomic_load(&started));
        _exit(1);
    }
    return NULL;
}

int main(void)
{
    ITO_TEST_NEEDS_RLIMIT_AS();
    ito_config_t cfg = {.workers = 2};
    CHECK_OK(ito_init(&cfg));
    CHECK_OK(ito_sem_init(&sem, 0));
    ito_test_fill_pool(0, POOL); /* they end on worker 0: their stacks stay in its own pool */
    ito_stats_t st;
    CHECK_OK(ito_stats(&st));
    uint64_t carved0 = st.stacks_mapped;

    pthread_t dog;
    CHECK_OK(pthread_create(&dog, NULL, watchdog, NULL));
    struct rlimit old;
    size_t n = ito_test_create_until_enomem(&old, ts, MAXN, 1, second);
    CHECK(n > POOL);
    /* Worker 1 starts every ULT for which it finds a stack; the rest are in worker 0's pool
     * or not carved (no room to map their region: none are). Wait (here, not at an ito
     * call: worker 0 stays out of its scheduler context) until those have started. */
    for (;;) {
        CHECK_OK(ito_stats(&st));
        uint64_t reach = st.stacks_mapped - carved0 + POOL >= n ? n - POOL : st.stacks_mapped - carved0;
        if ((uint64_t)atomic_load(&started) >= reach && st.stacks_mapped - carved0 + POOL >= n) break;
        struct timespec ts1 = {0, 1000 * 1000};
        nanosleep(&ts1, NULL);
    }
    struct timespec ts2 = {0, 50 * 1000 * 1000};
    nanosleep(&ts2, NULL);
    printf("%zu ULTs made on worker 1, %d started before the posts\n", n, atomic_load(&started));
    for (size_t i = 0; i < n; i++) CHECK_OK(ito_sem_post(&sem));
    for (size_t i = 0; i < n; i++) CHECK_OK(ito_join(ts[i], NULL));
    atomic_store(&done, 1);
    CHECK_OK(pthread_join(dog, NULL));
    CHECK_OK(setrlimit(RLIMIT_AS, &old));
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
