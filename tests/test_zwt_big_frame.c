/* test_zwt_big_frame: frames over the largest pool class (a data area near 2^30 bytes, or
 * millions of entries) are not pooled (src/zwt/frame.c). Until 2026-12-05 a destroyed one
 * was kept and never reused: each create/destroy cycle kept another GiB resident and of the
 * handle arena, across ito_finalize too (found by an outside tester: RSS 1, 2, 3, 4, 5 GiB
 * over four cycles and a new runtime). Now a destroy gives its data back (MADV_DONTNEED)
 * and lists it, and a create takes the smallest listed one that fits:
 *  1. four cycles of a 2^30-byte data area reuse one frame (same address), the resident
 *     size does not grow, the stale handle is refused and the new data area is zeroed;
 *  2. the reused frame works (an entry fires once with its value);
 *  3. after ito_finalize and ito_init the next runtime reuses it too. */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "ito/ito.h"
#include "ito_test.h"

#define BIG ((size_t)1 << 30)

static long rss_mb(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long a = 0, b = 0;
    CHECK(f != NULL);
    CHECK(fscanf(f, "%ld %ld", &a, &b) == 2);
    fclose(f);
    return b * 4096 / (1 << 20);
}

static uintptr_t addr(ito_frame_t *f) { return (uintptr_t)f & (((uintptr_t)1 << 47) - 1); }

static atomic_int fired;
static _Atomic uint64_t got;
static void z(ito_frame_t *f, int e, uint64_t v)
{
    (void)f;
    (void)e;
    atomic_store(&got, v);
    atomic_fetch_add(&fired, 1);
}

int main(void)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 1}));
    ito_frame_t *f, *old = NULL;
    long rss0 = 0;
    for (int i = 0; i < 4; i++) {
        CHECK_OK(ito_frame_create(&f, 1, BIG));
        unsigned char *d = ito_frame_data(f);
        CHECK(d != NULL);
        CHECK_EQ(d[0], 0);
        CHECK_EQ(d[BIG / 2], 0);
        CHECK_EQ(d[BIG - 1], 0);
        if (i == 0) rss0 = rss_mb();
        else {
            CHECK_EQ(addr(f), addr(old));
            CHECK_EQ(ito_continue(old, 0), ITO_EINVAL); /* the stale handle */
        }
        d[0] = d[BIG / 2] = d[BIG - 1] = 0xab;
        if (i == 3) break;
        CHECK_OK(ito_frame_destroy(f));
        old = f;
    }
    CHECK(rss_mb() < rss0 + 256);
    CHECK_OK(ito_entry_set(f, 0, z, 1, ITO_MODE_USER));
    CHECK_OK(ito_continue_value(f, 0, 42));
    while (atomic_load(&fired) == 0) CHECK_OK(ito_yield());
    CHECK_EQ(atomic_load(&got), 42);
    CHECK_OK(ito_frame_destroy(f));
    CHECK_OK(ito_finalize());
    CHECK_OK(ito_init(&(ito_config_t){.workers = 1}));
    ito_frame_t *g;
    CHECK_OK(ito_frame_create(&g, 1, BIG));
    CHECK_EQ(addr(g), addr(f));
    CHECK_EQ(((unsigned char *)ito_frame_data(g))[BIG - 1], 0);
    CHECK(rss_mb() < rss0 + 256);
    CHECK_OK(ito_frame_destroy(g));
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
