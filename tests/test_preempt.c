/* test_preempt: timer preemption of ULTs that never yield, no deadlock with ULTs that
 * live in malloc, stdio and ito mutexes, preemption-safe regions (delay, bound, forced),
 * gang scheduling of two groups, bad input. Linked against the shared libito (signal
 * preemption needs it). */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "ito/ito.h"
#include "ito_test.h"

static _Atomic int stop;
static _Atomic long progress[4];

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Part 4 measures a region in work, not time: region_chunks loop chunks (0: the region
 * lasts `len` seconds of wall time). See there. */
static long region_chunks;

static void chunk(void)
{
    for (volatile int k = 0; k < 20000; k++) {
    } /* mostly in this program's code, where a forced preemption can land */
}

/* How many chunks one millisecond of this thread's CPU time runs (over 20 ms of it). */
static long chunks_per_cpu_ms(void)
{
    uint64_t a = ito_test_cpu_ns();
    long n = 0;
    double ms;
    do {
        chunk();
        n++;
        ms = (double)(ito_test_cpu_ns() - a) * 1e-6;
    } while (ms < 20.0);
    return (long)((double)n / ms) + 1;
}

static void *spin(void *arg) /* never yields */
{
    int i = (int)(intptr_t)arg;
    while (!atomic_load_explicit(&stop, memory_order_relaxed))
        atomic_fetch_add_explicit(&progress[i], 1, memory_order_relaxed);
    return NULL;
}

#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define ITO_TEST_TSAN 1 /* a sanitizer tree: signal preemption is refused */
#endif
#if __has_feature(thread_sanitizer)
#define ITO_TEST_THREAD_SAN 1
#endif
#endif
#ifndef ITO_TEST_TSAN
#define ITO_TEST_TSAN 0
#endif
#ifndef ITO_TEST_THREAD_SAN
#define ITO_TEST_THREAD_SAN 0
#endif

/* Spins with a co-operative point: switches only when the timer set the flag. */
__attribute__((unused)) static void *coop_spin(void *arg)
{
    int i = (int)(intptr_t)arg;
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        atomic_fetch_add_explicit(&progress[i], 1, memory_order_relaxed);
        ITO_COOP_POINT();
    }
    return NULL;
}

/* Two groups of two spinners on two workers, gang-scheduled: every spinner progresses
 * (a ULT of the group whose turn ended leaves even when nothing else is ready; parked
 * ULTs rotate). g[0], g[1] are left created for the caller. */
static void gang_progress(ito_group_t *g[2], void *(*body)(void *), int mode)
{
    CHECK_OK(ito_group_create(&g[0]));
    CHECK_OK(ito_group_create(&g[1]));
    atomic_store(&stop, 0);
    for (int i = 0; i < 4; i++) atomic_store(&progress[i], 0);
    ito_preempt_config_t gc = {.quantum_us = 2000, .gang = 1, .mode = mode};
    ito_thread_t sp[4];
    for (int i = 0; i < 4; i++) {
        CHECK_OK(ito_create(&sp[i], body, (void *)(intptr_t)i, NULL));
        CHECK_OK(ito_group_add(g[i / 2], sp[i]));
    }
    CHECK_EQ(ito_group_add(g[0], sp[0]), ITO_EBUSY);
    CHECK_OK(ito_preempt_enable(&gc));
    double t0 = now();
    while (now() - t0 < 0.3 || (now() - t0 < 10 && (!atomic_load(&progress[0]) || !atomic_load(&progress[1]) ||
                                                    !atomic_load(&progress[2]) || !atomic_load(&progress[3]))))
        CHECK_OK(ito_yield());
    for (int i = 0; i < 4; i++)
        if (atomic_load(&progress[i]) == 0) ito_dump_threads(stderr); /* where it waits */
    atomic_store(&stop, 1);
    for (int i = 0; i < 4; i++) CHECK_OK(ito_join(sp[i], NULL));
    for (int i = 0; i < 4; i++)
        if (atomic_load(&progress[i]) == 0) fprintf(stderr, "gang: spinner %d never ran (%ld %ld %ld %ld)\n", i, atomic_load(&progress[0]), atomic_load(&progress[1]), atomic_load(&progress[2]), atomic_load(&progress[3]));
    for (int i = 0; i < 4; i++) CHECK(atomic_load(&progress[i]) > 0);
}

