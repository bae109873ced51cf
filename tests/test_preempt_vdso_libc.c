/* test_preempt_vdso_libc: a tick that lands in the vDSO while libc reads the clock holding
 * a lock of its own does not switch the ULT out.
 *
 * Found by an outside tester, h76c, 2026-12-07: the handler counted the vDSO as safe code
 * whoever called it (test_preempt_vdso); libito's own calls were excluded
 * (test_preempt_vdso_lock), libc's were not. glibc's syslog takes syslog_lock and then
 * reads the clock (time64_now, through clock_gettime into the vDSO): a tick there switched
 * the ULT out holding the lock, and the next ULT of its worker to call syslog blocked the
 * worker's kernel thread on it for ever (16 ULTs calling syslog on 2 workers at a 100 us
 * quantum hung in 6 runs of 6 within seconds; this test in 6 runs of 6).
 *
 * Here 16 ULTs, bound one to each worker in turn, call syslog and spin a little in the
 * program's own code between calls, under a 100 us quantum, for 2 s, on one worker and
 * then on two. A
 * watchdog (ito_test.h) ends the process with a failure when the test has not ended in
 * 60 s (the hang). The spinning's ticks must still switch them (preemptions counted).
 * syslog writes to /dev/log when there is one: on such a machine the test would fill the
 * system log, so it checks nothing there and says so (the machine it was found on has
 * none: every call fails to connect, quietly, with no LOG_CONS). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <syslog.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static _Atomic int stop;
static _Atomic long calls;

static void *body(void *arg)
{
    (void)arg;
    volatile double x = 1;
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        syslog(LOG_DEBUG, "ito test_preempt_vdso_libc %d", 1);
        for (int i = 0; i < 200; i++) x = x * 1.0000001 + 1e-9; /* the program's own code */
        atomic_fetch_add_explicit(&calls, 1, memory_order_relaxed);
    }
    return NULL;
}

static void run(int workers)
{
    if (!ito_test_start_signal_preempt(&(ito_config_t){.workers = workers}, 100)) return;
    atomic_store(&calls, 0);
    ito_preempt_stats_t before, after;
    CHECK_OK(ito_preempt_stats(&before));
    ito_thread_t t[16];
    atomic_store(&stop, 0);
    for (int i = 0; i < 16; i++) {
        ito_attr_t a;
        CHECK_OK(ito_attr_init(&a));
        a.worker = i % workers;
        CHECK_OK(ito_create(&t[i], body, NULL, &a));
    }
    CHECK_OK(ito_sleep_ns(2000 * 1000 * 1000ull));
    atomic_store(&stop, 1);
    for (int i = 0; i < 16; i++) CHECK_OK(ito_join(t[i], NULL));
    CHECK_OK(ito_preempt_stats(&after));
    CHECK(atomic_load(&calls) > 0);
    CHECK(after.preemptions > before.preemptions); /* the ticks in the program's code switch */
    CHECK_OK(ito_preempt_disable());
    CHECK_OK(ito_finalize());
}

static atomic_int done_;

int main(void)
{
    if (access("/dev/log", F_OK) == 0) {
        printf("/dev/log exists: syslog would write to the system log, nothing checked\n");
        TEST_DONE();
    }
    /* the failure is a hang: a worker's thread blocked on syslog_lock for ever */
    ito_test_watchdog(&done_, 60, "a ULT was switched out holding glibc's syslog_lock");
    run(1);
    run(2);
    atomic_store(&done_, 1);
    TEST_DONE();
}
