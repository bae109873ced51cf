/* bench_timer: how late ito's timers fire (they never fire early: that is asserted).
 *
 *   idle       one ULT sleeps 1000 times for 100 us .. 2 ms (the worker sleeps until
 *              its earliest deadline): the kernel's wake-up latency shows;
 *   many       10,000 ULTs each sleep once for 1 .. 50 ms, all started first (so that
 *              the first runs' page faults of 10,000 fresh stacks are not counted):
 *              thousands of timers in one heap at once, no kernel timer each;
 *   busy       ULTs that keep yielding occupy the worker while one ULT sleeps 1000
 *              times for 100 us .. 2 ms: the timer is seen at the scheduler's next look
 *              (placed by the clock near the deadline, at most 64 points on);
 *   crowd      the same with 1,000 ULTs that each compute 2 us between yields (a long
 *              ready queue, a round of it 2 ms), 200 sleeps: a woken sleeper runs
 *              ahead of the queue, not behind it (ito/time.h);
 *   onesem     10,000 ULTs each wait once on ONE semaphore with a deadline, 10 us apart
 *              in the reverse order of their arrival (the last to queue times out
 *              first): each expiry takes its waiter off the middle of the object's
 *              wait queue (a walk from the head before 2026-12-05: up to 6.5 s late
 *              at 40,000 waiters);
 *   pthread    the peer: a kernel thread with clock_nanosleep(TIMER_ABSTIME), the
 *              same durations as "idle".
 * One worker. Lateness = the time the sleeper runs again minus its deadline.
 * Prints per scenario:
 *   RESULT benchmark=timer_lateness scenario=<s> system=<ito|pthread> samples=<n>
 *          early=0 p50_ns=<x> p90_ns=<x> p99_ns=<x> max_ns=<x>
 * Usage: bench_timer [--quick] */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "ito/ito.h"

static double *late;
static _Atomic int nlate;
static _Atomic int early;
static uint64_t seed = 88172645463325252ull;

static uint64_t rnd(void)
{
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return seed;
}

static void record(uint64_t deadline)
{
    uint64_t now = ito_now_ns();
    if (now < deadline) atomic_fetch_add(&early, 1);
    late[atomic_fetch_add(&nlate, 1)] = (double)(now - deadline);
}

static void report(const char *scenario, const char *sys)
{
    int n = atomic_load(&nlate);
    qsort(late, (size_t)n, sizeof *late, itob_cmp);
    printf("RESULT benchmark=timer_lateness scenario=%s system=%s samples=%d early=%d p50_ns=%.0f p90_ns=%.0f "
           "p99_ns=%.0f max_ns=%.0f\n",
           scenario, sys, n, atomic_load(&early), late[n / 2], late[n * 9 / 10], late[n * 99 / 100], late[n - 1]);
    fflush(stdout);
    if (atomic_load(&early)) {
        fprintf(stderr, "bench_timer: a timer fired early\n");
        exit(2);
    }
    atomic_store(&nlate, 0);
}

static int reps = 1000;

static void *sleeper_loop(void *unused)
{
    (void)unused;
    for (int i = 0; i < reps; i++) {
        uint64_t d = ito_now_ns() + 100000 + rnd() % 1900000;
        ito_sleep_until(d);
        record(d);
    }
    return NULL;
}

static _Atomic int started, go;
static void *sleep_once(void *arg)
{
    atomic_fetch_add(&started, 1);
    while (!atomic_load(&go)) ito_yield();
    uint64_t d = ito_now_ns() + (uint64_t)(uintptr_t)arg;
    ito_sleep_until(d);
    record(d);
    return NULL;
}

static ito_sem_t onesem;
static uint64_t onesem_base;
static int onesem_n;
static void *onesem_wait(void *arg)
{
    uint64_t d = onesem_base + (uint64_t)(onesem_n - (int)(uintptr_t)arg) * 10000;
    ito_sem_wait_until(&onesem, d);
    record(d);
    return NULL;
}

static _Atomic int stop_busy;
static void *busy(void *unused)
{
    (void)unused;
    while (!atomic_load(&stop_busy)) ito_yield();
    return NULL;
}

static void *crowd(void *unused)
{
    (void)unused;
    while (!atomic_load(&stop_busy)) {
        uint64_t t0 = ito_now_ns();
        while (ito_now_ns() - t0 < 2000) {}
        ito_yield();
    }
    return NULL;
}

static void *pthread_sleeper(void *unused)
{
    (void)unused;
    for (int i = 0; i < reps; i++) {
        uint64_t d = ito_now_ns() + 100000 + rnd() % 1900000;
        struct timespec ts = {(time_t)(d / 1000000000u), (long)(d % 1000000000u)};
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
        record(d);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int many = 10000;
    if (argc > 1 && !strcmp(argv[1], "--quick")) {
        reps = 100;
        many = 1000;
    }
    late = calloc((size_t)(many > reps ? many : reps), sizeof *late);
    ito_config_t cfg = {.workers = 1};
    if (!late || ito_init(&cfg) != ITO_OK) return 1;
    ito_thread_t t;

    ito_create(&t, sleeper_loop, NULL, NULL);
    ito_join(t, NULL);
    report("idle", "ito");

    ito_thread_t *ts = calloc((size_t)many, sizeof *ts);
    ito_attr_t a; /* default stacks: pooled (a stack of another size is unmapped at exit) */
    ito_attr_init(&a);
    for (int i = 0; i < many; i++) ito_create(&ts[i], sleep_once, (void *)(uintptr_t)(1000000 + rnd() % 49000000), &a);
    while (atomic_load(&started) < many) ito_yield();
    atomic_store(&go, 1);
    for (int i = 0; i < many; i++) ito_join(ts[i], NULL);
    report("many", "ito");
    free(ts);

    ito_thread_t b[4];
    atomic_store(&stop_busy, 0);
    for (int i = 0; i < 4; i++) ito_create(&b[i], busy, NULL, NULL);
    ito_create(&t, sleeper_loop, NULL, NULL);
    ito_join(t, NULL);
    atomic_store(&stop_busy, 1);
    for (int i = 0; i < 4; i++) ito_join(b[i], NULL);
    report("busy", "ito");

    enum { CROWD = 1000 };
    ts = calloc(CROWD, sizeof *ts);
    int keep = reps;
    reps = reps / 5;
    atomic_store(&stop_busy, 0);
    for (int i = 0; ts && i < CROWD; i++) ito_create(&ts[i], crowd, NULL, &a);
    ito_create(&t, sleeper_loop, NULL, NULL);
    ito_join(t, NULL);
    atomic_store(&stop_busy, 1);
    for (int i = 0; ts && i < CROWD; i++) ito_join(ts[i], NULL);
    free(ts);
    reps = keep;
    report("crowd", "ito");

    ts = calloc((size_t)many, sizeof *ts);
    onesem_n = many;
    ito_sem_init(&onesem, 0);
    onesem_base = ito_now_ns() + 500000000u; /* every waiter queued well before the first */
    for (int i = 0; ts && i < many; i++) ito_create(&ts[i], onesem_wait, (void *)(uintptr_t)i, &a);
    for (int i = 0; ts && i < many; i++) ito_join(ts[i], NULL);
    free(ts);
    ito_sem_destroy(&onesem);
    report("onesem", "ito");
    ito_finalize();

    pthread_t p;
    pthread_create(&p, NULL, pthread_sleeper, NULL);
    pthread_join(p, NULL);
    report("idle", "pthread");
    free(late);
    return 0;
}
