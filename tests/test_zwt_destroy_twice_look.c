/* test_zwt_destroy_twice_look: two ito_frame_destroy calls of one frame at once while a
 * ULT's ito_frame_wait on it still looks at the frame (its post action delayed 50 ms by
 * ITO_FAULT_WAITPOST=1, as if the OS had descheduled its worker there). The first destroy
 * marks the frame FREE and waits for the look (zwt.h); the second finds the first's DEAD
 * mark, waits for the magic to leave LIVE, and then asks again while the frame's tag is
 * still set. Promised: one destroy says ITO_OK, the other ITO_EINVAL, the wait ends with
 * ITO_EINVAL, nothing crashes. Outside tester h64g, 2026-12-06. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "ito/ito.h"
#include "ito_test.h"

static ito_frame_t *fa;
static _Atomic int started, wait_rc = -1000, rcs[2];

static void *waiter(void *unused)
{
    (void)unused;
    atomic_store(&started, 1);
    atomic_store(&wait_rc, ito_frame_wait(fa, 0));
    return NULL;
}

static void *destroyer(void *arg)
{
    long i = (long)arg;
    while (!atomic_load(&started)) ito_test_sleep_us(1000);
    ito_test_sleep_us(5000); /* W looks at A and sleeps before its install */
    atomic_store(&rcs[i], ito_frame_destroy(fa));
    return NULL;
}

int main(void)
{
    static atomic_int done;
    ito_test_watchdog(&done, 30, "test_zwt_destroy_twice_look");
    setenv("ITO_FAULT_WAITPOST", "1", 1);
    CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
    CHECK_OK(ito_frame_create(&fa, 4, 0));
    for (int i = 0; i < 4; i++) CHECK_OK(ito_entry_set(fa, i, NULL, 1, ITO_MODE_USER));
    ito_thread_t w;
    CHECK_OK(ito_create(&w, waiter, NULL, NULL));
    pthread_t d[2];
    for (long i = 0; i < 2; i++) pthread_create(&d[i], NULL, destroyer, (void *)i);
    CHECK_OK(ito_join(w, NULL));
    for (int i = 0; i < 2; i++) pthread_join(d[i], NULL);
    int a = atomic_load(&rcs[0]), b = atomic_load(&rcs[1]);
    printf("destroys %d %d, wait %d\n", a, b, atomic_load(&wait_rc));
    CHECK((a == ITO_OK && b == ITO_EINVAL) || (a == ITO_EINVAL && b == ITO_OK));
    CHECK_EQ(atomic_load(&wait_rc), ITO_EINVAL);
    CHECK_OK(ito_finalize());
    atomic_store(&done, 1);
    TEST_DONE();
}
