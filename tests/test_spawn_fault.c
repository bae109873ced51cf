/* test_spawn_fault: bulk creation under allocation failure: a thread whose descriptor
 * cannot be allocated is reported in errs[] and not created; every other thread is
 * created exactly once and can be joined; nothing is left half-made. */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include "ito/ito.h"
#include "ito_test.h"

#define N 500
static _Atomic long ran;

static void *body(void *arg)
{
    (void)arg;
    atomic_fetch_add(&ran, 1);
    return NULL;
}

int main(void)
{
    int saw_partial = 0;
    for (int k = 1; k <= 12; k++) {
        char v[16];
        snprintf(v, sizeof v, "%d", k);
        setenv("ITO_FAULT_MALLOC", v, 1);
        int rc = ito_init(NULL);
        if (rc != ITO_OK) {
            CHECK_EQ(rc, ITO_ENOMEM); /* the injected failure hit ito_init itself */
            CHECK(!ito_initialized());
            continue;
        }
        static ito_thread_t hs[N];
        static int errs[N];
        atomic_store(&ran, 0);
        for (int scheme = ITO_SPAWN_SERIAL; scheme <= ITO_SPAWN_COMBINED; scheme += 3) {
            ito_spawn_attr_t a;
            ito_spawn_attr_init(&a);
            a.scheme = (ito_spawn_scheme_t)scheme;
            atomic_store(&ran, 0);
            for (int i = 0; i < N; i++) hs[i] = (ito_thread_t)(uintptr_t)0x5a5a; /* a failed one is set to NULL,
                                                    * not left as it was (h60d: mutation survived) */
            rc = ito_create_many(N, body, NULL, 0, NULL, hs, errs, &a);
            long ok = 0;
            for (int i = 0; i < N; i++) {
                if (errs[i] == ITO_OK) {
                    ok++;
                    CHECK(hs[i] != NULL);
                    CHECK_OK(ito_join(hs[i], NULL));
                } else {
                    CHECK_EQ(errs[i], ITO_ENOMEM);
                    CHECK(hs[i] == NULL);
                }
            }
            CHECK_EQ(atomic_load(&ran), ok); /* exactly the created ones ran */
            if (rc != ITO_OK) {
                CHECK_EQ(rc, ITO_ENOMEM);
                CHECK(ok < N);
                saw_partial = 1;
            } else {
                CHECK_EQ(ok, N);
            }
        }
        CHECK_OK(ito_finalize());
    }
    CHECK(saw_partial); /* the injection really hit a bulk creation */
    unsetenv("ITO_FAULT_MALLOC");
    TEST_DONE();
}
