/* test_tls_forged_key: a forged key, whose index bits name a slot past ITO_KEYS_MAX (the
 * index field is wider than the table), is refused by ito_key_set, ito_key_get and
 * ito_key_delete with ITO_EINVAL, without a read past the key table (tls.c key_live:
 * index < ITO_KEYS_MAX before the table is read; in the ASan tree a read past it is a
 * global-buffer-overflow report). Every index 256..1023 with a few generations. */
#include <stdint.h>

#include "ito/ito.h"
#include "ito_test.h"

int main(void)
{
    CHECK_OK(ito_init(NULL));
    ito_key_t real;
    CHECK_OK(ito_key_create(&real, NULL));
    int dummy;
    for (uint32_t gen = 1; gen < 4; gen++) {
        for (uint32_t idx = ITO_KEYS_MAX; idx < 1024; idx++) {
            ito_key_t k = (ito_key_t)(gen << 10 | idx);
            void *v = &dummy;
            CHECK_EQ(ito_key_set(k, &dummy), ITO_EINVAL);
            CHECK_EQ(ito_key_get(k, &v), ITO_EINVAL);
            CHECK(v == NULL);
            CHECK_EQ(ito_key_delete(k), ITO_EINVAL);
        }
    }
    CHECK_OK(ito_key_delete(real));
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
