/* test_once_nested_nonult: an fn that calls ito_once on its own once object gets
 * ITO_EDEADLK (sync.h) whoever runs it: a ULT, a ZWT, a foreign thread, main before
 * ito_init. Found by a misuse fuzzer (2026-12-04): the runner was recorded as a ULT only,
 * so a ZWT's or a foreign thread's nested call got ITO_ENOTULT ("would have to wait for
 * another caller's fn"), which says the opposite of what happened. Other threads that find
 * the fn running still get ITO_ENOTULT (not ULTs) or wait (ULTs). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>

#include "ito/ito.h"
#include "ito_test.h"

static ito_once_t once_pre = ITO_ONCE_INIT, once_foreign = ITO_ONCE_INIT, once_zwt = ITO_ONCE_INIT,
                  once_ult = ITO_ONCE_INIT, once_slow = ITO_ONCE_INIT;
static ito_once_t *cur;
static _Atomic int nested_rc = 99, runs, slow_in, slow_go;

static void nested(void)
{
    atomic_fetch_add(&runs, 1);
    atomic_store(&nested_rc, ito_once(cur, nested));
}

static void *foreign_main(void *arg)
{
    (void)arg;
    cur = &once_foreign;
    CHECK_OK(ito_once(&once_foreign, nested));
    return NULL;
}

static void zwt_body(ito_frame_t *f, int e, uint64_t v)
{
    (void)f;
    (void)e;
    (void)v;
    cur = &once_zwt;
    CHECK_OK(ito_once(&once_zwt, nested));
}

static void *ult_body(void *arg)
{
    (void)arg;
    cur = &once_ult;
    CHECK_OK(ito_once(&once_ult, nested));
    return NULL;
}

/* A foreign thread runs a slow fn; a ZWT that finds it running gets ITO_ENOTULT (it may
 * not wait), not ITO_EDEADLK: it is another caller. */
static void slow(void)
{
    atomic_store(&slow_in, 1);
    while (!atomic_load(&slow_go)) sched_yield();
}
static void *slow_main(void *arg)
{
    (void)arg;
    CHECK_OK(ito_once(&once_slow, slow));
    return NULL;
}
static _Atomic int other_rc = 99;
static void zwt_other(ito_frame_t *f, int e, uint64_t v)
{
    (void)f;
    (void)e;
    (void)v;
    atomic_store(&other_rc, ito_once(&once_slow, slow));
}

static void expect_one_nested_deadlk(void)
{
    CHECK_EQ(atomic_load(&runs), 1);
    CHECK_EQ(atomic_load(&nested_rc), ITO_EDEADLK);
    atomic_store(&runs, 0);
    atomic_store(&nested_rc, 99);
}

int main(void)
{
    cur = &once_pre; /* main before ito_init */
    CHECK_OK(ito_once(&once_pre, nested));
    expect_one_nested_deadlk();

    CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
    pthread_t th;
    CHECK_EQ(pthread_create(&th, NULL, foreign_main, NULL), 0);
    CHECK_EQ(pthread_join(th, NULL), 0);
    expect_one_nested_deadlk();

    ito_frame_t *f;
    CHECK_OK(ito_frame_create(&f, 3, 0));
    CHECK_OK(ito_entry_set(f, 0, zwt_body, 1, ITO_MODE_USER));
    CHECK_OK(ito_entry_set(f, 1, zwt_other, 1, ITO_MODE_USER));
    CHECK_OK(ito_continue(f, 0));
    while (atomic_load(&nested_rc) == 99) CHECK_OK(ito_sleep_ns(100000));
    expect_one_nested_deadlk();

    ito_thread_t t;
    CHECK_OK(ito_create(&t, ult_body, NULL, NULL));
    CHECK_OK(ito_join(t, NULL));
    expect_one_nested_deadlk();

    CHECK_EQ(pthread_create(&th, NULL, slow_main, NULL), 0);
    while (!atomic_load(&slow_in)) CHECK_OK(ito_sleep_ns(100000));
    CHECK_OK(ito_continue(f, 1));
    while (atomic_load(&other_rc) == 99) CHECK_OK(ito_sleep_ns(100000));
    CHECK_EQ(atomic_load(&other_rc), ITO_ENOTULT);
    atomic_store(&slow_go, 1);
    CHECK_EQ(pthread_join(th, NULL), 0);

    while (ito_frame_destroy(f) == ITO_EBUSY) CHECK_OK(ito_yield());
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
