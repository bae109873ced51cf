/* test_config: every ITO_* variable of the runtime is validated at ito_init
 * (docs/ENVIRONMENT.md): a bad value or an unknown name in the runtime's families is
 * ITO_EINVAL (and one line on stderr), nothing starts; good values take effect; names the
 * runtime does not own are left alone. */
#define _GNU_SOURCE
#include <stdlib.h>

#include "ito/ito.h"
#include "ito_test.h"

static void refused(const char *name, const char *value)
{
    CHECK_OK(setenv(name, value, 1));
    CHECK_EQ(ito_init(NULL), ITO_EINVAL);
    CHECK_EQ(ito_initialized(), 0);
    CHECK_OK(unsetenv(name));
}

int main(void)
{
    refused("ITO_WSC_BACKEND", "bogus");
    refused("ITO_WSC_BACKEND", "");
    refused("ITO_WSC_THRESHOLD", "500");
    refused("ITO_WSC_THRESHOLD", "0");
    refused("ITO_WSC_THRESHOLD", "8x");
    refused("ITO_WSC_THRESHOLD", " 8"); /* white space and a sign: strtol took them (found */
    refused("ITO_WSC_THRESHOLD", "+8"); /* by a misuse test, 2026-12-03); ENVIRONMENT.md */
    refused("ITO_WORKERS", "\t2");      /* says they are refused */
    refused("ITO_WSC_LATENCY_US", "-");
    refused("ITO_WSC_LATENCY_US", "-1");
    refused("ITO_WSC_LATENCY_US", "-0");  /* a sign before 0 passed as 0 (an API audit, */
    refused("ITO_WSC_LATENCY_US", "-00"); /* 2026-12-05) */
    refused("ITO_WSC_LATENCY_US", "2000000");
    refused("ITO_FINALIZE_GRACE_MS", "abc");
    refused("ITO_FAULT_MALLOC", "-3");
    refused("ITO_WORKERS", "0");
    refused("ITO_WSC_TRESHOLD", "8"); /* a typo in a family the runtime owns */
    refused("ITO_FAULT_NMAP", "1");
    refused("ITO_COOP_BUDGET", "0");
    refused("ITO_COOP_BUDGET", "2000000000");
    refused("ITO_COOP_SLICE_NS", "-1");
    refused("ITO_COOP_SLICES", "1"); /* not a name of the ITO_COOP_ family */

    /* names the runtime does not own are left alone */
    CHECK_OK(setenv("ITO_SOMETHING_ELSE", "whatever", 1));
    CHECK_OK(ito_init(NULL));
    CHECK_OK(ito_finalize());
    CHECK_OK(unsetenv("ITO_SOMETHING_ELSE"));

    /* good values take effect: a threshold of 4 makes 4 NOPs cross together */
    CHECK_OK(setenv("ITO_WSC_THRESHOLD", "4", 1));
    CHECK_OK(setenv("ITO_WSC_LATENCY_US", "0", 1));
    CHECK_OK(setenv("ITO_WSC_BACKEND", "sync", 1));
    CHECK_OK(ito_init(NULL));
    CHECK_EQ(ito_wsc_backend(), ITO_WSC_SYNC);
    ito_wsc_stats_t s;
    for (int i = 0; i < 3; i++) CHECK_OK(ito_sys_post(&(ito_sysreq_t){.op = ITO_SYS_NOP}));
    CHECK_OK(ito_wsc_stats(&s));
    CHECK_EQ(s.flush_threshold, 0);
    CHECK_OK(ito_sys_post(&(ito_sysreq_t){.op = ITO_SYS_NOP}));
    CHECK_OK(ito_wsc_stats(&s));
    CHECK_EQ(s.flush_threshold, 1);
    CHECK_OK(ito_finalize());
    CHECK_OK(unsetenv("ITO_WSC_THRESHOLD"));
    CHECK_OK(unsetenv("ITO_WSC_LATENCY_US"));
    CHECK_OK(unsetenv("ITO_WSC_BACKEND"));
    TEST_DONE();
}
