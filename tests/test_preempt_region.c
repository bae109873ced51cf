/* test_preempt_region: preemption-safe regions (ito_psafe_begin/end) hold off both modes
 * of preemption, and their bound counts the ticks a ULT takes inside, not wall time.
 *  1. Kernel locks: four ULTs on one worker take a pthread mutex inside a region and
 *     work there through co-operative points (what ito-cc compiles in). Before, FLAG mode
 *     ignored regions: a check inside switched the holder out and the next ULT blocked the
 *     worker's kernel thread on the mutex for ever (1 run in 1); signal mode did the same
 *     whenever the OS descheduled the worker inside a region (the time bound then forced
 *     the switch: 2 runs in 20 on an idle machine, more beside CPU hogs).
 *  2. The bound counts CPU time: a region whose thread sleeps 60 ms in the kernel (as
 *     while the OS has it descheduled) is not forced; a wall-time bound (before) and a
 *     tick count (tried: two expiries arrive within microseconds after a descheduling)
 *     forced it.
 *  3. The bound still holds: a region that runs longer than max_delay_quanta quanta is
 *     preempted inside (forced).
 *  4. FLAG mode: a tick that came before the region began does not switch inside it; the
 *     region's end does.
 *  5. Contended kernel locks, more workers than CPUs: 16 ULTs on 4 workers (2 CPUs here,
 *     two CPU hogs beside) take one pthread mutex inside regions, at a 100 us quantum
 *     and a bound of 40 quanta (the default 4 is within this VM's clock noise: see
 *     contended()). Before, the bound counted all CPU time of the
 *     worker's thread since the region's first delayed tick, including the kernel work
 *     of waiting for the mutex (each tick interrupts the futex wait; wake-ups find the
 *     mutex taken again): a ULT that waited long had used its bound up when it got the
 *     mutex, the next tick forced it out holding it, the worker's next ULT blocked the
 *     worker's thread on it, and the program hung (FLAG mode: 13 runs in 30 quiet, 5 in
 *     6 beside two hogs). Now a tick that finds the ULT in or just back from a system
 *     call starts the count again.
 *  6. The thread's CPU clock jumps without ticks: on a KVM guest the clock counts the time
 *     the hypervisor has the virtual CPU preempted as the running thread's, and no tick
 *     comes meanwhile; the first tick after it found 507 us of "CPU time" in a 3 us
 *     critical section and forced the holder out (part 5 hung 2 runs in 400 with two
 *     instances beside each other). Here the ticks are held back (SIGURG blocked) for
 *     5 ms of CPU time inside a region and let go from a SIGUSR1 handler, so that the one
 *     expiry they collapse into interrupts the program's code, as after a descheduling;
 *     each tick now counts at most a quantum, and the region is not forced (before: in
 *     every round, both modes).
 *  7. Part 5 with gang scheduling: the 16 ULTs in two groups. A gang turn extended by
 *     regions is ended anyway at its bound, and a ULT of the group whose turn ended was
 *     made to leave its worker even inside its region: the holder of the mutex was parked
 *     while the next group's ULTs blocked their workers' threads on the mutex (signal
 *     mode: hung 6 runs in 6, with or without hogs). Now a ULT inside a region stays,
 *     under the per-ULT bound, and leaves at the region's end.
 * Signal mode in the release tree only (the sanitizers refuse it). A hang ends in the
 * alarm. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

/* ---- 1: pthread mutexes inside regions ---- */

static pthread_mutex_t kmutex = PTHREAD_MUTEX_INITIALIZER;
static long in_section, sections;

static void *locker(void *arg)
{
    int rounds = (int)(intptr_t)arg;
    for (int i = 0; i < rounds; i++) {
        CHECK_OK(ito_psafe_begin());
        pthread_mutex_lock(&kmutex);
        CHECK_EQ(in_section++, 0);
        ito_test_coop_busy_ns(3000); /* co-operative points inside the critical section */
        in_section--;
        sections++;
        pthread_mutex_unlock(&kmutex);
        CHECK_OK(ito_psafe_end());
        ito_test_coop_point();
    }
    return NULL;
}

/* n ULTs on `workers` workers, `rounds` sections each (with gang: the ULTs alternate
 * between two gang-scheduled groups); the stats afterwards. */
