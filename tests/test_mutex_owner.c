/* test_mutex_owner: a mutex's owner is a ULT, not a descriptor. A ULT that exits holding
 * a mutex leaves it locked; a new ULT that reuses the exited owner's descriptor is not
 * its owner: its unlock and its trylock see someone else's lock (ITO_EPERM, ITO_EBUSY),
 * never the owner's rights (it could unlock the dead owner's mutex before). The same for
 * a rwlock's writer (before, the writer was a descriptor: the new ULT's trywrlock said
 * ITO_EDEADLK, "held by you", and its unlock released the dead writer's lock). */
#include <stdint.h>

#include "ito/ito.h"
#include "ito_test.h"

static ito_mutex_t m;
static ito_rwlock_t rw[8];
static int round_no;

static void *lock_and_exit(void *arg)
{
    (void)arg;
    CHECK_OK(ito_mutex_lock(&m));
    CHECK_OK(ito_rwlock_wrlock(&rw[round_no]));
    return NULL; /* exits holding m and the write lock */
}

static void *not_the_owner(void *arg)
{
    (void)arg;
    CHECK_EQ(ito_mutex_unlock(&m), ITO_EPERM);
    CHECK_EQ(ito_mutex_trylock(&m), ITO_EBUSY);
    CHECK_EQ(ito_rwlock_trywrlock(&rw[round_no]), ITO_EBUSY);
    CHECK_EQ(ito_rwlock_tryrdlock(&rw[round_no]), ITO_EBUSY);
    CHECK_EQ(ito_rwlock_unlock(&rw[round_no]), ITO_EPERM);
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
        round_no = round;
        CHECK_OK(ito_rwlock_init(&rw[round]));
        CHECK_OK(ito_create(&a, lock_and_exit, NULL, NULL));
        CHECK_OK(ito_join(a, NULL));
        CHECK_OK(ito_create(&b, not_the_owner, NULL, NULL));
        reused += descriptor_of(a) == descriptor_of(b);
        CHECK(a != b); /* the handles differ even when the descriptor is the same */
        CHECK_OK(ito_join(b, NULL));
    }
    CHECK(reused > 0); /* the case this test is about did occur */
    CHECK_EQ(ito_mutex_destroy(&m), ITO_EBUSY); /* still held by the exited ULT */
    CHECK_EQ(ito_rwlock_destroy(&rw[7]), ITO_EBUSY);
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
