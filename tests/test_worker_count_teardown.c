/* test_worker_count_teardown: ito_worker_count from foreign threads while main cycles
 * ito_init (1 or 2 workers) and ito_finalize. It must return the count of a running
 * runtime or ITO_ESTATE, and read nothing that the next ito_init writes: it checked the
 * state and then read itoi_rt.nworkers outside the runtime's door, so the read raced the
 * next ito_init's write (TSan: data race, runtime.c ito_init / ito_worker_count; found by
 * h60b, 2026-12-05). Run in the TSan tree to see the race; every tree checks the values. */
#include <pthread.h>
#include <stdatomic.h>

#include "ito/ito.h"
#include "ito_test.h"

static atomic_int stop, bad;
static atomic_long asked;

static void *asker(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop)) {
        int n = ito_worker_count();
        if (n != ITO_ESTATE && (n < 1 || n > 2)) atomic_store(&bad, n ? n : -100);
        atomic_fetch_add(&asked, 1);
    }
    return NULL;
}

int main(void)
{
    pthread_t pt[2];
    for (int i = 0; i < 2; i++) CHECK(pthread_create(&pt[i], NULL, asker, NULL) == 0);
    for (int cycle = 0; cycle < 600; cycle++) {
        CHECK_OK(ito_init(&(ito_config_t){.workers = 1 + cycle % 2}));
        CHECK_EQ(ito_worker_count(), 1 + cycle % 2);
        CHECK_OK(ito_finalize());
    }
    atomic_store(&stop, 1);
    for (int i = 0; i < 2; i++) CHECK(pthread_join(pt[i], NULL) == 0);
    CHECK_EQ(atomic_load(&bad), 0);
    CHECK(atomic_load(&asked) > 0);
    TEST_DONE();
}
