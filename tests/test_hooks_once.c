/* test_hooks_once: the mechanisms plug into the scheduler through the core's hook tables
 * (pollers, idle probes, sleep hooks, fini hooks and fini ops), whose entries stay for the
 * life of the process, across ito_finalize and the next ito_init; each mechanism hands the
 * core its hooks in one record, registered once per process (itoi_mech_register, hooks.c).
 * Using the mechanisms again, in the same runtime and in dozens of later ones, must not
 * add their hooks a second time (a sleep pair run twice per sleep: preemption's tick
 * hold, run twice, leaves SIGURG blocked on the worker for good, and its ticks stop) nor
 * fill a table (a later start failing with ITO_ENOMEM, or io_uring's sleep pair missing,
 * its eventfd never turned on before a sleep).
 *
 * Here: CYCLES runtimes of 2 or 3 workers, each using bulk creation, a ZWT device (busy
 * poll mode in every other runtime), a read of a pipe through ito_read, preemption in
 * flag mode without gangs (two spinners on one worker that has slept: the second runs
 * only if the first is preempted) and with gangs, and register windows in every fourth;
 * plus a mechanism of the test's own, registered twice in every runtime, whose sleep
 * pair notes a nested call and whose fini hook counts the finalizes. Found with it
 * (h73a, 2026-12-07): a pair registered while a worker slept had its `after` run without
 * its `before` at that worker's wake-up (the nesting noted in 19 of 20 runs), and the
 * sleep table's four places were exactly the four mechanisms' pairs (the test's own, a
 * fifth, made the gangs' start or ito_group_create fail with ITO_ENOMEM in every run). */
#define _GNU_SOURCE
#include <stdint.h>
#include <unistd.h>

#include "core/itoi.h"
#include "ito/ito.h"
#include "ito_test.h"

#define CYCLES 32
#define BULK 512

/* ---- the test's own mechanism ---- */

static atomic_int depth[ITOI_MAX_WORKERS];
static atomic_int nested, sleeps, finis;

static bool own_before(itoi_worker_t *w)
{
    if (atomic_fetch_add(&depth[w->index], 1) != 0) atomic_store(&nested, 1);
    atomic_fetch_add(&sleeps, 1);
    return false;
}
static void own_after(itoi_worker_t *w) { atomic_fetch_sub(&depth[w->index], 1); }
static void own_fini(void) { atomic_fetch_add(&finis, 1); }
static itoi_mech_hooks_t own_hooks = {.presleep = own_before, .postsleep = own_after, .fini = own_fini};

/* ---- bulk creation ---- */

static atomic_long bulk_ran;
static void *bump(void *arg)
{
    (void)arg;
    atomic_fetch_add(&bulk_ran, 1);
    return NULL;
}

static void use_spawn(void)
{
    atomic_store(&bulk_ran, 0);
    ito_spawn_attr_t a;
    ito_spawn_attr_init(&a);
    a.flags = ITO_ATTR_DETACHED;
    CHECK_OK(ito_create_many(BULK, bump, NULL, 0, NULL, NULL, NULL, &a));
    while (atomic_load(&bulk_ran) < BULK) CHECK_OK(ito_yield());
}

/* ---- a ZWT device ---- */

static void use_device(int busy)
{
    if (busy) CHECK_EQ(ito_device_poll_mode(ITO_DEVICE_BUSY), ITO_DEVICE_SLEEP);
    ito_test_device_open_close(NULL);
    if (busy) CHECK_EQ(ito_device_poll_mode(ITO_DEVICE_SLEEP), ITO_DEVICE_BUSY);
}

/* ---- split-phase I/O ---- */

static void *reader(void *arg)
{
    int fd = (int)(intptr_t)arg;
    char c = 0;
    CHECK_EQ(ito_read(fd, &c, 1), 1);
    return (void *)(intptr_t)c;
}

static void use_io(void)
{
    int p[2];
    CHECK(pipe(p) == 0);
    ito_thread_t t;
    CHECK_OK(ito_create(&t, reader, (void *)(intptr_t)p[0], NULL));
    CHECK_OK(ito_sleep_ns(1000000)); /* the reader waits, its worker may sleep */
    CHECK_EQ(ito_write(p[1], "x", 1), 1);
    void *r;
    CHECK_OK(ito_join(t, &r));
    CHECK_EQ((intptr_t)r, 'x');
    close(p[0]);
    close(p[1]);
}

