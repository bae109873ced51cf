/* test_key_gen_wrap: a key slot created and deleted again and again. Keys carry a
 * generation (tls.h: "a deleted key's handle never matches" the next key of its slot) in
 * the bits above the index; over 2^22 create/delete rounds the generation must wrap to 1,
 * never to 0 (key 0 is never a key: a created key that reads as 0 would be refused by every
 * call, and its slot would look free). Every round's key is non-zero, differs from the
 * previous one, and works (set/get); the deleted one does not (found by mutation testing,
 * h60d: without the wrap the 4,194,304th key of slot 0 was 0 and no test noticed). */
#include <stdint.h>

#include "ito/ito.h"
#include "ito_test.h"

int main(void)
{
    CHECK_OK(ito_init(NULL));
    ito_key_t prev = 0;
    int marker = 1;
    const uint32_t rounds = (1u << 22) + 64;
    for (uint32_t i = 0; i < rounds; i++) {
        ito_key_t k;
        CHECK_OK(ito_key_create(&k, NULL));
        if (k == 0 || k == prev) {
            fprintf(stderr, "round %u: key %u (previous %u)\n", i, (unsigned)k, (unsigned)prev);
            CHECK(k != 0 && k != prev);
        }
        if (i % 4096 == 0 || i + 128 > rounds) { /* every call works with it */
            void *v = &marker;
            CHECK_OK(ito_key_get(k, &v));
            CHECK(v == NULL);
            CHECK_OK(ito_key_set(k, &marker));
            CHECK_OK(ito_key_get(k, &v));
            CHECK(v == &marker);
            CHECK_OK(ito_key_set(k, NULL));
        }
        CHECK_OK(ito_key_delete(k));
        CHECK_EQ(ito_key_delete(k), ITO_EINVAL); /* the deleted handle is dead */
        prev = k;
    }
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
