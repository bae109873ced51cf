/* test_stack_credit_reclaim: with the kernel refusing new regions of stacks, a ULT's
 * stack credit given back on the worker it ended on is not lost to the other workers'
 * creations (stack.c: a worker keeps up to 2 * CREDIT_BATCH credits of its own; a creation
 * that finds the class out asks the others to give theirs back). Until 2026-12-06 the
 * credits stayed with the worker where the ULTs had ended: under vm.max_map_count
 * exhausted by the program's own mappings, worker 0 could create 2 ULTs at a time, for
 * ever, while idle worker 1 held the credits of the class's 14 other stacks, all free
 * (found by an outside tester, h70c). Here every credit of the default class goes to ULTs
 * created on worker 0 and bound to worker 1 (made until ITO_ENOMEM, after a seccomp filter
 * refuses the mmap of a region of stacks: the sanitizer trees too), which end there; then
 * worker 0 must be able to create as many again. A creation refused on the way (the one
 * that asks for the credits back) is retried after a nap; the bound on the retries only
 * turns the old failure into a failed check instead of ctest's timeout. */
#define _GNU_SOURCE
#define ITO_TEST_SECCOMP
#include <stdio.h>
#include <sys/mman.h>

#include "ito/ito.h"
#include "ito_test.h"

#define MAXN 4096

static ito_sem_t go;
static ito_thread_t ts[MAXN];

static void *nothing(void *arg) { return arg; }

int main(void)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
    ito_thread_t t;
    CHECK_OK(ito_create(&t, nothing, NULL, NULL)); /* the class's first regions and credits */
    CHECK_OK(ito_join(t, NULL));
    ito_test_deny_mmap_flags(MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, ENOMEM);
    CHECK_OK(ito_sem_init(&go, 0));
    ito_attr_t a;
    CHECK_OK(ito_attr_init(&a));
    a.worker = 1;
    size_t n = 0;
    int rc = ITO_OK;
    while (n < MAXN && (rc = ito_create(&ts[n], ito_test_sem_waiter, &go, &a)) == ITO_OK) n++;
    CHECK_EQ(rc, ITO_ENOMEM);
    CHECK(n > 0);
    for (size_t i = 0; i < n; i++) CHECK_OK(ito_sem_post(&go));
    for (size_t i = 0; i < n; i++) CHECK_OK(ito_join(ts[i], NULL));
    size_t m = 0;
    int refused = 0;
    while (m < n && refused < 5000) {
        rc = ito_create(&ts[m], nothing, NULL, NULL);
        if (rc == ITO_OK) {
            m++;
            continue;
        }
        CHECK_EQ(rc, ITO_ENOMEM);
        refused++;
        CHECK_OK(ito_sleep_ns(1000000));
    }
    printf("%zu ULTs made for worker 1, then %zu made on worker 0 (%d refused on the way)\n", n, m, refused);
    for (size_t i = 0; i < m; i++) CHECK_OK(ito_join(ts[i], NULL));
    CHECK_EQ(m, n);
    CHECK_OK(ito_sem_destroy(&go));
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
