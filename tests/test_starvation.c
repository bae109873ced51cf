/* test_starvation: the one fairness rule of the one scheduler (src/core/sched.c), for
 * both kinds of unit. A unit that retries a trylock (re-queueing itself each time it
 * fails) must never starve the holder of the lock, whatever kind each is:
 *   holder  ULT (takes the lock, yields a few times, unlocks) or
 *           ZWT (takes it and continues to a release ZWT that unlocks);
 *   retrier ULT (ito_trylock, else ito_yield) or
 *           ZWT (ito_trylock, else ito_zwt_retry).
 * The lock is a ZWT entry's thread lock (ito_trylock/ito_unlock work from both kinds).
 *
 * The scenario that once starved (found twice, in the two schedulers there used to be):
 * worker 1 is asleep, so some worker wants work; main, on worker 0, keeps a yielding
 * spinner S0 in its private queue; main makes worker 1 busy with a spinner S1 bound to
 * it, then starts the holder and the retrier. Because a worker was idle at that moment,
 * the holder's next step (the ULT, or the release ZWT) may be published to worker 0's
 * steal queue, which worker 1, never idle again, does not steal from. Worker 0 keeps
 * finding the retrier and S0 in its private queue; only the rule "take back what nobody
 * stole every 64 scheduling points" brings the holder back. If the pair has not finished
 * after a generous bound (both workers scheduling all along), the holder was starved: the
 * test fails instead of hanging. Each combination runs a few rounds, because the
 * publication depends on worker 1 still being idle. A plain ready ULT that nobody
 * contends with (the first form of this test) is the fifth case. */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "ito/debug.h"
#include "ito/ito.h"
#include "ito_test.h"

enum { LOCK, HOLD, RELEASE, RETRY, NENTRIES };
enum { KIND_ULT, KIND_ZWT };

static _Atomic int stop, held, holder_done, retrier_done, retries;
static ito_frame_t *frame;

static void *spinner(void *unused)
{
    (void)unused;
    while (!atomic_load(&stop)) ito_yield();
    return NULL;
}

/* ---- holders ---- */
static void *holder_ult(void *unused)
{
    (void)unused;
    CHECK_OK(ito_trylock(frame, LOCK));
    atomic_store(&held, 1);
    for (int i = 0; i < 3; i++) CHECK_OK(ito_yield()); /* each time, it must come back */
    CHECK_OK(ito_unlock(frame, LOCK));
    atomic_store(&holder_done, 1);
    return NULL;
}

static void hold_zwt(ito_frame_t *f, int entry, uint64_t v)
{
    (void)entry;
    (void)v;
    CHECK_OK(ito_trylock(f, LOCK));
    atomic_store(&held, 1);
    CHECK_OK(ito_continue(f, RELEASE)); /* the holder's next step, a unit of its own */
}

static void release_zwt(ito_frame_t *f, int entry, uint64_t v)
{
    (void)entry;
    (void)v;
    CHECK_OK(ito_unlock(f, LOCK));
    atomic_store(&holder_done, 1);
}

/* ---- retriers ---- */
static void *retrier_ult(void *unused)
{
    (void)unused;
    while (!atomic_load(&held)) CHECK_OK(ito_yield());
    while (ito_trylock(frame, LOCK) != ITO_OK) {
        atomic_fetch_add(&retries, 1);
        CHECK_OK(ito_yield());
    }
    CHECK_OK(ito_unlock(frame, LOCK));
    atomic_store(&retrier_done, 1);
    return NULL;
}

static void retry_zwt(ito_frame_t *f, int entry, uint64_t v)
{
    (void)entry;
    (void)v;
    if (!atomic_load(&held) || ito_trylock(f, LOCK) != ITO_OK) {
        atomic_fetch_add(&retries, 1);
        CHECK_OK(ito_zwt_retry());
        return;
    }
    CHECK_OK(ito_unlock(f, LOCK));
    atomic_store(&retrier_done, 1);
}

