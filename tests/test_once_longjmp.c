/* test_once_longjmp: what sync.h says of an ito_once whose fn leaves by longjmp (an
 * interpreter's error raised in code fn calls; found with Lua by outside tester h72d,
 * 2026-12-07): the object stays running, so the ULT that longjmped out gets ITO_EDEADLK
 * when it calls again (fn would have to run in its own caller), a foreign thread that
 * would have to wait gets ITO_ENOTULT, and the runtime still finalizes. */
#include <pthread.h>
#include <setjmp.h>
#include <stdatomic.h>

#include "ito/ito.h"
#include "ito_test.h"

static ito_once_t once = ITO_ONCE_INIT;
static jmp_buf env;
static _Atomic int runs;

static void fn_escapes(void)
{
    atomic_fetch_add(&runs, 1);
    longjmp(env, 1);
}

static void fn_plain(void) { atomic_fetch_add(&runs, 100); }

static void *foreign(void *arg)
{
    (void)arg;
    CHECK_EQ(ito_once(&once, fn_plain), ITO_ENOTULT);
    return NULL;
}

static void *body(void *arg)
{
    (void)arg;
    if (setjmp(env) == 0) {
        (void)ito_once(&once, fn_escapes);
        CHECK(0); /* not reached: fn left by longjmp */
    }
    CHECK_EQ(atomic_load(&runs), 1);
    CHECK_EQ(ito_once(&once, fn_plain), ITO_EDEADLK);
    pthread_t p;
    CHECK_EQ(pthread_create(&p, NULL, foreign, NULL), 0);
    CHECK_EQ(pthread_join(p, NULL), 0);
    CHECK_EQ(atomic_load(&runs), 1); /* fn ran once, fn_plain never */
    return NULL;
}

int main(void)
{
    CHECK_OK(ito_init(NULL));
    ito_test_run_in_ult(body);
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
