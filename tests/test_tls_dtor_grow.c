/* test_tls_dtor_grow: a key destructor that stores a value for a key whose slot lies past
 * the exiting ULT's value table (so ito_key_set grows, that is reallocates, the table
 * while the destructor rounds walk it) works: the rounds go on over the new table, the new
 * value's destructor runs in the next round, nothing is read or freed twice (tls.h:
 * destructors "may store values again", rounds up to ITO_KEY_DESTRUCTOR_ROUNDS). Without
 * re-reading the table after each destructor, the rounds walked the freed table and freed
 * it again (a double free). Keys: one at a low slot whose table holds a single slot, one
 * created after 200 others, at a high slot. */
#include <stdatomic.h>
#include <stdint.h>

#include "ito/ito.h"
#include "ito_test.h"

static ito_key_t low, high;
static _Atomic int low_dtors, high_dtors;

static void high_dtor(void *v)
{
    CHECK(v == (void *)&high);
    atomic_fetch_add(&high_dtors, 1);
}

static void low_dtor(void *v)
{
    CHECK(v == (void *)&low);
    atomic_fetch_add(&low_dtors, 1);
    CHECK_OK(ito_key_set(high, &high)); /* grows this ULT's table from inside the rounds */
}

static void *body(void *arg)
{
    (void)arg;
    CHECK_OK(ito_key_set(low, &low)); /* a table of one or two slots */
    return NULL;
}

int main(void)
{
    CHECK_OK(ito_init(NULL));
    CHECK_OK(ito_key_create(&low, low_dtor));
    ito_key_t filler[200];
    for (int i = 0; i < 200; i++) CHECK_OK(ito_key_create(&filler[i], NULL));
    CHECK_OK(ito_key_create(&high, high_dtor));
    for (int round = 0; round < 200; round++) {
        ito_thread_t t;
        CHECK_OK(ito_create(&t, body, NULL, NULL));
        CHECK_OK(ito_join(t, NULL));
    }
    CHECK_EQ(atomic_load(&low_dtors), 200);
    CHECK_EQ(atomic_load(&high_dtors), 200);
    for (int i = 0; i < 200; i++) CHECK_OK(ito_key_delete(filler[i]));
    CHECK_OK(ito_key_delete(low));
    CHECK_OK(ito_key_delete(high));
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
