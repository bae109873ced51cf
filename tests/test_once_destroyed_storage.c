/* test_once_destroyed_storage: ito_once on the storage of a destroyed synchronization
 * object of another type is refused (ITO_EINVAL), and fn does not run. ito_once_t has no
 * init and no mark: it took storage whose state and lock words read 0 as a NEW once
 * object, and a destroy used to clear the type mark (the lock word's place) to 0, so every
 * destroyed object passed; ito_once then ran fn and, at its end, woke "waiters" made of
 * the old object's fields: a destroyed future's value became a waiter pointer (SIGSEGV in
 * itoi_waiter_claim). Found by an outside tester's concurrent misuse fuzzer, h68b,
 * 2026-12-06. Now a destroy leaves a mark of a destroyed object (src/sync/waitq.h), which
 * every type's calls and ito_once refuse; a new init of the storage works as before. */
#include <stdint.h>
#include <string.h>

#include "ito/ito.h"
#include "ito_test.h"

static int runs;
static void fn(void) { runs++; }

typedef union {
    ito_mutex_t m;
    ito_cond_t c;
    ito_rwlock_t r;
    ito_sem_t s;
    ito_barrier_t b;
    ito_waitgroup_t g;
    ito_future_t f;
    ito_once_t o;
} any_t;

int main(void)
{
    CHECK_OK(ito_init(NULL));
    any_t u;
    for (int kind = 0; kind < 7; kind++) {
        memset(&u, 0, sizeof u);
        switch (kind) {
        case 0:
            CHECK_OK(ito_mutex_init(&u.m));
            CHECK_OK(ito_mutex_lock(&u.m));
            CHECK_OK(ito_mutex_unlock(&u.m));
            CHECK_OK(ito_mutex_destroy(&u.m));
            CHECK_EQ(ito_mutex_destroy(&u.m), ITO_EINVAL);
            break;
        case 1:
            CHECK_OK(ito_cond_init(&u.c));
            CHECK_OK(ito_cond_destroy(&u.c));
            CHECK_EQ(ito_cond_signal(&u.c), ITO_EINVAL);
            break;
        case 2:
            CHECK_OK(ito_rwlock_init(&u.r));
            CHECK_OK(ito_rwlock_wrlock(&u.r));
            CHECK_OK(ito_rwlock_unlock(&u.r));
            CHECK_OK(ito_rwlock_destroy(&u.r));
            break;
        case 3:
            CHECK_OK(ito_sem_init(&u.s, 7));
            CHECK_OK(ito_sem_destroy(&u.s));
            CHECK_EQ(ito_sem_post(&u.s), ITO_EINVAL);
            break;
        case 4:
            CHECK_OK(ito_barrier_init(&u.b, 3));
            CHECK_OK(ito_barrier_destroy(&u.b));
            break;
        case 5:
            CHECK_OK(ito_waitgroup_init(&u.g));
            CHECK_OK(ito_waitgroup_add(&u.g, 5));
            CHECK_OK(ito_waitgroup_add(&u.g, -5));
            CHECK_OK(ito_waitgroup_destroy(&u.g));
            break;
        case 6: /* the crash: the value lands where a once object keeps its waiters */
            CHECK_OK(ito_future_init(&u.f));
            CHECK_OK(ito_future_set(&u.f, 0x123456789abcdef0ull));
            CHECK_OK(ito_future_destroy(&u.f));
            CHECK_EQ(ito_future_destroy(&u.f), ITO_EINVAL);
            break;
        }
        CHECK_EQ(ito_once(&u.o, fn), ITO_EINVAL);
        CHECK_EQ(runs, 0);
    }
    /* destroyed storage can be initialised again, as any type */
    CHECK_OK(ito_mutex_init(&u.m));
    CHECK_OK(ito_mutex_lock(&u.m));
    CHECK_EQ(ito_mutex_trylock(&u.m), ITO_EDEADLK);
    CHECK_OK(ito_mutex_unlock(&u.m));
    CHECK_OK(ito_mutex_destroy(&u.m));
    CHECK_OK(ito_sem_init(&u.s, 1));
    CHECK_OK(ito_sem_trywait(&u.s));
    CHECK_OK(ito_sem_destroy(&u.s));
    /* and zeroed storage is still a NEW once object (ITO_ONCE_INIT) */
    memset(&u, 0, sizeof u);
    CHECK_OK(ito_once(&u.o, fn));
    CHECK_OK(ito_once(&u.o, fn));
    CHECK_EQ(runs, 1);
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
