/* test_zwt_count_bounds: the documented limits of an entry's counts, at the boundary
 * (zwt.h): ito_entry_set's fan-in is 1..2^30, ito_rearm's count at most 2^30 (ITO_EINVAL
 * above). 2^30 itself is accepted by both, 2^30 + 1 refused, and a refused call changes
 * nothing. (Found by mutation testing, h60d: the suite tried only values far from the
 * limits, so an off-by-one that refused 2^30 passed.) */
#include <stdint.h>

#include "ito/ito.h"
#include "ito_test.h"

static void code(ito_frame_t *f, int entry, uint64_t value)
{
    (void)f;
    (void)entry;
    (void)value;
}

int main(void)
{
    CHECK_OK(ito_init(NULL));
    ito_frame_t *f;
    CHECK_OK(ito_frame_create(&f, 2, 0));
    const uint32_t max = 1u << 30;
    CHECK_OK(ito_entry_set(f, 0, code, max, ITO_MODE_USER));
    CHECK_EQ(ito_entry_set(f, 1, code, max + 1, ITO_MODE_USER), ITO_EINVAL);
    CHECK_EQ(ito_entry_set(f, 1, code, 0, ITO_MODE_USER), ITO_EINVAL);
    CHECK_OK(ito_entry_set(f, 1, code, 1, ITO_MODE_USER));
    CHECK_OK(ito_rearm(f, 1, max));
    CHECK_EQ(ito_rearm(f, 1, max + 1), ITO_EINVAL);
    CHECK_EQ(ito_rearm(f, 1, UINT32_MAX), ITO_EINVAL);
    /* still armed to 2^30 (the refused re-arms changed nothing): one continuation is not its firing */
    CHECK_OK(ito_continue(f, 1));
    CHECK_OK(ito_rearm(f, 1, 1));
    CHECK_OK(ito_frame_destroy(f));
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
