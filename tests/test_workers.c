/* test_workers: the workers as a user sees them.
 *  - main runs as a ULT (self, name, id, bound to worker 0 whatever happens);
 *  - ITO_WORKERS sets the worker count (ctest exports ITO_WORKERS=2);
 *  - work is stolen: one ULT spawns many long ULTs, and some of them run on the other
 *    worker (ito_stats().steals > 0);
 *  - bound ULTs (attr.worker) run only on their worker, under unbound load;
 *  - an idle runtime sleeps: over 200 ms of idleness the process uses far less than
 *    200 ms of CPU (a behaviour check with a wide margin, not a timing benchmark). */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "ito/ito.h"
#include "ito_test.h"

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- main is a ULT ---- */
static void check_main(void)
{
    ito_thread_t me = ito_self();
    CHECK(me != NULL);
    char name[32];
    CHECK_OK(ito_thread_name(me, name, sizeof name));
    CHECK(strcmp(name, "main") == 0);
    uint64_t id = 99;
    CHECK_OK(ito_thread_id(me, &id));
    CHECK_EQ(id, 0);
    CHECK_EQ(ito_worker_id(), 0);
    CHECK_OK(ito_yield()); /* nothing else to run: returns at once */
    CHECK(ito_self() == me);
}

/* ---- stealing ---- */
#define SPAWNED 64
static _Atomic unsigned seen_workers; /* bit w: some spawned ULT ran on worker w */
static _Atomic int spawned_done;

static void *long_ult(void *unused)
{
    (void)unused;
    double t0 = mono();
    /* Busy work in slices, until both workers have been seen running these ULTs (or
     * 10 s passed: then the check below fails rather than hangs). */
    volatile uint64_t x = 0;
    while ((atomic_load(&seen_workers) & 3u) != 3u && mono() - t0 < 10.0) {
        atomic_fetch_or(&seen_workers, 1u << ito_worker_id());
        for (int i = 0; i < 20000; i++) x += (uint64_t)i;
        CHECK_OK(ito_yield());
    }
    atomic_fetch_or(&seen_workers, 1u << ito_worker_id());
    atomic_fetch_add(&spawned_done, 1);
    return NULL;
}

static void *spawner(void *unused)
{
    (void)unused;
    ito_thread_t t[SPAWNED];
    for (int i = 0; i < SPAWNED; i++) CHECK_OK(ito_create(&t[i], long_ult, NULL, NULL));
    for (int i = 0; i < SPAWNED; i++) CHECK_OK(ito_join(t[i], NULL));
    return NULL;
}

static void check_steal(void)
{
    ito_stats_t s0, s1;
    CHECK_OK(ito_stats(&s0));
    ito_attr_t a;
    CHECK_OK(ito_attr_init(&a));
    a.worker = 0; /* the spawner itself stays on worker 0; its children are free */
    ito_thread_t t;
    CHECK_OK(ito_create(&t, spawner, NULL, &a));
    CHECK_OK(ito_join(t, NULL));
    CHECK_EQ(atomic_load(&spawned_done), SPAWNED);
    CHECK_OK(ito_stats(&s1));
    CHECK_EQ(atomic_load(&seen_workers) & 3u, 3u); /* worker 1 ran some of worker 0's ULTs */
    CHECK(s1.steals > s0.steals);
    CHECK_EQ(ito_worker_id(), 0); /* main is bound: it never moved */
}

/* ---- bound ULTs ---- */
static _Atomic int misplaced;

static void *bound_ult(void *arg)
{
    int w = (int)(intptr_t)arg;
    for (int i = 0; i < 2000; i++) {
        if (ito_worker_id() != w) atomic_fetch_add(&misplaced, 1);
        CHECK_OK(ito_yield());
    }
    return NULL;
}

static void *unbound_load(void *unused)
{
    (void)unused;
    for (int i = 0; i < 2000; i++) CHECK_OK(ito_yield());
    return NULL;
}

static void check_bound(void)
{
    int n = ito_worker_count();
    ito_thread_t b[16], u[16];
    int nb = 0;
    for (int w = 0; w < n && nb < 16; w++) {
        for (int k = 0; k < 3 && nb < 16; k++) {
            ito_attr_t a;
            CHECK_OK(ito_attr_init(&a));
            a.worker = w;
            CHECK_OK(ito_create(&b[nb++], bound_ult, (void *)(intptr_t)w, &a));
        }
    }
    for (int i = 0; i < 16; i++) CHECK_OK(ito_create(&u[i], unbound_load, NULL, NULL));
    for (int i = 0; i < 500; i++) {
        CHECK_EQ(ito_worker_id(), 0);
        CHECK_OK(ito_yield());
    }
    for (int i = 0; i < nb; i++) CHECK_OK(ito_join(b[i], NULL));
    for (int i = 0; i < 16; i++) CHECK_OK(ito_join(u[i], NULL));
    CHECK_EQ(atomic_load(&misplaced), 0);
}

/* ---- idle sleep ---- */
static void check_idle(void)
{
    ito_stats_t s0, s1;
    CHECK_OK(ito_stats(&s0));
    ito_test_sleep_us(50000); /* the other workers run out of work, spin briefly, then sleep */
    double c0 = cpu();
    ito_test_sleep_us(200000); /* main blocks worker 0 in the kernel: now nothing should run */
    double used = cpu() - c0;
    CHECK_OK(ito_stats(&s1));
    printf("idle: %.2f ms of process CPU time over 200 ms\n", used * 1e3);
    CHECK(s1.sleeps > s0.sleeps || s0.sleeps > 0);
    CHECK(used < 0.020); /* a spinning worker would use ~200 ms */
}

int main(void)
{
    const char *env = getenv("ITO_WORKERS");
    CHECK_OK(ito_init(NULL));
    if (env) CHECK_EQ(ito_worker_count(), atoi(env));
    CHECK(ito_worker_count() >= 2); /* run under ctest: ITO_WORKERS=2 */
    check_main();
    check_steal();
    check_bound();
    check_idle();
    check_main();
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
