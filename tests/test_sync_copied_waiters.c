/* test_sync_copied_waiters: a synchronization object copied byte by byte (struct
 * assignment, memcpy, realloc of an array of objects) while ULTs wait on the original.
 * POSIX leaves such copies undefined; ito must stay whole (no crash, no lost waiter): the
 * copy acts as the object with nobody waiting, the original keeps its waiters.
 * Before the fix the copy's wait queue linked the original's waiters: the copy's
 * unlock (post, signal, barrier round) "woke" the original's waiter without taking it off
 * the original's queue (a mutex waiter returned from ito_mutex_lock(&orig) with ITO_OK
 * without owning it: its unlock said ITO_EPERM), and the original's own wake-up then readied
 * it a second time: SIGSEGV. Found by an outside tester, h68b, 2026-12-06 (brief: "copying
 * a locked mutex struct"). One worker, so the order is fixed. */
#include <string.h>

#include "ito/ito.h"
#include "ito_test.h"

static ito_mutex_t m1, m2;
static ito_sem_t s1, s2;
static ito_cond_t c1, c2;
static ito_mutex_t cm;
static ito_barrier_t b1, b2;
static ito_rwlock_t r1, r2;
static int stage; /* what the waiter has got so far */

static void *mutex_waiter(void *a)
{
    (void)a;
    CHECK_OK(ito_mutex_lock(&m1));
    stage = 1;
    CHECK_OK(ito_mutex_unlock(&m1)); /* it owns m1 */
    return NULL;
}
static void *sem_waiter(void *a)
{
    (void)a;
    CHECK_OK(ito_sem_wait(&s1));
    stage = 2;
    return NULL;
}
static void *cond_waiter(void *a)
{
    (void)a;
    CHECK_OK(ito_mutex_lock(&cm));
    while (stage != 3) CHECK_OK(ito_cond_wait(&c1, &cm));
    stage = 4;
    CHECK_OK(ito_mutex_unlock(&cm));
    return NULL;
}
static void *barrier_waiter(void *a)
{
    (void)a;
    int r = ito_barrier_wait(&b1);
    CHECK(r == ITO_OK || r == ITO_BARRIER_SERIAL);
    stage = 5;
    return NULL;
}
static void *reader(void *a)
{
    (void)a;
    CHECK_OK(ito_rwlock_rdlock(&r1));
    stage = 6;
    CHECK_OK(ito_rwlock_unlock(&r1));
    return NULL;
}
static void *copy_locker(void *a)
{
    (void)a;
    CHECK_OK(ito_mutex_lock(&m2)); /* waits on the copy while main holds it */
    CHECK_OK(ito_mutex_unlock(&m2));
    return NULL;
}

static void yields(void)
{
    for (int i = 0; i < 20; i++) ito_yield();
}

/* A ULT running fn, once it waits on the original (one worker: it ran up to its wait). */
static ito_thread_t waiting(void *(*fn)(void *))
{
    ito_thread_t t;
    CHECK_OK(ito_create(&t, fn, NULL, NULL));
    yields();
    return t;
}

/* What was done to the copy woke nobody: the waiter is still at stage s. */
static void still_waiting(int s)
{
    yields();
    CHECK_EQ(stage, s);
}

/* The original's own wake-up: t gets through its wait, to stage s. */
static void woken(ito_thread_t t, int s)
{
    CHECK_OK(ito_join(t, NULL));
    CHECK_EQ(stage, s);
}

int main(void)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 1}));
    ito_thread_t t, u;

    /* mutex: held by main, a ULT waits; the copy is unlocked by main, then the original */
    CHECK_OK(ito_mutex_init(&m1));
    CHECK_OK(ito_mutex_lock(&m1));
    t = waiting(mutex_waiter);
    memcpy(&m2, &m1, sizeof m1);
    CHECK_OK(ito_mutex_unlock(&m2));
    still_waiting(0); /* the original's waiter still waits for the original */
    CHECK_OK(ito_mutex_lock(&m2)); /* the copy is a free mutex of its own */
    u = waiting(copy_locker);
    CHECK_OK(ito_mutex_unlock(&m2)); /* hands the copy to its own waiter */
    CHECK_OK(ito_join(u, NULL));
    CHECK_EQ(stage, 0);
    CHECK_OK(ito_mutex_unlock(&m1));
    woken(t, 1);
    CHECK_OK(ito_mutex_destroy(&m2));
    CHECK_OK(ito_mutex_destroy(&m1));

    /* semaphore: a post to the copy is the copy's unit */
    CHECK_OK(ito_sem_init(&s1, 0));
    t = waiting(sem_waiter);
    memcpy(&s2, &s1, sizeof s1);
    CHECK_OK(ito_sem_post(&s2));
    still_waiting(1);
    CHECK_OK(ito_sem_trywait(&s2));
    CHECK_OK(ito_sem_destroy(&s2));
    CHECK_OK(ito_sem_post(&s1));
    woken(t, 2);
    CHECK_OK(ito_sem_destroy(&s1));

    /* condition variable: a broadcast on the copy wakes nobody */
    CHECK_OK(ito_cond_init(&c1));
    CHECK_OK(ito_mutex_init(&cm));
    t = waiting(cond_waiter);
    memcpy(&c2, &c1, sizeof c1);
    CHECK_OK(ito_mutex_lock(&cm));
    stage = 3;
    CHECK_OK(ito_cond_broadcast(&c2));
    CHECK_OK(ito_mutex_unlock(&cm));
    still_waiting(3);
    CHECK_OK(ito_cond_destroy(&c2));
    CHECK_OK(ito_cond_signal(&c1));
    woken(t, 4);
    CHECK_OK(ito_cond_destroy(&c1));
    CHECK_OK(ito_mutex_destroy(&cm));

    /* barrier of 2: the copy's round (it counts the arrival made before the copy) ends
     * without the original's waiter */
    CHECK_OK(ito_barrier_init(&b1, 2));
    t = waiting(barrier_waiter);
    memcpy(&b2, &b1, sizeof b1);
    CHECK_EQ(ito_barrier_wait(&b2), ITO_BARRIER_SERIAL);
    still_waiting(4);
    CHECK_OK(ito_barrier_destroy(&b2));
    CHECK_EQ(ito_barrier_wait(&b1), ITO_BARRIER_SERIAL);
    woken(t, 5);
    CHECK_OK(ito_barrier_destroy(&b1));

    /* rwlock: written by main, a reader waits; the copy's unlock admits nobody */
    CHECK_OK(ito_rwlock_init(&r1));
    CHECK_OK(ito_rwlock_wrlock(&r1));
    t = waiting(reader);
    memcpy(&r2, &r1, sizeof r1);
    CHECK_OK(ito_rwlock_unlock(&r2));
    still_waiting(5);
    CHECK_OK(ito_rwlock_destroy(&r2));
    CHECK_OK(ito_rwlock_unlock(&r1));
    woken(t, 6);
    CHECK_OK(ito_rwlock_destroy(&r1));

    CHECK_OK(ito_finalize());
    TEST_DONE();
}
