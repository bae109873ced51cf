/* test_group_add_stale: ito_group_add through a stale thread handle whose descriptor was
 * reused by a new ULT. Found by the lead's review (2026-12-05), test by an outside tester,
 * h62a, 2026-12-05: group_add checked the handle (the descriptor's tag), then took
 * groups_lock and stored the group into the descriptor; in between the handle's ULT could
 * end and its descriptor be reused by a new ULT, which was then put into the group (and its
 * exit hook overwritten), although the handle named the life that had ended. thread.h: a
 * stale handle gives ITO_EJOINED and never touches another thread.
 *  1. sequential: a handle of a joined ULT, its descriptor reused: ITO_EJOINED, and the new
 *     ULT is not in the group (ito_group_destroy is ITO_OK while it lives);
 *  2. racing: a pthread adds the handle of a short ULT while main joins it and at once
 *     creates a blocked ULT on the same descriptor; a third pthread keeps groups_lock busy
 *     (ito_group_stats) so that the adder waits inside the window. After each round the
 *     group must be destroyable while the new ULT still blocks (ITO_OK): an ITO_EBUSY that
 *     goes away when the new ULT ends means the stale add put the new life into the group. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "ito/ito.h"
#include "ito_test.h"

#define PTR_BITS 48

static ito_sem_t gate;

static void *quick(void *arg)
{
    for (volatile uintptr_t k = 0; k < (uintptr_t)arg; k++) {
    }
    return NULL;
}

static uintptr_t desc_of(ito_thread_t h) { return (uintptr_t)h & (((uintptr_t)1 << PTR_BITS) - 1); }

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sequential(void)
{
    ito_group_t *g;
    CHECK_OK(ito_group_create(&g));
    ito_thread_t t1, t2;
    CHECK_OK(ito_create(&t1, quick, NULL, NULL));
    CHECK_OK(ito_join(t1, NULL));
    int reused = 0;
    for (int i = 0; i < 100 && !reused; i++) { /* the joiner's pool is LIFO: the first, mostly */
        CHECK_OK(ito_create(&t2, ito_test_sem_waiter, &gate, NULL));
        if (desc_of(t2) == desc_of(t1) && t2 != t1) reused = 1;
        else {
            CHECK_OK(ito_sem_post(&gate));
            CHECK_OK(ito_join(t2, NULL));
        }
    }
    CHECK(reused);
    CHECK_EQ(ito_group_add(g, t1), ITO_EJOINED);
    CHECK_OK(ito_group_destroy(g)); /* t2 (alive, blocked) is not in it */
    CHECK_OK(ito_sem_post(&gate));
    CHECK_OK(ito_join(t2, NULL));
}

static _Atomic(ito_group_t *) G;
static _Atomic(ito_thread_t) T;
static atomic_int go, add_rc, stop;

static void *adder(void *arg)
{
    (void)arg;
    int seen = 0;
    for (int r; (r = ito_test_next_round(&go, &stop, &seen)) != 0;) {
        for (volatile int k = 0; k < (int)((unsigned)r * 7919u % 200u); k++) {
        }
        atomic_store(&add_rc, ito_group_add(atomic_load(&G), atomic_load(&T)) + 100);
    }
    return NULL;
}

static void *locker(void *arg) /* keeps groups_lock busy: the adder waits for it in the window */
{
    (void)arg;
    while (!atomic_load(&stop)) {
        ito_preempt_stats_t st;
        int rc = ito_group_stats(atomic_load(&G), &st);
        CHECK(rc == ITO_OK || rc == ITO_EINVAL);
    }
    return NULL;
}

static void racing(void)
{
    ito_group_t *g;
    CHECK_OK(ito_group_create(&g));
    atomic_store(&G, g);
    pthread_t pa, pl;
    CHECK_EQ(pthread_create(&pa, NULL, adder, NULL), 0);
    CHECK_EQ(pthread_create(&pl, NULL, locker, NULL), 0);
    double end = now_s() + 4.0;
    long rounds = 0, reused = 0, added = 0;
    for (int i = 1; now_s() < end && i < 400000; i++, rounds++) {
        ito_thread_t t1, t2;
        CHECK_OK(ito_create(&t1, quick, (void *)(uintptr_t)((i * 31) % 64), NULL));
        atomic_store(&T, t1);
        atomic_store(&add_rc, 0);
        atomic_store(&go, i);
        for (volatile int k = 0; k < (int)((unsigned)i * 104729u % 200u); k++) {
        }
        CHECK_OK(ito_join(t1, NULL));
        CHECK_OK(ito_create(&t2, ito_test_sem_waiter, &gate, NULL)); /* most often on t1's descriptor */
        reused += desc_of(t2) == desc_of(t1);
        while (atomic_load(&add_rc) == 0) {
        }
        int arc = atomic_load(&add_rc) - 100;
        /* ITO_OK: added while t1 lived (it left at its end); ITO_ESTATE: t1 had finished;
         * ITO_EJOINED: stale; ITO_EBUSY: t1 was being run by its joiner */
        CHECK(arc == ITO_OK || arc == ITO_ESTATE || arc == ITO_EJOINED || arc == ITO_EBUSY);
        added += arc == ITO_OK;
        int drc = ito_group_destroy(g);
        CHECK_OK(ito_sem_post(&gate));
        CHECK_OK(ito_join(t2, NULL));
        if (drc != ITO_OK) {
            int again = ito_group_destroy(g);
            fprintf(stderr, "round %d: ito_group_destroy said %d while the new ULT lived (add said %d); %s\n", i,
                    drc, arc,
                    again == ITO_OK ? "ITO_OK once it ended: the stale add put the new life into the group"
                                    : "still busy after it ended: a member leaked");
            CHECK(0);
        }
        CHECK_OK(ito_group_create(&g));
        atomic_store(&G, g);
    }
    atomic_store(&stop, 1);
    CHECK_EQ(pthread_join(pa, NULL), 0);
    CHECK_EQ(pthread_join(pl, NULL), 0);
    CHECK_OK(ito_group_destroy(g));
    printf("%ld rounds, %ld on the same descriptor, %ld adds ITO_OK\n", rounds, reused, added);
}

int main(void)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
    CHECK_OK(ito_sem_init(&gate, 0));
    sequential();
    racing();
    CHECK_OK(ito_sem_destroy(&gate));
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
