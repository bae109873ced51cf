/* test_spawn_slices: detached threads of ito_create_many are created a slice at a time
 * and run between slices (src/spawn/spawn.c). Whatever the scheme and the number of
 * workers:
 *  - every index runs exactly once (ito_spawn_index), and the call returns ITO_OK;
 *  - threads that block until all n have started do not stop the creation of the rest
 *    (the issuer and the helpers keep creating while earlier slices wait): n threads
 *    live at once, no deadlock;
 *  - threads that run to completion at once share stacks: the stacks in use stay far
 *    below n;
 *  - the messages are freed (LeakSanitizer checks it in the ASan tree). */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "ito/ito.h"
#include "ito_test.h"

#define N 5000

static _Atomic uint8_t seen[N];
static _Atomic size_t arrived, left;
static ito_mutex_t m;
static ito_cond_t all_here;

static void *mark(void *unused)
{
    (void)unused;
    ito_test_spawn_mark(seen, N);
    atomic_fetch_add(&left, 1);
    return NULL;
}

static void *wait_for_all(void *unused)
{
    (void)unused;
    size_t i;
    CHECK_OK(ito_spawn_index(&i));
    CHECK_EQ(atomic_fetch_add(&seen[i], 1), 0);
    CHECK_OK(ito_mutex_lock(&m));
    if (atomic_fetch_add(&arrived, 1) + 1 == N) CHECK_OK(ito_cond_broadcast(&all_here));
    while (atomic_load(&arrived) < N) CHECK_OK(ito_cond_wait(&all_here, &m));
    CHECK_OK(ito_mutex_unlock(&m));
    atomic_fetch_add(&left, 1);
    return NULL;
}

static void run(ito_fn_t fn, ito_spawn_scheme_t scheme)
{
    for (size_t i = 0; i < N; i++) atomic_store(&seen[i], 0);
    atomic_store(&arrived, 0);
    atomic_store(&left, 0);
    ito_spawn_attr_t a;
    CHECK_OK(ito_spawn_attr_init(&a));
    a.scheme = scheme;
    a.flags = ITO_ATTR_DETACHED;
    CHECK_OK(ito_create_many(N, fn, NULL, 0, NULL, NULL, NULL, &a));
    while (atomic_load(&left) < N) CHECK_OK(ito_yield());
    for (size_t i = 0; i < N; i++) CHECK_EQ(atomic_load(&seen[i]), 1);
}

int main(void)
{
    for (int workers = 1; workers <= 2; workers++) {
        ito_config_t cfg = {.workers = workers};
        CHECK_OK(ito_init(&cfg));
        CHECK_OK(ito_mutex_init(&m));
        CHECK_OK(ito_cond_init(&all_here));
        for (int s = ITO_SPAWN_SERIAL; s <= ITO_SPAWN_COMBINED; s++) {
            ito_stats_t s0, s1;
            CHECK_OK(ito_stats(&s0));
            run(mark, (ito_spawn_scheme_t)s);
            CHECK_OK(ito_stats(&s1));
            /* run as made: a few slices' worth of stacks, not one per thread */
            CHECK(s1.stacks_mapped - s0.stacks_mapped < N / 4);
            run(wait_for_all, (ito_spawn_scheme_t)s); /* all N alive at once */
        }
        CHECK_OK(ito_finalize());
    }
    TEST_DONE();
}
