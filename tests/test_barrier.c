/* test_barrier: the reusable barrier. ULTs on all workers go through many rounds; nobody
 * leaves a round before everyone arrived; exactly one ITO_BARRIER_SERIAL per round; a
 * barrier of 1 never waits; errors (EBUSY while a round is under way, EINVAL, ENOTULT). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "ito/ito.h"
#include "ito_test.h"

#define N 6
#define ROUNDS 200

static ito_barrier_t b;
static _Atomic int arrived[ROUNDS], serial[ROUNDS];

static void *runner(void *arg)
{
    (void)arg;
    for (int r = 0; r < ROUNDS; r++) {
        atomic_fetch_add(&arrived[r], 1);
        if (r % 3 == 0) CHECK_OK(ito_yield());
        int rc = ito_barrier_wait(&b);
        CHECK(rc == ITO_OK || rc == ITO_BARRIER_SERIAL);
        if (rc == ITO_BARRIER_SERIAL) atomic_fetch_add(&serial[r], 1);
        CHECK_EQ(atomic_load(&arrived[r]), N); /* everyone of this round is in */
    }
    return NULL;
}

static void check_rounds(void)
{
    CHECK_OK(ito_barrier_init(&b, N));
    ito_thread_t t[N];
    for (int i = 0; i < N; i++) CHECK_OK(ito_create(&t[i], runner, NULL, NULL));
    for (int i = 0; i < N; i++) CHECK_OK(ito_join(t[i], NULL));
    for (int r = 0; r < ROUNDS; r++) CHECK_EQ(atomic_load(&serial[r]), 1);
    CHECK_OK(ito_barrier_destroy(&b));
}

static void *one_wait(void *arg)
{
    return (void *)(intptr_t)ito_barrier_wait(arg);
}

static void *foreign(void *arg)
{
    return (void *)(intptr_t)ito_barrier_wait(arg);
}

static void check_errors(void)
{
    CHECK_EQ(ito_barrier_init(NULL, 2), ITO_EINVAL);
    CHECK_EQ(ito_barrier_init(&b, 0), ITO_EINVAL);
    CHECK_EQ(ito_barrier_wait(NULL), ITO_EINVAL);
    CHECK_EQ(ito_barrier_destroy(NULL), ITO_EINVAL);
    CHECK_OK(ito_barrier_init(&b, 1));
    for (int i = 0; i < 3; i++) CHECK_EQ(ito_barrier_wait(&b), ITO_BARRIER_SERIAL);
    CHECK_OK(ito_barrier_destroy(&b));
    CHECK_OK(ito_barrier_init(&b, 2));
    /* destroy during a round: EBUSY (the waiter is on main's worker: a yield parks it) */
    ito_thread_t t;
    ito_test_start_parked(&t, one_wait, &b);
    CHECK_EQ(ito_barrier_destroy(&b), ITO_EBUSY);
    int rc = ito_barrier_wait(&b);
    void *other;
    CHECK_OK(ito_join(t, &other));
    CHECK_EQ(rc + (int)(intptr_t)other, ITO_BARRIER_SERIAL); /* one serial, one ITO_OK */
    pthread_t pt;
    void *r;
    CHECK_EQ(pthread_create(&pt, NULL, foreign, &b), 0);
    CHECK_EQ(pthread_join(pt, &r), 0);
    CHECK_EQ((intptr_t)r, ITO_ENOTULT);
    CHECK_OK(ito_barrier_destroy(&b));
}

int main(void)
{
    CHECK_OK(ito_init(NULL));
    check_errors();
    check_rounds();
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
