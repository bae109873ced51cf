/* test_detach_foreign: ito_detach of a finished ULT from a kernel thread that is not a
 * ULT. ito_detach is not a blocking call, so it may succeed; if it refuses, it must
 * leave the ULT as it was (still joinable), not half-detached: neither detached nor
 * joinable, its descriptor lost until ito_finalize. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "ito/ito.h"
#include "ito_test.h"

static _Atomic int finished;

static void *quick(void *unused)
{
    (void)unused;
    atomic_store(&finished, 1);
    return (void *)7;
}

static int detach_rc;
static void *foreign(void *t)
{
    detach_rc = ito_detach((ito_thread_t)t);
    return NULL;
}

int main(void)
{
    CHECK_OK(ito_init(NULL));
    ito_attr_t a;
    CHECK_OK(ito_attr_init(&a));
    a.worker = 0;
    ito_thread_t t;
    CHECK_OK(ito_create(&t, quick, NULL, &a));
    while (!atomic_load(&finished)) CHECK_OK(ito_yield());
    for (int i = 0; i < 10; i++) CHECK_OK(ito_yield()); /* it has exited: state DONE */
    pthread_t pt;
    CHECK_EQ(pthread_create(&pt, NULL, foreign, (void *)t), 0);
    CHECK_EQ(pthread_join(pt, NULL), 0);
    if (detach_rc != ITO_OK) {
        void *r = NULL;
        int rc = ito_join(t, &r);
        fprintf(stderr, "ito_detach from a foreign thread returned %d (%s); ito_join then returned %d\n",
                detach_rc, ito_strerror(detach_rc), rc);
        CHECK_OK(rc); /* refused detach: the ULT must still be joinable */
        CHECK_EQ((intptr_t)r, 7);
    }
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
