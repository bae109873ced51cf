/* test_mutex: lock/unlock, trylock, FIFO order of waiters, direct hand-off (no
 * barging), waiters on another worker, and mutual exclusion under contention. */
#include <stdatomic.h>
#include <stdint.h>

#include "ito/ito.h"
#include "ito_test.h"

#define NWAIT 16

static ito_mutex_t m;
static _Atomic int arrived[NWAIT];
static int order[NWAIT], norder;

static void *fifo_waiter(void *arg)
{
    int i = (int)(intptr_t)arg;
    arrived[i] = 1;
    CHECK_OK(ito_mutex_lock(&m)); /* parks before main runs again (same worker) */
    order[norder++] = i;
    CHECK_OK(ito_mutex_unlock(&m));
    return NULL;
}

static void check_fifo_and_handoff(void)
{
    ito_attr_t a;
    CHECK_OK(ito_attr_init(&a));
    a.worker = 0; /* main's worker: the waiters queue up in creation order */
    ito_thread_t t[NWAIT];
    CHECK_OK(ito_mutex_lock(&m));
    for (int i = 0; i < NWAIT; i++) {
        CHECK_OK(ito_create(&t[i], fifo_waiter, (void *)(intptr_t)i, &a));
        while (!arrived[i]) CHECK_OK(ito_yield());
    }
    norder = 0;
    CHECK_OK(ito_mutex_unlock(&m));
    /* Hand-off: the first waiter owns the mutex now although it has not run yet, so
     * the releasing ULT cannot take it back. */
    CHECK_EQ(ito_mutex_trylock(&m), ITO_EBUSY);
    CHECK_EQ(norder, 0);
    for (int i = 0; i < NWAIT; i++) CHECK_OK(ito_join(t[i], NULL));
    CHECK_EQ(norder, NWAIT);
    for (int i = 0; i < NWAIT; i++) CHECK_EQ(order[i], i);
    CHECK_OK(ito_mutex_trylock(&m));
    CHECK_OK(ito_mutex_unlock(&m));
}

/* A waiter bound to another worker is woken through that worker's inbox. */
static _Atomic int remote_state;
static void *remote_waiter(void *unused)
{
    (void)unused;
    remote_state = 1;
    CHECK_OK(ito_mutex_lock(&m));
    remote_state = 2;
    int w = ito_worker_id();
    CHECK_OK(ito_mutex_unlock(&m));
    return (void *)(intptr_t)w;
}

static void check_remote(void)
{
    if (ito_worker_count() < 2) return;
    ito_attr_t a;
    CHECK_OK(ito_attr_init(&a));
    a.worker = 1;
    ito_thread_t t;
    CHECK_OK(ito_mutex_lock(&m));
    CHECK_OK(ito_create(&t, remote_waiter, NULL, &a));
    while (remote_state == 0) CHECK_OK(ito_yield());
    for (int i = 0; i < 1000; i++) CHECK_OK(ito_yield());
    CHECK_EQ(remote_state, 1); /* still waiting: main holds the mutex */
    CHECK_OK(ito_mutex_unlock(&m));
    void *r;
    CHECK_OK(ito_join(t, &r));
    CHECK_EQ(remote_state, 2);
    CHECK_EQ((intptr_t)r, 1);
}

/* Mutual exclusion: a non-atomic read-modify-write with a yield in the middle. */
#define NCONT 8
#define ROUNDS 2000
static long counter;
static _Atomic int inside;

static void *contender(void *unused)
{
    (void)unused;
    for (int i = 0; i < ROUNDS; i++) {
        if (i % 3 == 0) {
            /* trylock, falling back to lock (a trylock-and-yield spin would depend on
             * the holder being scheduled: see test_starvation) */
            int rc = ito_mutex_trylock(&m);
            if (rc == ITO_EBUSY) rc = ito_mutex_lock(&m);
            CHECK_OK(rc);
        } else {
            CHECK_OK(ito_mutex_lock(&m));
        }
        CHECK_EQ(inside, 0);
        inside = 1;
        long v = counter;
        if (i % 7 == 0) CHECK_OK(ito_yield());
        counter = v + 1;
        inside = 0;
        CHECK_OK(ito_mutex_unlock(&m));
    }
    return NULL;
}

static void check_contention(void)
{
    ito_thread_t t[NCONT];
    counter = 0;
    for (int i = 0; i < NCONT; i++) CHECK_OK(ito_create(&t[i], contender, NULL, NULL));
    for (int i = 0; i < NCONT; i++) CHECK_OK(ito_join(t[i], NULL));
    CHECK_EQ(counter, (long)NCONT * ROUNDS);
}

int main(void)
{
    CHECK_OK(ito_init(NULL));
    CHECK_OK(ito_mutex_init(&m));
    CHECK_OK(ito_mutex_lock(&m)); /* main is a ULT: it may lock */
    CHECK_OK(ito_mutex_unlock(&m));
    check_fifo_and_handoff();
    check_remote();
    check_contention();
    CHECK_OK(ito_mutex_destroy(&m));
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