static ito_preempt_stats_t lockers(int mode, int workers, int n, int rounds, unsigned max_delay, int gang)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = workers}));
    CHECK_OK(ito_preempt_enable(
        &(ito_preempt_config_t){.quantum_us = 100, .mode = mode, .max_delay_quanta = max_delay, .gang = gang}));
    ito_group_t *g[2] = {NULL, NULL};
    if (gang)
        for (int i = 0; i < 2; i++) CHECK_OK(ito_group_create(&g[i]));
    sections = 0;
    ito_thread_t t[16];
    CHECK(n <= 16);
    for (int i = 0; i < n; i++) {
        CHECK_OK(ito_create(&t[i], locker, (void *)(intptr_t)rounds, NULL));
        if (gang) CHECK_OK(ito_group_add(g[i & 1], t[i]));
    }
    for (int i = 0; i < n; i++) CHECK_OK(ito_join(t[i], NULL));
    ito_preempt_stats_t s;
    CHECK_OK(ito_preempt_stats(&s));
    CHECK_EQ(sections, (long)n * rounds);
    CHECK_OK(ito_preempt_disable());
    if (gang)
        for (int i = 0; i < 2; i++) CHECK_OK(ito_group_destroy(g[i]));
    CHECK_OK(ito_finalize());
    return s;
}

static void kernel_locks(int mode)
{
    /* One worker, four ULTs. A bound of 10 ms of CPU time in the region: at 100 us quanta
     * the ticks' own handling takes a large share of the CPU, and a first region (lazy
     * binding, cold caches) ran 0.46 ms beside two CPU hogs, past a bound of 4 quanta */
    ito_preempt_stats_t s = lockers(mode, 1, 4, 1500, 100, 0);
    CHECK(s.delayed > 0); /* ticks came inside regions */
    CHECK_EQ(s.forced, 0);
}

/* ---- 5: contended, beside CPU hogs ----
 * The bound here is 40 quanta (4 ms of CPU time), not the default 4 (400 us). On this
 * machine kind (a KVM/Firecracker guest) the worker thread's CPU clock is charged for time
 * in which the thread does not run: a 3 us critical section measured alone, beside a
 * second such program, was charged up to 375 us of "CPU time", and the ticks of part 5
 * found the holder of the mutex still in its 3 us spin five to eight ticks in a row, each
 * charged 40-130 us (recorded per tick with the interrupted RIP: clock_gettime in
 * ito_test_coop_busy_ns, never a system call). Four such ticks reach a 400 us bound: the
 * holder is then forced out inside its region, as the bound promises, and the next ULT of its worker
 * blocks that worker's thread on the mutex; the program hangs (1 run in 40 with two
 * instances side by side, both modes, with and without gangs; once in CI). A runaway
 * region is still forced at this bound, and the counting that this part guards (a wait
 * in the kernel starts the count afresh, a clock jump counts at most a quantum) is
 * tested deterministically in test_psafe_bound. */
#define CONTENDED_BOUND_QUANTA 40

static _Atomic int hogs_stop;
static void *hog(void *arg)
{
    (void)arg;
    while (!atomic_load_explicit(&hogs_stop, memory_order_relaxed)) {
    }
    return NULL;
}

static void contended(int mode, int gang)
{
    atomic_store(&hogs_stop, 0);
    pthread_t h[2];
    for (int i = 0; i < 2; i++) CHECK_EQ(pthread_create(&h[i], NULL, hog, NULL), 0);
    for (int k = 0; k < 3; k++) {
        ito_preempt_stats_t s = lockers(mode, 4, 16, 400, CONTENDED_BOUND_QUANTA, gang);
        fprintf(stderr, "contended, mode %d, gang %d: ticks %llu delayed %llu forced %llu\n", mode, gang,
                (unsigned long long)s.ticks, (unsigned long long)s.delayed, (unsigned long long)s.forced);
    }
    atomic_store(&hogs_stop, 1);
    for (int i = 0; i < 2; i++) CHECK_EQ(pthread_join(h[i], NULL), 0);
}

/* ---- 2 and 3: the bound ---- */

