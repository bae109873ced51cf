/* test_errno_ult: errno belongs to the ULT (src/core/ultstate.h), not to the worker's kernel
 * thread: `errno = 0; call(); ...switch...; if (errno)` sees the ULT's own value whatever
 * ran on its worker meanwhile and whichever worker it resumes on.
 *  - a yield between two ULTs on one worker that set different values;
 *  - a block (sleep) while another ULT on the worker sets errno;
 *  - ULTs that move between workers (woken by ULTs of the other worker) keep theirs;
 *  - a new ULT starts with errno 0, also when its join runs it inline; main's errno survives
 *    a join.
 * Under preemption: test_preempt_errno.c.
 * Before, errno was the kernel thread's: the first check read the other ULT's 2222. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "ito/ito.h"
#include "ito_test.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static ito_attr_t on_worker(int w)
{
    ito_attr_t a;
    ito_attr_init(&a);
    a.worker = w;
    return a;
}

/* ---- a yield between two ULTs of one worker ---- */
static void *set_and_yield(void *arg)
{
    int v = (int)(intptr_t)arg;
    errno = v;
    for (int i = 0; i < 100; i++) {
        CHECK_OK(ito_yield());
        CHECK_EQ(errno, v);
        errno = v + i + 1;
        v = v + i + 1;
    }
    return NULL;
}

static void check_yield(void)
{
    ito_attr_t a = on_worker(1);
    ito_thread_t x, y;
    CHECK_OK(ito_create(&x, set_and_yield, (void *)(intptr_t)1111, &a));
    CHECK_OK(ito_create(&y, set_and_yield, (void *)(intptr_t)2222, &a));
    CHECK_OK(ito_join(x, NULL));
    CHECK_OK(ito_join(y, NULL));
}

/* ---- a block while another ULT sets errno ---- */
static _Atomic int sleeper_asleep;

static void *sleeper(void *arg)
{
    (void)arg;
    errno = 3333;
    atomic_store(&sleeper_asleep, 1);
    CHECK_OK(ito_sleep_ns(20 * 1000 * 1000));
    CHECK_EQ(errno, 3333);
    return NULL;
}

static void *clobberer(void *arg)
{
    (void)arg;
    while (!atomic_load(&sleeper_asleep)) CHECK_OK(ito_yield());
    double t0 = now();
    while (now() - t0 < 0.03) {
        errno = 4444;
        CHECK_OK(ito_yield());
    }
    return NULL;
}

static void check_block(void)
{
    ito_attr_t a = on_worker(1);
    ito_thread_t s, c;
    CHECK_OK(ito_create(&s, sleeper, NULL, &a));
    CHECK_OK(ito_create(&c, clobberer, NULL, &a));
    CHECK_OK(ito_join(s, NULL));
    CHECK_OK(ito_join(c, NULL));
}

/* ---- moving between workers ----
 * An unbound ULT woken by a ULT of another worker resumes there (sched.c: a unit made
 * ready on a worker goes to that worker's queue). Two pokers, bound to workers 0 and 1,
 * each wake the movers in turn, so a mover changes worker at nearly every round. */
#define MOVERS 4
#define ROUNDS 200
static ito_sem_t ask[2], wake[2];
static _Atomic int moves, mismatches, pokers_stop;

static void *poker(void *arg)
{
    int j = (int)(intptr_t)arg;
    for (;;) {
        CHECK_OK(ito_sem_wait(&ask[j]));
        if (atomic_load(&pokers_stop)) return NULL;
        errno = 30000 + j; /* the poker's own, on the worker the mover comes to */
        CHECK_OK(ito_sem_post(&wake[j]));
    }
}

static void *mover(void *arg)
{
    int v = 10000 + (int)(intptr_t)arg;
    int w = ito_worker_id();
    for (int i = 0; i < ROUNDS; i++) {
        errno = v + i;
        CHECK_OK(ito_sem_post(&ask[i & 1]));
        CHECK_OK(ito_sem_wait(&wake[i & 1]));
        if (errno != v + i) atomic_fetch_add(&mismatches, 1);
        int here = ito_worker_id();
        if (here != w) atomic_fetch_add(&moves, 1);
        w = here;
    }
    return NULL;
}

static void check_moves(void)
{
    ito_thread_t p[2], m[MOVERS];
    for (int j = 0; j < 2; j++) {
        CHECK_OK(ito_sem_init(&ask[j], 0));
        CHECK_OK(ito_sem_init(&wake[j], 0));
        ito_attr_t a = on_worker(j);
        CHECK_OK(ito_create(&p[j], poker, (void *)(intptr_t)j, &a));
    }
    for (int i = 0; i < MOVERS; i++) CHECK_OK(ito_create(&m[i], mover, (void *)(intptr_t)(i * 1000), NULL));
    for (int i = 0; i < MOVERS; i++) CHECK_OK(ito_join(m[i], NULL));
    atomic_store(&pokers_stop, 1);
    for (int j = 0; j < 2; j++) {
        CHECK_OK(ito_sem_post(&ask[j]));
        CHECK_OK(ito_join(p[j], NULL));
        CHECK_OK(ito_sem_destroy(&ask[j]));
        CHECK_OK(ito_sem_destroy(&wake[j]));
    }
    fprintf(stderr, "test_errno_ult: %d moves between workers\n", atomic_load(&moves));
    CHECK(atomic_load(&moves) >= ROUNDS / 4); /* the check measured something */
    CHECK_EQ(atomic_load(&mismatches), 0);
}

/* ---- new ULTs, inline joins, main ---- */
static void *report_errno(void *arg)
{
    (void)arg;
    int e = errno;
    errno = 5;
    return (void *)(intptr_t)e;
}

static void check_fresh(void)
{
    void *r;
    ito_thread_t t;
    for (int i = 0; i < 20; i++) { /* created then joined at once: the join may run it inline */
        errno = 77;
        CHECK_OK(ito_create(&t, report_errno, NULL, NULL));
        CHECK_OK(ito_join(t, &r));
        CHECK_EQ((int)(intptr_t)r, 0);
        CHECK_EQ(errno, 77); /* main's own, after the child set 5 */
    }
    ito_attr_t a = on_worker(1);
    errno = 88;
    CHECK_OK(ito_create(&t, report_errno, NULL, &a));
    CHECK_OK(ito_yield());
    CHECK_OK(ito_join(t, &r));
    CHECK_EQ((int)(intptr_t)r, 0);
    CHECK_EQ(errno, 88);
}

int main(void)
{
    ito_config_t cfg = {.workers = 2};
    CHECK_OK(ito_init(&cfg));
    check_yield();
    check_block();
    check_fresh();
    check_moves();
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
