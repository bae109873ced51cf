/* test_group_forged_bits: a group handle is (generation << 8) | (slot + 1) with a 32-bit
 * generation, keyed with the process's secret; a value that differs from a live handle in
 * any bit above the generation was never handed out and is forged (preempt.h: "a
 * destroyed, forged or earlier runtime's group is ITO_EINVAL"). Found by a misuse fuzzer
 * (2026-12-04): the check compared only the low 32 bits of the generation, so the live
 * handle with garbage in bits 40..63 named the live group, and ito_group_destroy of such a
 * value destroyed it. And small integers name no group: until 2026-12-05 handles were not
 * keyed, the first group's was (void *)1 and ito_group_destroy((void *)1) ended it (found
 * by an outside tester, h62d). */
#include "ito/ito.h"
#include "ito_test.h"

int main(void)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 1}));
    ito_group_t *g;
    CHECK_OK(ito_group_create(&g));
    ito_preempt_stats_t st;
    for (int bit = 40; bit < 64; bit++) {
        ito_group_t *forged = (ito_group_t *)((uintptr_t)g ^ ((uintptr_t)1 << bit));
        CHECK_EQ(ito_group_stats(forged, &st), ITO_EINVAL);
        CHECK_EQ(ito_group_add(forged, ito_self()), ITO_EINVAL);
        CHECK_EQ(ito_group_destroy(forged), ITO_EINVAL);
        CHECK_OK(ito_group_stats(g, &st)); /* the real one is still there */
    }
    for (uintptr_t v = 1; v <= 4096; v++) { /* guesses: (generation << 8) | (slot + 1) */
        CHECK_EQ(ito_group_stats((ito_group_t *)v, &st), ITO_EINVAL);
        CHECK_EQ(ito_group_destroy((ito_group_t *)v), ITO_EINVAL);
    }
    CHECK_OK(ito_group_stats(g, &st));
    CHECK_OK(ito_group_destroy(g));
    CHECK_EQ(ito_group_destroy(g), ITO_EINVAL);
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
