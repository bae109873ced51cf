/* test_preempt_handler: preemption and the program's own SIGURG handler.
 *  1. enable -> disable puts the program's handler back (a raised SIGURG reaches it),
 *     and so does enable -> disable -> enable -> finalize: before, the second enable saved
 *     ito's own handler as "the program's" and dropped the per-worker records (a leak), so
 *     after finalize the program's handler was gone for good;
 *  2. two foreign threads enabling at once: exactly one gets ITO_OK, the other
 *     ITO_ESTATE; before, both could succeed (an unlocked check), leaving two timers per
 *     worker that went on firing SIGURG after finalize. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>

#include "ito/ito.h"
#include "ito_test.h"

static volatile sig_atomic_t mine;
static void my_urg(int sig)
{
    (void)sig;
    mine++;
}

static int handler_is_mine(void)
{
    struct sigaction cur;
    CHECK_EQ(sigaction(SIGURG, NULL, &cur), 0);
    return cur.sa_handler == my_urg;
}

static void raised_reaches_mine(void)
{
    sig_atomic_t before = mine;
    CHECK_EQ(raise(SIGURG), 0);
    CHECK(mine >= before + 1); /* (a tick pending at the disable may come too) */
}

static const ito_preempt_config_t flag = {.quantum_us = 1000, .mode = ITO_PREEMPT_FLAG};

static pthread_barrier_t bar;
static _Atomic int oks, busies;
static void *racer(void *unused)
{
    (void)unused;
    pthread_barrier_wait(&bar);
    int rc = ito_preempt_enable(&flag);
    if (rc == ITO_OK) atomic_fetch_add(&oks, 1);
    else if (rc == ITO_ESTATE) atomic_fetch_add(&busies, 1);
    return NULL;
}

int main(void)
{
    struct sigaction sa = {0};
    sa.sa_handler = my_urg;
    sigemptyset(&sa.sa_mask);
    CHECK_EQ(sigaction(SIGURG, &sa, NULL), 0);

    /* 1 */
    CHECK_OK(ito_init(NULL));
    CHECK_OK(ito_preempt_enable(&flag));
    CHECK(!handler_is_mine());
    CHECK_OK(ito_preempt_disable());
    CHECK(handler_is_mine());
    raised_reaches_mine();
    CHECK_OK(ito_preempt_enable(&flag));
    CHECK(!handler_is_mine());
    for (int i = 0; i < 20; i++) CHECK_OK(ito_sleep_ns(200000)); /* ticks come */
    ito_preempt_stats_t st;
    CHECK_OK(ito_preempt_stats(&st));
    CHECK(st.ticks > 0);
    CHECK_OK(ito_finalize());
    CHECK(handler_is_mine());
    raised_reaches_mine();

    /* 2 */
    for (int round = 0; round < 50; round++) {
        CHECK_OK(ito_init(NULL));
        atomic_store(&oks, 0);
        atomic_store(&busies, 0);
        pthread_t t[2];
        CHECK_EQ(pthread_barrier_init(&bar, NULL, 2), 0);
        for (int i = 0; i < 2; i++) CHECK_EQ(pthread_create(&t[i], NULL, racer, NULL), 0);
        for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
        pthread_barrier_destroy(&bar);
        CHECK_EQ(atomic_load(&oks), 1);
        CHECK_EQ(atomic_load(&busies), 1);
        CHECK_OK(ito_preempt_disable());
        CHECK_OK(ito_finalize());
        CHECK(handler_is_mine());
    }
    sig_atomic_t before = mine;
    struct timespec nap = {0, 20 * 1000 * 1000};
    nanosleep(&nap, NULL);
    CHECK_EQ(mine, before); /* no timer left firing after finalize */
    TEST_DONE();
}
