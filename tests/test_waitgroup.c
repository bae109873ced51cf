/* test_waitgroup: the wait group. Waiters (several, on all workers) wake when the count
 * reaches zero; a wait at zero returns at once; done from a foreign pthread counts;
 * timed wait; the count never goes below zero (ERANGE, unchanged); EBUSY, EINVAL,
 * ENOTULT. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "ito/ito.h"
#include "ito_test.h"

#define TASKS 40

static ito_waitgroup_t g;
static _Atomic int finished;

static void *task(void *arg)
{
    for (int i = 0; i < (int)(intptr_t)arg % 7; i++) CHECK_OK(ito_yield());
    atomic_fetch_add(&finished, 1);
    CHECK_OK(ito_waitgroup_done(&g));
    return NULL;
}

static void *waiter(void *arg)
{
    (void)arg;
    CHECK_OK(ito_waitgroup_wait(&g));
    CHECK_EQ(atomic_load(&finished), TASKS); /* woken only when every task was done */
    return NULL;
}

static void check_wait(void)
{
    ito_attr_t a;
    CHECK_OK(ito_attr_init(&a));
    a.flags = ITO_ATTR_DETACHED;
    CHECK_OK(ito_waitgroup_add(&g, TASKS));
    ito_thread_t w[3];
    for (int i = 0; i < 3; i++) CHECK_OK(ito_create(&w[i], waiter, NULL, NULL));
    for (intptr_t i = 0; i < TASKS; i++) CHECK_OK(ito_create(NULL, task, (void *)i, &a));
    CHECK_OK(ito_waitgroup_wait(&g));
    CHECK_EQ(atomic_load(&finished), TASKS);
    for (int i = 0; i < 3; i++) CHECK_OK(ito_join(w[i], NULL));
    int64_t n = -1;
    CHECK_OK(ito_waitgroup_count(&g, &n));
    CHECK_EQ(n, 0);
    CHECK_OK(ito_waitgroup_wait(&g)); /* at zero: at once */
}

static void *foreign_done(void *arg)
{
    (void)arg;
    CHECK_EQ(ito_waitgroup_wait(&g), ITO_ENOTULT);
    CHECK_OK(ito_waitgroup_done(&g));
    return NULL;
}

static void check_foreign_and_timeout(void)
{
    CHECK_OK(ito_waitgroup_add(&g, 1));
    CHECK_EQ(ito_waitgroup_wait_until(&g, 0), ITO_ETIMEDOUT);
    CHECK_EQ(ito_waitgroup_wait_until(&g, ito_deadline_in(1000000)), ITO_ETIMEDOUT);
    pthread_t pt;
    CHECK_EQ(pthread_create(&pt, NULL, foreign_done, NULL), 0);
    CHECK_OK(ito_waitgroup_wait(&g));
    CHECK_EQ(pthread_join(pt, NULL), 0);
}

static void *just_wait(void *arg)
{
    (void)arg;
    CHECK_OK(ito_waitgroup_wait(&g));
    return NULL;
}

static void check_errors(void)
{
    CHECK_EQ(ito_waitgroup_init(NULL), ITO_EINVAL);
    CHECK_EQ(ito_waitgroup_destroy(NULL), ITO_EINVAL);
    CHECK_EQ(ito_waitgroup_add(NULL, 1), ITO_EINVAL);
    CHECK_EQ(ito_waitgroup_done(NULL), ITO_EINVAL);
    CHECK_EQ(ito_waitgroup_wait(NULL), ITO_EINVAL);
    CHECK_EQ(ito_waitgroup_count(&g, NULL), ITO_EINVAL);
    CHECK_EQ(ito_waitgroup_done(&g), ITO_ERANGE); /* below zero */
    CHECK_OK(ito_waitgroup_add(&g, 2));
    CHECK_EQ(ito_waitgroup_add(&g, -3), ITO_ERANGE);
    CHECK_EQ(ito_waitgroup_add(&g, INT64_MAX), ITO_ERANGE);
    CHECK_EQ(ito_waitgroup_add(&g, INT64_MIN), ITO_ERANGE);
    int64_t n;
    CHECK_OK(ito_waitgroup_count(&g, &n));
    CHECK_EQ(n, 2); /* unchanged */
    /* destroy with a waiter: EBUSY (the waiter is on main's worker: a yield parks it; a
     * destroy that succeeded would end the object: later calls are ITO_EINVAL) */
    ito_thread_t t;
    ito_test_start_parked(&t, just_wait, NULL);
    CHECK_EQ(ito_waitgroup_destroy(&g), ITO_EBUSY);
    CHECK_OK(ito_waitgroup_add(&g, -2));
    CHECK_OK(ito_join(t, NULL));
}

int main(void)
{
    CHECK_OK(ito_init(NULL));
    CHECK_OK(ito_waitgroup_init(&g));
    check_errors();
    check_wait();
    check_foreign_and_timeout();
    CHECK_OK(ito_waitgroup_destroy(&g));
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
