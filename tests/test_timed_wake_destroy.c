/* test_timed_wake_destroy: a timed waiter woken just before its deadline, and the object
 * destroyed and its storage reused at once (sync.h: destroy succeeds once no ULT waits).
 * The woken ULT's timer stays armed on its worker until the ULT runs; when the deadline
 * passed first, the timer locked the object and ran its unlink on storage that was no
 * longer the object (ASan: heap-use-after-free in block_timeout; release: a worker spinning
 * for ever on a lock word of 0xff bytes). Found by an adversarial test (2026-12-03). Now
 * the timer and the waker claim the waiter by one CAS (itoi.h, wait_claim), and the timer
 * touches the object only when it won, while the waiter is still queued (destroy then says
 * ITO_EBUSY, and the test waits for it). Semaphore and condition variable; the waiter on
 * worker 1, the waker on worker 0 waking it 0-40 us before the deadline. */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/itoi.h" /* wait_claim: the waiter has parked */
#include "ito/ito.h"
#include "ito_test.h"

#if defined(ITOI_TSAN) || defined(ITOI_ASAN)
#define ROUNDS 300
#define WAIT_NS 500000
#else
#define ROUNDS 1500
#define WAIT_NS 200000
#endif

static ito_sem_t *sp;
static ito_cond_t *cp;
static ito_mutex_t mu;
static _Atomic uint64_t deadline;
static _Atomic int queued;

static void *sem_waiter(void *arg)
{
    (void)arg;
    atomic_store(&queued, 1);
    int rc = ito_sem_wait_until(sp, atomic_load(&deadline));
    CHECK(rc == ITO_OK || rc == ITO_ETIMEDOUT);
    return NULL;
}

static void *cond_waiter(void *arg)
{
    (void)arg;
    CHECK_OK(ito_mutex_lock(&mu));
    atomic_store(&queued, 1);
    int rc = ito_cond_wait_until(cp, &mu, atomic_load(&deadline));
    CHECK(rc == ITO_OK || rc == ITO_ETIMEDOUT);
    CHECK_OK(ito_mutex_unlock(&mu));
    return NULL;
}

static int skipped;

static void run(bool cond)
{
    uint64_t seed = 12345;
    for (int it = 0; it < ROUNDS; it++) {
        sp = malloc(sizeof *sp);
        cp = malloc(sizeof *cp);
        CHECK(sp && cp);
        CHECK_OK(ito_sem_init(sp, 0));
        CHECK_OK(ito_cond_init(cp));
        atomic_store(&queued, 0);
        atomic_store(&deadline, ito_deadline_in(WAIT_NS));
        ito_attr_t at;
        ito_attr_init(&at);
        at.worker = 1; /* its timer on worker 1 */
        ito_thread_t t;
        CHECK_OK(ito_create(&t, cond ? cond_waiter : sem_waiter, NULL, &at));
        while (!atomic_load(&queued)) CHECK_OK(ito_sleep_ns(10000));
        /* Parked, or parking with the object's lock held (which the wake below waits for):
         * a wake before that would meet the waiter still inside the call, and the destroy
         * would race the program's own use of the object. */
        itoi_ult_t *u = itoi_handle_get(t);
        CHECK(u != NULL);
        while (atomic_load(&u->wait_claim) != ITOI_CLAIM_WAITING && ito_now_ns() < atomic_load(&deadline)) {
        }
        if (atomic_load(&u->wait_claim) != ITOI_CLAIM_WAITING) { /* timed out before we saw it park */
            CHECK_OK(ito_join(t, NULL));
            CHECK_OK(ito_sem_destroy(sp));
            CHECK_OK(ito_cond_destroy(cp));
            free(sp);
            free(cp);
            skipped++;
            continue;
        }
        seed = seed * 6364136223846793005u + 1442695040888963407u;
        uint64_t at_ns = atomic_load(&deadline) - (seed >> 33) % 40000;
        while (ito_now_ns() < at_ns) {
        }
        CHECK_OK(cond ? ito_cond_signal(cp) : ito_sem_post(sp));
        int rc;
        while ((rc = cond ? ito_cond_destroy(cp) : ito_sem_destroy(sp)) == ITO_EBUSY) /* timing out */
            CHECK_OK(ito_sleep_ns(10000));
        CHECK_OK(rc);
        memset(sp, 0xff, sizeof *sp); /* the storage is the program's again */
        memset(cp, 0xff, sizeof *cp);
        free(sp);
        free(cp);
        CHECK_OK(ito_join(t, NULL));
    }
}

int main(void)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
    CHECK_OK(ito_mutex_init(&mu));
    run(false);
    run(true);
    printf("%d of %d rounds skipped (the waiter timed out before it was seen parked)\n", skipped, 2 * ROUNDS);
    CHECK(skipped < ROUNDS); /* most rounds reached the wake */
    CHECK_OK(ito_mutex_destroy(&mu));
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
