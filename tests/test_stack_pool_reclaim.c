/* test_stack_pool_reclaim: a ULT whose creation succeeded gets its stack even when the
 * kernel refuses more address space and the free stacks of its size sit in another
 * worker's own pool (stack.c: credits count those stacks, so creation promised them).
 * Until 2026-12-06 nothing moved them: a ULT bound to worker 0 spun at its pick for ever
 * (one CPU busy) while idle worker 1 held 256 free stacks; found by an outside tester,
 * h69e, under RLIMIT_AS. Here 256 ULTs bound to worker 1 run at once and end (their
 * stacks stay in worker 1's pool), RLIMIT_AS is set to what the process uses now, and ULTs
 * bound to worker 0 are made until ITO_ENOMEM; all of them then meet at a barrier, so
 * every one must get a stack. The joins carry a generous deadline only so that the old
 * hang fails the test instead of ctest's timeout. Release tree only (the sanitizers
 * reserve terabytes of shadow: no RLIMIT_AS there). */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdio.h>
#include <sys/resource.h>

#include "ito/ito.h"
#include "ito_test.h"

#define FIRST 256 /* the size of a worker's own pool (POOL_HIGH) */
#define MAXN 100000

static ito_sem_t go;
static ito_barrier_t meet;
static ito_thread_t ts[MAXN];

static void *second(void *arg)
{
    ito_sem_wait(&go);
    ito_barrier_wait(&meet);
    return arg;
}

int main(void)
{
    ITO_TEST_NEEDS_RLIMIT_AS();
    ito_config_t cfg = {.workers = 2};
    CHECK_OK(ito_init(&cfg));
    CHECK_OK(ito_sem_init(&go, 0));
    ito_test_fill_pool(1, FIRST);
    struct rlimit old;
    size_t n = ito_test_create_until_enomem(&old, ts, MAXN, 0, second);
    CHECK(n > FIRST);
    CHECK_OK(ito_barrier_init(&meet, (unsigned)n));
    for (size_t i = 0; i < n; i++) CHECK_OK(ito_sem_post(&go));
    uint64_t deadline = ito_now_ns() + 30ull * 1000000000ull;
    for (size_t i = 0; i < n; i++) CHECK_OK(ito_join_until(ts[i], NULL, deadline));
    CHECK_OK(setrlimit(RLIMIT_AS, &old));
    CHECK_OK(ito_barrier_destroy(&meet));
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
