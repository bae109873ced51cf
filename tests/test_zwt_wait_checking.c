/* test_zwt_wait_checking: a ULT's ito_frame_wait post action (src/zwt/fire.c, wait_post)
 * installs the ULT in the entry's waiter word as "checking" (zwt.h, ITOI_ZW_CHECKING) and
 * then checks its frame's life and the entry's code; a firing meanwhile readies the ULT
 * at once, and it may run on another worker before the post action ends. After that the
 * post action must not touch the ULT or its stack: it is no longer the post action's.
 * ITO_FAULT_WAITPOST=1 (failure-injection builds) makes the first post action sleep 50 ms
 * before its install and 50 ms right after it, as if the OS had descheduled its worker:
 *  - W (unbound) waits on entry 0; its worker sleeps in the post action;
 *  - a foreign thread fires entry 0: W is readied (to the idle worker), its wait returns
 *    ITO_OK, and W waits on entry 1 (a live code-less entry of the same frame);
 *  - the foreign thread gives entry 0 code (ito_entry_set; the word is FIRED, not
 *    checking, so the set goes through), waits out the 50 ms and fires entry 1.
 * W's second wait must say ITO_OK. Found by an outside tester, h64a, 2026-12-06 (review of
 * 328163e): the post action, back from its check, saw the entry's new code and wrote
 * ITO_EINVAL into W's wait result before its back-out CAS (which then failed: fired), so
 * W's second wait, on another entry, returned ITO_EINVAL (every run without the fix); it
 * also re-read the wait's handle and frame from W's stack after W had run on. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "ito/ito.h"
#include "ito_test.h"

static ito_frame_t *fr;
static _Atomic int started, rc1 = -1000, rc2 = -1000, second;

static void code(ito_frame_t *f, int entry, uint64_t v)
{
    (void)f;
    (void)entry;
    (void)v;
}

static void *waiter(void *unused)
{
    (void)unused;
    atomic_store(&started, 1);
    atomic_store(&rc1, ito_frame_wait(fr, 0)); /* its post action sleeps 50 ms, installed */
    atomic_store(&second, 1);
    atomic_store(&rc2, ito_frame_wait(fr, 1));
    return NULL;
}

static void *firer(void *unused)
{
    (void)unused;
    while (!atomic_load(&started)) ito_test_sleep_us(1 * 1000);
    ito_test_sleep_us(70 * 1000); /* W's worker is in the post action's window after the install now */
    CHECK_OK(ito_continue(fr, 0)); /* readies W, to the other worker */
    for (int i = 0; i < 20 && !atomic_load(&second); i++) ito_test_sleep_us(1 * 1000);
    int rc = ito_entry_set(fr, 0, code, 1, ITO_MODE_USER); /* the word is FIRED: not checking */
    CHECK(rc == ITO_OK || rc == ITO_EBUSY);
    ito_test_sleep_us(80 * 1000); /* the window is over */
    CHECK_OK(ito_continue(fr, 1));
    return NULL;
}

int main(void)
{
    CHECK_OK(setenv("ITO_FAULT_WAITPOST", "1", 1));
    CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
    CHECK_OK(unsetenv("ITO_FAULT_WAITPOST"));
    CHECK_OK(ito_frame_create(&fr, 2, 0));
    CHECK_OK(ito_entry_set(fr, 0, NULL, 1, ITO_MODE_USER));
    CHECK_OK(ito_entry_set(fr, 1, NULL, 1, ITO_MODE_USER));
    ito_thread_t w;
    CHECK_OK(ito_create(&w, waiter, NULL, NULL)); /* unbound */
    pthread_t p;
    CHECK(pthread_create(&p, NULL, firer, NULL) == 0);
    CHECK_OK(ito_join(w, NULL));
    CHECK(pthread_join(p, NULL) == 0);
    printf("first wait %d, second wait %d (second began: %d)\n", atomic_load(&rc1), atomic_load(&rc2),
           atomic_load(&second));
    CHECK_EQ(atomic_load(&rc1), ITO_OK);
    CHECK_EQ(atomic_load(&rc2), ITO_OK);
    CHECK_OK(ito_frame_destroy(fr));
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
