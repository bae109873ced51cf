/* test_affinity: ITO_AFFINITY=on runs worker i on the i-th CPU the process may use
 * (wrapping around), and gives the calling thread its own CPU mask back at ito_finalize;
 * off (the default) leaves every worker on the process's mask; other values are refused.
 * The wrap is checked with 2n + 1 workers for n CPUs: with one worker more than CPUs (as
 * this test had) the wrapped worker (n -> CPU 0) was right even when the runtime did not
 * wrap, since it inherits worker 0's mask; workers n+1 .. 2n tell the difference
 * (mutation testing, h61d, 2026-12-05). */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>

#include "ito/ito.h"
#include "ito_test.h"

static cpu_set_t all; /* the process's mask at the start */

static int nth_cpu(int k)
{
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &all) && k-- == 0) return c;
    return -1;
}

static void *mask_of_worker(void *arg)
{
    cpu_set_t *out = arg;
    CHECK_OK(sched_getaffinity(0, sizeof *out, out));
    return NULL;
}

static void check_workers(int pinned)
{
    int n = ito_worker_count(), ncpu = CPU_COUNT(&all);
    for (int i = 0; i < n; i++) {
        ito_attr_t a;
        CHECK_OK(ito_attr_init(&a));
        a.worker = i;
        cpu_set_t m;
        ito_thread_t t;
        CHECK_OK(ito_create(&t, mask_of_worker, &m, &a));
        CHECK_OK(ito_join(t, NULL));
        if (pinned) {
            CHECK_EQ(CPU_COUNT(&m), 1);
            CHECK(CPU_ISSET(nth_cpu(i % ncpu), &m));
        } else {
            CHECK(CPU_EQUAL(&m, &all));
        }
    }
}

int main(void)
{
    CHECK_OK(sched_getaffinity(0, sizeof all, &all));
    CHECK_OK(setenv("ITO_AFFINITY", "yes", 1));
    CHECK_EQ(ito_init(NULL), ITO_EINVAL);
    CHECK_EQ(ito_initialized(), 0);

    CHECK_OK(unsetenv("ITO_AFFINITY")); /* default: off */
    CHECK_OK(ito_init(&(ito_config_t){.workers = 3}));
    check_workers(0);
    CHECK_OK(ito_finalize());

    CHECK_OK(setenv("ITO_AFFINITY", "on", 1));
    int n = 2 * CPU_COUNT(&all) + 1; /* more workers than CPUs wraps */
    CHECK_OK(ito_init(&(ito_config_t){.workers = n > 256 ? 256 : n}));
    check_workers(1);
    CHECK_OK(ito_finalize());
    cpu_set_t after;
    CHECK_OK(sched_getaffinity(0, sizeof after, &after));
    CHECK(CPU_EQUAL(&after, &all)); /* the caller's own mask is back */
    CHECK_OK(unsetenv("ITO_AFFINITY"));
    TEST_DONE();
}
