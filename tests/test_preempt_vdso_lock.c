/* test_preempt_vdso_lock: a tick that lands in the vDSO while libito reads the clock under
 * one of its spinlocks does not switch the ULT out.
 *
 * Found by an outside tester, h63a, 2026-12-06: the timed calls of sync.h read the clock
 * with the object's spinlock held (a deadline check: itoi_deadline_passed, e.g. in
 * ito_sem_wait_until), and the preemption handler counts the vDSO as safe code
 * (test_preempt_vdso), whoever called it. A tick there switched the ULT out holding the
 * semaphore's lock; the next ULT on its worker (or the worker's own timer pass) that took
 * the same lock spun for ever: the worker hung (a stress test of many timed waits, one
 * worker, the default 10 ms quantum, hung in about 1 run of 5; this test, 100 us quantum,
 * hung in every run (3 of 3) within about 10 ms of its first, 1-worker round; the 2-worker
 * round binds both ULTs to worker 0 the same way).
 *
 * Here ULT A does timed tries (a deadline in the past: the clock is read under the lock)
 * in a loop, ULT B posts and takes units of the same semaphore, both on worker 0, under a
 * 100 us quantum for 1 s. A watchdog (ito_test.h) ends the process with a failure when the test has not ended
 * in 60 s (the hang), so that the test never hangs itself. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static ito_sem_t sem;
static _Atomic int stop;
static _Atomic long a_rounds, b_rounds;

static void *a_body(void *arg)
{
    (void)arg;
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        int rc = ito_sem_wait_until(&sem, 1); /* a try: reads the clock under the lock */
        CHECK(rc == ITO_OK || rc == ITO_ETIMEDOUT);
        atomic_fetch_add_explicit(&a_rounds, 1, memory_order_relaxed);
    }
    return NULL;
}

static void *b_body(void *arg)
{
    (void)arg;
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        int rc = ito_sem_post(&sem);
        CHECK(rc == ITO_OK || rc == ITO_ERANGE);
        rc = ito_sem_trywait(&sem);
        CHECK(rc == ITO_OK || rc == ITO_EAGAIN);
        atomic_fetch_add_explicit(&b_rounds, 1, memory_order_relaxed);
    }
    return NULL;
}


static void run(int workers)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = workers}));
    ito_preempt_config_t pc = {.quantum_us = 100, .mode = ITO_PREEMPT_SIGNAL};
    int rc = ito_preempt_enable(&pc);
    if (!ITO_TEST_SIGNAL_MODE_OK) { /* the sanitizer trees refuse signal mode (preempt.h) */
        CHECK_EQ(rc, ITO_ENOSYS);
        CHECK_OK(ito_finalize());
        return;
    }
    CHECK_OK(rc);
    CHECK_OK(ito_sem_init(&sem, 0));
    atomic_store(&a_rounds, 0);
    atomic_store(&b_rounds, 0);
    ito_test_run_pair_on0(a_body, b_body, 1000 * 1000 * 1000ull, &stop);
    CHECK(atomic_load(&a_rounds) > 0 && atomic_load(&b_rounds) > 0);
    CHECK_OK(ito_sem_destroy(&sem));
    CHECK_OK(ito_preempt_disable());
    CHECK_OK(ito_finalize());
}

static atomic_int done_;

int main(void)
{
    /* the failure is a hang: a worker stuck for ever */
    ito_test_watchdog(&done_, 60, "a ULT was switched out holding a runtime spinlock");
    run(1);
    run(2);
    atomic_store(&done_, 1);
    TEST_DONE();
}
