/* test_sync_marks: caller-owned objects that are not objects are refused.
 *
 * Every call but init on a mutex, condition variable, rwlock, semaphore, barrier, wait
 * group or future returns ITO_EINVAL, at once, when its storage
 *   - was never initialised: random bytes (a lock word that reads as held made the old
 *     code spin or park for ever) and all-zero bytes (the old code took them as a fresh
 *     object),
 *   - was destroyed (and a second destroy is ITO_EINVAL too),
 *   - holds an initialised object of another type, also when it was initialised over a
 *     live object of the first type (a live barrier's mark survived a semaphore's init in
 *     the same storage, and barrier_wait then waited on the semaphore's count: found by
 *     fuzz_api);
 * and an object initialised again after its destroy works. ito_once, which has no init,
 * refuses storage whose state or lock word no once object holds. From ULTs and, for the calls
 * any thread may make, from a foreign pthread. An alarm fails the test instead of a hang. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

typedef ito_test_any_sync_t any_t;

static void fill_random(any_t *x, uint64_t seed)
{
    for (size_t i = 0; i < sizeof x->bytes; i++) {
        seed = seed * 6364136223846793005u + 1442695040888963407u;
        x->bytes[i] = (unsigned char)(seed >> 56);
    }
}

static void never(void) { CHECK(0); }

/* Every call but init on x, which must not be an object of any type: all ITO_EINVAL. */
static void refused_all(any_t *x, int ult)
{
    uint64_t v64;
    int64_t c64;
    unsigned u;
    /* wake-side calls any thread may make */
    CHECK_EQ(ito_cond_signal(&x->c), ITO_EINVAL);
    CHECK_EQ(ito_cond_broadcast(&x->c), ITO_EINVAL);
    CHECK_EQ(ito_sem_post(&x->s), ITO_EINVAL);
    CHECK_EQ(ito_sem_trywait(&x->s), ITO_EINVAL);
    CHECK_EQ(ito_sem_value(&x->s, &u), ITO_EINVAL);
    CHECK_EQ(ito_waitgroup_add(&x->g, 1), ITO_EINVAL);
    CHECK_EQ(ito_waitgroup_done(&x->g), ITO_EINVAL);
    CHECK_EQ(ito_waitgroup_count(&x->g, &c64), ITO_EINVAL);
    CHECK_EQ(ito_future_set(&x->f, 1), ITO_EINVAL);
    CHECK_EQ(ito_future_try_get(&x->f, &v64), ITO_EINVAL);
    if (!ult) return;
    ito_mutex_t ok;
    CHECK_OK(ito_mutex_init(&ok));
    CHECK_EQ(ito_mutex_lock(&x->m), ITO_EINVAL);
    CHECK_EQ(ito_mutex_lock_until(&x->m, ito_deadline_in(1000)), ITO_EINVAL);
    CHECK_EQ(ito_mutex_trylock(&x->m), ITO_EINVAL);
    CHECK_EQ(ito_mutex_unlock(&x->m), ITO_EINVAL);
    CHECK_EQ(ito_mutex_destroy(&x->m), ITO_EINVAL);
    CHECK_OK(ito_mutex_lock(&ok));
    CHECK_EQ(ito_cond_wait(&x->c, &ok), ITO_EINVAL);
    CHECK_EQ(ito_cond_wait_until(&x->c, &ok, ito_deadline_in(1000)), ITO_EINVAL);
    CHECK_OK(ito_mutex_unlock(&ok)); /* still held: the refused wait released nothing */
    CHECK_EQ(ito_cond_destroy(&x->c), ITO_EINVAL);
    CHECK_EQ(ito_rwlock_rdlock(&x->l), ITO_EINVAL);
    CHECK_EQ(ito_rwlock_wrlock(&x->l), ITO_EINVAL);
    CHECK_EQ(ito_rwlock_tryrdlock(&x->l), ITO_EINVAL);
    CHECK_EQ(ito_rwlock_trywrlock(&x->l), ITO_EINVAL);
    CHECK_EQ(ito_rwlock_rdlock_until(&x->l, ito_deadline_in(1000)), ITO_EINVAL);
    CHECK_EQ(ito_rwlock_wrlock_until(&x->l, ito_deadline_in(1000)), ITO_EINVAL);
    CHECK_EQ(ito_rwlock_unlock(&x->l), ITO_EINVAL);
    CHECK_EQ(ito_rwlock_destroy(&x->l), ITO_EINVAL);
    CHECK_EQ(ito_sem_wait(&x->s), ITO_EINVAL);
    CHECK_EQ(ito_sem_wait_until(&x->s, ito_deadline_in(1000)), ITO_EINVAL);
    CHECK_EQ(ito_sem_destroy(&x->s), ITO_EINVAL);
    CHECK_EQ(ito_barrier_wait(&x->b), ITO_EINVAL);
    CHECK_EQ(ito_barrier_destroy(&x->b), ITO_EINVAL);
    CHECK_EQ(ito_waitgroup_wait(&x->g), ITO_EINVAL);
    CHECK_EQ(ito_waitgroup_wait_until(&x->g, ito_deadline_in(1000)), ITO_EINVAL);
    CHECK_EQ(ito_waitgroup_destroy(&x->g), ITO_EINVAL);
    CHECK_EQ(ito_future_wait(&x->f, &v64), ITO_EINVAL);
    CHECK_EQ(ito_future_wait_until(&x->f, &v64, ito_deadline_in(1000)), ITO_EINVAL);
    CHECK_EQ(ito_future_destroy(&x->f), ITO_EINVAL);
    CHECK_OK(ito_mutex_destroy(&ok));
}

