/* test_future_then_destroy: a thread registers a continuation (ito_future_then) while
 * another destroys the future. The destroy says ITO_OK at its first try (no continuation
 * registered yet); the registration must then say ITO_EINVAL: future.h's "ITO_EINVAL if f
 * is NULL" covers a destroyed future, and sync.h promises that a call reaching the object
 * after a destroy does not leave itself in it. Before the fix, ito_future_then checked the
 * mark only before it took the lock: it passed the check before the destroy, added its node
 * after it and said ITO_OK. The continuation could never fire (the future is dead; the
 * storage initialised again drops the node: a leak under LeakSanitizer), so a ZWT or ULT
 * waiting on that entry waited for ever. Found by an outside tester, h64h, 2026-12-06. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include "ito/ito.h"
#include "ito_test.h"

static ito_future_t f;
static ito_frame_t *fr;
static atomic_int go_, rc_;

static void body(ito_frame_t *fp, int e, uint64_t v)
{
    (void)fp, (void)e, (void)v;
}

static void *reg(void *a)
{
    (void)a;
    while (!atomic_load(&go_)) { }
    atomic_store(&rc_, ito_future_then(&f, fr, 0));
    return NULL;
}

int main(void)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
    CHECK_OK(ito_frame_create(&fr, 1, 0));
    CHECK_OK(ito_entry_set(fr, 0, body, 1u << 30, ITO_MODE_USER));
    long lost = 0, einval = 0, ok = 0;
    for (int i = 0; i < 20000 && !lost; i++) {
        CHECK_OK(ito_future_init(&f));
        atomic_store(&go_, 0);
        pthread_t t;
        CHECK(pthread_create(&t, NULL, reg, NULL) == 0);
        for (int j = 0; j < 2000; j++) __asm__ volatile("pause");
        atomic_store(&go_, 1);
        for (int j = 0; j < (int)(i % 128) * 2; j++) __asm__ volatile("pause");
        int r = ito_future_destroy(&f), first_ok = r == ITO_OK;
        while (r == ITO_EBUSY) { /* registered first: fire it, then the future may go */
            CHECK_OK(ito_future_set(&f, 1));
            r = ito_future_destroy(&f);
        }
        CHECK_OK(r);
        CHECK(pthread_join(t, NULL) == 0);
        int rr = atomic_load(&rc_);
        if (rr == ITO_EINVAL) einval++;
        else ok++;
        if (first_ok && rr == ITO_OK) lost++; /* registered in a future destroyed before */
    }
    fprintf(stderr, "then: ITO_EINVAL %ld, ITO_OK %ld, registered in a destroyed future %ld\n", einval, ok, lost);
    CHECK_EQ(lost, 0);
    CHECK_OK(ito_frame_destroy(fr));
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
