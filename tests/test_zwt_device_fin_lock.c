/* test_zwt_device_fin_lock: ito_finalize's questions to the mechanisms (src/core/runtime.c
 * pending, holds) and a device table being set up (src/zwt/device.c setup) take their
 * locks in no conflicting order. Found by a reviewer on 2026-12-04: setup() adds the
 * device's fini ops under its tab_lock (tab_lock, then fini_lock), while finalize asked the
 * ops under fini_lock and the device's answer takes tab_lock (fini_lock, then tab_lock).
 * The ops outlive a runtime, so in a second ito_init lifetime they are there before the
 * table: a foreign thread that opened the lifetime's first device while main was in
 * ito_finalize (its quiet test asks holds() as soon as nothing is live) deadlocked with
 * it. The table's calloc is slowed here (tests/CMakeLists.txt links this test with
 * --wrap=calloc) so that finalize comes while setup holds tab_lock; a watchdog fails the
 * test instead of letting it hang. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

void *__real_calloc(size_t n, size_t m);
static _Atomic int slow, done;

void *__wrap_calloc(size_t n, size_t m);
void *__wrap_calloc(size_t n, size_t m)
{
    if (n == ITO_DEVICE_MAX && atomic_load(&slow)) usleep(200 * 1000); /* the table, under tab_lock */
    return __real_calloc(n, m);
}

static void handler(ito_frame_t *f, int e, uint64_t v)
{
    (void)f;
    (void)e;
    (void)v;
}

static ito_frame_t *frame;
static _Atomic int go, open_rc = 1;

static void *opener(void *arg)
{
    (void)arg;
    while (!atomic_load(&go)) usleep(100);
    ito_device_t *d;
    atomic_store(&open_rc, ito_device_timer(0, frame, 0, &d)); /* finalize may have closed: ITO_ESTATE */
    return NULL;
}

int main(void)
{
    pthread_t t;
    ito_test_watchdog(&done, 30, "test_zwt_device_fin_lock: deadlock (finalize and a device open stuck)");
    for (int workers = 1; workers <= 2; workers++) {
        /* a first lifetime uses a device: its fini ops are registered for good */
        CHECK_OK(ito_init(&(ito_config_t){.workers = workers}));
        ito_frame_t *f1;
        ito_device_t *d1;
        CHECK_OK(ito_frame_create(&f1, 1, 0));
        CHECK_OK(ito_entry_set(f1, 0, handler, 1, ITO_MODE_USER));
        CHECK_OK(ito_device_timer(0, f1, 0, &d1));
        CHECK_OK(ito_device_close(d1));
        CHECK_OK(ito_finalize());
        /* the next: a foreign thread opens its first device while main finalizes */
        CHECK_OK(ito_init(&(ito_config_t){.workers = workers}));
        CHECK_OK(ito_frame_create(&frame, 1, 0));
        CHECK_OK(ito_entry_set(frame, 0, handler, 1, ITO_MODE_USER));
        atomic_store(&go, 0);
        atomic_store(&slow, 1);
        CHECK_EQ(pthread_create(&t, NULL, opener, NULL), 0);
        atomic_store(&go, 1);
        usleep(50 * 1000); /* the opener is in setup(), holding tab_lock */
        CHECK_OK(ito_finalize());
        CHECK_EQ(pthread_join(t, NULL), 0);
        atomic_store(&slow, 0);
        CHECK(atomic_load(&open_rc) == ITO_OK || atomic_load(&open_rc) == ITO_ESTATE);
    }
    atomic_store(&done, 1);
    TEST_DONE();
}
