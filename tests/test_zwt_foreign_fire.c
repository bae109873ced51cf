/* test_zwt_foreign_fire: continuations from foreign threads and ito_finalize.
 *
 * 1. A ZWT made ready by a foreign thread in one runtime does not count as live work in
 *    the next: before, the foreign-fired count was never reset, and every later
 *    ito_finalize (of every later runtime) returned ITO_EBUSY.
 * 2. A foreign thread fires an entry again and again while main finalizes: each call
 *    either fires (ITO_OK, and the ZWT runs before finalize returns) or is refused
 *    (ITO_ESTATE while it closes, ITO_EINVAL once it is gone: its frames are stale), never touches freed memory (ASan/TSan
 *    trees), and no firing is lost. Before, ito_continue from a foreign thread did not
 *    enter the runtime: a firing racing finalize's teardown queued its ZWT on a freed
 *    worker (lost, or a use-after-free). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "ito/ito.h"
#include "ito_test.h"

static _Atomic unsigned long runs, oks;
static _Atomic int stop;

/* Re-arms itself, so that it can fire again. */
static void handler(ito_frame_t *f, int entry, uint64_t value)
{
    (void)value;
    atomic_fetch_add(&runs, 1);
    CHECK_OK(ito_rearm(f, entry, 0));
}

static void *firer(void *arg)
{
    ito_frame_t *f = arg;
    /* Until main has finalized (and a bit beyond, through the teardown); at most 20 s,
     * so that a finalize that never finds a quiet moment still ends (counts, not times:
     * the bound only keeps a livelock from hanging the test) */
    uint64_t t0 = ito_test_now_ns();
    for (long i = 0; !atomic_load(&stop) && (i % 1024 || ito_test_now_ns() - t0 < 20000000000u); i++) {
        int rc = ito_continue(f, 0);
        if (rc == ITO_OK) atomic_fetch_add(&oks, 1);
        else CHECK(rc == ITO_ESTATE || rc == ITO_EINVAL); /* not yet re-armed, the runtime
                                                            * closing (ESTATE) or gone (EINVAL:
                                                            * its frames are stale) */
    }
    return NULL;
}

static void *fire_once(void *arg)
{
    CHECK_OK(ito_continue((ito_frame_t *)arg, 0));
    return NULL;
}

int main(void)
{
    setenv("ITO_FINALIZE_GRACE_MS", "50", 1);
    /* 1 */
    CHECK_OK(ito_init(NULL));
    ito_frame_t *f;
    CHECK_OK(ito_frame_create(&f, 1, 0));
    CHECK_OK(ito_entry_set(f, 0, handler, 1, ITO_MODE_USER));
    pthread_t p;
    CHECK_EQ(pthread_create(&p, NULL, fire_once, f), 0);
    CHECK_EQ(pthread_join(p, NULL), 0);
    CHECK_OK(ito_finalize()); /* waits for the ZWT */
    CHECK_EQ(atomic_load(&runs), 1);
    for (int i = 0; i < 3; i++) { /* the later runtimes hold no phantom work */
        CHECK_OK(ito_init(NULL));
        CHECK_OK(ito_finalize());
    }

    /* 2 */
    for (int round = 0; round < 20; round++) {
        atomic_store(&runs, 0);
        atomic_store(&oks, 0);
        atomic_store(&stop, 0);
        CHECK_OK(ito_init(NULL));
        CHECK_OK(ito_frame_create(&f, 1, 0));
        CHECK_OK(ito_entry_set(f, 0, handler, 1, ITO_MODE_USER));
        CHECK_EQ(pthread_create(&p, NULL, firer, f), 0);
        while (atomic_load(&oks) < 100) ito_yield();
        int rc = ito_finalize();
        if (rc == ITO_EBUSY) { /* not expected, but not a crash either: finalize again */
            atomic_store(&stop, 1);
            CHECK_EQ(pthread_join(p, NULL), 0);
            CHECK_OK(ito_finalize());
        } else {
            CHECK_OK(rc);
            ito_test_sleep_us(1000); /* the firer keeps calling into the finalized runtime */
            atomic_store(&stop, 1);
            CHECK_EQ(pthread_join(p, NULL), 0);
        }
        /* every accepted firing ran before finalize returned; later calls are refused */
        CHECK_EQ(atomic_load(&runs), atomic_load(&oks));
        CHECK_EQ(ito_continue(f, 0), ITO_EINVAL);
    }
    TEST_DONE();
}
