/* test_preempt_own_malloc: a program that defines malloc itself (a statically linked
 * allocator, a counting or tracing wrapper) has its allocator in the executable, i.e. in
 * "the program's own code" for signal preemption. libito allocates with malloc in places
 * where it holds one of its spinlocks (the stack classes' lock while it maps a region of
 * stacks, stack.c map_region, reached from ito_create). A tick inside the program's malloc
 * called from there must not switch the ULT out with libito's lock held.
 *
 * Written by an outside tester, h63e, 2026-12-06. ULTs A and B on worker 0 create and
 * join ULTs of several stack sizes in fresh runtimes (so that stack regions are mapped
 * again), under a 100 us quantum, with a malloc that spins tens of microseconds; each
 * first makes the runtime's first ZWT device (its table is allocated under the device
 * table's lock: the same hang, found by a review of h63e's fix, 2026-12-06). A
 * watchdog (ito_test.h) ends the process with a failure after 60 s (a hang). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static _Atomic int slow_alloc;

ITO_TEST_DEFINE_SLOW_MALLOC(slow_alloc)

static void *leaf(void *arg) { return arg; }

static void handler(ito_frame_t *f, int entry, uint64_t value)
{
    (void)f;
    (void)entry;
    (void)value;
}

/* The runtime's first device: its table is allocated under the device table's lock
 * (src/zwt/device.c setup), with the program's calloc. */
static void first_device(void)
{
    ito_test_device_open_close(handler);
}

static void *creator(void *arg)
{
    (void)arg;
    first_device();
    for (int c = 0; c < 7; c++) {
        ito_attr_t at;
        CHECK_OK(ito_attr_init(&at));
        at.stack_size = (size_t)16384 << c;
        for (int i = 0; i < 20; i++) {
            ito_thread_t t;
            CHECK_OK(ito_create(&t, leaf, NULL, &at));
            CHECK_OK(ito_join(t, NULL));
        }
    }
    return NULL;
}


static atomic_int done_;

int main(void)
{
    /* the failure is a hang: a worker stuck for ever */
    ito_test_watchdog(&done_, 60, "a ULT was switched out in the program's malloc with a runtime lock held");
    for (int round = 0; round < 60; round++) {
        if (!ito_test_start_signal_preempt(&(ito_config_t){.workers = 1 + round % 2}, 100)) break;
        atomic_store(&slow_alloc, 1);
        ito_attr_t at;
        CHECK_OK(ito_attr_init(&at));
        at.worker = 0;
        ito_thread_t a, b;
        CHECK_OK(ito_create(&a, creator, NULL, &at));
        CHECK_OK(ito_create(&b, creator, NULL, &at));
        CHECK_OK(ito_join(a, NULL));
        CHECK_OK(ito_join(b, NULL));
        atomic_store(&slow_alloc, 0);
        CHECK_OK(ito_preempt_disable());
        CHECK_OK(ito_finalize());
    }
    atomic_store(&done_, 1);
    TEST_DONE();
}
