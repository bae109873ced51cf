/* test_mutex_owner: a mutex's owner is a ULT, not a descriptor. A ULT that exits holding
 * a mutex leaves it locked; a new ULT that reuses the exited owner's descriptor is not
 * its owner: its unlock and its trylock see someone else's lock (ITO_EPERM, ITO_EBUSY),
 * never the owner's rights (it could unlock the dead owner's mutex before). */
#include <stdint.h>

#include "ito/ito.h"
#include "ito_test.h"

static ito_mutex_t m;

static void *lock_and_exit(void *arg)
{
    (void)arg;
    CHECK_OK(ito_mutex_lock(&m));
    return NULL; /* exits holding m */
}

static void *not_the_owner(void *arg)
{
    (void)arg;
    CHECK_EQ(ito_mutex_unlock(&m), ITO_EPERM);
    CHECK_EQ(ito_mutex_trylock(&m), ITO_EBUSY);
    return NULL;
}

static uintptr_t descriptor_of(ito_thread_t t) { return (uintptr_t)t & (((uintptr_t)1 << 48) - 1); }

int main(void)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 1}));
    CHECK_OK(ito_mutex_init(&m));
    int reused = 0;
    for (int round = 0; round < 8; round++) {
        ito_thread_t a, b;
        CHECK_OK(ito_mutex_init(&m));
        CHECK_OK(ito_create(&a, lock_and_exit, NULL, NULL));
        CHECK_OK(ito_join(a, NULL));
        CHECK_OK(ito_create(&b, not_the_owner, NULL, NULL));
        reused += descriptor_of(a) == descriptor_of(b);
        CHECK(a != b); /* the handles differ even when the descriptor is the same */
        CHECK_OK(ito_join(b, NULL));
    }
    CHECK(reused > 0); /* the case this test is about did occur */
    CHECK_EQ(ito_mutex_destroy(&m), ITO_EBUSY); /* still held by the exited ULT */
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
