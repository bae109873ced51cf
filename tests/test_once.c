/* test_once: ito_once runs its function exactly once while ULTs on all workers call it
 * at the same time, and every caller returns only after it has finished; a recursive call
 * gets ITO_EDEADLK; a foreign thread runs it (before ito_init too), gets ITO_OK once it is
 * done, and ITO_ENOTULT when it would have to wait; errors. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "ito/ito.h"
#include "ito_test.h"

static ito_once_t once = ITO_ONCE_INIT;
static _Atomic int runs;
static int value; /* written by the function, read by every caller after ito_once */

static void init_slowly(void)
{
    atomic_fetch_add(&runs, 1);
    for (int i = 0; i < 20; i++) ito_yield(); /* let the others pile up behind */
    value = 42;
}

static void *caller(void *arg)
{
    (void)arg;
    CHECK_OK(ito_once(&once, init_slowly));
    CHECK_EQ(value, 42);
    return NULL;
}

static void check_concurrent(void)
{
    ito_thread_t t[16];
    for (int i = 0; i < 16; i++) CHECK_OK(ito_create(&t[i], caller, NULL, NULL));
    for (int i = 0; i < 16; i++) CHECK_OK(ito_join(t[i], NULL));
    CHECK_EQ(atomic_load(&runs), 1);
    CHECK_OK(ito_once(&once, init_slowly));
    CHECK_EQ(atomic_load(&runs), 1);
}

static ito_once_t rec = ITO_ONCE_INIT;
static int rec_rc = 1;
static void recursive(void) { rec_rc = ito_once(&rec, recursive); }

/* A foreign thread that finds the function running gets ITO_ENOTULT. */
static ito_once_t slow = ITO_ONCE_INIT;
static _Atomic int slow_started, slow_release;
static void held(void)
{
    atomic_store(&slow_started, 1);
    while (!atomic_load(&slow_release)) ito_yield();
}
static void *runs_held(void *arg)
{
    (void)arg;
    CHECK_OK(ito_once(&slow, held));
    return NULL;
}
static void *foreign_while_running(void *arg)
{
    (void)arg;
    return (void *)(intptr_t)ito_once(&slow, held);
}

static ito_once_t early = ITO_ONCE_INIT;
static int early_runs;
static void early_fn(void) { early_runs++; }

static void *foreign_after(void *arg)
{
    (void)arg;
    return (void *)(intptr_t)ito_once(&once, init_slowly); /* done: ITO_OK at once */
}

static void check_foreign_and_errors(void)
{
    CHECK_EQ(ito_once(NULL, early_fn), ITO_EINVAL);
    CHECK_EQ(ito_once(&early, NULL), ITO_EINVAL);
    CHECK_OK(ito_once(&rec, recursive));
    CHECK_EQ(rec_rc, ITO_EDEADLK);
    pthread_t pt;
    void *r;
    CHECK_EQ(pthread_create(&pt, NULL, foreign_after, NULL), 0);
    CHECK_EQ(pthread_join(pt, &r), 0);
    CHECK_EQ((intptr_t)r, ITO_OK);
    ito_thread_t t;
    CHECK_OK(ito_create(&t, runs_held, NULL, NULL));
    while (!atomic_load(&slow_started)) CHECK_OK(ito_yield());
    CHECK_EQ(pthread_create(&pt, NULL, foreign_while_running, NULL), 0);
    CHECK_EQ(pthread_join(pt, &r), 0);
    CHECK_EQ((intptr_t)r, ITO_ENOTULT);
    atomic_store(&slow_release, 1);
    CHECK_OK(ito_join(t, NULL));
}

int main(void)
{
    /* Before ito_init the caller is a plain thread: the function runs there. */
    CHECK_OK(ito_once(&early, early_fn));
    CHECK_OK(ito_once(&early, early_fn));
    CHECK_EQ(early_runs, 1);
    CHECK_OK(ito_init(NULL));
    check_concurrent();
    check_foreign_and_errors();
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
