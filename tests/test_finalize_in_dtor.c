/* test_finalize_in_dtor: ito_finalize runs main's thread-specific destructors first; one
 * of them that calls ito_finalize again (a destructor may make any call a ULT may) gets
 * ITO_EDEADLK, and the outer finalize goes on and ends the runtime. The nested call used
 * to run the destructors again, free main's value table and finish the runtime under the
 * outer one, which then read the freed table: SIGSEGV (outside tester h58a, 2026-12-05). */
#include <stdint.h>

#include "ito/ito.h"
#include "ito_test.h"

static ito_key_t key, key2;
static int nested = 1;
static _Atomic int calls, calls2, child_ran;

static void *child(void *arg)
{
    atomic_fetch_add(&child_ran, 1);
    ito_yield();
    return arg;
}

static void fini_dtor(void *v)
{
    CHECK(v == (void *)1);
    atomic_fetch_add(&calls, 1);
    nested = ito_finalize();
    /* the runtime is still up: a destructor may still create threads (finalize waits) */
    ito_thread_t t;
    CHECK_OK(ito_create(&t, child, NULL, NULL));
    CHECK_OK(ito_detach(t));
}

static void other_dtor(void *v)
{
    CHECK(v == (void *)2);
    atomic_fetch_add(&calls2, 1);
}

int main(void)
{
    for (int round = 0; round < 3; round++) {
        nested = 1;
        atomic_store(&calls, 0);
        atomic_store(&calls2, 0);
        atomic_store(&child_ran, 0);
        CHECK_OK(ito_init(NULL));
        CHECK_OK(ito_key_create(&key, fini_dtor));
        CHECK_OK(ito_key_create(&key2, other_dtor));
        CHECK_OK(ito_key_set(key, (void *)1));
        CHECK_OK(ito_key_set(key2, (void *)2));
        CHECK_OK(ito_finalize());
        CHECK_EQ(nested, ITO_EDEADLK);
        CHECK_EQ(atomic_load(&calls), 1);
        CHECK_EQ(atomic_load(&calls2), 1);
        CHECK_EQ(atomic_load(&child_ran), 1);
        CHECK(!ito_initialized());
        CHECK_OK(ito_key_delete(key));
        CHECK_OK(ito_key_delete(key2));
    }
    TEST_DONE();
}
