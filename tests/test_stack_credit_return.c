/* test_stack_credit_return: stack credits taken on one worker and given back on another
 * go back to their class (stack.c: a worker holding more than 2 * CREDIT_BATCH gives a
 * batch back), so that a program whose ULTs are created on one worker and end on another
 * (a producer on worker 0 making work bound to worker 1) does not map a new region of
 * stacks for every burst. 60 bursts of 2000 ULTs created on worker 0, bound to worker 1:
 * the address space must not grow by more than a few bursts' worth of stack slots
 * (without the give-back it grew by ~2000 slots of 128 KiB, 250 MiB, per burst). */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "ito/ito.h"
#include "ito_test.h"

#define BURST 2000
#define ROUNDS 60

static void *nothing(void *arg) { return arg; }

static void burst(void)
{
    static ito_thread_t ts[BURST];
    ito_attr_t a;
    ito_attr_init(&a);
    a.worker = 1;
    for (int i = 0; i < BURST; i++) CHECK_OK(ito_create(&ts[i], nothing, NULL, &a));
    for (int i = 0; i < BURST; i++) CHECK_OK(ito_join(ts[i], NULL));
}

int main(void)
{
    ito_config_t cfg = {0};
    cfg.workers = 2;
    CHECK_OK(ito_init(&cfg));
    burst();
    burst();
    long before = ito_test_vm_bytes() / 1024;
    for (int r = 0; r < ROUNDS; r++) burst();
    long after = ito_test_vm_bytes() / 1024;
    long grew_mib = (after - before) / 1024;
    printf("address space grew by %ld MiB over %d bursts of %d\n", grew_mib, ROUNDS, BURST);
    CHECK(before > 0 && after > 0);
    CHECK(grew_mib < 1024);
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
