/* test_zwt_wait_reuse: a ULT waits in ito_frame_wait on a code-less entry; a ULT on
 * another worker fires the entry, destroys the frame and at once creates a new one,
 * which reuses the destroyed frame's memory (the worker's pool). Every wait ends, with
 * ITO_OK (the firing) or ITO_EINVAL (the frame was destroyed before the wait looked at
 * it), never in the next life's entry; and the waiter's park (its post action re-reads
 * the entry after installing itself) does not race the new life's initialization (the
 * TSan tree checks that). Some rounds let the waiter park first, others fire at once.
 * Found 2026-12-05 while writing a test for a TSan report of an outside tester (h61):
 * - a frame's new life cleared its entries with memset while a waiter's post action could
 *   still read the old life's code (a data race; fails about 1 run in 3 under TSan);
 * - a waiter that looked at the entry before the destroy installed itself after it, in
 *   the new life's entry, and waited for ever (2 runs in 6 hung under TSan). A destroy now
 *   holds every entry's waiter word (DEAD) before it ends the frame, and a waiter that
 *   installed itself checks its frame's generation.
 * - (2026-12-06) such a waiter of the old life, installed in the new life's entry while it
 *   checked the generation, made ito_entry_set on the new frame say ITO_EBUSY (2 to 4 runs
 *   in 40 in the ASan tree under load; 3 in 40 with two CPU hogs). A waiter now installs
 *   itself as "checking" and a set waits that out (src/zwt/zwt.h, ITOI_ZW_CHECKING). */
#include <stdatomic.h>
#include <stdint.h>

#include "ito/ito.h"
#include "ito_test.h"

#define ROUNDS 300

static ito_frame_t *_Atomic frame;
static _Atomic int waiting, wait_rc, n_einval;
static int r_round; /* the round (main writes it before creating the round's ULTs) */

static void *waiter(void *unused)
{
    (void)unused;
    ito_frame_t *f = atomic_load(&frame);
    atomic_store(&waiting, 1);
    atomic_store(&wait_rc, ito_frame_wait(f, 0));
    return NULL;
}

static void *firer(void *unused)
{
    (void)unused;
    while (!atomic_load(&waiting)) (void)ito_yield();
    if (r_round % 8 == 7) CHECK_OK(ito_sleep_ns(50000)); /* the waiter parks first */
    else for (volatile int s = 0; s < (r_round % 7) * 300; s++) {} /* it parks at times, or not yet */
    ito_frame_t *f = atomic_load(&frame), *g;
    CHECK_OK(ito_continue(f, 0));
    int rc;
    while ((rc = ito_frame_destroy(f)) == ITO_EBUSY) (void)ito_yield(); /* the firing settles */
    CHECK_OK(rc);
    CHECK_OK(ito_frame_create(&g, 1, 0)); /* this worker's pool: the same memory */
    CHECK_OK(ito_entry_set(g, 0, NULL, 1, ITO_MODE_USER));
    atomic_store(&frame, g);
    return NULL;
}

int main(void)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 2})); /* the waiter on one, the firer on the other */
    ito_frame_t *f0;
    CHECK_OK(ito_frame_create(&f0, 1, 0));
    CHECK_OK(ito_entry_set(f0, 0, NULL, 1, ITO_MODE_USER));
    atomic_store(&frame, f0);
    for (int r = 0; r < ROUNDS; r++) {
        r_round = r;
        atomic_store(&waiting, 0);
        atomic_store(&wait_rc, -1000);
        ito_thread_t t[2];
        ito_attr_t a;
        CHECK_OK(ito_attr_init(&a));
        a.worker = 0;
        CHECK_OK(ito_create(&t[0], waiter, NULL, &a));
        a.worker = 1;
        CHECK_OK(ito_create(&t[1], firer, NULL, &a));
        for (int i = 0; i < 2; i++) CHECK_OK(ito_join(t[i], NULL));
        int rc = atomic_load(&wait_rc);
        if (rc == ITO_EINVAL) atomic_fetch_add(&n_einval, 1);
        else CHECK_EQ(rc, ITO_OK);
    }
    printf("waits: %d ended ITO_OK, %d ITO_EINVAL (destroyed before they looked)\n", ROUNDS - atomic_load(&n_einval),
           atomic_load(&n_einval));
    CHECK_OK(ito_frame_destroy(atomic_load(&frame)));
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
