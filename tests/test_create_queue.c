/* test_create_queue: where ito_create puts a new ULT. It is queued on the creator's
 * worker and published for idle workers only at the creator's next scheduling point,
 * by both paths of ito_create: the fast one (default attributes, pooled descriptor and
 * stack credit) and the general one (any attribute, or the pools empty: every few dozen
 * creates of a loop). The bug this guards against: the general path published each ULT
 * at once and woke a sleeping worker to take it, so a loop of creates on two workers
 * made a futex call and gave a ULT to the other worker every few dozen creates (2-worker
 * loop ~23 ns per create against ~17 on one worker, 2026-11-27).
 * Also: descriptors are aligned to a cache line (itoi_ult_t's layout relies on it). */
#include <stdatomic.h>
#include <stdint.h>

#include "core/itoi.h"
#include "ito/ito.h"
#include "ito_test.h"

#define N 4000

static atomic_int ran;

static void *count(void *arg)
{
    atomic_fetch_add(&ran, 1);
    return arg;
}

static ito_thread_t hs[N];

/* Create N ULTs (with attr, or none) without a scheduling point in between: none may
 * have run yet, none may have been taken by the other worker; then join them all. */
static void loop(const ito_attr_t *attr)
{
    ito_stats_t s0, s1;
    atomic_store(&ran, 0);
    CHECK_OK(ito_stats(&s0));
    for (int i = 0; i < N; i++) CHECK_OK(ito_create(&hs[i], count, (void *)(intptr_t)i, attr));
    CHECK_OK(ito_stats(&s1));
    CHECK_EQ(atomic_load(&ran), 0);
    CHECK_EQ(s1.steals, s0.steals);
    const uintptr_t mask = ((uintptr_t)1 << ITOI_HANDLE_PTR_BITS) - 1;
    for (int i = 0; i < N; i++) CHECK_EQ(((uintptr_t)hs[i] & mask) % ITOI_CACHELINE, 0);
    for (int i = 0; i < N; i++) {
        void *r;
        CHECK_OK(ito_join(hs[i], &r));
        CHECK_EQ((intptr_t)r, i);
    }
    CHECK_EQ(atomic_load(&ran), N);
}

int main(void)
{
    ito_config_t cfg = {.workers = 2};
    CHECK_OK(ito_init(&cfg));
    CHECK_OK(ito_sleep_ns(2000000)); /* worker 1 idle, wanting work */
    for (int round = 0; round < 3; round++) {
        loop(NULL); /* the fast path, and the general one when the pools run dry */
        ito_attr_t a;
        CHECK_OK(ito_attr_init(&a));
        a.stack_size = 65536; /* any attribute: the general path every time */
        loop(&a);
    }
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