static ito_mutex_t mu;
static long shared_counter;
static FILE *devnull;

static void *busy_libc(void *arg)
{
    long sum = 0, kind = (long)(intptr_t)arg;
    for (long i = 0; i < 20000; i++) {
        if (kind == 0) {
            char *p = malloc(64 + (size_t)(i % 512));
            p[0] = (char)i;
            sum += p[0];
            free(p);
        } else if (kind == 1) {
            fprintf(devnull, "line %ld %s\n", i, "printf-heavy ULT");
            sum++;
        } else {
            CHECK_OK(ito_mutex_lock(&mu));
            shared_counter++;
            CHECK_OK(ito_mutex_unlock(&mu));
            sum++;
        }
    }
    return (void *)sum;
}

static _Atomic int in_region, other_ran_in_region;
static int region_coop; /* the holder's region has co-operative points (FLAG mode) */
static void *region_holder(void *arg)
{
    double len = *(double *)arg;
    CHECK_OK(ito_psafe_begin());
    atomic_store(&in_region, 1);
    if (region_chunks > 0) {
        for (long i = 0; i < region_chunks; i++) chunk();
    } else {
        double t0 = now();
        while (now() - t0 < len) {
            chunk();
            if (region_coop) ITO_COOP_POINT(); /* FLAG mode: where a tick's flag is taken */
        }
    }
    atomic_store(&in_region, 0);
    CHECK_OK(ito_psafe_end());
    return NULL;
}

/* Wants the CPU, and looks whether it got it inside the holder's region. It yields at
 * every look, so it runs only when picked: gang scheduling decides per turn, and a ULT of
 * the other group that was being switched in as the turn changed could otherwise run on
 * until its worker's next tick (the kick misses a ULT not yet current; seen 1 run in 30
 * under two CPU hogs, when a quantum of the worker's CPU time stretches); a yield makes it
 * leave at once (the leave test), which is the property: no ULT of another group is
 * picked inside a region. */
static void *watcher(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop)) {
        CHECK_OK(ito_yield());
        if (atomic_load(&in_region)) atomic_store(&other_ran_in_region, 1);
    }
    return NULL;
}

/* One region of `len` seconds in a ULT, with a watcher ULT wanting the CPU meanwhile;
 * the two join groups when given. */
static void run_region(double *len, ito_group_t *holder_group, ito_group_t *watcher_group)
{
    ito_thread_t h, wt;
    atomic_store(&stop, 0);
    atomic_store(&other_ran_in_region, 0);
    CHECK_OK(ito_create(&h, region_holder, len, NULL));
    if (holder_group) CHECK_OK(ito_group_add(holder_group, h));
    CHECK_OK(ito_create(&wt, watcher, NULL, NULL));
    if (watcher_group) CHECK_OK(ito_group_add(watcher_group, wt));
    CHECK_OK(ito_join(h, NULL));
    atomic_store(&stop, 1);
    CHECK_OK(ito_join(wt, NULL));
}

/* Regions act on the whole gang: while g0's ULT is inside one, g0's turn is extended
 * (delayed), so g1's watcher does not run; the overrun is charged to g0. Run in both
 * modes: in FLAG mode the tick also delays the holder's own switch, and until 2026-11-29
 * that delay was counted but its time never charged to the group (delay_ns stayed put,
 * seen under two CPU hogs). */
