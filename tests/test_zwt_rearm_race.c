/* test_zwt_rearm_race: one ZWT entry re-armed and continued from several threads at once
 * runs exactly once per accepted firing (src/zwt/fire.c, the sync word's ITOI_ZS_QUEUED).
 * Two foreign threads and a ULT bound to worker 1 each loop ito_rearm(f, 0, 0) then
 * ito_continue(f, 0) for 1 s. Found by a misuse test (2026-12-03): the continuation that
 * took the last count set `queued` only afterwards, so a re-arm and a continuation from
 * another thread in that gap made the entry ready a second time; it ran more often than it
 * was fired (593,528 firings, 1,988,680 runs) and the run queue broke (SEGV). */
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
    CHECK_OK(ito_frame_destroy(fr));
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
