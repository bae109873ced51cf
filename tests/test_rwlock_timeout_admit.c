/* test_rwlock_timeout_admit: timed readers that wait behind a writer, and the writer's
 * unlock landing at about their common deadline: some readers are admitted, some time out,
 * and once every reader has left the lock must be free (a try-write lock succeeds).
 * Found by a test of the timed-wait claim (2026-12-03, itoi.h wait_claim): the unlock
 * counted every queued reader in at once (x->readers += rq.n) while the wake passed by
 * readers whose timer had claimed them, so each such reader left a read hold behind and
 * the lock stayed read-held for ever (within about 50 rounds in all three trees). */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdint.h>

#include "ito/ito.h"
#include "ito_test.h"

#if defined(ITOI_TSAN) || defined(ITOI_ASAN)
#define ROUNDS 300
#else
#define ROUNDS 1500
#endif
#define READERS 8

static ito_rwlock_t rw;
static _Atomic uint64_t deadline;
static _Atomic int started, admitted, timed_out;

static void *reader(void *arg)
{
    (void)arg;
    atomic_fetch_add(&started, 1);
    int rc = ito_rwlock_rdlock_until(&rw, atomic_load(&deadline));
    if (rc == ITO_OK) {
        atomic_fetch_add(&admitted, 1);
        CHECK_OK(ito_rwlock_unlock(&rw));
    } else {
        CHECK_EQ(rc, ITO_ETIMEDOUT);
        atomic_fetch_add(&timed_out, 1);
    }
    return NULL;
}

int main(void)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
    CHECK_OK(ito_rwlock_init(&rw));
    uint64_t seed = 1;
    ito_thread_t th[READERS];
    for (int it = 0; it < ROUNDS; it++) {
        CHECK_OK(ito_rwlock_wrlock(&rw));
        atomic_store(&started, 0);
        seed = seed * 6364136223846793005u + 1442695040888963407u;
        uint64_t d = ito_deadline_in(100000 + (seed >> 33) % 200000);
        atomic_store(&deadline, d);
        ito_attr_t at;
        ito_attr_init(&at);
        at.worker = 1; /* the readers' timers on worker 1, the unlock on worker 0 */
        for (int k = 0; k < READERS; k++) CHECK_OK(ito_create(&th[k], reader, NULL, &at));
        while (atomic_load(&started) < READERS && ito_now_ns() < d) CHECK_OK(ito_yield());
        seed = seed * 6364136223846793005u + 1442695040888963407u;
        uint64_t at_ns = d + (seed >> 33) % 30000 - 15000;
        while (ito_now_ns() < at_ns) {
        }
        CHECK_OK(ito_rwlock_unlock(&rw));
        for (int k = 0; k < READERS; k++) CHECK_OK(ito_join(th[k], NULL));
        CHECK_OK(ito_rwlock_trywrlock(&rw)); /* nobody holds it */
        CHECK_OK(ito_rwlock_unlock(&rw));
    }
    printf("readers admitted %d, timed out %d\n", atomic_load(&admitted), atomic_load(&timed_out));
    CHECK_OK(ito_rwlock_destroy(&rw));
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
