/* test_cond: signal wakes one waiter in FIFO order, broadcast wakes all, a woken waiter
 * holds the mutex again, a signal with no waiter is not remembered, and a waiter on
 * another worker is woken. */
#include <stdatomic.h>
#include <stdint.h>

#include "ito/ito.h"
#include "ito_test.h"

#define NWAIT 12

static ito_mutex_t m;
static ito_cond_t c;
static int tokens;          /* guarded by m: how many waiters may leave */
static _Atomic int arrived[NWAIT]; /* set under m by the waiter, read by main */
static int order[NWAIT], norder;

static void *waiter(void *arg)
{
    int i = (int)(intptr_t)arg;
    CHECK_OK(ito_mutex_lock(&m));
    atomic_store(&arrived[i], 1);
    while (tokens == 0) CHECK_OK(ito_cond_wait(&c, &m));
    /* The mutex is ours again after the wait. */
    CHECK_EQ(ito_mutex_trylock(&m), ITO_EDEADLK);
    tokens--;
    order[norder++] = i;
    CHECK_OK(ito_mutex_unlock(&m));
    return NULL;
}

static void start_waiters(ito_thread_t *t, int n, int worker)
{
    ito_attr_t a;
    CHECK_OK(ito_attr_init(&a));
    a.worker = worker;
    for (int i = 0; i < NWAIT; i++) atomic_store(&arrived[i], 0);
    norder = 0;
    for (int i = 0; i < n; i++) {
        CHECK_OK(ito_create(&t[i], waiter, (void *)(intptr_t)i, &a));
        while (!atomic_load(&arrived[i])) CHECK_OK(ito_yield());
    }
    /* Each has released the mutex inside ito_cond_wait, so it is free now. */
    CHECK_OK(ito_mutex_lock(&m));
    CHECK_OK(ito_mutex_unlock(&m));
}

static void check_signal_fifo(void)
{
    ito_thread_t t[NWAIT];
    start_waiters(t, NWAIT, 0);
    for (int k = 0; k < NWAIT; k++) {
        CHECK_OK(ito_mutex_lock(&m));
        tokens++;
        CHECK_OK(ito_cond_signal(&c));
        CHECK_OK(ito_mutex_unlock(&m));
        for (int y = 0; y < 20; y++) CHECK_OK(ito_yield());
        CHECK_EQ(norder, k + 1); /* exactly one woke per signal */
    }
    for (int i = 0; i < NWAIT; i++) CHECK_OK(ito_join(t[i], NULL));
    for (int i = 0; i < NWAIT; i++) CHECK_EQ(order[i], i);
}

static void check_broadcast(void)
{
    ito_thread_t t[NWAIT];
    start_waiters(t, NWAIT, 0);
    CHECK_OK(ito_mutex_lock(&m));
    tokens = NWAIT;
    CHECK_OK(ito_cond_broadcast(&c));
    CHECK_OK(ito_mutex_unlock(&m));
    for (int i = 0; i < NWAIT; i++) CHECK_OK(ito_join(t[i], NULL));
    CHECK_EQ(norder, NWAIT);
    CHECK_EQ(tokens, 0);
    CHECK_OK(ito_cond_destroy(&c));
    CHECK_OK(ito_cond_init(&c));
}

/* A signal sent when nobody waits is lost (not a semaphore). */
static void check_no_memory(void)
{
    CHECK_OK(ito_cond_signal(&c));
    CHECK_OK(ito_cond_signal(&c));
    ito_thread_t t[1];
    start_waiters(t, 1, 0);
    for (int y = 0; y < 50; y++) CHECK_OK(ito_yield());
    CHECK_EQ(norder, 0);
    CHECK_EQ(ito_cond_destroy(&c), ITO_EBUSY); /* it does wait */
    CHECK_OK(ito_mutex_lock(&m));
    tokens = 1;
    CHECK_OK(ito_cond_signal(&c));
    CHECK_OK(ito_mutex_unlock(&m));
    CHECK_OK(ito_join(t[0], NULL));
    CHECK_EQ(norder, 1);
}

static void check_remote(void)
{
    if (ito_worker_count() < 2) return;
    ito_thread_t t[4];
    start_waiters(t, 4, 1);
    CHECK_OK(ito_mutex_lock(&m));
    tokens = 4;
    CHECK_OK(ito_cond_broadcast(&c));
    CHECK_OK(ito_mutex_unlock(&m));
    for (int i = 0; i < 4; i++) CHECK_OK(ito_join(t[i], NULL));
    CHECK_EQ(norder, 4);
}

int main(void)
{
    CHECK_OK(ito_init(NULL));
    CHECK_OK(ito_mutex_init(&m));
    CHECK_OK(ito_cond_init(&c));
    check_signal_fifo();
    check_broadcast();
    check_no_memory();
    check_remote();
    CHECK_OK(ito_cond_destroy(&c));
    CHECK_OK(ito_mutex_destroy(&m));
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
