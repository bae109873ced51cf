/* test_affinity_wrap: ITO_AFFINITY=on with twice as many workers as CPUs: worker i runs on
 * the (i mod n)-th CPU of the process's mask (docs/ENVIRONMENT.md: "wrapping around when
 * there are more workers than CPUs"). test_affinity uses one worker more than CPUs on a
 * 2-CPU host, and there the wrapped worker (2 -> CPU 0) is right even when the runtime
 * does not wrap: it inherits the mask of worker 0's thread, pinned to CPU 0 before the
 * others start. Workers n+1 .. 2n-1 tell the difference. Also: main's mask comes back. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "ito/ito.h"
#include "ito_test.h"

static cpu_set_t all;

static int nth_cpu(int k)
{
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &all) && k-- == 0) return c;
    return -1;
}

static void *mask_of_worker(void *arg)
{
    CHECK_OK(sched_getaffinity(0, sizeof(cpu_set_t), (cpu_set_t *)arg));
    return NULL;
}

int main(void)
{
    CHECK_OK(sched_getaffinity(0, sizeof all, &all));
    int ncpu = CPU_COUNT(&all);
    int n = 2 * ncpu > 256 ? 256 : 2 * ncpu;
    if (n < 2) n = 2;
    CHECK_OK(setenv("ITO_AFFINITY", "on", 1));
    ito_config_t cfg = {0};
    cfg.workers = n;
    CHECK_OK(ito_init(&cfg));
    for (int i = 0; i < n; i++) {
        ito_attr_t a;
        CHECK_OK(ito_attr_init(&a));
        a.worker = i;
        cpu_set_t m;
        ito_thread_t t;
        CHECK_OK(ito_create(&t, mask_of_worker, &m, &a));
        CHECK_OK(ito_join(t, NULL));
        int want = nth_cpu(i % ncpu);
        if (CPU_COUNT(&m) != 1 || !CPU_ISSET(want, &m))
            fprintf(stderr, "worker %d: %d CPUs in its mask, CPU %d %s\n", i, CPU_COUNT(&m), want,
                    CPU_ISSET(want, &m) ? "among them" : "not among them");
        CHECK_EQ(CPU_COUNT(&m), 1);
        CHECK(CPU_ISSET(want, &m));
    }
    CHECK_OK(ito_finalize());
    cpu_set_t after;
    CHECK_OK(sched_getaffinity(0, sizeof after, &after));
    CHECK(CPU_EQUAL(&after, &all));
    CHECK_OK(unsetenv("ITO_AFFINITY"));
    TEST_DONE();
}
