/* test_group_races: gang groups (src/preempt/gang.c) under the calls' races. Found by a
 * misuse test (2026-12-03):
 *  1. ito_group_add of a live ULT that another ULT is joining is ITO_OK (it said
 *     ITO_ESTATE, "t has finished": the state word held the joiner);
 *  2. ito_group_add racing ito_group_destroy of the same group: never both ITO_OK (about
 *     2 in 1000 rounds were, which left a member counted in a dead group's slot, so the
 *     next group there could be destroyed with a live member);
 *  3. two threads adding one ULT to two groups at once: one ITO_OK, one ITO_EBUSY (both
 *     said ITO_OK, and one group could never be destroyed; found by a test of fix 2);
 *  4. a late ito_group_destroy (or ito_group_stats) of a destroyed group's handle, from a
 *     thread held between the handle check and the lock while the group was destroyed and
 *     a new one created at the same address (group_tab), ended the new group and returned
 *     ITO_OK a second time. Found with a debugger holding the thread there (a later
 *     session, 2026-12-03); the window is a few instructions, so this part, a low-priority
 *     pthread destroying stale handles while main recycles the slot, reaches it rarely:
 *     it keeps the invariants (one ITO_OK per handle; the new group stays main's). */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "ito/ito.h"
#include "ito_test.h"

#define ROUNDS 4000

static ito_sem_t gate;

static void *joiner(void *arg)
{
    CHECK_OK(ito_join((ito_thread_t)arg, NULL));
    return NULL;
}

static void joined_member(void)
{
    ito_group_t *g;
    ito_thread_t t, j;
    CHECK_OK(ito_group_create(&g));
    CHECK_OK(ito_create(&t, ito_test_sem_waiter, &gate, NULL));
    CHECK_OK(ito_create(&j, joiner, t, NULL));
    CHECK_OK(ito_sleep_ns(2 * 1000 * 1000)); /* t waits on the semaphore, j in ito_join(t) */
    CHECK_OK(ito_group_add(g, t));
    CHECK_EQ(ito_group_destroy(g), ITO_EBUSY);
    CHECK_OK(ito_sem_post(&gate));
    CHECK_OK(ito_join(j, NULL));
    CHECK_OK(ito_group_destroy(g)); /* t left with its end */
}

static ito_group_t *_Atomic G;
static _Atomic ito_thread_t T;
static atomic_int go, add_rc, stop;

static void *adder(void *arg)
{
    (void)arg;
    int seen = 0;
    for (int r; (r = ito_test_next_round(&go, &stop, &seen)) != 0;) {
        for (volatile int k = 0; k < (r * 7919) % 300; k++) {
        }
        atomic_store(&add_rc, ito_group_add(atomic_load(&G), atomic_load(&T)) + 100);
    }
    return NULL;
}

static void add_vs_destroy(void)
{
    pthread_t p;
    CHECK_EQ(pthread_create(&p, NULL, adder, NULL), 0);
    for (int i = 1; i <= ROUNDS; i++) {
        ito_group_t *g;
        ito_thread_t t;
        CHECK_OK(ito_group_create(&g));
        atomic_store(&G, g);
        CHECK_OK(ito_create(&t, ito_test_sem_waiter, &gate, NULL));
        atomic_store(&T, t);
        atomic_store(&add_rc, 0);
        atomic_store(&go, i);
        for (volatile int k = 0; k < (i * 104729) % 300; k++) {
        }
        int drc = ito_group_destroy(g);
        while (atomic_load(&add_rc) == 0) {
        }
        int arc = atomic_load(&add_rc) - 100;
        CHECK(!(drc == ITO_OK && arc == ITO_OK));
        CHECK(drc == ITO_OK ? arc == ITO_EINVAL : drc == ITO_EBUSY && arc == ITO_OK);
        CHECK_OK(ito_sem_post(&gate));
        CHECK_OK(ito_join(t, NULL));
        if (drc != ITO_OK) CHECK_OK(ito_group_destroy(g)); /* its member has ended */
    }
    atomic_store(&stop, 1);
    CHECK_EQ(pthread_join(p, NULL), 0);
}

static ito_group_t *G2[2];
static _Atomic int go2, ready2, rc2[2];

static void *adder2(void *arg)
{
    int k = (int)(intptr_t)arg;
    atomic_fetch_add(&ready2, 1);
    while (!atomic_load(&go2)) {
    }
    atomic_store(&rc2[k], ito_group_add(G2[k], atomic_load(&T)));
    return NULL;
}

