/* test_idle_epoll_cpu: an idle worker that sleeps in epoll_wait (it watches fds: the
 * wrappers' ring or readiness epoll, devices) costs no CPU after it has been woken
 * through its wake eventfd (idlewait.c: the sleeper reads the eventfd's counter back to 0
 * when it wakes). If the counter were left set, every later epoll_wait would return at
 * once and the idle worker would spin. Both workers watch a pipe, are put to sleep and
 * woken through the eventfd once; then the process idles 500 ms (main in ito_sleep_ns)
 * and must use next to no CPU. */
#define _GNU_SOURCE
#include <stdint.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static int pfd[2];
static ito_sem_t sem;

static void *reader(void *arg)
{
    (void)arg;
    char c;
    CHECK_EQ(ito_read(pfd[0], &c, 1), 1); /* the worker watches an fd from here on */
    return NULL;
}

static void *waker(void *arg)
{
    (void)arg;
    CHECK_OK(ito_sleep_ns(30 * 1000000ull)); /* worker 0 (main, in ito_sem_wait) sleeps meanwhile */
    CHECK_OK(ito_sem_post(&sem));
    return NULL;
}

static ito_thread_t on(int worker, ito_fn_t fn)
{
    ito_attr_t a;
    ito_attr_init(&a);
    a.worker = worker;
    ito_thread_t t;
    CHECK_OK(ito_create(&t, fn, NULL, &a));
    return t;
}

int main(void)
{
    ito_config_t cfg = {0};
    cfg.workers = 2;
    CHECK_OK(ito_init(&cfg));
    CHECK_OK(pipe(pfd));
    CHECK_OK(ito_sem_init(&sem, 0));
    ito_thread_t r0 = on(0, reader), r1 = on(1, reader);
    CHECK_OK(ito_sleep_ns(20 * 1000000ull));
    CHECK_EQ(write(pfd[1], "ab", 2), 2);
    CHECK_OK(ito_join(r0, NULL));
    CHECK_OK(ito_join(r1, NULL));
    for (int round = 0; round < 3; round++) {
        CHECK_OK(ito_sleep_ns(20 * 1000000ull)); /* worker 1 idles in epoll_wait */
        ito_thread_t w = on(1, waker);           /* woken through its eventfd */
        CHECK_OK(ito_sem_wait(&sem));            /* worker 0 idles, woken the same way */
        CHECK_OK(ito_join(w, NULL));
    }
    double c0 = ito_test_cpu_seconds();
    CHECK_OK(ito_sleep_ns(500 * 1000000ull));
    double used = ito_test_cpu_seconds() - c0;
    printf("CPU over 500 ms of idling: %.3f s\n", used);
    CHECK(used < 0.04); /* it measured 0.000; an idle worker that spins, 0.1 and more */
    CHECK_OK(ito_sem_destroy(&sem));
    close(pfd[0]);
    close(pfd[1]);
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
