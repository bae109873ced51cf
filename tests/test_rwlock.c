/* test_rwlock: the readers-writer lock. Readers share it, a writer excludes everyone
 * (a stress run on all workers checks an invariant only writers may break); a waiting
 * writer holds back new readers and a writer's unlock admits every waiting reader (phase
 * fairness); a writer that times out lets the readers queued behind it in; try-variants;
 * errors (EDEADLK, EPERM, EBUSY, ENOTULT, EINVAL; an unlock by a ULT that holds no read
 * lock while others read-hold it is EPERM). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "ito/ito.h"
#include "ito_test.h"

static ito_rwlock_t l;
static _Atomic int inside, max_inside;
static int order[8], norder;

static void *reader_hold(void *arg)
{
    int id = (int)(intptr_t)arg;
    CHECK_OK(ito_rwlock_rdlock(&l));
    order[norder++] = id;
    int n = atomic_fetch_add(&inside, 1) + 1;
    if (n > atomic_load(&max_inside)) atomic_store(&max_inside, n);
    for (int i = 0; i < 20; i++) CHECK_OK(ito_yield());
    atomic_fetch_sub(&inside, 1);
    CHECK_OK(ito_rwlock_unlock(&l));
    return NULL;
}

static void *writer_hold(void *arg)
{
    int id = (int)(intptr_t)arg;
    CHECK_OK(ito_rwlock_wrlock(&l));
    order[norder++] = id;
    CHECK_EQ(atomic_load(&inside), 0);
    for (int i = 0; i < 5; i++) CHECK_OK(ito_yield());
    CHECK_OK(ito_rwlock_unlock(&l));
    return NULL;
}

static ito_attr_t on0;

static void spawn(ito_thread_t *t, void *(*fn)(void *), int id)
{
    CHECK_OK(ito_create(t, fn, (void *)(intptr_t)id, &on0));
    for (int i = 0; i < 3; i++) CHECK_OK(ito_yield());
}

static void check_shared_readers(void)
{
    ito_thread_t t[4];
    atomic_store(&max_inside, 0);
    norder = 0;
    for (int i = 0; i < 4; i++) CHECK_OK(ito_create(&t[i], reader_hold, (void *)(intptr_t)i, &on0));
    for (int i = 0; i < 4; i++) CHECK_OK(ito_join(t[i], NULL));
    CHECK_EQ(atomic_load(&max_inside), 4); /* all four held it at once */
}

/* Readers R0 R1 hold; W2 waits; R3 arrives (must wait behind W2); W4 arrives.
 * Order of entry: R0 R1, W2, then R3 (admitted by W2's unlock, before W4), then W4. */
static void check_phase_fair(void)
{
    ito_thread_t t[5];
    norder = 0;
    spawn(&t[0], reader_hold, 0);
    spawn(&t[1], reader_hold, 1);
    spawn(&t[2], writer_hold, 2);
    CHECK_EQ(ito_rwlock_tryrdlock(&l), ITO_EBUSY); /* a writer waits: no new reader */
    CHECK_EQ(ito_rwlock_trywrlock(&l), ITO_EBUSY);
    spawn(&t[3], reader_hold, 3);
    spawn(&t[4], writer_hold, 4);
    for (int i = 0; i < 5; i++) CHECK_OK(ito_join(t[i], NULL));
    CHECK_EQ(norder, 5);
    CHECK(order[0] + order[1] == 1); /* R0, R1 in some order */
    CHECK_EQ(order[2], 2);
    CHECK_EQ(order[3], 3);
    CHECK_EQ(order[4], 4);
}

/* A writer that gives up lets the readers queued behind it in. */
static void *timed_writer(void *arg)
{
    (void)arg;
    return (void *)(intptr_t)ito_rwlock_wrlock_until(&l, ito_deadline_in(2000000)); /* 2 ms */
}

static void check_timed_writer(void)
{
    ito_thread_t w, r;
    norder = 0;
    CHECK_OK(ito_rwlock_rdlock(&l)); /* main reads: the writer must wait */
    spawn(&w, timed_writer, 0);
    spawn(&r, reader_hold, 7); /* queued behind the waiting writer */
    CHECK_EQ(norder, 0);
    void *rc;
    CHECK_OK(ito_join(w, &rc));
    CHECK_EQ((intptr_t)rc, ITO_ETIMEDOUT);
    CHECK_OK(ito_join(r, NULL)); /* admitted once the writer left, while main still reads */
    CHECK_EQ(norder, 1);
    CHECK_OK(ito_rwlock_unlock(&l));
    CHECK_EQ(ito_rwlock_rdlock_until(&l, 0), ITO_OK); /* free: a past deadline still locks */
    CHECK_EQ(ito_rwlock_wrlock_until(&l, 0), ITO_ETIMEDOUT);
    CHECK_OK(ito_rwlock_unlock(&l));
}

