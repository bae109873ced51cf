/* test_rwlock_timeout_writer: a writer's unlock that finds only readers whose timers have
 * claimed them (they are timing out, itoi.h wait_claim) must still hand the lock to a
 * writer waiting behind them. A timed reader (worker 1) waits behind main's write lock and
 * a writer (worker 1; a deadline an hour away, so that the test sees it parked through its
 * wait_claim) queues behind the reader. At the reader's deadline the
 * test holds the rwlock's spinlock until the reader's timer has claimed it, so that main's
 * unlock runs between the claim and the timer's unlink (the timer spins on the lock
 * meanwhile). Before the fix the unlock saw a non-empty reader queue, admitted nobody
 * (admit_readers passes a claimed reader by) and did not look at the writers; the reader's
 * timer then took it off the queue without admitting anybody either, so the lock stayed
 * free with the writer parked on it until its own deadline (the watchdog fails the test).
 * The same hang came with an untimed writer (a plain ito_rwlock_wrlock).
 * Found by a stress tester (helper h49, 2026-12-04). */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/itoi.h" /* wait_claim, and the rwlock's spinlock (its first word, waitq.h) */
#include "ito/ito.h"
#include "ito_test.h"

#define ROUNDS 100
#define DEADLINE_NS 20000000 /* the reader's wait: room for a loaded machine to start it */

static ito_rwlock_t rw;
static _Atomic uint64_t deadline;
static _Atomic int reader_timed_out;

static void *reader(void *arg)
{
    (void)arg;
    int rc = ito_rwlock_rdlock_until(&rw, atomic_load(&deadline));
    if (rc == ITO_OK) {
        CHECK_OK(ito_rwlock_unlock(&rw));
    } else {
        CHECK_EQ(rc, ITO_ETIMEDOUT);
        atomic_fetch_add(&reader_timed_out, 1);
    }
    return NULL;
}

static void *writer(void *arg)
{
    (void)arg;
    CHECK_OK(ito_rwlock_wrlock_until(&rw, ito_deadline_in((uint64_t)3600 * 1000000000u)));
    CHECK_OK(ito_rwlock_unlock(&rw));
    return NULL;
}

/* Yields until t waits with its timer armed: false if the reader's deadline came first
 * (a loaded machine started it late), and the round is skipped. */
static bool await_parked(ito_thread_t t)
{
    itoi_ult_t *u = itoi_handle_get(t);
    CHECK(u != NULL);
    while (atomic_load(&u->wait_claim) != ITOI_CLAIM_WAITING)
        if (ito_now_ns() >= atomic_load(&deadline)) return false;
        else CHECK_OK(ito_yield());
    return true;
}

int main(void)
{
    atomic_int done = 0;
    ito_test_watchdog(&done, 30, "a writer stayed parked on a free rwlock");
    CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
    CHECK_OK(ito_rwlock_init(&rw));
    itoi_spinlock_t *inner = (itoi_spinlock_t *)&rw;
    ito_attr_t at;
    CHECK_OK(ito_attr_init(&at));
    at.worker = 1; /* their timers on worker 1, the unlock on worker 0 */
    int raced = 0, skipped = 0;
    for (int it = 0; it < ROUNDS; it++) {
        CHECK_OK(ito_rwlock_wrlock(&rw));
        atomic_store(&deadline, ito_deadline_in(DEADLINE_NS));
        ito_thread_t r, wr;
        CHECK_OK(ito_create(&r, reader, NULL, &at));
        bool parked = await_parked(r);
        CHECK_OK(ito_create(&wr, writer, NULL, &at)); /* queued behind the reader */
        parked = await_parked(wr) && parked;
        if (!parked) {
            skipped++;
            CHECK_OK(ito_rwlock_unlock(&rw));
            CHECK_OK(ito_join(r, NULL));
            CHECK_OK(ito_join(wr, NULL));
            continue;
        }
        /* Hold the lock word through the reader's deadline: its timer claims it, then
         * spins for the lock; the unlock below takes the lock before the timer does on
         * most rounds (this thread releases and retakes a cache line it owns). */
        itoi_ult_t *ru = itoi_handle_get(r);
        itoi_spin_lock(inner);
        uint64_t give_up = atomic_load(&deadline) + 1000000000u;
        while (atomic_load(&ru->wait_claim) != ITOI_CLAIM_TIMER && ito_now_ns() < give_up) {
        }
        raced += atomic_load(&ru->wait_claim) == ITOI_CLAIM_TIMER;
        itoi_spin_unlock(inner);
        CHECK_OK(ito_rwlock_unlock(&rw));
        CHECK_OK(ito_join(r, NULL));
        CHECK_OK(ito_join(wr, NULL)); /* hung here */
        CHECK_OK(ito_rwlock_trywrlock(&rw)); /* nobody holds it */
        CHECK_OK(ito_rwlock_unlock(&rw));
    }
    printf("%d of %d rounds reached the claim (%d skipped); the reader timed out in %d\n", raced, ROUNDS,
           skipped, atomic_load(&reader_timed_out));
    CHECK(raced > 0);
    CHECK_OK(ito_rwlock_destroy(&rw));
    CHECK_OK(ito_finalize());
    atomic_store(&done, 1);
    TEST_DONE();
}
