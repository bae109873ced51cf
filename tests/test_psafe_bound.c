/* test_psafe_bound: the bound of a switch that a preemption-safe region delays
 * (itoi_psafe_count, src/preempt/preempt_int.h), fed the worker thread's CPU clock
 * readings that the ticks would see. It counts the CPU time the region ran, at most one
 * quantum per tick, so that:
 *  1. a region that runs is forced after the bound's quanta of CPU time, at the tick that
 *     completes them, and later when its thread shares a CPU;
 *  2. a jump of the thread's clock between two ticks (the hypervisor had the virtual CPU:
 *     the guest counts that as the thread's time, and no tick comes meanwhile) counts one
 *     quantum. Counted whole, a 507 us jump inside a critical section of 3 us forced the
 *     holder of a pthread mutex out at a 400 us bound, and the program hung
 *     (test_preempt_region part 5, 2 runs in 400); test_preempt_region part 6 makes the
 *     jump happen on a real worker;
 *  3. a tick in a system call (waiting in the kernel) starts the count afresh;
 *  4. a reading from another thread's clock below the last starts afresh, one above
 *     counts at most a quantum.
 * White box, so it runs in every tree (ThreadSanitizer delivers signals at its own points,
 * which part 6 of test_preempt_region cannot steer there). */
#define _GNU_SOURCE /* preempt_int.h: timer_t, struct sigaction */
#include <stdint.h>
#include <stdlib.h>

#include "preempt/preempt_int.h"
#include "ito_test.h"

enum { Q = 100000, BOUND = 4 * Q };

static itoi_ult_t *fresh(void)
{
    itoi_ult_t *t = calloc(1, sizeof *t);
    CHECK(t != NULL);
    return t;
}

/* The number of ticks after the first at which the region is forced, each tick `step`
 * ns of CPU time after the one before; 0 if not within `max` ticks. */
static int forced_after(uint64_t step, int max)
{
    itoi_ult_t *t = fresh();
    uint64_t cpu = 1000000;
    CHECK_EQ(itoi_psafe_count(t, cpu, 0, Q, BOUND), 1); /* the first tick delays */
    int n = 0;
    for (int i = 1; i <= max; i++) {
        cpu += step;
        if (!itoi_psafe_count(t, cpu, 0, Q, BOUND)) {
            n = i;
            break;
        }
    }
    free(t);
    return n;
}

int main(void)
{
    /* 1: running, a quantum per tick: forced at the 4th tick after the first */
    CHECK_EQ(forced_after(Q, 100), 4);
    CHECK_EQ(forced_after(Q + 3000, 100), 4); /* a late tick counts no more than a quantum */
    /* sharing a CPU three ways: about a third of a quantum per tick (12 x 34 us) */
    CHECK_EQ(forced_after(34000, 100), 12);

    /* 2: a 5 ms jump counts one quantum; then 3 more quanta of running force it */
    itoi_ult_t *t = fresh();
    uint64_t cpu = 7000000;
    CHECK_EQ(itoi_psafe_count(t, cpu, 0, Q, BOUND), 1);
    cpu += 5000000;
    CHECK_EQ(itoi_psafe_count(t, cpu, 0, Q, BOUND), 1); /* counted whole it was past the bound */
    for (int i = 0; i < 2; i++) {
        cpu += 2000; /* two expiries microseconds after the jump, then a third */
        CHECK_EQ(itoi_psafe_count(t, cpu, 0, Q, BOUND), 1);
    }
    cpu += Q;
    CHECK_EQ(itoi_psafe_count(t, cpu, 0, Q, BOUND), 1);
    cpu += Q;
    CHECK_EQ(itoi_psafe_count(t, cpu, 0, Q, BOUND), 1);
    cpu += Q; /* 1 + 2 * 0.02 + 3 quanta */
    CHECK_EQ(itoi_psafe_count(t, cpu, 0, Q, BOUND), 0);

    /* 3: waiting in the kernel starts afresh: three quanta, a tick in a system call, three
     * more: not forced; the fourth after the wait is */
    ITOI_PSAFE_PENDING(t) = 0;
    CHECK_EQ(itoi_psafe_count(t, cpu, 0, Q, BOUND), 1);
    for (int i = 0; i < 3; i++) CHECK_EQ(itoi_psafe_count(t, cpu += Q, 0, Q, BOUND), 1);
    CHECK_EQ(itoi_psafe_count(t, cpu += Q, 1, Q, BOUND), 1);
    for (int i = 0; i < 3; i++) CHECK_EQ(itoi_psafe_count(t, cpu += Q, 0, Q, BOUND), 1);
    CHECK_EQ(itoi_psafe_count(t, cpu += Q, 0, Q, BOUND), 0);

    /* 4: another thread's clock: below the last reading starts afresh; far above it
     * counts a quantum */
    ITOI_PSAFE_PENDING(t) = 0;
    CHECK_EQ(itoi_psafe_count(t, cpu, 0, Q, BOUND), 1);
    for (int i = 0; i < 3; i++) CHECK_EQ(itoi_psafe_count(t, cpu += Q, 0, Q, BOUND), 1);
    cpu = 500000; /* a younger thread */
    CHECK_EQ(itoi_psafe_count(t, cpu, 0, Q, BOUND), 1);
    for (int i = 0; i < 3; i++) CHECK_EQ(itoi_psafe_count(t, cpu += Q, 0, Q, BOUND), 1);
    cpu += 1000000000; /* an older one */
    CHECK_EQ(itoi_psafe_count(t, cpu, 0, Q, BOUND), 0); /* 3 + 1 quanta */
    free(t);
    TEST_DONE();
}
