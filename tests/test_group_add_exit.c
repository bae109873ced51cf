/* test_group_add_exit: ito_group_add racing its thread's end. Found by the lead's review
 * (2026-12-05), test by an outside tester, h62a, 2026-12-05: the exit path read the ULT's
 * exit hook before its final state change, and group_add stored the hook (leave_group)
 * under groups_lock only; an add that came after the exit had read the hook was never
 * undone, so the group counted a member for ever: ito_group_destroy said ITO_EBUSY for
 * ever (and gang rotation kept giving the empty group turns).
 * Many rounds: main creates short ULTs (joinable ones it joins, joinable ones it detaches,
 * created-detached ones, and ones that add themselves), a pthread adds them all to the
 * round's group at once; once all have ended, ito_group_destroy must come to ITO_OK
 * (retried while a ULT may still be between its function's return and its end).
 * First the ends that take no state CAS, one at a time: a ULT its joiner runs in place
 * (ito_join of a ULT not yet started, outside the sanitizer builds) adding itself (ITO_OK)
 * or added by a pthread meanwhile (ITO_EBUSY there; ITO_OK where it is not run in place),
 * and one created detached (only it may add itself: ITO_EPERM from a pthread); joinable
 * ULTs of ito_create_many, which may be added now (ITO_EBUSY before: the exit hook was the
 * group's mechanism and theirs is the bulk's). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "ito/ito.h"
#include "ito_test.h"

#define K 8

static _Atomic(ito_group_t *) G;
static _Atomic(ito_thread_t) T[K];
static atomic_int go, done_adds, stop, finished;
static atomic_int rcs[16];

static int rc_index(int rc) { return rc <= 0 && rc > -16 ? -rc : 15; }

static void *quick(void *arg)
{
    uintptr_t v = (uintptr_t)arg;
    if (v & 1) { /* adds itself: ITO_OK, or ITO_EBUSY if the pthread added it first */
        int rc = ito_group_add(atomic_load(&G), ito_self());
        CHECK(rc == ITO_OK || rc == ITO_EBUSY);
    }
    for (volatile uintptr_t k = 0; k < (v >> 1) % 97; k++) {
    }
    atomic_fetch_add(&finished, 1);
    return NULL;
}

static void *adder(void *arg)
{
    (void)arg;
    int seen = 0;
    for (int r; (r = ito_test_next_round(&go, &stop, &seen)) != 0;) {
        ito_group_t *g = atomic_load(&G);
        for (int i = 0; i < K; i++) {
            int rc = ito_group_add(g, atomic_load(&T[i]));
            /* ITO_OK; ITO_ESTATE: finished; ITO_EJOINED: stale (detached, ended, reused);
             * ITO_EBUSY: in the group already (added itself), or run by its joiner;
             * ITO_EPERM: created detached (only the ULT itself may add itself) */
            CHECK(rc == ITO_OK || rc == ITO_ESTATE || rc == ITO_EJOINED || rc == ITO_EBUSY || rc == ITO_EPERM);
            atomic_fetch_add(&rcs[rc_index(rc)], 1);
        }
        atomic_store(&done_adds, r);
    }
    return NULL;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static _Atomic(ito_thread_t) ask; /* a handle for the helper pthread to add to G */
static atomic_int ask_rc;

static void *helper(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop)) {
        ito_thread_t h = atomic_load(&ask);
        if (!h) continue;
        atomic_store(&ask, NULL);
        atomic_store(&ask_rc, ito_group_add(atomic_load(&G), h) + 100);
    }
    return NULL;
}

static int add_by_helper(ito_thread_t h)
{
    atomic_store(&ask_rc, 0);
    atomic_store(&ask, h);
    while (atomic_load(&ask_rc) == 0) CHECK_OK(ito_yield());
    return atomic_load(&ask_rc) - 100;
}

static void *self_adder(void *arg)
{
    (void)arg;
    CHECK_OK(ito_group_add(atomic_load(&G), ito_self()));
    CHECK_EQ(ito_group_destroy(atomic_load(&G)), ITO_EBUSY);
    return NULL;
}

static void *helper_adds_me(void *arg)
{
    int rc = add_by_helper(ito_self());
    CHECK(rc == ITO_OK || rc == ITO_EBUSY); /* ITO_EBUSY: run in place by main's ito_join */
    *(int *)arg = rc;
    return NULL;
}

static void *det_body(void *arg)
{
    CHECK_EQ(add_by_helper(ito_self()), ITO_EPERM);
    CHECK_OK(ito_group_add(atomic_load(&G), ito_self()));
    atomic_store((atomic_int *)arg, 1);
    return NULL;
}

static atomic_int release;

static void *bulk_body(void *arg)
{
    (void)arg;
    while (!atomic_load(&release)) CHECK_OK(ito_yield());
    return NULL;
}

static void destroy_soon(ito_group_t *g) /* a detached member may still be on its way out */
{
    for (double until = now_s() + 5.0; now_s() < until;) {
        int rc = ito_group_destroy(g);
        if (rc == ITO_OK) return;
        CHECK_EQ(rc, ITO_EBUSY);
        CHECK_OK(ito_yield());
    }
    CHECK(!"the group stayed busy");
}

