/* test_join_race: a ULT is joined or detached exactly once, also when two ULTs on two
 * workers race for it while it ends. Each round creates a short thread and two racers:
 * two joiners, or a joiner and a detacher; exactly one must succeed, the other gets
 * ITO_EJOINED. Before, the exit of a ULT whose joiner was registered left its state at
 * DONE for a moment, and a second joiner (or a detach) took it as well: both succeeded
 * and the descriptor was freed twice (1 round in about 15,000-30,000 in release, within
 * about 100 under TSan; then a crash or a hang). */
#include <stdatomic.h>
#include <stdint.h>

#include "ito/ito.h"
#include "ito_test.h"

static void *target_fn(void *a) { return a; }

static ito_thread_t volatile target;
static _Atomic int res[2];
static int use_detach;

static void *racer(void *a)
{
    int i = (int)(uintptr_t)a;
    void *rv = NULL;
    int rc = (i == 1 && use_detach) ? ito_detach(target) : ito_join(target, &rv);
    if (rc == ITO_OK && !(i == 1 && use_detach)) CHECK(rv == (void *)7);
    atomic_store(&res[i], rc);
    return NULL;
}

static int rounds_for_tree(void)
{
#if defined(ITOI_TSAN) || defined(ITOI_ASAN)
    return 3000; /* the race shows within about 100 rounds under TSan */
#else
    return 60000;
#endif
}

int main(void)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
    int rounds = rounds_for_tree();
    for (use_detach = 0; use_detach <= 1; use_detach++) {
        for (int r = 0; r < rounds; r++) {
            ito_thread_t t, a, b;
            CHECK_OK(ito_create(&t, target_fn, (void *)7, NULL));
            target = t;
            CHECK_OK(ito_create(&a, racer, (void *)0, NULL));
            CHECK_OK(ito_create(&b, racer, (void *)1, NULL));
            CHECK_OK(ito_join(a, NULL));
            CHECK_OK(ito_join(b, NULL));
            int x = atomic_load(&res[0]), y = atomic_load(&res[1]);
            CHECK((x == ITO_OK && y == ITO_EJOINED) || (x == ITO_EJOINED && y == ITO_OK));
            CHECK_EQ(ito_join(t, NULL), ITO_EJOINED); /* and nobody after them */
        }
    }
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
