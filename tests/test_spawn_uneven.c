/* test_spawn_uneven: ito_create_many with n not a multiple of the workers, every scheme
 * (spawn.h): exactly n threads run, each index 0..n-1 once, and nothing is written past
 * out[n-1] or errs[n-1]; and the attribute checks at their limits: workers == the runtime's
 * workers is accepted (0..workers), workers + 1 and unknown flag bits are ITO_EINVAL with
 * nothing created. (Found by mutation testing, h60d: a chunk claim that ran past n created
 * threads n, n+1, ... and wrote their handles past the caller's arrays, and unknown flags
 * were accepted, and the suite, whose bulk creations used even counts, passed.) */
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "ito/ito.h"
#include "ito_test.h"

#define GUARD 64
#define MAXN 1009

static _Atomic int ran[MAXN + GUARD];
static _Atomic int total;

static void *body(void *arg)
{
    (void)arg;
    size_t i;
    if (ito_spawn_index(&i) != ITO_OK) return (void *)(intptr_t)-1;
    if (i < MAXN + GUARD) atomic_fetch_add(&ran[i], 1);
    atomic_fetch_add(&total, 1);
    return NULL;
}

static ito_thread_t out[MAXN + GUARD];
static int errs[MAXN + GUARD];

static void one(int scheme, size_t n, int workers)
{
    memset(ran, 0, sizeof ran);
    atomic_store(&total, 0);
    for (size_t i = 0; i < MAXN + GUARD; i++) {
        out[i] = (ito_thread_t)(uintptr_t)0x5a5a;
        errs[i] = 12345;
    }
    ito_spawn_attr_t a;
    CHECK_OK(ito_spawn_attr_init(&a));
    a.scheme = scheme;
    a.workers = workers;
    CHECK_OK(ito_create_many(n, body, NULL, 0, NULL, out, errs, &a));
    for (size_t i = 0; i < n; i++) {
        CHECK_EQ(errs[i], ITO_OK);
        CHECK_OK(ito_join(out[i], NULL));
    }
    for (size_t i = n; i < MAXN + GUARD; i++) {
        if (out[i] != (ito_thread_t)(uintptr_t)0x5a5a || errs[i] != 12345 || atomic_load(&ran[i]))
            fprintf(stderr, "scheme %d n %zu: index %zu past the end was touched\n", scheme, n, i);
        CHECK(out[i] == (ito_thread_t)(uintptr_t)0x5a5a);
        CHECK_EQ(errs[i], 12345);
        CHECK_EQ(atomic_load(&ran[i]), 0);
    }
    for (size_t i = 0; i < n; i++) CHECK_EQ(atomic_load(&ran[i]), 1);
    CHECK_EQ(atomic_load(&total), (int)n);
}

int main(void)
{
    CHECK_OK(ito_init(NULL));
    int nw = ito_worker_count();
    CHECK(nw >= 1);
    static const size_t ns[] = {1, 3, 7, 101, 1001, MAXN};
    for (int scheme = ITO_SPAWN_SERIAL; scheme <= ITO_SPAWN_COMBINED; scheme++)
        for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
            one(scheme, ns[k], 0);
            one(scheme, ns[k], nw); /* all workers, named: accepted */
        }
    /* the attribute limits: nothing created */
    ito_spawn_attr_t a;
    CHECK_OK(ito_spawn_attr_init(&a));
    a.workers = nw + 1;
    atomic_store(&total, 0);
    CHECK_EQ(ito_create_many(4, body, NULL, 0, NULL, out, NULL, &a), ITO_EINVAL);
    CHECK_OK(ito_spawn_attr_init(&a));
    a.flags = 0x100; /* not a flag of spawn.h */
    CHECK_EQ(ito_create_many(4, body, NULL, 0, NULL, out, NULL, &a), ITO_EINVAL);
    a.flags = ITO_ATTR_DETACHED | 0x100;
    CHECK_EQ(ito_create_many(4, body, NULL, 0, NULL, NULL, NULL, &a), ITO_EINVAL);
    CHECK_OK(ito_sleep_ns(10 * 1000 * 1000));
    CHECK_EQ(atomic_load(&total), 0);
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
