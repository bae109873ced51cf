/* test_group_member_paths: every call that reads or CASes a thread's state word, on a ULT
 * whose word carries ITOI_ST_MEMBER (it is in a gang group). Written in the review of the
 * membership bit (outside tester h62c, 2026-12-05; no failure found): it guards against a
 * CAS that expects the plain LIVE word failing for a member, after which a call would say
 * ITO_EJOINED for a live, joinable thread. Checked: ito_join_until with a deadline (times
 * out, the unlink keeps the bit, a later join succeeds), ito_detach, ito_cancel_io,
 * ito_thread_id/name, ito_yield_to, a join that registers before the thread ends, and in
 * each case that the group comes back to empty (ito_group_destroy ITO_OK) once the thread
 * has ended. Then rounds of timed joins racing a member's end (the unlink against the
 * exit's CAS). */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include "ito/ito.h"
#include "ito/preempt.h"
#include "ito_test.h"

static void *ret7(void *sem)
{
    if (sem) CHECK_OK(ito_sem_wait((ito_sem_t *)sem));
    return (void *)7;
}

/* A detached or finishing member may still be on its way out, on a worker the OS may not
 * run for a while on a loaded machine: wait for it up to 10 s, sleeping between looks (a
 * bound of 100,000 bare yields, or a 2 ms sleep, was only ~10 ms of wall time: ITO_EBUSY
 * under a parallel ctest, seen by an outside tester, h68b, 2026-12-06). */
static void destroy_soon(ito_group_t *g)
{
    for (int i = 0; i < 100000; i++) {
        int rc = ito_group_destroy(g);
        if (rc == ITO_OK) return;
        CHECK_EQ(rc, ITO_EBUSY);
        CHECK_OK(ito_sleep_ns(100000));
    }
    CHECK(!"the group stayed busy");
}

static atomic_int spin_stop;
static void *spinner(void *arg)
{
    (void)arg;
    while (!atomic_load(&spin_stop)) CHECK_OK(ito_yield());
    return (void *)7;
}

int main(void)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
    ito_group_t *g;
    ito_sem_t sem;
    CHECK_OK(ito_sem_init(&sem, 0));
    void *rv;

    /* 1. timed join of a member: times out, the unlink restores LIVE with the bit */
    CHECK_OK(ito_group_create(&g));
    ito_thread_t t;
    CHECK_OK(ito_create(&t, ret7, &sem, NULL));
    CHECK_OK(ito_group_add(g, t));
    CHECK_EQ(ito_join_until(t, &rv, ito_deadline_in(2000000)), ITO_ETIMEDOUT); /* registers, then unlinks */
    CHECK_EQ(ito_join_until(t, &rv, 0), ITO_ETIMEDOUT);                        /* deadline passed */
    uint64_t id;
    CHECK_OK(ito_thread_id(t, &id));
    char name[64];
    CHECK_OK(ito_thread_name(t, name, sizeof name));
    CHECK_OK(ito_yield_to(t));
    CHECK_OK(ito_cancel_io(t)); /* live: not ITO_EJOINED */
    CHECK_EQ(ito_group_destroy(g), ITO_EBUSY);
    CHECK_OK(ito_sem_post(&sem));
    CHECK_OK(ito_join(t, &rv));
    CHECK_EQ((uintptr_t)rv, 7);
    CHECK_OK(ito_group_destroy(g));

    /* 2. detach of a member (live), then its end leaves the group */
    CHECK_OK(ito_group_create(&g));
    CHECK_OK(ito_create(&t, ret7, &sem, NULL));
    CHECK_OK(ito_group_add(g, t));
    CHECK_OK(ito_detach(t));
    CHECK_EQ(ito_detach(t), ITO_EJOINED);
    CHECK_EQ(ito_join(t, NULL), ITO_EJOINED);
    CHECK_EQ(ito_group_destroy(g), ITO_EBUSY);
    CHECK_OK(ito_sem_post(&sem));
    destroy_soon(g);

    /* 3. join that registers first, with the member running on the other worker */
    CHECK_OK(ito_group_create(&g));
    atomic_store(&spin_stop, 0);
    ito_attr_t at;
    CHECK_OK(ito_attr_init(&at));
    at.worker = 1;
    CHECK_OK(ito_create(&t, spinner, NULL, &at));
    CHECK_OK(ito_group_add(g, t));
    ito_thread_t j;
    CHECK_OK(ito_create(&j, ret7, NULL, NULL));
    CHECK_OK(ito_sleep_ns(1000000));
    atomic_store(&spin_stop, 1);
    CHECK_OK(ito_join(t, &rv));
    CHECK_EQ((uintptr_t)rv, 7);
    CHECK_OK(ito_join(j, NULL));
    CHECK_OK(ito_group_destroy(g));

    /* 4. a member that has finished: DONE carries no flag, join reaps it */
    CHECK_OK(ito_group_create(&g));
    CHECK_OK(ito_create(&t, ret7, NULL, &at));
    int arc = ito_group_add(g, t);
    CHECK(arc == ITO_OK || arc == ITO_ESTATE);
    destroy_soon(g); /* once it has ended, it has left */
    CHECK_EQ(ito_cancel_io(t), ITO_EJOINED);
    CHECK_OK(ito_join(t, &rv));

    /* 5. timed joins racing a member's end */
    for (int r = 0; r < 3000; r++) {
        CHECK_OK(ito_group_create(&g));
        atomic_store(&spin_stop, 0);
        CHECK_OK(ito_create(&t, spinner, NULL, &at));
        CHECK_OK(ito_group_add(g, t));
        int rc;
        int k = 0;
        do {
            if (++k == (r % 7) + 1) atomic_store(&spin_stop, 1);
            rc = ito_join_until(t, &rv, ito_deadline_in((uint64_t)(r % 5) * 20000));
        } while (rc == ITO_ETIMEDOUT);
        CHECK_OK(rc);
        CHECK_EQ((uintptr_t)rv, 7);
        CHECK_OK(ito_group_destroy(g));
    }
    CHECK_OK(ito_sem_destroy(&sem));
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