static uint64_t stat_of(int which)
{
    ito_preempt_stats_t s;
    CHECK_OK(ito_preempt_stats(&s));
    return which ? s.forced : s.delayed;
}

/* Work in the test's own code (where signal mode may switch), about 20 us. */
static void burn(void)
{
    for (volatile int i = 0; i < 20000; i++) { }
}

static void bound(int mode)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 1}));
    CHECK_OK(ito_preempt_enable(&(ito_preempt_config_t){.quantum_us = 1000, .mode = mode, .max_delay_quanta = 10}));
    /* 2: a tick inside delays the switch; then 60 ms (60 quanta, 60 ticks) asleep in the
     * kernel, as a descheduled thread would be: not forced (the ticks' own handling is
     * CPU time of the thread: tens of microseconds each, more under the sanitizers, far
     * below the 10 ms bound) */
    CHECK_OK(ito_psafe_begin());
    uint64_t t0 = ito_test_now_ns();
    while (stat_of(0) == 0) CHECK(ito_test_now_ns() - t0 < 5000000000u);
    uint64_t t1 = ito_test_now_ns();
    while (ito_test_now_ns() - t1 < 60000000) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL); /* the ticks cut it short */
    }
    for (int i = 0; i < 10; i++) burn();
    if (mode == ITO_PREEMPT_FLAG) CHECK_EQ(ito_coop_flag, 0);
    CHECK_EQ(stat_of(1), 0); /* a time or a tick-count bound forced it */
    CHECK_OK(ito_psafe_end());
    /* 3: running inside a region: forced after 10 quanta of CPU time (signal mode: at a
     * tick that finds the ULT in its own code) */
    CHECK_OK(ito_psafe_begin());
    uint64_t t3 = ito_test_now_ns();
    while (stat_of(1) == 0 && !(mode == ITO_PREEMPT_FLAG && ito_coop_flag)) {
        burn();
        CHECK(ito_test_now_ns() - t3 < 5000000000u);
    }
    if (mode == ITO_PREEMPT_FLAG) CHECK_EQ(ito_coop_flag, 1); /* the next check switches */
    CHECK(stat_of(1) >= 1);
    CHECK(ito_test_now_ns() - t3 >= 8000000); /* not before about 10 quanta */
    CHECK_OK(ito_psafe_end());
    CHECK_OK(ito_preempt_disable());
    CHECK_OK(ito_finalize());
}

/* ---- 6: the thread's clock jumps without ticks ---- */

/* SIGUSR1 ends the hold: the tick held back becomes deliverable as the handler returns,
 * so it interrupts the program's own code (where the handler interrupted it), not a
 * system call, as after a descheduling by the hypervisor. */
static _Atomic int usr1_seen;
static void on_usr1(int sig, siginfo_t *si, void *ucv)
{
    (void)sig;
    (void)si;
    sigdelset(&((ucontext_t *)ucv)->uc_sigmask, SIGURG);
    atomic_store(&usr1_seen, 1);
}

static pthread_t jump_target;
static _Atomic int jump_go;
static void *kicker(void *arg)
{
    int rounds = (int)(intptr_t)arg;
    for (int i = 0; i < rounds; i++) {
        while (atomic_load(&jump_go) != i + 1) {
        }
        CHECK_EQ(pthread_kill(jump_target, SIGUSR1), 0);
    }
    return NULL;
}