static void gang_regions(ito_group_t *g[2])
{
    double len = 0.006; /* 3 quanta, under the bound (4 quanta by default) */
    ito_preempt_stats_t gs0, gs1, all0, all1;
    CHECK_OK(ito_group_stats(g[0], &gs0));
    for (int tries = 0; tries < 20; tries++) {
        CHECK_OK(ito_preempt_stats(&all0));
        run_region(&len, g[0], g[1]);
        CHECK_OK(ito_group_stats(g[0], &gs1));
        CHECK_OK(ito_preempt_stats(&all1));
        /* Unless a preemption inside a region was forced by a bound: the turn's (the
         * group's count) or the region's own (the worker's). A holder whose turn ended
         * while it could not be preempted (its PC in the runtime: deferred) no longer
         * enters the region off its turn: ito_psafe_begin waits for the next one (before
         * 2026-12-02 it entered, and was made to leave inside it). */
        if (gs1.forced == gs0.forced && all1.forced == all0.forced) CHECK_EQ(atomic_load(&other_ran_in_region), 0);
        if (gs1.delayed > gs0.delayed) break;
    }
    CHECK(gs1.delayed > gs0.delayed);
    /* The overrun is charged when the extended turn ends: at the region's end, or, when
     * ito_psafe_end found worker 0's tick deciding (the turn lock taken), at that tick's
     * successor. Under two CPU hogs the stats were read before it came (1 run in 12). */
    for (int i = 0; i < 1000 && gs1.delay_ns <= gs0.delay_ns; i++) {
        CHECK_OK(ito_sleep_ns(1000000));
        CHECK_OK(ito_group_stats(g[0], &gs1));
    }
    CHECK(gs1.delay_ns > gs0.delay_ns);
}

/* A tick's flag still set when a gang ULT enters a region (FLAG mode): ito_psafe_begin
 * takes it back. Every delay the group counts must come with its time; the region here
 * is so short that no tick lands inside, so before the fix of 2026-11-29 every round
 * counted a delay whose time was never charged (deterministic, unlike the race part 6
 * once caught 2 runs in 25 under two CPU hogs). */
static void *flag_then_region(void *arg)
{
    (void)arg;
    for (int i = 0; i < 200; i++) {
        ito_coop_flag = 1; /* as a tick that no check has taken yet */
        CHECK_OK(ito_psafe_begin());
        CHECK_EQ(ito_coop_flag, 0); /* taken back: inside the region no check switches */
        CHECK_OK(ito_psafe_end());
        ITO_COOP_POINT();
    }
    return NULL;
}

static void gang_flag_before_region(ito_group_t *g)
{
    ito_preempt_stats_t s0, s1;
    CHECK_OK(ito_group_stats(g, &s0));
    ito_thread_t t;
    CHECK_OK(ito_create(&t, flag_then_region, NULL, NULL));
    CHECK_OK(ito_group_add(g, t));
    CHECK_OK(ito_join(t, NULL));
    CHECK_OK(ito_group_stats(g, &s1));
    for (int i = 0; i < 1000 && s1.delayed > s0.delayed && s1.delay_ns <= s0.delay_ns; i++) {
        CHECK_OK(ito_sleep_ns(1000000)); /* a delayed turn is charged at its end */
        CHECK_OK(ito_group_stats(g, &s1));
    }
    if (s1.delayed > s0.delayed) CHECK(s1.delay_ns > s0.delay_ns);
}

