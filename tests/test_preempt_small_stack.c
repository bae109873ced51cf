/* test_preempt_small_stack: signal preemption fits in what preempt.h asks a ULT to keep
 * free (about 4 KiB: "e.g. stacks of 16 KiB or more"). Found by a tester (2026-12-05) on
 * an Intel host with AMX: the full switch saved every XCR0 component, AMX tile data
 * included, though a process may use it only after ARCH_REQ_XCOMP_PERM: an 11 KB save
 * area on the ULT's stack, and 16 KiB ULTs with 2 KiB of their own frames in use died
 * with "stack overflow ... into the guard" at their first tick. The switch now saves what
 * the process may use. (On CPUs without AMX the old code passed too.) Release tree only:
 * the sanitizer trees refuse signal mode (preempt.h). */
#define _GNU_SOURCE
#include <string.h>

#include "ito/ito.h"
#include "ito_test.h"

#define USE 6144 /* bytes of the ULT's own frames: 16 KiB - 6 KiB leaves ~10 KiB for the tick */

static __attribute__((noinline)) void spin(uint64_t ns)
{
    uint64_t end = ito_now_ns() + ns;
    volatile long x = 0;
    while (ito_now_ns() < end) x++;
}

static void *ult(void *arg)
{
    char *buf = __builtin_alloca(USE);
    memset(buf, 1, USE);
    __asm__ volatile("" ::"r"(buf) : "memory");
    spin(100 * 1000 * 1000); /* 100 ms under 200 us ticks */
    return arg;
}

int main(void)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
    int rc = ito_preempt_enable(&(ito_preempt_config_t){.quantum_us = 200, .mode = ITO_PREEMPT_SIGNAL});
    if (rc == ITO_ENOSYS) { /* a static or sanitizer build: no signal mode */
        CHECK_OK(ito_finalize());
        TEST_DONE();
    }
    CHECK_OK(rc);
    ito_attr_t a;
    CHECK_OK(ito_attr_init(&a));
    a.stack_size = 16384;
    ito_thread_t t[4];
    for (int i = 0; i < 4; i++) CHECK_OK(ito_create(&t[i], ult, NULL, &a));
    for (int i = 0; i < 4; i++) CHECK_OK(ito_join(t[i], NULL));
    ito_preempt_stats_t s;
    CHECK_OK(ito_preempt_stats(&s));
    CHECK(s.preemptions > 0); /* the ticks did switch the ULTs out */
    CHECK_OK(ito_preempt_disable());
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
