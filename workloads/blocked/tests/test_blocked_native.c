/* Each of the six programs, run natively at its test size with 1, 2, 3 and 8 pthreads,
 * computes the right result (checked against a naive or serial reference by wl_kind.check). */
#include "ito_test.h"
#include "wl.h"

int main(void)
{
    static const int threads[] = {1, 2, 3, 8};
    int kinds = 0;
    for (const wl_kind *const *k = wl_all(); *k; k++, kinds++) {
        for (unsigned i = 0; i < sizeof threads / sizeof threads[0]; i++) {
            char err[256] = "";
            int rc = wl_run_native(*k, &(*k)->sizes[WL_SCALE_TEST], threads[i], err, sizeof err);
            if (rc)
                fprintf(stderr, "%s with %d threads: %s\n", (*k)->name, threads[i], err);
            CHECK_EQ(rc, 0);
        }
    }
    CHECK_EQ(kinds, 6);
    CHECK(wl_find("B-MM") == &wl_bmm && wl_find("mp3d") == &wl_mp3d && wl_find("nope") == NULL);
    TEST_DONE();
}
