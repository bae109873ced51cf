/* test_sem: the counting semaphore. Units are counted; waiters are served in FIFO order
 * and a post hands its unit to the first waiter (a later trywait cannot take it); a
 * timed wait times out without taking a unit; post from a foreign pthread wakes a ULT;
 * a stress run on all workers conserves units; errors (ERANGE at the maximum, EBUSY,
 * ENOTULT, EINVAL, ESTATE after finalize). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "ito/ito.h"
#include "ito_test.h"

static ito_sem_t s;
static int order[6], norder;

static void *waiter(void *arg)
{
    CHECK_OK(ito_sem_wait(&s));
    order[norder++] = (int)(intptr_t)arg;
    return NULL;
}

static void check_fifo_handoff(void)
{
    ito_attr_t a;
    CHECK_OK(ito_attr_init(&a));
    a.worker = 0;
    ito_thread_t t[6];
    norder = 0;
    for (int i = 0; i < 6; i++) {
        CHECK_OK(ito_create(&t[i], waiter, (void *)(intptr_t)i, &a));
        for (int y = 0; y < 3; y++) CHECK_OK(ito_yield());
    }
    unsigned v = 9;
    CHECK_OK(ito_sem_value(&s, &v));
    CHECK_EQ(v, 0);
    for (int i = 0; i < 6; i++) {
        CHECK_OK(ito_sem_post(&s));
        CHECK_EQ(ito_sem_trywait(&s), ITO_EAGAIN); /* the unit went to the waiter */
        for (int y = 0; y < 3; y++) CHECK_OK(ito_yield());
        CHECK_EQ(norder, i + 1);
        CHECK_EQ(order[i], i);
    }
    for (int i = 0; i < 6; i++) CHECK_OK(ito_join(t[i], NULL));
}

static void check_count_and_timeout(void)
{
    for (int i = 0; i < 3; i++) CHECK_OK(ito_sem_post(&s));
    unsigned v;
    CHECK_OK(ito_sem_value(&s, &v));
    CHECK_EQ(v, 3);
    CHECK_OK(ito_sem_trywait(&s));
    CHECK_OK(ito_sem_wait(&s));
    CHECK_OK(ito_sem_wait_until(&s, 0)); /* a unit is there: a past deadline still takes it */
    CHECK_EQ(ito_sem_wait_until(&s, 0), ITO_ETIMEDOUT);
    CHECK_EQ(ito_sem_wait_until(&s, ito_deadline_in(1000000)), ITO_ETIMEDOUT);
    CHECK_OK(ito_sem_value(&s, &v));
    CHECK_EQ(v, 0); /* the timed-out waits took nothing */
    CHECK_OK(ito_sem_post(&s));
    CHECK_OK(ito_sem_wait_until(&s, ito_deadline_in(1000000)));
}

static void *foreign_post(void *arg)
{
    (void)arg;
    CHECK_EQ(ito_sem_wait(&s), ITO_ENOTULT);
    CHECK_OK(ito_sem_post(&s));
    return NULL;
}

static void check_foreign(void)
{
    pthread_t pt;
    CHECK_EQ(pthread_create(&pt, NULL, foreign_post, NULL), 0);
    CHECK_OK(ito_sem_wait(&s)); /* woken by the pthread's post */
    CHECK_EQ(pthread_join(pt, NULL), 0);
}

#define PER 2000
static ito_sem_t items;
static _Atomic long taken;
static void *producer(void *arg)
{
    (void)arg;
    for (int i = 0; i < PER; i++) {
        CHECK_OK(ito_sem_post(&items));
        if (i % 64 == 0) CHECK_OK(ito_yield());
    }
    return NULL;
}
static void *consumer(void *arg)
{
    (void)arg;
    for (int i = 0; i < PER; i++) {
        CHECK_OK(ito_sem_wait(&items));
        atomic_fetch_add(&taken, 1);
    }
    return NULL;
}

static void check_stress(void)
{
    CHECK_OK(ito_sem_init(&items, 0));
    ito_thread_t t[8];
    for (int i = 0; i < 8; i++) CHECK_OK(ito_create(&t[i], i % 2 ? producer : consumer, NULL, NULL));
    for (int i = 0; i < 8; i++) CHECK_OK(ito_join(t[i], NULL));
    CHECK_EQ(atomic_load(&taken), 4 * PER);
    unsigned v;
    CHECK_OK(ito_sem_value(&items, &v));
    CHECK_EQ(v, 0);
    CHECK_OK(ito_sem_destroy(&items));
}

static void check_errors(void)
{
    CHECK_EQ(ito_sem_init(NULL, 0), ITO_EINVAL);
    CHECK_EQ(ito_sem_init(&items, ITO_SEM_VALUE_MAX + 1u), ITO_EINVAL);
    CHECK_EQ(ito_sem_destroy(NULL), ITO_EINVAL);
    CHECK_EQ(ito_sem_wait(NULL), ITO_EINVAL);
    CHECK_EQ(ito_sem_wait_until(NULL, 0), ITO_EINVAL);
    CHECK_EQ(ito_sem_trywait(NULL), ITO_EINVAL);
    CHECK_EQ(ito_sem_post(NULL), ITO_EINVAL);
    CHECK_EQ(ito_sem_value(NULL, NULL), ITO_EINVAL);
    CHECK_EQ(ito_sem_value(&s, NULL), ITO_EINVAL);
    CHECK_OK(ito_sem_init(&items, ITO_SEM_VALUE_MAX));
    CHECK_EQ(ito_sem_post(&items), ITO_ERANGE);
    unsigned v;
    CHECK_OK(ito_sem_value(&items, &v));
    CHECK_EQ(v, ITO_SEM_VALUE_MAX);
    CHECK_OK(ito_sem_destroy(&items));
    /* destroy with a waiter: EBUSY (the waiter is on main's worker: a yield parks it) */
    ito_thread_t t;
    ito_test_start_parked(&t, waiter, (void *)0);
    CHECK_EQ(ito_sem_destroy(&s), ITO_EBUSY);
    CHECK_OK(ito_sem_post(&s));
    CHECK_OK(ito_join(t, NULL));
}

int main(void)
{
    CHECK_OK(ito_init(NULL));
    CHECK_OK(ito_sem_init(&s, 0));
    check_errors();
    norder = 0;
    check_fifo_handoff();
    check_count_and_timeout();
    check_foreign();
    check_stress();
    CHECK_OK(ito_sem_destroy(&s));
    CHECK_EQ(ito_sem_post(&s), ITO_EINVAL); /* destroyed */
    CHECK_OK(ito_sem_init(&s, 0));
    CHECK_OK(ito_finalize());
    CHECK_EQ(ito_sem_post(&s), ITO_ESTATE); /* main is a foreign thread now */
    TEST_DONE();
}
