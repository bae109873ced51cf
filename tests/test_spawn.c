/* test_spawn: ito_create_many: every scheme creates each thread exactly once with the
 * right index and argument; per-thread errors; detached bulk; bad input. */
#include <stdatomic.h>

#include "ito/ito.h"
#include "ito_test.h"

#define N 20000
static _Atomic long sum, count;
static _Atomic int seen[N];

typedef struct { long base; } common_t;

static void *body(void *arg)
{
    const common_t *c = arg;
    size_t i;
    CHECK_OK(ito_spawn_index(&i));
    CHECK(i < N);
    CHECK_EQ(atomic_fetch_add(&seen[i], 1), 0); /* exactly once */
    atomic_fetch_add(&sum, c->base + (long)i);
    atomic_fetch_add(&count, 1);
    return (void *)(intptr_t)i;
}

static void *priv(size_t index, void *common)
{
    (void)common;
    return (void *)(intptr_t)(index * 3);
}

static void *body_priv(void *arg)
{
    size_t i;
    CHECK_OK(ito_spawn_index(&i));
    CHECK_EQ((intptr_t)arg, (intptr_t)(i * 3));
    atomic_fetch_add(&count, 1);
    return NULL;
}

int main(void)
{
    CHECK_OK(ito_init(NULL));
    static ito_thread_t hs[N];
    static int errs[N];
    for (int scheme = ITO_SPAWN_SERIAL; scheme <= ITO_SPAWN_COMBINED; scheme++) {
        ito_spawn_attr_t a;
        CHECK_OK(ito_spawn_attr_init(&a));
        a.scheme = (ito_spawn_scheme_t)scheme;
        common_t c = {.base = 1000};
        for (int i = 0; i < N; i++) atomic_store(&seen[i], 0);
        atomic_store(&sum, 0);
        atomic_store(&count, 0);
        CHECK_OK(ito_create_many(N, body, &c, sizeof c, NULL, hs, errs, &a));
        c.base = -1; /* the threads see the runtime's copy, not this variable */
        for (int i = 0; i < N; i++) {
            CHECK_EQ(errs[i], ITO_OK);
            void *r;
            CHECK_OK(ito_join(hs[i], &r));
            CHECK_EQ((intptr_t)r, i);
        }
        CHECK_EQ(atomic_load(&count), N);
        CHECK_EQ(atomic_load(&sum), 1000L * N + (long)N * (N - 1) / 2);
    }
    /* private_init and detached threads */
    ito_spawn_attr_t a;
    CHECK_OK(ito_spawn_attr_init(&a));
    a.scheme = ITO_SPAWN_COMBINED;
    a.flags = ITO_ATTR_DETACHED;
    atomic_store(&count, 0);
    CHECK_OK(ito_create_many(1000, body_priv, NULL, 0, priv, NULL, NULL, &a));
    while (atomic_load(&count) < 1000) ito_yield();

    /* bad input */
    size_t idx;
    CHECK_EQ(ito_spawn_index(&idx), ITO_EPERM);
    CHECK_EQ(ito_create_many(0, body, NULL, 0, NULL, hs, NULL, NULL), ITO_EINVAL);
    CHECK_EQ(ito_create_many(1, NULL, NULL, 0, NULL, hs, NULL, NULL), ITO_EINVAL);
    CHECK_EQ(ito_create_many(1, body, NULL, 8, NULL, hs, NULL, NULL), ITO_EINVAL);
    CHECK_EQ(ito_create_many(1, body, NULL, 0, NULL, NULL, NULL, NULL), ITO_EINVAL);
    /* above 2^40: refused (was ITO_ENOMEM from the allocation of its bookkeeping) */
    a.flags = ITO_ATTR_DETACHED;
    CHECK_EQ(ito_create_many(((size_t)1 << 40) + 1, body, NULL, 0, NULL, NULL, NULL, &a), ITO_EINVAL);
    CHECK_EQ(ito_create_many(SIZE_MAX, body, NULL, 0, NULL, NULL, NULL, &a), ITO_EINVAL);
    a.flags = 0;
    a.scheme = (ito_spawn_scheme_t)9;
    CHECK_EQ(ito_create_many(1, body, NULL, 0, NULL, hs, NULL, &a), ITO_EINVAL);
    CHECK_OK(ito_finalize());
    CHECK_EQ(ito_create_many(1, body, NULL, 0, NULL, hs, NULL, NULL), ITO_ESTATE);
    TEST_DONE();
}