/* Stress: writers keep a == b except inside their critical section. */
#define ROUNDS 3000
static uint64_t a, b;
static void *stress(void *arg)
{
    int writer = (int)(intptr_t)arg % 3 == 0;
    for (int i = 0; i < ROUNDS; i++) {
        if (writer) {
            CHECK_OK(ito_rwlock_wrlock(&l));
            a++;
            if (i % 7 == 0) CHECK_OK(ito_yield());
            b++;
        } else {
            CHECK_OK(ito_rwlock_rdlock(&l));
            CHECK_EQ(a, b);
            if (i % 5 == 0) CHECK_OK(ito_yield());
            CHECK_EQ(a, b);
        }
        CHECK_OK(ito_rwlock_unlock(&l));
    }
    return (void *)(intptr_t)writer;
}

static void check_stress(void)
{
    ito_thread_t t[12];
    int writers = 0;
    for (int i = 0; i < 12; i++) CHECK_OK(ito_create(&t[i], stress, (void *)(intptr_t)i, NULL));
    for (int i = 0; i < 12; i++) {
        void *w;
        CHECK_OK(ito_join(t[i], &w));
        writers += (int)(intptr_t)w;
    }
    CHECK_EQ(a, (uint64_t)writers * ROUNDS);
    CHECK_EQ(a, b);
}

static void *foreign(void *arg)
{
    (void)arg;
    CHECK_EQ(ito_rwlock_rdlock(&l), ITO_ENOTULT);
    CHECK_EQ(ito_rwlock_wrlock(&l), ITO_ENOTULT);
    CHECK_EQ(ito_rwlock_tryrdlock(&l), ITO_ENOTULT);
    CHECK_EQ(ito_rwlock_unlock(&l), ITO_ENOTULT);
    return NULL;
}

static void *unlock_other(void *arg)
{
    (void)arg;
    return (void *)(intptr_t)ito_rwlock_unlock(&l);
}

static void check_errors(void)
{
    CHECK_EQ(ito_rwlock_init(NULL), ITO_EINVAL);
    CHECK_EQ(ito_rwlock_destroy(NULL), ITO_EINVAL);
    CHECK_EQ(ito_rwlock_rdlock(NULL), ITO_EINVAL);
    CHECK_EQ(ito_rwlock_wrlock_until(NULL, 0), ITO_EINVAL);
    CHECK_EQ(ito_rwlock_trywrlock(NULL), ITO_EINVAL);
    CHECK_EQ(ito_rwlock_unlock(NULL), ITO_EINVAL);
    CHECK_EQ(ito_rwlock_unlock(&l), ITO_EPERM); /* not held */
    CHECK_OK(ito_rwlock_wrlock(&l));
    CHECK_EQ(ito_rwlock_wrlock(&l), ITO_EDEADLK);
    CHECK_EQ(ito_rwlock_rdlock(&l), ITO_EDEADLK);
    CHECK_EQ(ito_rwlock_destroy(&l), ITO_EBUSY);
    ito_thread_t t;
    void *rc;
    CHECK_OK(ito_create(&t, unlock_other, NULL, NULL));
    CHECK_OK(ito_join(t, &rc));
    CHECK_EQ((intptr_t)rc, ITO_EPERM); /* not the writer */
    CHECK_OK(ito_rwlock_unlock(&l));
    CHECK_OK(ito_rwlock_rdlock(&l));
    CHECK_OK(ito_create(&t, unlock_other, NULL, NULL));
    CHECK_OK(ito_join(t, &rc));
    CHECK_EQ((intptr_t)rc, ITO_EPERM); /* holds no read lock: cannot take ours */
    CHECK_EQ(ito_rwlock_trywrlock(&l), ITO_EBUSY); /* still read-held by us */
    CHECK_OK(ito_rwlock_unlock(&l));
    CHECK_OK(ito_rwlock_tryrdlock(&l));
    CHECK_OK(ito_rwlock_tryrdlock(&l));
    CHECK_OK(ito_rwlock_unlock(&l));
    CHECK_OK(ito_rwlock_unlock(&l));
    CHECK_EQ(ito_rwlock_unlock(&l), ITO_EPERM);
    pthread_t pt;
    CHECK_EQ(pthread_create(&pt, NULL, foreign, NULL), 0);
    CHECK_EQ(pthread_join(pt, NULL), 0);
}

int main(void)
{
    CHECK_OK(ito_init(NULL));
    CHECK_OK(ito_attr_init(&on0));
    on0.worker = 0;
    CHECK_OK(ito_rwlock_init(&l));
    check_errors();
    check_shared_readers();
    check_phase_fair();
    check_timed_writer();
    check_stress();
    CHECK_OK(ito_rwlock_destroy(&l));
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
