/* test_zwt_mode_race: ito_entry_set of an entry whose ZWT is running (allowed: it is not
 * queued) while that ZWT continues a kernel-mode entry. The mode rule reads the running
 * ZWT's own mode (src/zwt/fire.c, caller_mode) and the set writes it: the read was a plain
 * load, a data race with the set's atomic store (ThreadSanitizer, 3 of 3 runs; found by an
 * outside tester, 2026-12-05). Here a foreign thread re-sets the running user-mode ZWT's
 * entry to the same definition while the ZWT keeps continuing a kernel-mode entry: every
 * continuation must be ITO_EPERM, and TSan must stay quiet. (The spinning ZWT holds its
 * worker, which may be main's: main waits by sleeping, and the setter is not a ULT.) */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>

#include <sched.h>

#include "ito/ito.h"
#include "ito_test.h"

static ito_frame_t *fr;
static atomic_int running, stop, left;
static atomic_long refused, other;

static void kern(ito_frame_t *f, int e, uint64_t v)
{
    (void)f;
    (void)e;
    (void)v;
}

static void spinner(ito_frame_t *f, int e, uint64_t v)
{
    (void)e;
    (void)v;
    atomic_store(&running, 1);
    while (!atomic_load(&stop)) {
        int rc = ito_continue(f, 1); /* user ZWT -> kernel entry */
        if (rc == ITO_EPERM) atomic_fetch_add(&refused, 1);
        else atomic_fetch_add(&other, 1);
    }
    atomic_store(&left, 1); /* no continuation after this: the frame may go */
}

static void *setter(void *arg)
{
    (void)arg;
    while (!atomic_load(&running)) sched_yield();
    for (int i = 0; i < 2000; i++) CHECK_OK(ito_entry_set(fr, 0, spinner, 1, ITO_MODE_USER));
    atomic_store(&stop, 1);
    return NULL;
}

int main(void)
{
    ito_config_t cfg = {.workers = 2};
    CHECK_OK(ito_init(&cfg));
    CHECK_OK(ito_frame_create(&fr, 2, 0));
    CHECK_OK(ito_entry_set(fr, 0, spinner, 1, ITO_MODE_USER));
    CHECK_OK(ito_entry_set(fr, 1, kern, 1, ITO_MODE_KERNEL));
    pthread_t t;
    CHECK(pthread_create(&t, NULL, setter, NULL) == 0);
    CHECK_OK(ito_continue(fr, 0));
    while (!atomic_load(&stop)) CHECK_OK(ito_sleep_ns(1000 * 1000));
    CHECK(pthread_join(t, NULL) == 0);
    /* the spinner may be on the other worker, between its look at stop and a continue: a
     * destroy then made that continue ITO_EINVAL (a CI run, 2026-12-05) */
    while (!atomic_load(&left)) CHECK_OK(ito_sleep_ns(100 * 1000));
    int rc;
    while ((rc = ito_frame_destroy(fr)) == ITO_EBUSY) CHECK_OK(ito_yield());
    CHECK_EQ(rc, ITO_OK);
    CHECK_OK(ito_finalize());
    CHECK(atomic_load(&refused) > 0);
    CHECK_EQ(atomic_load(&other), 0);
    TEST_DONE();
}
