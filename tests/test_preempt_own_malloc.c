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

static atomic_int slow_alloc;

ITO_TEST_DEFINE_SLOW_MALLOC(slow_alloc)

static atomic_int done_;

int main(void)
{
    /* the failure is a hang: a worker stuck for ever */
    ito_test_watchdog(&done_, 60, "a ULT was switched out in the program's malloc with a runtime lock held");
    ito_test_own_malloc_rounds(&slow_alloc);
    atomic_store(&done_, 1);
    TEST_DONE();
}
