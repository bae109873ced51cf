/* test_preempt_gang_fin_compute: ito_finalize must not cancel a socket receive as "never
 * completing by itself" while a ULT that will send to it is still computing, with gang
 * scheduling on as without it (thread.h, the finalize rule: finalize waits while the runtime
 * holds work that will progress by itself; a computing ULT is such work).
 *
 * A ULT of group g2 waits in ito_recv on one end of a socket pair; a ULT of group g computes
 * for 600 ms without yielding (timer preemption is on), then sends one byte to the other end
 * (both detached; with gang=0 the groups exist but take no turns). main calls
 * ito_finalize at once, with a grace period of 200 ms. Without gang scheduling the receiver
 * got its byte; with gang scheduling finalize counted the computing ULT as no work (parked in
 * its worker's queue for g's turns, off the run queue; g2's turns run nothing), cancelled the receive after
 * the grace (ECANCELED: the byte sent 400 ms later was lost), on both backends, 1 and 2
 * workers, signal and flag modes. Part 2: the same with an untimed ito_cond_wait in place of
 * the receive (the computing ULT signals after 600 ms): ito_finalize returned ITO_EBUSY ("stay
 * blocked ... with nothing left to wait for") in all 4 configurations instead of waiting.
 * Found by an outside tester, h68f, 2026-12-06. */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static int sv[2];
static _Atomic long got = -100;
static _Atomic int got_errno;
static int MODE;

static void *receiver(void *p)
{
    (void)p;
    char c = 0;
    ssize_t k = ito_recv(sv[0], &c, 1, 0);
    atomic_store(&got_errno, k < 0 ? errno : 0);
    atomic_store(&got, k == 1 ? c : k);
    return NULL;
}

/* Compute for 600 ms without yielding (in flag mode, at the coop points a compiler
 * plugin would insert). */
static void compute_600ms(void)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do {
        for (volatile int i = 0; i < 10000; i++)
            if (MODE == ITO_PREEMPT_FLAG && (i & 1023) == 0) ito_test_coop_point();
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 600000000L);
}

static void *computer(void *p)
{
    (void)p;
    compute_600ms();
    CHECK_EQ(ito_send(sv[1], "x", 1, 0), 1);
    return NULL;
}

static ito_mutex_t mu;
static ito_cond_t cv;
static int flag;

static void *cond_waiter(void *p)
{
    (void)p;
    CHECK_OK(ito_mutex_lock(&mu));
    while (!flag) CHECK_OK(ito_cond_wait(&cv, &mu));
    CHECK_OK(ito_mutex_unlock(&mu));
    return NULL;
}

static void *cond_computer(void *p)
{
    (void)p;
    compute_600ms();
    CHECK_OK(ito_mutex_lock(&mu));
    flag = 1;
    CHECK_OK(ito_cond_signal(&cv));
    CHECK_OK(ito_mutex_unlock(&mu));
    return NULL;
}

/* Part 2: the first ito_finalize's result (it is called again while ITO_EBUSY). */
static int run_cond(int workers, int mode)
{
    MODE = mode;
    flag = 0;
    setenv("ITO_FINALIZE_GRACE_MS", "200", 1);
    CHECK_OK(ito_init(&(ito_config_t){.workers = workers}));
    int r = ito_preempt_enable(&(ito_preempt_config_t){.quantum_us = 1000, .mode = mode, .gang = 1});
    if (r == ITO_ENOSYS) {
        CHECK_OK(ito_finalize());
        return ITO_OK;
    }
    CHECK_OK(r);
    CHECK_OK(ito_mutex_init(&mu));
    CHECK_OK(ito_cond_init(&cv));
    ito_group_t *g, *g2;
    CHECK_OK(ito_group_create(&g));
    CHECK_OK(ito_group_create(&g2));
    ito_thread_t a, b;
    CHECK_OK(ito_create(&a, cond_waiter, NULL, NULL));
    CHECK_OK(ito_create(&b, cond_computer, NULL, NULL));
    CHECK_OK(ito_group_add(g2, a));
    CHECK_OK(ito_group_add(g, b));
    CHECK_OK(ito_detach(a));
    CHECK_OK(ito_detach(b));
    r = ito_finalize();
    printf("cond workers=%d mode=%s: finalize %d\n", workers, mode == ITO_PREEMPT_FLAG ? "flag" : "signal", r);
    int first = r;
    while (r == ITO_EBUSY) r = ito_finalize(); /* the computer ends, then the waiter */
    CHECK_OK(r);
    CHECK_EQ(flag, 1);
    return first;
}

static int run(const char *backend, int workers, int mode, int gang)
{
    MODE = mode;
    setenv("ITO_WSC_BACKEND", backend, 1);
    setenv("ITO_FINALIZE_GRACE_MS", "200", 1);
    CHECK_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    atomic_store(&got, -100);
    CHECK_OK(ito_init(&(ito_config_t){.workers = workers}));
    int r = ito_preempt_enable(&(ito_preempt_config_t){.quantum_us = 1000, .mode = mode, .gang = gang});
    if (r == ITO_ENOSYS) { /* signal mode in a sanitizer build */
        CHECK_OK(ito_finalize());
        close(sv[0]);
        close(sv[1]);
        return 0;
    }
    CHECK_OK(r);
    ito_group_t *g, *g2;
    CHECK_OK(ito_group_create(&g));
    CHECK_OK(ito_group_create(&g2));
    ito_thread_t a, b;
    CHECK_OK(ito_create(&a, receiver, NULL, NULL));
    CHECK_OK(ito_create(&b, computer, NULL, NULL));
    CHECK_OK(ito_group_add(g, b));
    CHECK_OK(ito_group_add(g2, a));
    CHECK_OK(ito_detach(a));
    CHECK_OK(ito_detach(b));
    CHECK_OK(ito_finalize());
    printf("%s workers=%d mode=%s gang=%d: receiver got %ld (errno %d)\n", backend, workers,
           mode == ITO_PREEMPT_FLAG ? "flag" : "signal", gang, (long)got, (int)got_errno);
    close(sv[0]);
    close(sv[1]);
    return got == 'x';
}

int main(void)
{
    int bad = 0;
    for (int b = 0; b < ITO_TEST_NBACKENDS; b++)
        for (int workers = 1; workers <= 2; workers++)
            for (int mode = 0; mode < 2; mode++)
                for (int gang = 0; gang < 2; gang++) {
                    int ok = run(ito_test_backends[b], workers, mode, gang);
                    if (!ok && !(mode == ITO_PREEMPT_SIGNAL && got == -100)) bad++;
                }
    unsetenv("ITO_WSC_BACKEND");
    for (int workers = 1; workers <= 2; workers++)
        for (int mode = 0; mode < 2; mode++)
            if (run_cond(workers, mode) != ITO_OK) bad++; /* ITO_EBUSY while the computer ran */
    unsetenv("ITO_FINALIZE_GRACE_MS");
    CHECK_EQ(bad, 0);
    TEST_DONE();
}