int main(void)
{
    devnull = fopen("/dev/null", "w");
    CHECK(devnull != NULL);
    ito_preempt_config_t bad = {.quantum_us = 5};
    CHECK_EQ(ito_preempt_enable(&bad), ITO_ESTATE); /* before ito_init */
    ito_config_t one = {.workers = 1};
    CHECK_OK(ito_init(&one));
    CHECK_EQ(ito_preempt_enable(&bad), ITO_EINVAL);
    bad.quantum_us = 1000;
    bad.mode = 7;
    CHECK_EQ(ito_preempt_enable(&bad), ITO_EINVAL);
    bad.mode = ITO_PREEMPT_FLAG;
    bad.gang = 2; /* found by a misuse tester (2026-12-03): taken for 1 */
    CHECK_EQ(ito_preempt_enable(&bad), ITO_EINVAL);
    bad.gang = -1;
    CHECK_EQ(ito_preempt_enable(&bad), ITO_EINVAL);
    CHECK_EQ(ito_preempt_disable(), ITO_ESTATE); /* nothing was enabled */
    CHECK_EQ(ito_preempt_disable(), ITO_ESTATE);
    CHECK_EQ(ito_psafe_end(), ITO_ESTATE);
    ito_preempt_config_t cfg = {.quantum_us = 1000, .max_delay_quanta = 5};
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__) || ITO_TEST_TSAN
    /* Sanitizers: signal preemption is refused; the flag mode still drives co-operative points. */
    CHECK_EQ(ito_preempt_enable(&cfg), ITO_ENOSYS);
    cfg.mode = ITO_PREEMPT_FLAG;
    CHECK_OK(ito_preempt_enable(&cfg));
    ito_thread_t c1, c2;
    CHECK_OK(ito_create(&c1, coop_spin, (void *)0, NULL));
    CHECK_OK(ito_create(&c2, coop_spin, (void *)1, NULL));
    double tt = now();
    while (now() - tt < 0.2 || !atomic_load(&progress[0]) || !atomic_load(&progress[1])) CHECK_OK(ito_yield());
    atomic_store(&stop, 1);
    CHECK_OK(ito_join(c1, NULL));
    CHECK_OK(ito_join(c2, NULL));
    CHECK_OK(ito_psafe_begin());
    CHECK_OK(ito_psafe_end());
    CHECK_OK(ito_preempt_disable());
    CHECK_OK(ito_finalize());
    /* The flag taken back at a gang ULT's region (gang_flag_before_region) with one group,
     * whose turn never ends: no tick is needed, so the TSan tree runs it too. */
    {
        ito_config_t two1 = {.workers = 2};
        CHECK_OK(ito_init(&two1));
        ito_group_t *g1;
        CHECK_OK(ito_group_create(&g1));
        ito_preempt_config_t gc1 = {.quantum_us = 2000, .gang = 1, .mode = ITO_PREEMPT_FLAG};
        CHECK_OK(ito_preempt_enable(&gc1));
        gang_flag_before_region(g1);
        CHECK_OK(ito_group_destroy(g1));
        CHECK_OK(ito_preempt_disable());
        CHECK_OK(ito_finalize());
    }
    /* Gang scheduling in flag mode (the regression test of the gang rotation runs in
     * the ASan tree too). Not under TSan: TSan defers a signal handler until the thread
     * leaves the system call it is in, and an idle worker's futex wait is restarted
     * (SA_RESTART), so the tick that rotates the gang's turn never runs while both
     * workers sleep waiting for it. */
#if !defined(__SANITIZE_THREAD__) && !ITO_TEST_THREAD_SAN
    ito_config_t two_flag = {.workers = 2};
    CHECK_OK(ito_init(&two_flag));
    ito_group_t *gf[2];
    gang_progress(gf, coop_spin, ITO_PREEMPT_FLAG);
    region_coop = 1;
    gang_regions(gf);
    gang_flag_before_region(gf[0]);
    region_coop = 0;
    CHECK_OK(ito_group_destroy(gf[0]));
    CHECK_OK(ito_group_destroy(gf[1]));
    CHECK_OK(ito_preempt_disable());
    CHECK_OK(ito_finalize());
#endif
    fclose(devnull);
    TEST_DONE();