static void *mark_done(void *unused)
{
    (void)unused;
    atomic_store(&holder_done, 1);
    atomic_store(&retrier_done, 1);
    return NULL;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static const char *kind_name(int k) { return k == KIND_ULT ? "ULT" : "ZWT"; }

/* One round; holder < 0: the plain case (one ready ULT, no lock). */
static void round_of(int holder, int retrier, int round)
{
    atomic_store(&stop, 0);
    atomic_store(&held, 0);
    atomic_store(&holder_done, 0);
    atomic_store(&retrier_done, 0);
    atomic_store(&retries, 0);
    CHECK_OK(ito_frame_create(&frame, NENTRIES, 0));
    CHECK_OK(ito_entry_set(frame, LOCK, NULL, 1, ITO_MODE_USER)); /* only its lock bit is used */
    CHECK_OK(ito_entry_set(frame, HOLD, hold_zwt, 1, ITO_MODE_USER));
    CHECK_OK(ito_entry_set(frame, RELEASE, release_zwt, 1, ITO_MODE_USER));
    CHECK_OK(ito_entry_set(frame, RETRY, retry_zwt, 1, ITO_MODE_USER));

    ito_attr_t a0, a1;
    CHECK_OK(ito_attr_init(&a0));
    CHECK_OK(ito_attr_init(&a1));
    a0.worker = 0;
    a1.worker = 1;
    ito_thread_t s0, s1, h = NULL, r = NULL;
    CHECK_OK(ito_create(&s0, spinner, NULL, &a0));
    struct timespec ms20 = {0, 20 * 1000 * 1000};
    nanosleep(&ms20, NULL); /* worker 1 has nothing to do: it goes to sleep */
    CHECK_OK(ito_create(&s1, spinner, NULL, &a1));
    if (holder < 0) {
        CHECK_OK(ito_create(&h, mark_done, NULL, NULL));
    } else {
        if (holder == KIND_ULT) CHECK_OK(ito_create(&h, holder_ult, NULL, NULL));
        else CHECK_OK(ito_continue(frame, HOLD));
        if (retrier == KIND_ULT) CHECK_OK(ito_create(&r, retrier_ult, NULL, NULL));
        else CHECK_OK(ito_continue(frame, RETRY));
    }
    double t0 = now();
    while (!(atomic_load(&holder_done) && atomic_load(&retrier_done)) && now() - t0 < 3.0) CHECK_OK(ito_yield());
    int ok = atomic_load(&holder_done) && atomic_load(&retrier_done);
    if (!ok) ito_dump_threads(stderr);
    atomic_store(&stop, 1);
    if (!ok) {
        if (holder < 0)
            fprintf(stderr, "round %d: a ready ULT did not run for 3 s while both workers were scheduling "
                            "other ULTs (starved in a steal queue)\n", round);
        else
            fprintf(stderr, "round %d: %s holder, %s retrier: not done after 3 s (holder done %d, retrier "
                            "done %d, held %d, %d retries): the holder starved\n", round, kind_name(holder),
                    kind_name(retrier), atomic_load(&holder_done), atomic_load(&retrier_done), atomic_load(&held),
                    atomic_load(&retries));
    }
    CHECK(ok);
    CHECK_OK(ito_join(s0, NULL));
    CHECK_OK(ito_join(s1, NULL));
    if (h) CHECK_OK(ito_join(h, NULL));
    if (r) CHECK_OK(ito_join(r, NULL));
    while (ito_frame_destroy(frame) == ITO_EBUSY) CHECK_OK(ito_yield()); /* a last retry may be queued */
}

int main(void)
{
    ito_config_t cfg = {.workers = 2};
    CHECK_OK(ito_init(&cfg));
    long total_retries = 0;
    for (int round = 0; round < 3; round++) {
        round_of(-1, 0, round);
        for (int holder = KIND_ULT; holder <= KIND_ZWT; holder++)
            for (int retrier = KIND_ULT; retrier <= KIND_ZWT; retrier++) {
                round_of(holder, retrier, round);
                total_retries += atomic_load(&retries);
            }
    }
    CHECK(total_retries > 0); /* the retriers did contend */
    printf("retries while the lock was held: %ld in all\n", total_retries);
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