static void clock_jump(int mode)
{
    enum { ROUNDS = 10 };
    CHECK_OK(ito_init(&(ito_config_t){.workers = 1}));
    CHECK_OK(ito_preempt_enable(&(ito_preempt_config_t){.quantum_us = 100, .mode = mode, .max_delay_quanta = 10}));
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_usr1;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    CHECK_EQ(sigaction(SIGUSR1, &sa, &old), 0);
    jump_target = pthread_self(); /* the worker's thread: this ULT stays on it inside regions */
    atomic_store(&jump_go, 0);
    pthread_t k;
    CHECK_EQ(pthread_create(&k, NULL, kicker, (void *)(intptr_t)ROUNDS), 0);
    sigset_t urg;
    sigemptyset(&urg);
    sigaddset(&urg, SIGURG);
    int seen = 0;
    for (int i = 0; i < ROUNDS; i++) {
        uint64_t d0 = stat_of(0), t0 = ito_test_now_ns();
        CHECK_OK(ito_psafe_begin()); /* (it counts a delay if a tick came just before) */
        while (stat_of(0) == d0) CHECK(ito_test_now_ns() - t0 < 5000000000u); /* a delayed tick */
        /* 5 ms of CPU time (50 quanta, 5 bounds) with the ticks held back: they come
         * back as one expiry, as after the hypervisor preempted the virtual CPU */
        CHECK_EQ(pthread_sigmask(SIG_BLOCK, &urg, NULL), 0);
        uint64_t c0 = ito_test_cpu_ns();
        while (ito_test_cpu_ns() - c0 < 5000000) {
        }
        atomic_store(&usr1_seen, 0);
        atomic_store(&jump_go, i + 1);
        while (!atomic_load(&usr1_seen)) {
        }
        sigset_t now;
        CHECK_EQ(pthread_sigmask(SIG_BLOCK, NULL, &now), 0);
        if (sigismember(&now, SIGURG)) CHECK_EQ(pthread_sigmask(SIG_UNBLOCK, &urg, NULL), 0);
        else seen++; /* the hold ended in the program's code */
        if (mode == ITO_PREEMPT_FLAG) CHECK_EQ(ito_coop_flag, 0);
        CHECK_EQ(stat_of(1), 0); /* the jump counted whole forced it (before: every round) */
        CHECK_OK(ito_psafe_end());
    }
    CHECK_EQ(pthread_join(k, NULL), 0);
    CHECK_EQ(sigaction(SIGUSR1, &old, NULL), 0);
    fprintf(stderr, "clock jump, mode %d: %d of %d holds ended in the program's code\n", mode, seen, ROUNDS);
#if !defined(ITOI_TSAN)
    CHECK(seen > 0);
#else
    /* ThreadSanitizer runs the handler later, on a copy of the context: the hold ends
     * in pthread_sigmask, where the tick finds the system call and starts afresh anyway
     * (test_psafe_bound checks the rule itself in this tree) */
#endif
    CHECK_OK(ito_preempt_disable());
    CHECK_OK(ito_finalize());
}

/* ---- 4: FLAG mode, a tick before the region ---- */

static _Atomic int other_ran;
static void *other(void *arg)
{
    (void)arg;
    atomic_store(&other_ran, 1);
    return NULL;
}

static void flag_before_region(void)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 1}));
    CHECK_OK(ito_preempt_enable(&(ito_preempt_config_t){.quantum_us = 100, .mode = ITO_PREEMPT_FLAG}));
    ito_thread_t t;
    CHECK_OK(ito_create(&t, other, NULL, NULL)); /* ready, on this worker */
    uint64_t t0 = ito_test_now_ns();
    while (!ito_coop_flag) CHECK(ito_test_now_ns() - t0 < 5000000000u); /* a tick, no check taken */
    CHECK_OK(ito_psafe_begin());
    CHECK_EQ(ito_coop_flag, 0); /* taken back: no check inside switches */
    ito_test_coop_busy_ns(20000);
    CHECK_EQ(atomic_load(&other_ran), 0);
    CHECK_OK(ito_psafe_end()); /* the delayed switch */
    CHECK_EQ(atomic_load(&other_ran), 1);
    CHECK_OK(ito_join(t, NULL));
    CHECK_OK(ito_preempt_disable());
    CHECK_OK(ito_finalize());
}

int main(void)
{
    alarm(300); /* a deadlock fails the test instead of hanging it */
    kernel_locks(ITO_PREEMPT_FLAG);
    bound(ITO_PREEMPT_FLAG);
    flag_before_region();
    clock_jump(ITO_PREEMPT_FLAG);
    contended(ITO_PREEMPT_FLAG, 0);
    contended(ITO_PREEMPT_FLAG, 1);
    if (ITO_TEST_SIGNAL_MODE_OK) {
        clock_jump(ITO_PREEMPT_SIGNAL);
        kernel_locks(ITO_PREEMPT_SIGNAL);
        bound(ITO_PREEMPT_SIGNAL);
        contended(ITO_PREEMPT_SIGNAL, 0);
        contended(ITO_PREEMPT_SIGNAL, 1);
    }
    TEST_DONE();
}
