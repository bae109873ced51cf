/* test_wsc_policy: a flush policy set right after ito_init, before anything else touched
 * the I/O path, holds: the environment's defaults, applied when the common areas are set
 * up at first use, do not overwrite it (the chatroom's threshold of 1 became 32 that
 * way). And the next runtime starts from the environment again. Both backends. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "ito/ito.h"
#include "ito_test.h"

static long results[4];

static void run_backend(const char *backend)
{
    CHECK_OK(setenv("ITO_WSC_BACKEND", backend, 1));
    CHECK_OK(ito_init(NULL));
    CHECK_OK(ito_wsc_set_threshold(1)); /* the very first call into the I/O path */
    CHECK_OK(ito_wsc_set_latency_us(0));
    ito_wsc_stats_t s0, s1;
    CHECK_OK(ito_wsc_stats(&s0));
    ito_sysreq_t q[3];
    for (int i = 0; i < 3; i++) q[i] = (ito_sysreq_t){.op = ITO_SYS_NOP, .result = &results[i]};
    for (int i = 0; i < 3; i++) CHECK_OK(ito_sys_post(&q[i]));
    CHECK_OK(ito_wsc_stats(&s1));
    CHECK_EQ(s1.flush_threshold - s0.flush_threshold, 3); /* each one crossed alone */
    CHECK_OK(ito_finalize());

    /* a new runtime: the default threshold (32) again, so three NOPs wait together */
    CHECK_OK(ito_init(NULL));
    CHECK_OK(ito_wsc_stats(&s0));
    for (int i = 0; i < 3; i++) CHECK_OK(ito_sys_post(&q[i]));
    CHECK_OK(ito_wsc_stats(&s1));
    CHECK_EQ(s1.flush_threshold - s0.flush_threshold, 0);
    CHECK_OK(ito_finalize());
    CHECK_OK(unsetenv("ITO_WSC_BACKEND"));
}

int main(void)
{
    run_backend("uring");
    run_backend("sync");
    TEST_DONE();
}
