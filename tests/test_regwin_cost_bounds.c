/* test_regwin_cost_bounds: ito_regwin_switch_cost takes saves and restores up to
 * ITO_REGWIN_MAX_WINDOWS and refuses one more with ITO_ERANGE (regwin.h: "a switch moves at
 * most a whole file each way"), for every scheme. Only 2^32 - 1 was tested: a bound moved to
 * MAX + 1 passed (found by mutation testing, h60e, 2026-12-05). The costs grow with the
 * windows moved, and lo <= hi. Before ito_init, as documented. */
#include <stdint.h>

#include "ito/ito.h"
#include "ito/regwin.h"
#include "ito_test.h"

int main(void)
{
    int schemes[] = {ITO_REGWIN_NS, ITO_REGWIN_SNP, ITO_REGWIN_SP};
    for (int s = 0; s < 3; s++) {
        uint32_t lo = 0, hi = 0, plo = 0, phi = 0;
        int exact = -1;
        for (unsigned n = 0; n <= ITO_REGWIN_MAX_WINDOWS; n++) {
            CHECK_OK(ito_regwin_switch_cost(schemes[s], n, n, &lo, &hi, &exact));
            CHECK(lo <= hi);
            CHECK(exact == 0 || exact == 1);
            if (n) CHECK(lo >= plo && hi >= phi); /* more windows never cost less */
            plo = lo;
            phi = hi;
        }
        CHECK_EQ(ito_regwin_switch_cost(schemes[s], ITO_REGWIN_MAX_WINDOWS + 1, 0, &lo, &hi, NULL), ITO_ERANGE);
        CHECK_EQ(ito_regwin_switch_cost(schemes[s], 0, ITO_REGWIN_MAX_WINDOWS + 1, &lo, &hi, NULL), ITO_ERANGE);
        CHECK_EQ(ito_regwin_switch_cost(schemes[s], ITO_REGWIN_MAX_WINDOWS + 1, ITO_REGWIN_MAX_WINDOWS + 1, NULL,
                                        NULL, NULL),
                 ITO_ERANGE);
        CHECK_OK(ito_regwin_switch_cost(schemes[s], ITO_REGWIN_MAX_WINDOWS, 0, NULL, NULL, NULL));
        CHECK_OK(ito_regwin_switch_cost(schemes[s], 0, ITO_REGWIN_MAX_WINDOWS, NULL, NULL, NULL));
    }
    CHECK_EQ(ito_regwin_switch_cost(ITO_REGWIN_OFF, 1, 1, NULL, NULL, NULL), ITO_EINVAL);
    TEST_DONE();
}
