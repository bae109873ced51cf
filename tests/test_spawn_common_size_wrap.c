/* test_spawn_common_size_wrap: ito_create_many with a common_size so large that the size of
 * its message (header + pieces + common) wrapped around SIZE_MAX. The call allocated a small
 * block and copied common_size bytes into it: heap corruption ("malloc(): unaligned tcache
 * chunk detected", abort) instead of the ITO_ENOMEM that spawn.h gives when there is no
 * memory for the message (every errs[i] ITO_ENOMEM, every out[i] NULL, nothing created).
 * Garbage input (no object is that large), but the call must refuse it, not corrupt the
 * heap. Found by an outside tester, h65g, 2026-12-06. */
#include <ito/ito.h>
#include <ito/spawn.h>

#include "ito_test.h"

static void *body(void *arg) { return arg; }

int main(void)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
    char common[8] = "abc";
    size_t sizes[] = {SIZE_MAX, SIZE_MAX - 1, SIZE_MAX - 200, SIZE_MAX - 4096};
    for (int i = 0; i < 4; i++) {
        for (int s = ITO_SPAWN_SERIAL; s <= ITO_SPAWN_COMBINED; s++) {
            ito_spawn_attr_t a;
            CHECK_OK(ito_spawn_attr_init(&a));
            a.scheme = (ito_spawn_scheme_t)s;
            ito_thread_t out[2] = {(ito_thread_t)common, (ito_thread_t)common};
            int errs[2] = {1, 1};
            CHECK_EQ(ito_create_many(2, body, common, sizes[i], NULL, out, errs, &a), ITO_ENOMEM);
            CHECK(out[0] == NULL && out[1] == NULL);
            CHECK_EQ(errs[0], ITO_ENOMEM);
            CHECK_EQ(errs[1], ITO_ENOMEM);
        }
    }
    /* the runtime is unharmed */
    ito_thread_t out[3];
    CHECK_OK(ito_create_many(3, body, common, sizeof common, NULL, out, NULL, NULL));
    for (int i = 0; i < 3; i++) CHECK_OK(ito_join(out[i], NULL));
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
