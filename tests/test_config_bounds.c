/* test_config_bounds: every numeric ITO_* variable takes both ends of its documented
 * range (docs/ENVIRONMENT.md) and refuses one past either end (ITO_EINVAL, nothing
 * started). test_config checks values far outside; an off-by-one in the table (a
 * maximum written 100000 for 1000000, a minimum of 1 for 0) went unnoticed. The
 * runtime starts with an explicit worker count (an explicit count wins, the variable is
 * still validated), so ITO_WORKERS=256 costs nothing. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>

#include "ito/ito.h"
#include "ito_test.h"

static int start(void)
{
    ito_config_t cfg = {0};
    cfg.workers = 2;
    int rc = ito_init(&cfg);
    if (rc == ITO_OK) CHECK_OK(ito_finalize());
    return rc;
}

static void range(const char *name, long long min, long long max)
{
    char b[32];
    long long ok[2] = {min, max}, bad[2] = {min - 1, max + 1};
    for (int i = 0; i < 2; i++) {
        snprintf(b, sizeof b, "%lld", ok[i]);
        CHECK_OK(setenv(name, b, 1));
        int rc = start();
        if (rc != ITO_OK) fprintf(stderr, "  %s=%s refused (%d), documented as accepted\n", name, b, rc);
        CHECK_EQ(rc, ITO_OK);
        if (bad[i] < 0 && i == 0 && min == 0) snprintf(b, sizeof b, "-1");
        else snprintf(b, sizeof b, "%lld", bad[i]);
        CHECK_OK(setenv(name, b, 1));
        rc = start();
        if (rc != ITO_EINVAL) fprintf(stderr, "  %s=%s accepted (%d), documented as refused\n", name, b, rc);
        CHECK_EQ(rc, ITO_EINVAL);
        CHECK_EQ(ito_initialized(), 0);
    }
    CHECK_OK(unsetenv(name));
}

int main(void)
{
    range("ITO_WORKERS", 1, 256);
    range("ITO_WSC_THRESHOLD", 1, 64);
    range("ITO_WSC_LATENCY_US", 0, 1000000);
    range("ITO_FINALIZE_GRACE_MS", 0, 3600000);
    range("ITO_FAULT_MMAP", 0, 1000000000);
    range("ITO_FAULT_MALLOC", 0, 1000000000);
    range("ITO_FAULT_REARM", 0, 1000000000);
    range("ITO_FAULT_URING_CANCEL", 0, 1000000000);
    range("ITO_FAULT_WAITPOST", 0, 1000000000);
    range("ITO_FAULT_IOCONT", 0, 1000000000);
    range("ITO_FAULT_HELPER", 0, 1000000000);
    range("ITO_FAULT_CANCEL_MISS", 0, 1000000000);
    range("ITO_COOP_BUDGET", 1, 1000000000);
    range("ITO_COOP_SLICE_NS", 0, 1000000000000LL);
    TEST_DONE();
}
