/* test_join_main: a ULT that joins main gets ITO_EPERM (thread.h: "ITO_EPERM for main";
 * main ends in ito_finalize, never in a join), with and without a deadline, and main
 * stays usable (found by mutation testing, h60d: no test joined main from another ULT, so
 * a join that answered ITO_EJOINED, or waited, passed). */
#include <stdint.h>

#include "ito/ito.h"
#include "ito_test.h"

static void *join_main(void *main_handle)
{
    ito_thread_t m = (ito_thread_t)main_handle;
    int a = ito_join(m, NULL);
    int b = ito_join_until(m, NULL, ito_deadline_in(1000000));
    int c = ito_join_until(m, NULL, 0); /* a deadline already past: still EPERM, not ETIMEDOUT */
    return (void *)(intptr_t)(a == ITO_EPERM && b == ITO_EPERM && c == ITO_EPERM ? 1 : -(a * 10000 + b * 100 + c));
}

int main(void)
{
    CHECK_OK(ito_init(NULL));
    for (int w = -1; w < 2 && w < ito_worker_count(); w++) { /* same worker as main, and another */
        ito_attr_t a;
        CHECK_OK(ito_attr_init(&a));
        a.worker = w;
        ito_thread_t t;
        void *r = NULL;
        CHECK_OK(ito_create(&t, join_main, (void *)ito_self(), &a));
        CHECK_OK(ito_join(t, &r));
        if ((intptr_t)r != 1) fprintf(stderr, "join of main returned %ld (encoded)\n", (long)(intptr_t)r);
        CHECK_EQ((intptr_t)r, 1);
    }
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
