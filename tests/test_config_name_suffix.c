/* test_config_name_suffix: an unknown name in a family the runtime owns is refused even
 * when a known name is its prefix (docs/ENVIRONMENT.md: "an unknown name in a family the
 * runtime owns (ITO_WSC_*, ITO_FAULT_*, ITO_FINALIZE_*, ITO_FP_*, ITO_COOP_*)" makes
 * ito_init return ITO_EINVAL): ITO_WSC_THRESHOLDS is a typo of ITO_WSC_THRESHOLD, not it.
 * test_config covers typos inside a name and names no known name begins; a name compare
 * that matched only the known name's length (a prefix test) let these start the runtime. */
#define _GNU_SOURCE
#include <stdlib.h>

#include "ito/ito.h"
#include "ito_test.h"

static void refused(const char *name, const char *value)
{
    CHECK_OK(setenv(name, value, 1));
    int rc = ito_init(NULL);
    CHECK_EQ(rc, ITO_EINVAL);
    if (rc == ITO_OK) ito_finalize();
    CHECK_EQ(ito_initialized(), 0);
    CHECK_OK(unsetenv(name));
}

int main(void)
{
    refused("ITO_WSC_THRESHOLDS", "8");
    refused("ITO_WSC_BACKEND_", "sync");
    refused("ITO_WSC_LATENCY_US2", "10");
    refused("ITO_FINALIZE_GRACE_MSX", "10");
    refused("ITO_FAULT_MALLOCS", "0");
    refused("ITO_FP_RESTORED", "auto");
    refused("ITO_COOP_BUDGET_MAX", "100");
    /* the known names themselves still start it */
    CHECK_OK(setenv("ITO_WSC_THRESHOLD", "8", 1));
    CHECK_OK(setenv("ITO_COOP_BUDGET", "100", 1));
    CHECK_OK(ito_init(NULL));
    CHECK_OK(ito_finalize());
    CHECK_OK(unsetenv("ITO_WSC_THRESHOLD"));
    CHECK_OK(unsetenv("ITO_COOP_BUDGET"));
    TEST_DONE();
}