#endif
    CHECK_OK(ito_preempt_enable(&cfg));
    CHECK_EQ(ito_preempt_enable(&cfg), ITO_ESTATE);

    /* 1. Two spinners that never yield, on one worker, both make progress. */
    ito_thread_t a, b;
    CHECK_OK(ito_create(&a, spin, (void *)0, NULL));
    CHECK_OK(ito_create(&b, spin, (void *)1, NULL));
    double t0 = now();
    while (now() - t0 < 0.2) CHECK_OK(ito_yield());
    atomic_store(&stop, 1);
    CHECK_OK(ito_join(a, NULL));
    CHECK_OK(ito_join(b, NULL));
    CHECK(atomic_load(&progress[0]) > 0 && atomic_load(&progress[1]) > 0);
    ito_preempt_stats_t st;
    CHECK_OK(ito_preempt_stats(&st));
    CHECK(st.preemptions > 0);

    /* 2. malloc-, printf- and lock-heavy ULTs under many preemptions: no deadlock, no loss. */
    CHECK_OK(ito_mutex_init(&mu));
    ito_thread_t ts[9];
    for (int i = 0; i < 9; i++) CHECK_OK(ito_create(&ts[i], busy_libc, (void *)(intptr_t)(i % 3), NULL));
    for (int i = 0; i < 9; i++) {
        void *r;
        CHECK_OK(ito_join(ts[i], &r));
        CHECK_EQ((long)r, i % 3 == 0 ? 20000L * 0 + (long)r : 20000L); /* kinds 1, 2 count 20000 */
    }
    CHECK_EQ(shared_counter, 3 * 20000L);

    /* 3. A region longer than a quantum delays the switch: the watcher does not run inside. */
    double len = 0.004; /* 4 quanta, under the bound of 5 */
    ito_preempt_stats_t s0, s1;
    CHECK_OK(ito_preempt_stats(&s0));
    /* A loaded machine may deliver no tick inside one region: retry a bounded number of times. */
    for (int tries = 0; tries < 20; tries++) {
        ito_preempt_stats_t before;
        CHECK_OK(ito_preempt_stats(&before));
        run_region(&len, NULL, NULL);
        CHECK_OK(ito_preempt_stats(&s1));
        /* Never switched inside the region, unless the machine was so loaded that the
         * region outlived the bound (5 quanta) and the switch was forced. */
        if (s1.forced == before.forced) CHECK_EQ(atomic_load(&other_ran_in_region), 0);
        if (s1.delayed > s0.delayed) break;
    }
    CHECK(s1.delayed > s0.delayed);
    CHECK(s1.delay_ns > s0.delay_ns);
    /* 4. Past the bound the switch is forced. The bound counts the worker thread's CPU time,
     * so the region is 12 quanta of it, as work calibrated on that clock: measured in wall
     * time, two CPU hogs left the worker 5-6 ms of CPU in a 12 ms region and the bound (a
     * first tick, then 5 quanta) was reached in none of 20 tries (6 runs in 10 failed).
     * Reading the CPU clock inside the region does not do: it is a system call, a ULT in
     * or just back from one restarts the bound (it is not running its region), and the
     * ticks seemingly land there (no forced switch in 10 runs of 10: our explanation is
     * that the CPU timer's signal is delivered on the call's return). */
    region_chunks = 12 * chunks_per_cpu_ms(); /* 12 quanta > 5 */
    for (int tries = 0; tries < 20; tries++) {
        run_region(&len, NULL, NULL);
        CHECK_OK(ito_preempt_stats(&s1));
        if (s1.forced > 0) break;
    }
    if (s1.forced == 0)
        fprintf(stderr, "no forced switch: ticks %llu, delayed %llu (%llu ns), forced %llu\n",
                (unsigned long long)s1.ticks, (unsigned long long)s1.delayed,
                (unsigned long long)s1.delay_ns, (unsigned long long)s1.forced);
    CHECK(s1.forced > 0);
    region_chunks = 0;
    CHECK_OK(ito_preempt_disable());
    CHECK_OK(ito_finalize());

    /* 5. Gang scheduling: two groups of spinners on two workers both progress. */
    ito_config_t two = {.workers = 2};
    CHECK_OK(ito_init(&two));
    ito_group_t *g[2];
    gang_progress(g, spin, ITO_PREEMPT_SIGNAL);
    /* 6. Regions act on the whole gang (gang_regions). */
    gang_regions(g);
    CHECK_EQ(ito_group_destroy(g[0]), ITO_OK);
    CHECK_EQ(ito_group_destroy(g[1]), ITO_OK);
    CHECK_OK(ito_preempt_disable());
    /* 7. The same in FLAG mode (the sanitizer trees run it too). */
    gang_progress(g, coop_spin, ITO_PREEMPT_FLAG);
    region_coop = 1;
    gang_regions(g);
    gang_flag_before_region(g[0]);
    region_coop = 0;
    CHECK_EQ(ito_group_destroy(g[0]), ITO_OK);
    CHECK_EQ(ito_group_destroy(g[1]), ITO_OK);
    CHECK_OK(ito_preempt_disable());
    CHECK_OK(ito_finalize());
    fclose(devnull);
    TEST_DONE();
}
