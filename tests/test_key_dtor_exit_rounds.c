/* test_key_dtor_exit_rounds: a key destructor that stores a value again and then calls
 * ito_exit. tls.h promises that destructors may make any ito call a ULT may make and may
 * store values again, with at most ITO_KEY_DESTRUCTOR_ROUNDS rounds before what is left is
 * dropped. ito_exit inside a destructor re-entered the destructor rounds from round 0
 * (itoi_ult_release_store on the same table), so a destructor that re-stores and exits
 * recursed until the ULT's stack overflowed ("ito: fatal: stack overflow", the process
 * died). Found by an outside tester, h65g, 2026-12-06. */
#include <ito/ito.h>
#include <ito/tls.h>

#include "ito_test.h"

static ito_key_t key;
static _Atomic int calls;

static void dtor(void *v)
{
    atomic_fetch_add(&calls, 1);
    ito_key_set(key, v); /* store again ... */
    ito_exit((void *)99); /* ... and end the ULT from inside its destructor */
}

static void *body(void *arg)
{
    CHECK_OK(ito_key_set(key, arg));
    return (void *)1;
}

int main(void)
{
    CHECK_OK(ito_init(NULL));
    CHECK_OK(ito_key_create(&key, dtor));
    for (int i = 0; i < 20; i++) {
        atomic_store(&calls, 0);
        ito_thread_t t;
        void *rv = NULL;
        CHECK_OK(ito_create(&t, body, (void *)(uintptr_t)(i + 1), NULL));
        CHECK_OK(ito_join(t, &rv));
        CHECK(rv == (void *)99);
        CHECK(atomic_load(&calls) >= 1 && atomic_load(&calls) <= ITO_KEY_DESTRUCTOR_ROUNDS);
    }
    CHECK_OK(ito_key_delete(key));
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
