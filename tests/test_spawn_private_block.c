/* test_spawn_private_block: ito_create_many's private_init runs on the issuing ULT for the
 * issuer's share, and may yield or block there (here: ito_yield, a contended ito mutex,
 * ito_sleep_ns) while other workers are busy and steal. Every thread is created and runs
 * exactly once, and the call returns. The issuer used to come back on another worker and
 * go on creating into its first worker's private queue: hangs and crashes (a jump to
 * address 0), in about half the runs (outside tester h58a, 2026-12-05). */
#include <stdint.h>

#include "ito/ito.h"
#include "ito_test.h"

#define N 4000
#define BUSY 3

static _Atomic int runs[N];
static ito_mutex_t mu;
static int mode;
static _Atomic int stop;

static void *body(void *arg)
{
    size_t i;
    CHECK_OK(ito_spawn_index(&i));
    CHECK((uintptr_t)arg == i + 1);
    atomic_fetch_add(&runs[i], 1);
    return arg;
}

static void *priv(size_t i, void *common)
{
    (void)common;
    if (ito_self()) { /* on the issuer (helpers run it on their scheduler) */
        switch (mode) {
        case 0: ito_yield(); break;
        case 1: CHECK_OK(ito_mutex_lock(&mu)); ito_yield(); CHECK_OK(ito_mutex_unlock(&mu)); break;
        default: if (i % 8 == 0) ito_sleep_ns(1000); break;
        }
    }
    return (void *)(uintptr_t)(i + 1);
}

static void *busy(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop)) {
        CHECK_OK(ito_mutex_lock(&mu));
        ito_yield();
        CHECK_OK(ito_mutex_unlock(&mu));
        ito_yield();
    }
    return NULL;
}

static void *issuer(void *arg)
{
    ito_spawn_attr_t *sa = arg;
    static ito_thread_t out[N];
    int det = (sa->flags & ITO_ATTR_DETACHED) != 0;
    CHECK_OK(ito_create_many(N, body, NULL, 0, priv, det ? NULL : out, NULL, sa));
    if (!det)
        for (size_t i = 0; i < N; i++) CHECK_OK(ito_join(out[i], NULL));
    return NULL;
}

int main(void)
{
    ito_config_t cfg = {.workers = 4};
    CHECK_OK(ito_init(&cfg));
    CHECK_OK(ito_mutex_init(&mu));
    int rounds = ITO_TEST_SIGNAL_MODE_OK ? 30 : 10; /* the sanitizer trees are slow: 10 */
    for (int round = 0; round < rounds; round++) {
        mode = round % 3;
        for (size_t i = 0; i < N; i++) atomic_store(&runs[i], 0);
        atomic_store(&stop, 0);
        ito_thread_t b[BUSY], is;
        for (int k = 0; k < BUSY; k++) CHECK_OK(ito_create(&b[k], busy, NULL, NULL));
        ito_spawn_attr_t sa;
        CHECK_OK(ito_spawn_attr_init(&sa));
        sa.scheme = (ito_spawn_scheme_t)(round % 5);
        if (round & 1) sa.flags = ITO_ATTR_DETACHED;
        CHECK_OK(ito_create(&is, issuer, &sa, NULL)); /* unbound: it may move */
        CHECK_OK(ito_join(is, NULL));
        atomic_store(&stop, 1);
        for (int k = 0; k < BUSY; k++) CHECK_OK(ito_join(b[k], NULL));
        if (round & 1) /* detached: wait for the last ones */
            for (size_t i = 0; i < N; i++)
                while (atomic_load(&runs[i]) == 0) ito_yield();
        for (size_t i = 0; i < N; i++) CHECK_EQ(atomic_load(&runs[i]), 1);
    }
    CHECK_OK(ito_mutex_destroy(&mu));
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
