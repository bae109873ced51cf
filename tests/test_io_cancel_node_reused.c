/* test_io_cancel_node_reused: ito_cancel_io is never lost (syscall.h), also when the
 * ULT's descriptor is in its next life. ito_cancel_io posts a call node that lives in the
 * ULT's descriptor to the worker where the ULT last waited; while the node is queued there
 * (that worker is busy running a ULT that computes) later cancellations find it busy and
 * do not post it again. Here ULT A last waited on worker 1, then runs on worker 0; a
 * foreign thread cancels it while worker 1 computes (the node waits on worker 1); A takes
 * the cancellation in its next call (ECANCELED) and ends; B, created next on worker 0,
 * gets A's descriptor, waits in ito_read on a pipe nobody writes, and is cancelled by the
 * foreign thread. B must wake with ECANCELED, on both backends. Found by an outside
 * tester, h64b, 2026-12-06: the queued node, run once worker 1 was free, looked at A's life
 * only and returned; B waited for ever (2 of 2 runs per backend). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static int p1[2], p2[2], p3[2];
static ito_sem_t sem;
static atomic_int hog_on, a_stage, a_done, b_res;
static _Atomic(ito_thread_t) ha;
static ito_thread_t target;

static void *hog(void *x)
{
    (void)x;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    atomic_store(&hog_on, 1);
    do clock_gettime(CLOCK_MONOTONIC, &t1); /* 1 s of computing: worker 1 runs no calls */
    while ((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000 < 1000);
    atomic_store(&hog_on, 2);
    return NULL;
}

static void *ult_a(void *x)
{
    (void)x;
    char c;
    atomic_store(&ha, ito_self());
    CHECK_EQ(ito_read(p1[0], &c, 1), 1); /* waits on worker 1 */
    atomic_store(&a_stage, 1);
    CHECK_OK(ito_sem_wait(&sem)); /* woken by main while worker 1 computes: runs on worker 0 */
    atomic_store(&a_stage, 2);
    while (atomic_load(&a_stage) != 3) ito_yield();
    errno = 0;
    CHECK_EQ(ito_write(p2[1], "y", 1), -1); /* the kept cancellation */
    CHECK_EQ(errno, ECANCELED);
    atomic_store(&a_done, 1);
    return NULL;
}

static void *ult_b(void *x)
{
    (void)x;
    char c;
    ssize_t n = ito_read(p3[0], &c, 1);
    atomic_store(&b_res, (n == -1 && errno == ECANCELED) ? 1 : 2);
    return NULL;
}

static void *starter(void *x)
{
    (void)x;
    ito_attr_t a;
    ito_attr_init(&a);
    a.flags = ITO_ATTR_DETACHED;
    CHECK_OK(ito_create(NULL, ult_a, NULL, &a)); /* queued on worker 1, not bound */
    return NULL;
}

static void *canceller(void *x)
{
    (void)x;
    CHECK_OK(ito_cancel_io(target));
    return NULL;
}

static void foreign_cancel(ito_thread_t t)
{
    pthread_t p;
    target = t;
    CHECK_EQ(pthread_create(&p, NULL, canceller, NULL), 0);
    CHECK_EQ(pthread_join(p, NULL), 0);
}

static void round_(const char *backend)
{
    atomic_store(&hog_on, 0);
    atomic_store(&a_stage, 0);
    atomic_store(&a_done, 0);
    atomic_store(&b_res, 0);
    CHECK_EQ(pipe(p1), 0);
    CHECK_EQ(pipe(p2), 0);
    CHECK_EQ(pipe(p3), 0);
    CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
    CHECK_OK(ito_sem_init(&sem, 0));
    ito_attr_t on1;
    ito_attr_init(&on1);
    on1.worker = 1;
    ito_thread_t s, h, b;
    CHECK_OK(ito_create(&s, starter, NULL, &on1));
    CHECK_OK(ito_join(s, NULL));
    ito_sleep_ns(20000000);
    CHECK_EQ(ito_write(p1[1], "x", 1), 1);
    while (atomic_load(&a_stage) < 1) ito_sleep_ns(1000000);
    ito_sleep_ns(20000000); /* A parked in the semaphore */
    CHECK_OK(ito_create(&h, hog, NULL, &on1));
    while (!atomic_load(&hog_on)) ito_sleep_ns(1000000);
    CHECK_OK(ito_sem_post(&sem));
    while (atomic_load(&a_stage) < 2) ito_sleep_ns(1000000);
    CHECK_EQ(atomic_load(&hog_on), 1); /* the scenario: worker 1 still computing */
    foreign_cancel(atomic_load(&ha));  /* its node goes to worker 1 */
    atomic_store(&a_stage, 3);
    while (!atomic_load(&a_done)) ito_sleep_ns(1000000);
    ito_sleep_ns(5000000); /* A ended: its descriptor is free */
    ito_attr_t on0;
    ito_attr_init(&on0);
    on0.worker = 0;
    CHECK_OK(ito_create(&b, ult_b, NULL, &on0));
    /* the scenario: B has A's descriptor (the handle's low 48 bits are its address) */
    CHECK_EQ((uintptr_t)b & 0xffffffffffffu, (uintptr_t)atomic_load(&ha) & 0xffffffffffffu);
    ito_sleep_ns(20000000); /* B parked in ito_read */
    CHECK_EQ(atomic_load(&hog_on), 1);
    foreign_cancel(b);
    CHECK_OK(ito_join(h, NULL));
    for (int i = 0; i < 200 && !atomic_load(&b_res); i++) ito_sleep_ns(10000000);
    if (atomic_load(&b_res) != 1) fprintf(stderr, "%s: B's cancellation was lost\n", backend);
    CHECK_EQ(atomic_load(&b_res), 1);
    CHECK_OK(ito_join(b, NULL));
    CHECK_OK(ito_finalize());
    for (int i = 0; i < 2; i++) {
        close(p1[i]);
        close(p2[i]);
        close(p3[i]);
    }
}

int main(void)
{
    for (int b = 0; b < ITO_TEST_NBACKENDS; b++) {
        setenv("ITO_WSC_BACKEND", ito_test_backends[b], 1);
        round_(ito_test_backends[b]);
    }
    unsetenv("ITO_WSC_BACKEND");
    TEST_DONE();
}
