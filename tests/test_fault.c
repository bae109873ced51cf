/* test_fault: failure injection (src/core/fault.c). ITO_FAULT_MMAP=N / ITO_FAULT_MALLOC=N,
 * read at ito_init, make the Nth mmap / malloc from then on fail. For a range of N:
 *  - ito_init either succeeds or returns ITO_ENOMEM and leaves the runtime off (and a
 *    later ito_init works);
 *  - creations and stream creations return ITO_ENOMEM cleanly, at most once per run
 *    (only the Nth call fails), every ULT that was created runs and joins with its
 *    value, and the runtime stays usable after the failure;
 *  - ito_finalize frees everything: LeakSanitizer checks the heap in the ASan tree,
 *    and in the other trees the process's mappings are counted before and after.
 * With one worker the order of allocations is deterministic, so the exact call that
 * fails is checked too: mmap #1 (scheduler stack) and #2 (signal stack) are ito_init's,
 * mmap #3 is the first region of ULT stacks (stacks are carved from regions of 16, 32,
 * 64 ... slots, so the 150 ULTs below map a handful, ahead of need); malloc #1 is the worker array, #2
 * the first descriptor slab. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "ito/ito.h"
#include "ito_test.h"

#define ULTS 400 /* more than two descriptor slabs (one 64 KiB arena chunk each: 178 in a release build), and that many stacks */

static void *ret_arg(void *a) { return a; }

typedef struct {
    int init_rc;     /* what ito_init returned */
    int first_fail;  /* index of the first ito_create that failed, or -1 */
    int failures;    /* ITO_ENOMEM results from ito_create and ito_stream_create */
} outcome_t;

static outcome_t run_once(const char *var, int n, int workers)
{
    outcome_t o = {0, -1, 0};
    char val[16];
    snprintf(val, sizeof val, "%d", n);
    CHECK_OK(setenv(var, val, 1));
    ito_config_t cfg = {.workers = workers};
    o.init_rc = ito_init(&cfg);
    CHECK_OK(unsetenv(var)); /* read at ito_init only */
    if (o.init_rc != ITO_OK) {
        CHECK_EQ(o.init_rc, ITO_ENOMEM);
        CHECK_EQ(ito_initialized(), 0);
        CHECK_EQ(ito_create(&(ito_thread_t){0}, ret_arg, NULL, NULL), ITO_ESTATE);
        return o;
    }
    static ito_thread_t t[ULTS];
    static int made[ULTS];
    for (int i = 0; i < ULTS; i++) {
        ito_attr_t a;
        CHECK_OK(ito_attr_init(&a));
        if (i % 10 == 9) a.stack_size = 20 * 1024; /* another size class: regions of its own */
        int rc = ito_create(&t[i], ret_arg, (void *)(intptr_t)i, &a);
        made[i] = rc == ITO_OK;
        if (rc != ITO_OK) {
            CHECK_EQ(rc, ITO_ENOMEM);
            if (o.first_fail < 0) o.first_fail = i;
            o.failures++;
        }
        if (i % 50 == 49) {
            ito_stream_t *s;
            rc = ito_stream_create(&s, 64);
            if (rc == ITO_OK) {
                CHECK_OK(ito_stream_destroy(s));
            } else {
                CHECK_EQ(rc, ITO_ENOMEM);
                o.failures++;
            }
        }
    }
    for (int i = 0; i < ULTS; i++) {
        if (!made[i]) continue;
        void *r;
        CHECK_OK(ito_join(t[i], &r));
        CHECK_EQ((intptr_t)r, i);
    }
    CHECK(o.failures <= 1); /* only the Nth call fails */
    /* Still usable: create and join a few more. */
    for (int i = 0; i < 5; i++) {
        ito_thread_t u;
        void *r;
        CHECK_OK(ito_create(&u, ret_arg, (void *)(intptr_t)(1000 + i), NULL));
        CHECK_OK(ito_join(u, &r));
        CHECK_EQ((intptr_t)r, 1000 + i);
    }
    CHECK_OK(ito_finalize());
    return o;
}

int main(void)
{
#if defined(ITOI_ASAN) || defined(ITOI_TSAN)
    const int check_maps = 0; /* the sanitizers' own allocators map memory lazily */
#else
    const int check_maps = 1;
#endif
    /* Warm up once (lazy mappings of libc and the first pthreads), then count. */
    CHECK_EQ(run_once("ITO_FAULT_MMAP", 0, 2).init_rc, ITO_OK);
    CHECK_EQ(run_once("ITO_FAULT_MMAP", 0, 1).init_rc, ITO_OK);
    int maps0 = ito_test_count_mappings();

    /* Deterministic: one worker. Every mmap of the run fails once, in turn, until N is
     * past the last one the run makes. */
    int mmap_enomem = 0, malloc_enomem = 0, region_failures = 0;
    for (int n = 1; n <= 40; n++) {
        outcome_t o = run_once("ITO_FAULT_MMAP", n, 1);
        if (n <= 2) {
            CHECK_EQ(o.init_rc, ITO_ENOMEM); /* scheduler stack, signal stack */
        } else {
            CHECK_OK(o.init_rc);
            CHECK(o.failures <= 1);
            region_failures += o.failures;
        }
        if (n == 3) CHECK_EQ(o.first_fail, 0); /* the first region of stacks */
        mmap_enomem += o.failures + (o.init_rc != ITO_OK);
        if (check_maps) CHECK_EQ(ito_test_count_mappings(), maps0);
    }
    /* The first region of each of the two classes is mapped when its first ULT is
     * created, and that create fails. Later regions are mapped ahead of need (a worker
     * takes stack credits in batches), so a failure there only shortens the batch: the
     * create it happens in still gets its credit, and the next batch maps again. */
    CHECK(region_failures >= 2);
    for (int n = 1; n <= 12; n++) {
        outcome_t o = run_once("ITO_FAULT_MALLOC", n, 1);
        if (n == 1) CHECK_EQ(o.init_rc, ITO_ENOMEM); /* the worker array */
        else CHECK_OK(o.init_rc);
        if (n == 2) CHECK_EQ(o.first_fail, 0); /* the first descriptor slab */
        malloc_enomem += o.failures + (o.init_rc != ITO_OK);
        if (check_maps) CHECK_EQ(ito_test_count_mappings(), maps0);
    }
    CHECK(mmap_enomem >= 4); /* ito_init twice, the first region of each class */
    CHECK(malloc_enomem >= 3);

    /* Two and four workers: the workers' own signal stacks race with the first ULT
     * stacks for the Nth mmap, so only the clean-failure properties are checked. */
    for (int w = 2; w <= 4; w += 2) {
        for (int n = 1; n <= 16; n++) {
            outcome_t o = run_once(n % 2 ? "ITO_FAULT_MMAP" : "ITO_FAULT_MALLOC", (n + 1) / 2 * 3 - 2, w);
            CHECK(o.init_rc == ITO_OK || o.init_rc == ITO_ENOMEM);
        }
    }
    printf("mmap failures injected: %d, malloc failures: %d; all clean\n", mmap_enomem, malloc_enomem);
    TEST_DONE();
}
