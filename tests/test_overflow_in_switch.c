/* test_overflow_in_switch: a ULT that runs out of stack inside a switch, where the full
 * switch saves the vector state (XSAVE, 1-3 KB) on the outgoing ULT's stack, is reported
 * as an overflow naming it. The switch makes the next ULT the worker's current one before
 * it saves, and the guard hit was checked against that ULT's stack: taken for not ours,
 * the process died of a silent SIGSEGV (SQLite in 64 ULTs of 16 KiB stacks under signal
 * preemption, whose ticks switch with the full save; outside tester h70b). The ULT steps
 * down its stack in small frames and yields with the full save at each: the first step
 * whose save does not fit faults in the switch, the frames themselves still fit. Runs the
 * overflow in a child process. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ito/coop.h"
#include "ito/ito.h"
#include "ito_test.h"

static atomic_int stop;

/* Keeps a second ULT ready on the worker, so that each full yield switches. */
static void *other(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop)) ito_yield();
    return NULL;
}

__attribute__((noinline)) static int descend(int depth)
{
    volatile char pad[48];
    pad[0] = (char)depth;
    ito_coop_yield_full();
    return depth > 100000 ? pad[0] : descend(depth + 1) + pad[0];
}

static void *deep(void *arg)
{
    (void)arg;
    return (void *)(intptr_t)descend(0);
}

static int child(void)
{
    ito_config_t cfg = {0};
    cfg.workers = 1;
    CHECK_OK(ito_init(&cfg));
    ito_attr_t a;
    CHECK_OK(ito_attr_init(&a));
    a.stack_size = 16 * 1024;
    ito_thread_t o, d;
    CHECK_OK(ito_create(&o, other, NULL, &a));
    a.name = "deep";
    CHECK_OK(ito_create(&d, deep, NULL, &a));
    CHECK_OK(ito_join(d, NULL));
    atomic_store(&stop, 1);
    CHECK_OK(ito_join(o, NULL));
    return 0; /* not reached: the overflow must end the process */
}

int main(void)
{
    ito_test_expect_overflow(child, "deep");
    TEST_DONE();
}
