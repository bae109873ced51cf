/* test_gang_yield_to: with gang scheduling on, only the ULTs of the group whose turn it
 * is run (ito/preempt.h). ito_yield_to(t) handed its worker straight to t (sched.c,
 * itoi_yield_to) without the scheduler's pick filter that parks the ULTs of other groups
 * (gang.c): a ULT of group B ran in group A's turn, until its worker's next tick (found by
 * an outside tester, 2026-12-04: every run). Here: one worker, gang scheduling (FLAG mode, so
 * that the static library serves: the check reads the running group, an internal), a
 * quantum long enough that A's turn lasts the test; main (in no group) yields to B's ULT;
 * that ULT must not run before B's turn. ITO_ATTR_CHILD_FIRST, the other direct hand-off,
 * is checked too: its new ULT is in no group (ito_group_add comes after ito_create), so it
 * may run at once. */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdint.h>

#include "ito/ito.h"
#include "preempt/preempt_int.h"
#include "ito_test.h"

static ito_sem_t gate;
static atomic_int off_turn; /* B's ULT ran while another group's turn was on */
static atomic_int b_ran;

static void *member_a(void *arg)
{
    (void)arg;
    CHECK_OK(ito_sem_wait(&gate));
    return NULL;
}

static void *member_b(void *arg)
{
    (void)arg;
    itoi_worker_t *w = itoi_self_worker();
    void *run = atomic_load(&itoi_gang_group);
    if (run && run != (void *)itoi_group_of(w->cur)) atomic_store(&off_turn, 1);
    atomic_store(&b_ran, 1);
    return NULL;
}

static void *child(void *arg)
{
    (void)arg;
    return NULL;
}

int main(void)
{
    static atomic_int done;
    ito_test_watchdog(&done, 60, "gang yield_to");
    CHECK_OK(ito_init(&(ito_config_t){.workers = 1}));
    CHECK_OK(ito_sem_init(&gate, 0));
    for (int round = 0; round < 5; round++) {
        ito_group_t *ga, *gb;
        CHECK_OK(ito_group_create(&ga)); /* the first slot: its turn comes first */
        CHECK_OK(ito_group_create(&gb));
        ito_thread_t a, b;
        CHECK_OK(ito_create(&a, member_a, NULL, NULL));
        CHECK_OK(ito_group_add(ga, a));
        CHECK_OK(ito_yield()); /* a waits on the gate */
        CHECK_OK(ito_create(&b, member_b, NULL, NULL)); /* ready on this worker, not yet run */
        CHECK_OK(ito_group_add(gb, b));
        CHECK_OK(ito_preempt_enable(&(ito_preempt_config_t){.quantum_us = 200000, .gang = 1, .mode = ITO_PREEMPT_FLAG}));
        atomic_store(&off_turn, 0);
        atomic_store(&b_ran, 0);
        CHECK_OK(ito_yield_to(b)); /* A's turn: b must stay parked */
        CHECK_EQ(atomic_load(&off_turn), 0);
        /* a direct hand-off to a ULT in no group is allowed */
        ito_attr_t at;
        CHECK_OK(ito_attr_init(&at));
        at.flags = ITO_ATTR_CHILD_FIRST;
        ito_thread_t c;
        CHECK_OK(ito_create(&c, child, NULL, &at));
        CHECK_OK(ito_join(c, NULL));
        CHECK_OK(ito_sem_post(&gate));
        CHECK_OK(ito_join(a, NULL));
        CHECK_OK(ito_join(b, NULL)); /* B's turn comes once a has left A empty */
        CHECK_EQ(atomic_load(&off_turn), 0);
        CHECK_EQ(atomic_load(&b_ran), 1);
        CHECK_OK(ito_preempt_disable());
        CHECK_OK(ito_group_destroy(ga));
        CHECK_OK(ito_group_destroy(gb));
    }
    CHECK_OK(ito_finalize());
    atomic_store(&done, 1);
    TEST_DONE();
}
