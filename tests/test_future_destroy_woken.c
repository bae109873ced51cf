/* test_future_destroy_woken: a future may be destroyed and freed as soon as ito_future_set
 * returns, while the ULTs it woke have not run yet: they have their value already
 * (src/sync/future.c). Found by a misuse fuzzer (2026-12-04): a woken waiter read the
 * value from the future when it ran, i.e. from freed memory (ASan heap-use-after-free;
 * without ASan it returned the bytes the owner had scribbled there). One worker, so the
 * waiters stay ready-not-run while main sets, destroys, scribbles and frees; waits with
 * and without a deadline. */
#include <stdlib.h>
#include <string.h>

#include "ito/ito.h"
#include "ito_test.h"

static ito_future_t *fut;

static void *waiter(void *arg)
{
    uint64_t v = 0;
    if (arg) CHECK_OK(ito_future_wait_until(fut, &v, ito_deadline_in(60ull * 1000 * 1000 * 1000)));
    else CHECK_OK(ito_future_wait(fut, &v));
    CHECK_EQ(v, 0x42);
    return NULL;
}

int main(void)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 1}));
    for (int round = 0; round < 2; round++) {
        fut = malloc(sizeof *fut);
        CHECK(fut != NULL);
        CHECK_OK(ito_future_init(fut));
        ito_thread_t t[3];
        for (int i = 0; i < 3; i++) CHECK_OK(ito_create(&t[i], waiter, round ? (void *)1 : NULL, NULL));
        for (int i = 0; i < 10; i++) CHECK_OK(ito_yield()); /* all three park in the wait */
        CHECK_EQ(ito_future_destroy(fut), ITO_EBUSY);       /* parked: still waiting */
        CHECK_OK(ito_future_set(fut, 0x42));                /* woken, not run yet */
        CHECK_OK(ito_future_destroy(fut));
        memset(fut, 0xab, sizeof *fut);
        free(fut);
        for (int i = 0; i < 3; i++) CHECK_OK(ito_join(t[i], NULL));
    }
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