static void double_add(void)
{
    for (int i = 0; i < 300; i++) {
        CHECK_OK(ito_group_create(&G2[0]));
        CHECK_OK(ito_group_create(&G2[1]));
        ito_thread_t t;
        CHECK_OK(ito_create(&t, ito_test_sem_waiter, &gate, NULL));
        atomic_store(&T, t);
        atomic_store(&go2, 0);
        atomic_store(&ready2, 0);
        pthread_t p[2];
        for (int k = 0; k < 2; k++) CHECK_EQ(pthread_create(&p[k], NULL, adder2, (void *)(intptr_t)k), 0);
        while (atomic_load(&ready2) < 2) CHECK_OK(ito_yield());
        atomic_store(&go2, 1);
        for (int k = 0; k < 2; k++) CHECK_EQ(pthread_join(p[k], NULL), 0);
        int ok = (atomic_load(&rc2[0]) == ITO_OK) + (atomic_load(&rc2[1]) == ITO_OK);
        CHECK_EQ(ok, 1);
        CHECK(atomic_load(&rc2[0]) == ITO_EBUSY || atomic_load(&rc2[1]) == ITO_EBUSY);
        CHECK_OK(ito_sem_post(&gate));
        CHECK_OK(ito_join(t, NULL));
        for (int k = 0; k < 2; k++) CHECK_OK(ito_group_destroy(G2[k])); /* it left with its end */
    }
}

#define NSTALE (20 * ROUNDS + 1)
static _Atomic(ito_group_t *) S;
static _Atomic int stop4;
static uintptr_t created[NSTALE], ended[2 * NSTALE]; /* handles made; handles whose destroy said ITO_OK */
static _Atomic int nended;

static int cmp_handle(const void *a, const void *b)
{
    uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
    return x < y ? -1 : x > y;
}

static void *late_destroyer(void *arg)
{
    (void)arg;
    struct sched_param sp = {0};
    pthread_setschedparam(pthread_self(), SCHED_IDLE, &sp); /* descheduled inside the window */
    while (!atomic_load(&stop4)) {
        ito_group_t *g = atomic_load(&S);
        ito_preempt_stats_t st;
        int rc = ito_group_stats(g, &st);
        CHECK(rc == ITO_OK || rc == ITO_EINVAL);
        rc = ito_group_destroy(g);
        CHECK(rc == ITO_OK || rc == ITO_EINVAL);
        if (rc == ITO_OK) {
            ended[atomic_fetch_add(&nended, 1)] = (uintptr_t)g;
        }
    }
    return NULL;
}

static void stale_destroy(void)
{
    ito_group_t *g;
    CHECK_OK(ito_group_create(&g));
    created[0] = (uintptr_t)g;
    atomic_store(&S, g);
    pthread_t p;
    CHECK_EQ(pthread_create(&p, NULL, late_destroyer, NULL), 0);
    for (int r = 1; r < NSTALE; r++) {
        int rc = ito_group_destroy(g); /* the pthread may have destroyed it first */
        CHECK(rc == ITO_OK || rc == ITO_EINVAL);
        if (rc == ITO_OK) ended[atomic_fetch_add(&nended, 1)] = (uintptr_t)g;
        ito_group_t *n;
        CHECK_OK(ito_group_create(&n)); /* the same slot, a new generation */
        ito_preempt_stats_t st;
        CHECK_OK(ito_group_stats(n, &st));
        created[r] = (uintptr_t)n;
        atomic_store(&S, n);
        g = n;
    }
    atomic_store(&stop4, 1);
    CHECK_EQ(pthread_join(p, NULL), 0);
    if (ito_group_destroy(g) == ITO_OK) ended[atomic_fetch_add(&nended, 1)] = (uintptr_t)g;
    /* every group was destroyed exactly once, by one of the two: a stale handle's destroy
     * that ended the next group shows as one handle twice and the next one missing */
    CHECK_EQ(atomic_load(&nended), NSTALE);
    qsort(created, NSTALE, sizeof created[0], cmp_handle);
    qsort(ended, NSTALE, sizeof ended[0], cmp_handle);
    for (int i = 0; i < NSTALE; i++) CHECK_EQ(ended[i], created[i]);
}

int main(void)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
    CHECK_OK(ito_sem_init(&gate, 0));
    joined_member();
    add_vs_destroy();
    double_add();
    stale_destroy();
    CHECK_OK(ito_sem_destroy(&gate));
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
