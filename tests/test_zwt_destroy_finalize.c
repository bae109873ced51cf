/* test_zwt_destroy_finalize: ito_frame_destroy from a foreign thread racing ito_finalize.
 * The teardown (itoi_zwt_teardown) puts every frame on the shared free lists; a foreign
 * destroy that freed its frame just before the teardown's pass used to push it a second
 * time after it, and the next runtime handed one frame's memory to two creates (the first
 * live frame then refused by its own handle, its entries zeroed by the second create).
 * Found by an adversarial test on 2026-12-03: it failed within 4 rounds every time. A
 * foreign destroy now enters the runtime's door, so the teardown waits for it.
 * Each round: main creates NF frames, a pthread destroys them from the newest down while
 * main finalizes; the next runtime creates NF + 1000 frames, and no two may share memory. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "ito/ito.h"
#include "ito_test.h"

#if defined(ITOI_TSAN) || defined(ITOI_ASAN)
#define NF 20000
#define ROUNDS 8
#else
#define NF 60000
#define ROUNDS 16
#endif

static ito_frame_t *fr[NF];
static ito_frame_t *again[NF + 1000];
static uintptr_t data[NF + 1000];
static _Atomic int go;
static _Atomic long destroyed;

static void *destroyer(void *unused)
{
    (void)unused;
    while (!atomic_load(&go)) {
    }
    for (int i = NF - 1; i >= 0; i--) {
        int rc = ito_frame_destroy(fr[i]);
        CHECK(rc == ITO_OK || rc == ITO_EINVAL); /* EINVAL: finalize freed it first */
        if (rc == ITO_OK) atomic_fetch_add(&destroyed, 1);
    }
    return NULL;
}

static int cmp(const void *a, const void *b)
{
    uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
    return x < y ? -1 : x > y;
}

int main(void)
{
    ito_config_t cfg = {.workers = 2};
    for (int r = 0; r < ROUNDS; r++) {
        CHECK_OK(ito_init(&cfg));
        for (int i = 0; i < NF; i++) CHECK_OK(ito_frame_create(&fr[i], 1, 0));
        atomic_store(&go, 0);
        pthread_t t;
        CHECK_EQ(pthread_create(&t, NULL, destroyer, NULL), 0);
        atomic_store(&go, 1);
        for (volatile int k = 0; k < (r % 8) * 20000; k++) {
        } /* vary where the finalize meets the destroys */
        CHECK_OK(ito_finalize());
        CHECK_EQ(pthread_join(t, NULL), 0);
        CHECK_OK(ito_init(&cfg));
        int n = NF + 1000;
        for (int i = 0; i < n; i++) {
            CHECK_OK(ito_frame_create(&again[i], 1, 0));
            data[i] = (uintptr_t)ito_frame_data(again[i]);
        }
        for (int i = 0; i < n; i++) CHECK(ito_frame_data(again[i]) != NULL); /* every one still live */
        qsort(data, (size_t)n, sizeof data[0], cmp);
        for (int i = 1; i < n; i++) CHECK(data[i] != data[i - 1]);
        CHECK_OK(ito_finalize());
    }
    printf("foreign destroys that met a live runtime: %ld\n", atomic_load(&destroyed));
    TEST_DONE();
}
