/* test_timer_front: a timed wait on a busy worker ends late by a bounded number of
 * scheduling points (ito/time.h: on a busy worker "by up to 64 of them"), not
 * by the length of the ready queue. 1,000 ULTs bound to worker 0 each spin 10 us and
 * yield; a ULT on the same worker sleeps 1 ms, 80 times: between the sleep's start and
 * its end the others may pass about 100 scheduling points (the millisecond itself) plus
 * the 64 of the fairness rule. Until 2026-12-04 a ULT whose deadline passed was queued
 * behind the whole ready queue: every sleep took over 1,000 points (10-25 ms); found by a
 * finalize/I-O tester. 80 sleeps, not 5: timed-out ULTs go ahead of the queue up to a
 * budget per window of points (timer.c, FRONT_MAX per FRONT_WINDOW), and a budget never
 * given back (every sleep after the 32nd late) passed five sleeps (mutation testing, h60e,
 * 2026-12-05). A stray late sleep (the OS took the CPU a while) is noise: at most 3 of 80
 * may pass half the queue. Run with 1 and 2 workers (with 2, an idle worker wants work). */
#define _GNU_SOURCE
#include <stdatomic.h>

#include "ito/ito.h"
#include "ito_test.h"

#define SPINNERS 1000
static _Atomic int stop;
static _Atomic long points;

static void *spinner(void *unused)
{
    (void)unused;
    while (!atomic_load(&stop)) {
        ito_test_busy_ns(10000);
        atomic_fetch_add(&points, 1);
        CHECK_OK(ito_yield());
    }
    return NULL;
}

#define SLEEPS 80
static long worst, late; /* the most points passed by one sleep; sleeps past half the queue */

static void *sleeper(void *unused)
{
    (void)unused;
    for (int k = 0; k < SLEEPS; k++) {
        long p0 = atomic_load(&points);
        uint64_t deadline = ito_deadline_in(1000000);
        CHECK_OK(ito_sleep_until(deadline));
        CHECK(ito_now_ns() >= deadline);
        long p = atomic_load(&points) - p0;
        if (p > worst) worst = p;
        if (p >= SPINNERS / 2) late++;
    }
    atomic_store(&stop, 1);
    return NULL;
}

int main(void)
{
    for (int workers = 1; workers <= 2; workers++) {
        atomic_store(&stop, 0);
        worst = late = 0;
        CHECK_OK(ito_init(&(ito_config_t){.workers = workers}));
        ito_attr_t at;
        CHECK_OK(ito_attr_init(&at));
        at.worker = 0;
        at.stack_size = 16384;
        static ito_thread_t t[SPINNERS + 1];
        for (int i = 0; i < SPINNERS; i++) CHECK_OK(ito_create(&t[i], spinner, NULL, &at));
        CHECK_OK(ito_create(&t[SPINNERS], sleeper, NULL, &at));
        for (int i = 0; i <= SPINNERS; i++) CHECK_OK(ito_join(t[i], NULL));
        CHECK_OK(ito_finalize());
        printf("%d worker(s): %d sleeps of 1 ms among %d ready ULTs: at most %ld of their points, %ld past %d\n",
               workers, SLEEPS, SPINNERS, worst, late, SPINNERS / 2);
        CHECK(late <= 3);
    }
    TEST_DONE();
}
