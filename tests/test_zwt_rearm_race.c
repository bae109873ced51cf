/* test_zwt_rearm_race: one ZWT entry re-armed and continued from several threads at once
 * runs exactly once per accepted firing (src/zwt/fire.c, the sync word's ITOI_ZS_QUEUED).
 * Two foreign threads and a ULT bound to worker 1 each loop ito_rearm(f, 0, 0) then
 * ito_continue(f, 0) for 1 s. Found by a misuse test (2026-12-03): the continuation that
 * took the last count set `queued` only afterwards, so a re-arm and a continuation from
 * another thread in that gap made the entry ready a second time; it ran more often than it
 * was fired (593,528 firings, 1,988,680 runs) and the run queue broke (SEGV).
 * Part 2: ito_entry_set from a foreign thread while a foreign thread and a ULT continue
 * the entry: the same, through entry_set's look-then-store of the sync word (SEGV in 5 of
 * 5 runs with 2 workers). Part 3: a refused ito_continue_value (the entry is queued)
 * changes nothing: it used to store its value first (the run got 222, not 111). Both
 * found by a test of the part-1 fix. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>

#include "ito/ito.h"
#include "ito_test.h"

static atomic_long runs, fires;
static atomic_int stop;
static ito_frame_t *fr;

static void z(ito_frame_t *f, int e, uint64_t v)
{
    (void)f;
    (void)e;
    (void)v;
    atomic_fetch_add(&runs, 1);
}

static void churn(void)
{
    for (int i = 0; !atomic_load(&stop); i++) {
        int rc = ito_rearm(fr, 0, 0);
        CHECK(rc == ITO_OK || rc == ITO_EBUSY);
        rc = ito_continue(fr, 0);
        CHECK(rc == ITO_OK || rc == ITO_ESTATE);
        if (rc == ITO_OK) atomic_fetch_add(&fires, 1);
        if ((i & 63) == 0 && ito_self() != NULL) CHECK_OK(ito_yield()); /* the ULT lets its worker run the entry */
    }
}

static void *foreign(void *arg)
{
    (void)arg;
    churn();
    return NULL;
}

static void *ult(void *arg)
{
    (void)arg;
    churn();
    return NULL;
}

static atomic_long sets;

static void *setter(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop)) {
        int rc = ito_entry_set(fr, 0, z, 1, ITO_MODE_USER);
        CHECK(rc == ITO_OK || rc == ITO_EBUSY);
        if (rc == ITO_OK) atomic_fetch_add(&sets, 1);
    }
    return NULL;
}

static void *firer(void *arg)
{
    (void)arg;
    for (int i = 0; !atomic_load(&stop); i++) {
        int rc = ito_continue(fr, 0);
        CHECK(rc == ITO_OK || rc == ITO_ESTATE);
        if (rc == ITO_OK) atomic_fetch_add(&fires, 1);
        if ((i & 63) == 0 && ito_self() != NULL) CHECK_OK(ito_yield());
    }
    return NULL;
}

static void settle(void)
{
    for (int i = 0; i < 2000 && atomic_load(&runs) < atomic_load(&fires); i++) CHECK_OK(ito_sleep_ns(1000 * 1000));
    CHECK_OK(ito_sleep_ns(20 * 1000 * 1000)); /* a run beyond the firings would show now */
    CHECK_EQ(atomic_load(&runs), atomic_load(&fires));
}

static void entry_set_race(void)
{
    atomic_store(&stop, 0);
    atomic_store(&runs, 0);
    atomic_store(&fires, 0);
    pthread_t p[2];
    CHECK_EQ(pthread_create(&p[0], NULL, setter, NULL), 0);
    CHECK_EQ(pthread_create(&p[1], NULL, firer, NULL), 0);
    ito_thread_t t;
    CHECK_OK(ito_create(&t, firer, NULL, NULL));
    CHECK_OK(ito_sleep_ns(500ull * 1000 * 1000));
    atomic_store(&stop, 1);
    for (int i = 0; i < 2; i++) CHECK_EQ(pthread_join(p[i], NULL), 0);
    CHECK_OK(ito_join(t, NULL));
    settle();
    CHECK(atomic_load(&sets) > 0);
}

static _Atomic uint64_t got;

static void keep(ito_frame_t *f, int e, uint64_t v)
{
    (void)f;
    (void)e;
    atomic_store(&got, v);
}

static void *two_values(void *arg)
{
    ito_frame_t *f = arg;
    CHECK_OK(ito_continue_value(f, 0, 111));
    CHECK_EQ(ito_continue_value(f, 0, 222), ITO_ESTATE); /* queued: refused, changes nothing */
    for (int i = 0; i < 1000 && atomic_load(&got) == 0; i++) CHECK_OK(ito_yield());
    return NULL;
}

static void refused_value(void)
{
    ito_frame_t *f;
    CHECK_OK(ito_frame_create(&f, 1, 0));
    CHECK_OK(ito_entry_set(f, 0, keep, 1, ITO_MODE_USER));
    ito_attr_t a;
    ito_attr_init(&a);
    a.worker = 0; /* with the entry's run on the same worker: it stays queued meanwhile */
    ito_thread_t t;
    CHECK_OK(ito_create(&t, two_values, f, &a));
    CHECK_OK(ito_join(t, NULL));
    for (int i = 0; i < 1000 && atomic_load(&got) == 0; i++) CHECK_OK(ito_sleep_ns(1000 * 1000));
    CHECK_EQ(atomic_load(&got), 111);
    CHECK_OK(ito_frame_destroy(f));
}

int main(void)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
    CHECK_OK(ito_frame_create(&fr, 1, 0));
    CHECK_OK(ito_entry_set(fr, 0, z, 1, ITO_MODE_USER));
    pthread_t p[2];
    for (int i = 0; i < 2; i++) CHECK_EQ(pthread_create(&p[i], NULL, foreign, NULL), 0);
    ito_attr_t a;
    ito_attr_init(&a);
    a.worker = 1;
    ito_thread_t t;
    CHECK_OK(ito_create(&t, ult, NULL, &a));
    CHECK_OK(ito_sleep_ns(1000ull * 1000 * 1000));
    atomic_store(&stop, 1);
    for (int i = 0; i < 2; i++) CHECK_EQ(pthread_join(p[i], NULL), 0);
    CHECK_OK(ito_join(t, NULL));
    /* every accepted firing runs once: wait for the last ones to run */
    for (int i = 0; i < 2000 && atomic_load(&runs) < atomic_load(&fires); i++) CHECK_OK(ito_sleep_ns(1000 * 1000));
    CHECK_EQ(atomic_load(&runs), atomic_load(&fires));
    CHECK(atomic_load(&fires) > 0);
    entry_set_race();
    CHECK_OK(ito_frame_destroy(fr));
    refused_value();
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
