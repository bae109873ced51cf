/* test_spawn_foreign_init_race: ito_create_many from a foreign pthread (spawn.h: ULT only,
 * ITO_ENOTULT outside a ULT; ITO_ESTATE while no runtime runs) while the main thread
 * starts and stops runtimes (ito_init / ito_finalize with 1 to 3 workers). The answers
 * were right, but ito_create_many compared its attribute's worker count with the
 * runtime's (itoi_rt.nworkers) before it asked whether the caller is a ULT, so a foreign
 * caller read the setting while the next ito_init wrote it: a data race (undefined in C11)
 * that TSan reported (ito_create_many against ito_init). ito_create had the same race and
 * was fixed by checking the caller first (thread.c create_general); ito_create_many now
 * does too. Found by an outside tester's concurrent misuse program, h66b, 2026-12-06
 * (1 TSan seed of about 500, 1 worker); this test fails under TSan without the fix.
 * Bounded: ROUNDS runtimes. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>

#include "ito/ito.h"
#include "ito_test.h"

#define ROUNDS 150

static atomic_int stop;
static atomic_long bad, calls;

static void *nop(void *arg) { return arg; }

static void *foreign(void *arg)
{
    (void)arg;
    ito_spawn_attr_t sa;
    ito_spawn_attr_init(&sa);
    ito_thread_t out[2];
    while (!atomic_load(&stop)) {
        sa.workers = (int)(atomic_load(&calls) % 3); /* 0: all; 1, 2: compared with the count */
        int rc = ito_create_many(2, nop, NULL, 0, NULL, out, NULL, &sa);
        if (rc != ITO_ENOTULT && rc != ITO_ESTATE && rc != ITO_EINVAL) atomic_fetch_add(&bad, 1);
        atomic_fetch_add(&calls, 1);
    }
    return NULL;
}

int main(void)
{
    pthread_t p;
    CHECK(pthread_create(&p, NULL, foreign, NULL) == 0);
    for (int r = 0; r < ROUNDS; r++) {
        ito_test_main_ult(&(ito_config_t){.workers = 1 + r % 3}, nop);
    }
    atomic_store(&stop, 1);
    CHECK(pthread_join(p, NULL) == 0);
    CHECK_EQ(atomic_load(&bad), 0);
    CHECK(atomic_load(&calls) > 0);
    TEST_DONE();
}