static void *foreign(void *arg)
{
    refused_all(arg, 0);
    return NULL;
}

static void refused_everywhere(any_t *x)
{
    refused_all(x, 1);
    pthread_t p;
    CHECK_EQ(pthread_create(&p, NULL, foreign, x), 0);
    CHECK_EQ(pthread_join(p, NULL), 0);
}

/* Each type: init, use, destroy, then every call is refused; init again works. */
static void destroyed(void)
{
    any_t x;
    unsigned u;
    int64_t c64;
    uint64_t v64;
    for (int round = 0; round < 2; round++) { /* the second round: initialised again */
        CHECK_OK(ito_mutex_init(&x.m));
        CHECK_OK(ito_mutex_lock(&x.m));
        CHECK_OK(ito_mutex_unlock(&x.m));
        CHECK_OK(ito_mutex_destroy(&x.m));
        CHECK_EQ(ito_mutex_destroy(&x.m), ITO_EINVAL);
        CHECK_EQ(ito_mutex_lock(&x.m), ITO_EINVAL);

        CHECK_OK(ito_cond_init(&x.c));
        CHECK_OK(ito_cond_signal(&x.c));
        CHECK_OK(ito_cond_destroy(&x.c));
        CHECK_EQ(ito_cond_destroy(&x.c), ITO_EINVAL);
        CHECK_EQ(ito_cond_broadcast(&x.c), ITO_EINVAL);

        CHECK_OK(ito_rwlock_init(&x.l));
        CHECK_OK(ito_rwlock_rdlock(&x.l));
        CHECK_OK(ito_rwlock_unlock(&x.l));
        CHECK_OK(ito_rwlock_destroy(&x.l));
        CHECK_EQ(ito_rwlock_destroy(&x.l), ITO_EINVAL);
        CHECK_EQ(ito_rwlock_wrlock(&x.l), ITO_EINVAL);

        CHECK_OK(ito_sem_init(&x.s, 2));
        CHECK_OK(ito_sem_wait(&x.s));
        CHECK_OK(ito_sem_destroy(&x.s));
        CHECK_EQ(ito_sem_destroy(&x.s), ITO_EINVAL);
        CHECK_EQ(ito_sem_value(&x.s, &u), ITO_EINVAL);

        CHECK_OK(ito_barrier_init(&x.b, 1));
        CHECK(ito_barrier_wait(&x.b) >= 0);
        CHECK_OK(ito_barrier_destroy(&x.b));
        CHECK_EQ(ito_barrier_destroy(&x.b), ITO_EINVAL);
        CHECK_EQ(ito_barrier_wait(&x.b), ITO_EINVAL);

        CHECK_OK(ito_waitgroup_init(&x.g));
        CHECK_OK(ito_waitgroup_add(&x.g, 1));
        CHECK_OK(ito_waitgroup_done(&x.g));
        CHECK_OK(ito_waitgroup_destroy(&x.g));
        CHECK_EQ(ito_waitgroup_destroy(&x.g), ITO_EINVAL);
        CHECK_EQ(ito_waitgroup_count(&x.g, &c64), ITO_EINVAL);

        CHECK_OK(ito_future_init(&x.f));
        CHECK_OK(ito_future_set(&x.f, 7));
        CHECK_OK(ito_future_destroy(&x.f));
        CHECK_EQ(ito_future_destroy(&x.f), ITO_EINVAL);
        CHECK_EQ(ito_future_try_get(&x.f, &v64), ITO_EINVAL);
    }
    refused_everywhere(&x); /* everything in x destroyed */
}

