/* test_rwlock_destroy_held: ito_rwlock_destroy of a lock that is held gives ITO_EBUSY and
 * leaves it usable (sync.h), for a read hold as for a write hold, and destroys it once
 * released. (Found by mutation testing, h60d: a destroy that looked only at the writer and
 * the queues destroyed a read-held lock, and no test held a read lock across a destroy.) */
#include "ito/ito.h"
#include "ito_test.h"

int main(void)
{
    CHECK_OK(ito_init(NULL));
    ito_rwlock_t l;
    CHECK_OK(ito_rwlock_init(&l));
    CHECK_OK(ito_rwlock_rdlock(&l));
    CHECK_EQ(ito_rwlock_destroy(&l), ITO_EBUSY); /* read-held */
    CHECK_OK(ito_rwlock_rdlock(&l));             /* still a lock: a second read hold */
    CHECK_EQ(ito_rwlock_destroy(&l), ITO_EBUSY);
    CHECK_OK(ito_rwlock_unlock(&l));
    CHECK_EQ(ito_rwlock_destroy(&l), ITO_EBUSY); /* one read hold left */
    CHECK_OK(ito_rwlock_unlock(&l));
    CHECK_OK(ito_rwlock_wrlock(&l));
    CHECK_EQ(ito_rwlock_destroy(&l), ITO_EBUSY); /* write-held */
    CHECK_OK(ito_rwlock_unlock(&l));
    CHECK_OK(ito_rwlock_destroy(&l));
    CHECK_EQ(ito_rwlock_rdlock(&l), ITO_EINVAL); /* destroyed */
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