static void no_cas_ends(void)
{
    pthread_t p;
    CHECK_EQ(pthread_create(&p, NULL, helper, NULL), 0);
    ito_group_t *g;
    ito_thread_t t;
    CHECK_OK(ito_group_create(&g));
    atomic_store(&G, g);
    CHECK_OK(ito_create(&t, self_adder, NULL, NULL));
    CHECK_OK(ito_join(t, NULL)); /* run in place (release builds): it adds itself */
    CHECK_OK(ito_group_destroy(g));
    CHECK_OK(ito_group_create(&g));
    atomic_store(&G, g);
    int rc = 0;
    CHECK_OK(ito_create(&t, helper_adds_me, &rc, NULL));
    CHECK_OK(ito_join(t, NULL));
    printf("a ULT its joiner ran: a pthread's add said %d\n", rc);
    CHECK_OK(ito_group_destroy(g));
    CHECK_OK(ito_group_create(&g));
    atomic_store(&G, g);
    ito_attr_t det;
    CHECK_OK(ito_attr_init(&det));
    det.flags = ITO_ATTR_DETACHED;
    static atomic_int done; /* static: read by the detached ULT, which may outlive this frame's use */
    atomic_store(&done, 0);
    CHECK_OK(ito_create(NULL, det_body, &done, &det));
    while (!atomic_load(&done)) CHECK_OK(ito_yield());
    destroy_soon(g);
    /* joinable, added by the pthread, then detached: leaves at its end */
    CHECK_OK(ito_group_create(&g));
    atomic_store(&G, g);
    atomic_store(&finished, 0);
    CHECK_OK(ito_create(&t, quick, (void *)(uintptr_t)(1000 << 1), NULL));
    rc = add_by_helper(t);
    CHECK(rc == ITO_OK || rc == ITO_ESTATE);
    CHECK_OK(ito_detach(t));
    while (!atomic_load(&finished)) CHECK_OK(ito_yield());
    destroy_soon(g);
    /* joinable ULTs of ito_create_many may be added now (their end takes the state CAS) */
    CHECK_OK(ito_group_create(&g));
    atomic_store(&G, g);
    atomic_store(&release, 0);
    ito_thread_t b[4];
    CHECK_OK(ito_create_many(4, bulk_body, NULL, 0, NULL, b, NULL, NULL));
    for (int i = 0; i < 4; i++) CHECK_OK(ito_group_add(g, b[i]));
    CHECK_EQ(ito_group_destroy(g), ITO_EBUSY);
    atomic_store(&release, 1);
    for (int i = 0; i < 4; i++) CHECK_OK(ito_join(b[i], NULL));
    CHECK_OK(ito_group_destroy(g));
    atomic_store(&stop, 1);
    CHECK_EQ(pthread_join(p, NULL), 0);
    atomic_store(&stop, 0);
}

int main(void)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
    no_cas_ends();
    pthread_t p;
    CHECK_EQ(pthread_create(&p, NULL, adder, NULL), 0);
    ito_attr_t det;
    CHECK_OK(ito_attr_init(&det));
    det.flags = ITO_ATTR_DETACHED;
    double end = now_s() + 5.0;
    long rounds = 0, max_busy = 0;
    for (int r = 1; now_s() < end && r < 100000; r++, rounds++) {
        ito_group_t *g;
        CHECK_OK(ito_group_create(&g));
        atomic_store(&G, g);
        atomic_store(&finished, 0);
        ito_thread_t t[K];
        for (int i = 0; i < K; i++) {
            uintptr_t arg = (uintptr_t)((r * 7 + i * 13) % 200) << 1 | (uintptr_t)(i == 5 || i == 6);
            CHECK_OK(ito_create(&t[i], quick, (void *)arg, i == 6 || i == 7 ? &det : NULL));
            atomic_store(&T[i], t[i]);
        }
        atomic_store(&go, r);
        for (volatile int k = 0; k < (int)((unsigned)r * 104729u % 300u); k++) {
        }
        int rc = ito_detach(t[3]);
        CHECK(rc == ITO_OK);
        rc = ito_detach(t[4]);
        CHECK(rc == ITO_OK);
        for (int i = 0; i < K; i++)
            if (i != 3 && i != 4 && i != 6 && i != 7) CHECK_OK(ito_join(t[i], NULL));
        while (atomic_load(&done_adds) != r) CHECK_OK(ito_yield());
        while (atomic_load(&finished) != K) CHECK_OK(ito_yield());
        /* all functions have returned; a detached ULT may still be on its way out */
        double until = now_s() + 5.0;
        long busy = 0;
        while ((rc = ito_group_destroy(g)) == ITO_EBUSY && now_s() < until) {
            busy++;
            CHECK_OK(ito_yield());
        }
        if (busy > max_busy) max_busy = busy;
        if (rc != ITO_OK) fprintf(stderr, "round %d: ito_group_destroy said %d 5 s after all ended\n", r, rc);
        CHECK_OK(rc);
    }
    atomic_store(&stop, 1);
    CHECK_EQ(pthread_join(p, NULL), 0);
    printf("%ld rounds (most retries of a destroy: %ld); adds: ok %d, estate %d, ejoined %d, ebusy %d, eperm %d\n", rounds, max_busy,
           atomic_load(&rcs[0]),
           atomic_load(&rcs[rc_index(ITO_ESTATE)]), atomic_load(&rcs[rc_index(ITO_EJOINED)]),
           atomic_load(&rcs[rc_index(ITO_EBUSY)]), atomic_load(&rcs[rc_index(ITO_EPERM)]));
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
