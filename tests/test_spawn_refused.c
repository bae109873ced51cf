/* test_spawn_refused: ito_create_many refused whole for want of memory (a count whose
 * stacks cannot fit in the address space) creates nothing and still reports per thread,
 * as spawn.h promises: every errs[i] is ITO_ENOMEM and every out[i] NULL. It used to leave
 * both arrays unwritten, so a caller that had zeroed errs (ITO_OK is 0) saw every thread
 * as created (outside tester h58a, 2026-12-05). A call refused for its arguments writes
 * neither array. */
#include <stdint.h>

#include "ito/ito.h"
#include "ito_test.h"

#define N 100000 /* 1 GiB stacks: 2^46 / (1 GiB + guard) < N, refused whole */

static void *body(void *arg) { return arg; }

int main(void)
{
    CHECK_OK(ito_init(NULL));
    ito_thread_t *out = malloc(N * sizeof *out);
    int *errs = malloc(N * sizeof *errs);
    CHECK(out && errs);
    for (size_t i = 0; i < N; i++) {
        out[i] = (ito_thread_t)(uintptr_t)0x1234;
        errs[i] = 0;
    }
    ito_spawn_attr_t sa;
    CHECK_OK(ito_spawn_attr_init(&sa));
    sa.stack_size = (size_t)1 << 30;
    CHECK_EQ(ito_create_many(N, body, NULL, 0, NULL, out, errs, &sa), ITO_ENOMEM);
    for (size_t i = 0; i < N; i++) {
        CHECK(out[i] == NULL);
        CHECK_EQ(errs[i], ITO_ENOMEM);
    }
    /* detached, errs only */
    for (size_t i = 0; i < N; i++) errs[i] = 0;
    sa.flags = ITO_ATTR_DETACHED;
    CHECK_EQ(ito_create_many(N, body, NULL, 0, NULL, NULL, errs, &sa), ITO_ENOMEM);
    for (size_t i = 0; i < N; i++) CHECK_EQ(errs[i], ITO_ENOMEM);
    /* refused for its arguments: neither array written */
    for (size_t i = 0; i < 4; i++) {
        out[i] = (ito_thread_t)(uintptr_t)0x1234;
        errs[i] = 7;
    }
    sa.flags = 0;
    sa.stack_size = 100;
    CHECK_EQ(ito_create_many(4, body, NULL, 0, NULL, out, errs, &sa), ITO_EINVAL);
    for (size_t i = 0; i < 4; i++) {
        CHECK(out[i] == (ito_thread_t)(uintptr_t)0x1234);
        CHECK_EQ(errs[i], 7);
    }
    /* and the runtime still creates */
    CHECK_OK(ito_spawn_attr_init(&sa));
    CHECK_EQ(ito_create_many(4, body, NULL, 0, NULL, out, errs, &sa), ITO_OK);
    for (size_t i = 0; i < 4; i++) {
        CHECK_EQ(errs[i], ITO_OK);
        CHECK_OK(ito_join(out[i], NULL));
    }
    free(out);
    free(errs);
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
