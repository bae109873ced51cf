/* test_sync_enter_destroy: a ULT enters ito_sem_wait_until
 * while another thread destroys the semaphore. The destroy says ITO_OK at its first try
 * (no waiter queued yet); counts the rounds where the waiter then parked in the destroyed
 * object anyway (it passed the mark check before the destroy, took the lock after it) and
 * only its deadline got it out (ITO_ETIMEDOUT instead of ITO_EINVAL). Untimed, it would
 * wait for ever; with the storage initialised again, the new init drops it from the queue.
 * sync.h calls this use undefined ("destroyed when no ULT uses them"), but the wait can
 * tell: the destroy clears the mark under the lock, and the wait checks it again there
 * (ITO_EINVAL). Found by an outside tester, h62d, 2026-12-05. */
#define _GNU_SOURCE
#include <stdatomic.h>
#include "ito/ito.h"
#include "ito_test.h"

static ito_sem_t s;
static atomic_int go_, rc_;

static void *waiter(void *a)
{
    (void)a;
    while (!atomic_load(&go_)) { }
    /* 300 ms: only a waiter parked in the destroyed semaphore waits that long (with 1 ms,
     * a main thread the OS held off for 1 ms under load let a waiter time out before the
     * destroy: 2 false findings in a Release tree, 2026-12-06) */
    atomic_store(&rc_, ito_sem_wait_until(&s, ito_deadline_in(300 * 1000 * 1000)));
    return NULL;
}

int main(void)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
    long parked_dead = 0, first_ok = 0, einval = 0, tmo = 0;
    for (int i = 0; i < 6000; i++) {
        CHECK_OK(ito_sem_init(&s, 0));
        atomic_store(&go_, 0);
        ito_attr_t a;
        CHECK_OK(ito_attr_init(&a));
        a.worker = 1;
        ito_thread_t t;
        CHECK_OK(ito_create(&t, waiter, NULL, &a));
        for (int j = 0; j < 2000; j++) __asm__ volatile("pause");
        atomic_store(&go_, 1);
        for (int j = 0; j < (int)(i % 64) * 4; j++) __asm__ volatile("pause");
        int r, first = 1, was_first = 0;
        while ((r = ito_sem_destroy(&s)) == ITO_EBUSY) { /* a waiter queued: let it go (ITO_OK) */
            first = 0;
            CHECK_OK(ito_sem_post(&s));
        }
        was_first = first;
        CHECK_OK(r);
        CHECK_OK(ito_join(t, NULL));
        int rr = atomic_load(&rc_);
        if (rr == ITO_EINVAL) einval++; else if (rr == ITO_ETIMEDOUT) tmo++;
        if (was_first) {
            first_ok++;
            if (atomic_load(&rc_) == ITO_ETIMEDOUT) parked_dead++;
        }
        if (parked_dead) break; /* a finding: stop (each costs the deadline) */
    }
    fprintf(stderr, "waiter: EINVAL %ld, ETIMEDOUT %ld, ITO_OK (posted) the rest\n", einval, tmo);
    fprintf(stderr, "destroy OK at first try: %ld rounds; of them the waiter parked in the destroyed sem: %ld\n", first_ok, parked_dead);
    CHECK_EQ(parked_dead, 0);
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
