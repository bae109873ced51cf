/* test_once_lazy_init: an fn that starts or stops the runtime (lazy initialisation through
 * ito_once) and then calls ito_once on its own object gets ITO_EDEADLK (sync.h): main before
 * ito_init and main as the main ULT are one caller. Found by an outside tester (h58c,
 * 2026-12-05): the runner was recorded as the plain thread and the nested call came from
 * the main ULT, which waited for itself for ever; the other way round (fn runs in main, calls
 * ito_finalize) it got ITO_ENOTULT. Other callers are still other callers: a ZWT on
 * worker 0 (main's kernel thread) that finds main's fn running gets ITO_ENOTULT, and a
 * ULT waits for it. */
#include <stdatomic.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static ito_once_t once_init = ITO_ONCE_INIT, once_fini = ITO_ONCE_INIT, once_shared = ITO_ONCE_INIT;
static int nested_init = 99, nested_fini = 99;
static _Atomic int zwt_rc = 99, zwt_ran, ult_done;

static void noop(void) {}

static void starts_runtime(void)
{
    ito_config_t cfg = {.workers = 1}; /* the ZWT below runs on main's kernel thread */
    CHECK_OK(ito_init(&cfg));
    nested_init = ito_once(&once_init, noop);
}

static void stops_runtime(void)
{
    CHECK_OK(ito_finalize());
    nested_fini = ito_once(&once_fini, noop);
}

static void zwt_body(ito_frame_t *f, int e, uint64_t v)
{
    (void)f;
    (void)e;
    (void)v;
    atomic_store(&zwt_rc, ito_once(&once_shared, noop));
    atomic_store(&zwt_ran, 1);
}

static void *ult_caller(void *arg)
{
    (void)arg;
    CHECK_OK(ito_once(&once_shared, noop)); /* waits for main's fn */
    atomic_store(&ult_done, 1);
    return NULL;
}

/* main runs this fn; while it yields, a ZWT and a ULT call ito_once on the same object */
static ito_thread_t shared_ult;
static void shared_fn(void)
{
    ito_frame_t *f;
    CHECK_OK(ito_create(&shared_ult, ult_caller, NULL, NULL));
    CHECK_OK(ito_frame_create(&f, 1, 0));
    CHECK_OK(ito_entry_set(f, 0, zwt_body, 1, ITO_MODE_USER));
    CHECK_OK(ito_continue(f, 0));
    for (int i = 0; i < 1000000 && !atomic_load(&zwt_ran); i++) ito_yield();
    CHECK(atomic_load(&zwt_ran));
    CHECK_EQ(atomic_load(&zwt_rc), ITO_ENOTULT); /* another caller, not a ULT */
    for (int i = 0; i < 100; i++) ito_yield();
    CHECK(!atomic_load(&ult_done)); /* it waits for this fn */
    while (ito_frame_destroy(f) != ITO_OK) ito_yield();
}

int main(void)
{
    alarm(30); /* the bug was a wait for ever */
    /* fn starts the runtime: the nested call comes from the main ULT */
    CHECK_OK(ito_once(&once_init, starts_runtime));
    CHECK_EQ(nested_init, ITO_EDEADLK);
    CHECK_OK(ito_once(&once_init, noop)); /* done */

    CHECK_OK(ito_once(&once_shared, shared_fn));
    CHECK_OK(ito_join(shared_ult, NULL));
    CHECK(atomic_load(&ult_done));

    /* fn stops the runtime: the nested call comes from the plain thread */
    CHECK_OK(ito_once(&once_fini, stops_runtime));
    CHECK_EQ(nested_fini, ITO_EDEADLK);
    CHECK_EQ(ito_initialized(), 0);
    TEST_DONE();
}
