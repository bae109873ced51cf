/* test_preempt_config_bounds: ito_preempt_enable takes exactly the ranges preempt.h gives:
 * quantum_us 100 .. 10,000,000 (0: the default) and max_delay_quanta at most 1000 (0: the
 * default); one past either end is ITO_EINVAL. test_preempt checked only a quantum of 5 us,
 * so a bound moved to 10 us, or a delay bound of 10,000 quanta, passed (found by mutation
 * testing, h60e, 2026-12-05). FLAG mode: the sanitizer trees run it too. */
#include "ito/ito.h"
#include "ito/preempt.h"
#include "ito_test.h"

static int try_cfg(unsigned quantum_us, unsigned max_delay_quanta)
{
    ito_preempt_config_t c = {.quantum_us = quantum_us, .max_delay_quanta = max_delay_quanta,
                              .mode = ITO_PREEMPT_FLAG};
    int rc = ito_preempt_enable(&c);
    if (rc == ITO_OK) CHECK_OK(ito_preempt_disable());
    return rc;
}

int main(void)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 1}));
    /* the quantum */
    CHECK_EQ(try_cfg(99, 0), ITO_EINVAL);
    CHECK_EQ(try_cfg(10, 0), ITO_EINVAL);
    CHECK_EQ(try_cfg(100, 0), ITO_OK);
    CHECK_EQ(try_cfg(10000000, 0), ITO_OK);
    CHECK_EQ(try_cfg(10000001, 0), ITO_EINVAL);
    CHECK_EQ(try_cfg(0xffffffffu, 0), ITO_EINVAL);
    CHECK_EQ(try_cfg(0, 0), ITO_OK); /* the default */
    /* the bound of a delayed switch */
    CHECK_EQ(try_cfg(1000, 1000), ITO_OK);
    CHECK_EQ(try_cfg(1000, 1001), ITO_EINVAL);
    CHECK_EQ(try_cfg(1000, 10000), ITO_EINVAL);
    CHECK_EQ(try_cfg(1000, 0xffffffffu), ITO_EINVAL);
    CHECK_EQ(try_cfg(1000, 1), ITO_OK);
    /* a refused configuration left nothing on: a good one is taken afterwards */
    CHECK_EQ(ito_preempt_disable(), ITO_ESTATE);
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
