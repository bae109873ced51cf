/* test_waitq_timeout_anywhere: timed waiters leave an object's wait queue from anywhere
 * (head, middle, tail, neighbours) and the others keep their FIFO order, on a semaphore,
 * a channel and a mutex. Then many timed waiters on one object whose deadlines come in
 * the reverse order of their arrival: each times out, none early, and the object still
 * works. Before 2026-12-05 a waiter that timed out was found by a walk from the queue's
 * head, so each expiry cost O(waiters): 40,000 such waiters on one semaphore ended up
 * to 6.5 s late (found by an outside tester, h59a). The wait queues now link the ULTs
 * both ways (src/sync/waitq.h). This test checks the order and the outcomes; the
 * lateness is a benchmark's (bench_timer), not asserted here. */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ito/ito.h"
#include "ito_test.h"

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__) || defined(ITOI_ASAN) || defined(ITOI_TSAN)
#define MANY 1000
#else
#define MANY 20000
#endif

enum { SEM, CHAN, MUTEX, NKINDS };
static const char *kind_name[NKINDS] = {"sem", "chan", "mutex"};

static int kind;
static ito_sem_t sem;
static ito_chan_t *chan;
static ito_mutex_t mtx;

#define N 8
/* waiters 0 (head), 3 and 4 (neighbours in the middle) and 7 (tail) time out */
static const int times_out[N] = {1, 0, 0, 1, 1, 0, 0, 1};
static int order[N], norder;
static int outcome[N];

static int wait_once(uint64_t deadline)
{
    switch (kind) {
    case SEM: return ito_sem_wait_until(&sem, deadline);
    case CHAN: {
        int v;
        return ito_chan_recv_until(chan, &v, deadline);
    }
    default: {
        int rc = ito_mutex_lock_until(&mtx, deadline);
        if (rc == ITO_OK) CHECK_OK(ito_mutex_unlock(&mtx));
        return rc;
    }
    }
}

static uint64_t short_deadline;

static void *waiter(void *arg)
{
    int i = (int)(intptr_t)arg;
    int rc = wait_once(times_out[i] ? short_deadline : ITO_FOREVER);
    outcome[i] = rc;
    if (rc == ITO_OK) order[norder++] = i;
    else if (rc == ITO_ETIMEDOUT) CHECK(ito_now_ns() >= short_deadline);
    return NULL;
}

static void release_one(void)
{
    switch (kind) {
    case SEM: CHECK_OK(ito_sem_post(&sem)); break;
    case CHAN: CHECK_OK(ito_chan_send(chan, &(int){1})); break;
    default: CHECK_OK(ito_mutex_unlock(&mtx)); CHECK_OK(ito_mutex_lock(&mtx)); break;
    }
}

static void order_case(void)
{
    ito_thread_t t[N];
    norder = 0;
    short_deadline = ito_now_ns() + 50 * 1000 * 1000;
    if (kind == MUTEX) CHECK_OK(ito_mutex_lock(&mtx));
    for (int i = 0; i < N; i++) {
        CHECK_OK(ito_create(&t[i], waiter, (void *)(intptr_t)i, NULL));
        CHECK_OK(ito_yield()); /* it parks before the next one: the queue's order is 0..N-1 */
    }
    CHECK_OK(ito_sleep_until(short_deadline + 20 * 1000 * 1000)); /* the four timed out */
    for (int i = 0; i < N; i++) {
        if (times_out[i]) continue;
        release_one();
        CHECK_OK(ito_yield()); /* one worker: the woken one runs, records itself */
    }
    if (kind == MUTEX) CHECK_OK(ito_mutex_unlock(&mtx));
    for (int i = 0; i < N; i++) CHECK_OK(ito_join(t[i], NULL));
    for (int i = 0; i < N; i++) CHECK_EQ(outcome[i], times_out[i] ? ITO_ETIMEDOUT : ITO_OK);
    static const int want[] = {1, 2, 5, 6};
    CHECK_EQ(norder, 4);
    for (int k = 0; k < 4 && k < norder; k++) CHECK_EQ(order[k], want[k]);
}

static uint64_t many_base;
static _Atomic int many_timedout, many_early;

static void *many_waiter(void *arg)
{
    long i = (long)(intptr_t)arg;
    uint64_t d = many_base + (uint64_t)(MANY - i) * 10000; /* the last to queue goes first */
    int rc = wait_once(d);
    if (rc == ITO_ETIMEDOUT) atomic_fetch_add(&many_timedout, 1);
    if (ito_now_ns() < d) atomic_fetch_add(&many_early, 1);
    return NULL;
}

static void many_case(void)
{
    ito_thread_t *t = calloc(MANY, sizeof *t);
    CHECK(t != NULL);
    if (!t) return;
    atomic_store(&many_timedout, 0);
    atomic_store(&many_early, 0);
    if (kind == MUTEX) CHECK_OK(ito_mutex_lock(&mtx));
    many_base = ito_now_ns() + 500 * 1000 * 1000; /* every waiter parked well before */
    ito_attr_t a;
    CHECK_OK(ito_attr_init(&a));
    a.stack_size = 16384;
    for (long i = 0; i < MANY; i++) CHECK_OK(ito_create(&t[i], many_waiter, (void *)(intptr_t)i, &a));
    CHECK_OK(ito_sleep_until(many_base + (uint64_t)(MANY + 1) * 10000));
    for (long i = 0; i < MANY; i++) CHECK_OK(ito_join(t[i], NULL));
    if (kind == MUTEX) CHECK_OK(ito_mutex_unlock(&mtx));
    CHECK_EQ(atomic_load(&many_timedout), MANY);
    CHECK_EQ(atomic_load(&many_early), 0);
    free(t);
    /* the object still works: one waiter, one release */
    ito_thread_t last;
    short_deadline = ito_now_ns() + 1000ull * 1000 * 1000 * 60;
    if (kind == MUTEX) CHECK_OK(ito_mutex_lock(&mtx));
    CHECK_OK(ito_create(&last, waiter, (void *)(intptr_t)1, NULL));
    CHECK_OK(ito_yield());
    norder = 0;
    release_one();
    if (kind == MUTEX) CHECK_OK(ito_mutex_unlock(&mtx));
    CHECK_OK(ito_join(last, NULL));
    CHECK_EQ(outcome[1], ITO_OK);
}

int main(void)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 1}));
    CHECK_OK(ito_sem_init(&sem, 0));
    CHECK_OK(ito_chan_create(&chan, sizeof(int), 0));
    CHECK_OK(ito_mutex_init(&mtx));
    for (kind = 0; kind < NKINDS; kind++) {
        order_case();
        many_case();
        printf("%s: order and %d reverse-order timeouts ok\n", kind_name[kind], MANY);
    }
    CHECK_OK(ito_sem_destroy(&sem));
    CHECK_OK(ito_chan_destroy(chan));
    CHECK_OK(ito_mutex_destroy(&mtx));
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