/* An initialised object of one type is not an object of another. */
static void wrong_type(void)
{
    any_t x;
    memset(&x, 0, sizeof x);
    CHECK_OK(ito_cond_init(&x.c));
    CHECK_EQ(ito_mutex_lock(&x.m), ITO_EINVAL);
    CHECK_EQ(ito_sem_post(&x.s), ITO_EINVAL);
    CHECK_OK(ito_cond_destroy(&x.c));
    CHECK_OK(ito_sem_init(&x.s, 0));
    CHECK_EQ(ito_waitgroup_add(&x.g, 1), ITO_EINVAL);
    CHECK_EQ(ito_future_set(&x.f, 1), ITO_EINVAL);
    CHECK_EQ(ito_barrier_wait(&x.b), ITO_EINVAL);
    CHECK_EQ(ito_rwlock_rdlock(&x.l), ITO_EINVAL);
    CHECK_OK(ito_sem_destroy(&x.s));
}

/* Storage initialised as type a, then as type b over it: a's calls are refused. */
enum { T_MUTEX, T_COND, T_RWLOCK, T_SEM, T_BARRIER, T_WAITGROUP, T_FUTURE, NTYPES };

static void init_as(int type, any_t *x)
{
    switch (type) {
    case T_MUTEX: CHECK_OK(ito_mutex_init(&x->m)); break;
    case T_COND: CHECK_OK(ito_cond_init(&x->c)); break;
    case T_RWLOCK: CHECK_OK(ito_rwlock_init(&x->l)); break;
    case T_SEM: CHECK_OK(ito_sem_init(&x->s, 3)); break;
    case T_BARRIER: CHECK_OK(ito_barrier_init(&x->b, 2)); break; /* a wait would block */
    case T_WAITGROUP: CHECK_OK(ito_waitgroup_init(&x->g)); break;
    default: CHECK_OK(ito_future_init(&x->f)); break;
    }
}

/* A call of `type` that works on a live object of it (the barrier's would block). */
static int call_as(int type, any_t *x)
{
    unsigned u;
    int64_t n;
    switch (type) {
    case T_MUTEX: return ito_mutex_trylock(&x->m);
    case T_COND: return ito_cond_signal(&x->c);
    case T_RWLOCK: return ito_rwlock_tryrdlock(&x->l);
    case T_SEM: return ito_sem_value(&x->s, &u);
    case T_BARRIER: return ito_barrier_wait(&x->b);
    case T_WAITGROUP: return ito_waitgroup_count(&x->g, &n);
    default: return ito_future_set(&x->f, 1);
    }
}

static void reinit_as_other(void)
{
    for (int a = 0; a < NTYPES; a++)
        for (int b = 0; b < NTYPES; b++) {
            if (a == b) continue;
            any_t x;
            memset(&x, 0, sizeof x);
            init_as(a, &x);
            init_as(b, &x);
            CHECK_EQ(call_as(a, &x), ITO_EINVAL);
        }
}

int main(void)
{
    alarm(60); /* a hang fails (SIGALRM) instead of blocking the suite */
    CHECK_OK(ito_init(NULL));
    any_t x;
    memset(&x, 0, sizeof x);
    refused_everywhere(&x); /* all-zero storage */
    for (uint64_t seed = 1; seed <= 64; seed++) {
        fill_random(&x, seed);
        refused_everywhere(&x);
    }
    memset(&x, 0xff, sizeof x); /* every lock word reads as held */
    refused_everywhere(&x);
    destroyed();
    wrong_type();
    reinit_as_other();
    /* ito_once has no init and no mark: it refuses what no once object holds */
    ito_once_t o;
    memset(&o, 0xff, sizeof o);
    CHECK_EQ(ito_once(&o, never), ITO_EINVAL);
    for (uint64_t seed = 1; seed <= 64; seed++) {
        fill_random(&x, seed);
        memcpy(&o, x.bytes, sizeof o);
        CHECK_EQ(ito_once(&o, never), ITO_EINVAL);
    }
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