/* ---- preemption (flag mode), without and with gangs ---- */

static atomic_int second_ran, stop;

static void *hog(void *arg)
{
    (void)arg;
    while (!atomic_load_explicit(&second_ran, memory_order_relaxed)) ITO_COOP_POINT();
    return NULL;
}
static void *second(void *arg)
{
    (void)arg;
    atomic_store(&second_ran, 1);
    return NULL;
}

static ito_thread_t on_worker1(ito_fn_t fn)
{
    ito_attr_t at;
    CHECK_OK(ito_attr_init(&at));
    at.worker = 1; /* main stays alone on worker 0 */
    ito_thread_t t;
    CHECK_OK(ito_create(&t, fn, NULL, &at));
    return t;
}

static void use_preempt(void)
{
    CHECK_OK(ito_preempt_enable(&(ito_preempt_config_t){.quantum_us = 1000, .mode = ITO_PREEMPT_FLAG}));
    CHECK_OK(ito_sleep_ns(3000000)); /* worker 1 sleeps through the sleep hooks */
    atomic_store(&second_ran, 0);
    ito_thread_t a = on_worker1(hog), b = on_worker1(second);
    CHECK_OK(ito_join(b, NULL)); /* hung: worker 1's ticks blocked, the hog never left */
    CHECK_OK(ito_join(a, NULL));
    CHECK_OK(ito_preempt_disable());
}

static void *spin(void *arg)
{
    (void)arg;
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) ITO_COOP_POINT();
    return NULL;
}

static void use_gang(void)
{
    atomic_store(&stop, 0);
    ito_group_t *g[2];
    ito_thread_t t[4];
    CHECK_OK(ito_group_create(&g[0]));
    CHECK_OK(ito_group_create(&g[1]));
    for (int i = 0; i < 4; i++) {
        t[i] = on_worker1(spin);
        CHECK_OK(ito_group_add(g[i % 2], t[i]));
    }
    CHECK_OK(ito_preempt_enable(&(ito_preempt_config_t){.quantum_us = 1000, .gang = 1, .mode = ITO_PREEMPT_FLAG}));
    CHECK_OK(ito_sleep_ns(3000000));
    CHECK_OK(ito_preempt_disable());
    atomic_store(&stop, 1);
    for (int i = 0; i < 4; i++) CHECK_OK(ito_join(t[i], NULL));
    CHECK_OK(ito_group_destroy(g[0]));
    CHECK_OK(ito_group_destroy(g[1]));
}

/* ---- register windows (attached from before ito_init's end to finalize) ---- */

static void regwin_scheme(int s)
{
    ito_regwin_config_t cfg;
    CHECK_OK(ito_regwin_config_init(&cfg));
    cfg.scheme = s;
    CHECK_OK(ito_regwin_configure(&cfg));
}

int main(void)
{
    static atomic_int done;
    ito_test_watchdog(&done, 120, "a mechanism's hooks ran twice or were missing after repeated runtimes");
    for (int c = 0; c < CYCLES; c++) {
        int regwin = c % 4 == 3;
        if (regwin) regwin_scheme(ITO_REGWIN_SP);
        CHECK_OK(ito_init(&(ito_config_t){.workers = 2 + c % 2}));
        CHECK_OK(itoi_mech_register(&own_hooks));
        CHECK_OK(itoi_mech_register(&own_hooks)); /* again: still once */
        if (regwin) CHECK_OK(ito_regwin_attach());
        use_spawn();
        use_device(c % 2);
        use_io();
        use_preempt();
        use_gang();
        CHECK_OK(ito_finalize()); /* ends the register windows too */
        if (regwin) regwin_scheme(ITO_REGWIN_OFF);
        CHECK_EQ(atomic_load(&finis), c + 1); /* the fini hook ran once per finalize */
    }
    CHECK_EQ(atomic_load(&nested), 0); /* the sleep pair ran once per sleep */
    CHECK(atomic_load(&sleeps) > 0);
    atomic_store(&done, 1);
    TEST_DONE();
}
