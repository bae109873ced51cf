/* test_preempt_psafe_callout: a preemption-safe region that ends in code libito called out to
 * (the program's own allocator, called by libito holding one of its spinlocks) does not
 * switch the ULT out there.
 *
 * Found by an outside tester, h76c, 2026-12-07: preempt.h advises a region around a kernel
 * lock, and an allocator the program defines is the first place a program puts one. A
 * tick inside the region delays the switch to ito_psafe_end, which switched at once,
 * whoever had called the allocator: libito allocates the ZWT device table with calloc
 * holding the table's spinlock (src/zwt/device.c), and a ULT switched out there left the
 * next ULT of its worker spinning on the lock for ever (3 runs of 3 hung). The tick's own
 * switch is held off there already (test_preempt_own_malloc); the region's end was not.
 *
 * test_preempt_own_malloc's rounds, with an allocator whose slow part is inside a region.
 * A watchdog (ito_test.h) ends the process with a failure after 60 s (a hang). In the
 * sanitizer trees, whose runtimes define the allocator, signal mode is refused and the
 * allocator is glibc's: the rounds run without preemption. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static atomic_int slow_alloc;

#if !ITO_TEST_SANITIZED
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
/* the slow part in a region (ITO_ENOTULT outside a ULT: no region then) */
static int region_begin(void)
{
    int r = ito_psafe_begin();
    if (atomic_load_explicit(&slow_alloc, memory_order_relaxed)) ito_test_spin(30000);
    return r;
}
static void region_end(int r)
{
    if (r == ITO_OK) ito_psafe_end();
}
void *malloc(size_t n)
{
    int r = region_begin();
    void *p = __libc_malloc(n);
    region_end(r);
    return p;
}
void *calloc(size_t n, size_t m)
{
    int r = region_begin();
    void *p = __libc_calloc(n, m);
    region_end(r);
    return p;
}
void *realloc(void *q, size_t n)
{
    int r = region_begin();
    void *p = __libc_realloc(q, n);
    region_end(r);
    return p;
}
void free(void *p) { __libc_free(p); }
#endif

static atomic_int done_;

int main(void)
{
    /* the failure is a hang: a worker stuck for ever */
    ito_test_watchdog(&done_, 60, "a region's end switched a ULT out in the program's malloc with a runtime lock held");
    ito_test_own_malloc_rounds(&slow_alloc);
    atomic_store(&done_, 1);
    TEST_DONE();
}
