/* test_errors: every documented error code of every public function, driven on purpose.
 *
 * Order: before ito_init (ITO_ESTATE / ITO_ENOTULT), bad configurations and a garbage
 * ITO_WORKERS (ITO_EINVAL, and the runtime stays off), then inside the runtime: bad
 * attributes and handles, join/detach misuse, finalize from a non-main ULT, blocking
 * calls from a foreign pthread, mutex/cond/stream misuse; then after ito_finalize. */
#define _GNU_SOURCE
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "ito/ito.h"
#include "ito_test.h"

static const ito_thread_t FAKE = (ito_thread_t)(uintptr_t)0x1000;

static void *ret_arg(void *a) { return a; }

/* ---- ito_strerror ---- */
static void check_strerror(void)
{
    const int codes[] = {ITO_OK,     ITO_EINVAL, ITO_ENOMEM, ITO_ESTATE,   ITO_EDEADLK,
                         ITO_EJOINED, ITO_EBUSY, ITO_EAGAIN, ITO_ECLOSED,  ITO_EPERM,
                         ITO_ENOSYS, ITO_ENOTULT, ITO_ERANGE, ITO_ETIMEDOUT, ITO_EIO};
    const int n = (int)(sizeof codes / sizeof codes[0]);
    const char *unknown = ito_strerror(-12345);
    CHECK(unknown != NULL && unknown[0]);
    CHECK(ito_strerror(1) != NULL);
    CHECK(ito_strerror(INT_MIN) != NULL);
    CHECK(ito_strerror(INT_MAX) != NULL);
    for (int i = 0; i < n; i++) {
        const char *m = ito_strerror(codes[i]);
        CHECK(m != NULL && m[0]);
        CHECK(strcmp(m, unknown) != 0); /* every known code has its own message */
        for (int j = 0; j < i; j++) CHECK(strcmp(m, ito_strerror(codes[j])) != 0);
    }
}

/* ---- before ito_init ---- */
static void check_before_init(void)
{
    CHECK_EQ(ito_initialized(), 0);
    CHECK_EQ(ito_create(&(ito_thread_t){0}, ret_arg, NULL, NULL), ITO_ESTATE);
    CHECK_EQ(ito_join(FAKE, NULL), ITO_ESTATE);
    CHECK_EQ(ito_detach(FAKE), ITO_ESTATE);
    CHECK_EQ(ito_finalize(), ITO_ESTATE);
    CHECK_EQ(ito_worker_count(), ITO_ESTATE);
    ito_stats_t st;
    CHECK_EQ(ito_stats(&st), ITO_ESTATE);
    CHECK_EQ(ito_stats(NULL), ITO_EINVAL);
    CHECK_EQ(ito_yield(), ITO_ENOTULT);
    CHECK_EQ(ito_yield_to(FAKE), ITO_ENOTULT);
    CHECK_EQ(ito_exit(NULL), ITO_ENOTULT);
    CHECK_EQ(ito_worker_id(), ITO_ENOTULT);
    CHECK(ito_self() == NULL);
    ito_mutex_t m;
    CHECK_OK(ito_mutex_init(&m)); /* objects need no runtime ... */
    CHECK_EQ(ito_mutex_lock(&m), ITO_ENOTULT); /* ... but blocking on them needs a ULT */
    CHECK_OK(ito_mutex_destroy(&m));
}

static void check_bad_config(void)
{
    ito_config_t c = {0};
    c.workers = -1;
    CHECK_EQ(ito_init(&c), ITO_EINVAL);
    c.workers = 257;
    CHECK_EQ(ito_init(&c), ITO_EINVAL);
    c.workers = 1;
    c.stack_size = ITO_STACK_MIN - 1;
    CHECK_EQ(ito_init(&c), ITO_EINVAL);
    c.stack_size = ((size_t)1 << 30) + 1;
    CHECK_EQ(ito_init(&c), ITO_EINVAL);
    CHECK_EQ(ito_initialized(), 0);

    /* Garbage in $ITO_WORKERS (consulted when cfg->workers is 0 or cfg is NULL). */
    const char *bad[] = {"abc", "0", "-1", "2x", "257", " ", "1e3"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_OK(setenv("ITO_WORKERS", bad[i], 1));
        CHECK_EQ(ito_init(NULL), ITO_EINVAL);
        CHECK_EQ(ito_initialized(), 0);
    }
    /* Every variable is validated at ito_init, even one the configuration overrides. */
    c = (ito_config_t){.workers = 2};
    CHECK_EQ(ito_init(&c), ITO_EINVAL);
    CHECK_OK(setenv("ITO_WORKERS", "1", 1));
    CHECK_OK(ito_init(&c)); /* an explicit count wins over a valid one */
    CHECK_EQ(ito_worker_count(), 2);
    CHECK_OK(ito_finalize());
    CHECK_OK(setenv("ITO_WORKERS", "3", 1));
    CHECK_OK(ito_init(NULL));
    CHECK_EQ(ito_worker_count(), 3);
    CHECK_OK(ito_finalize());
    CHECK_OK(setenv("ITO_WORKERS", "2", 1));
}

/* ---- attributes and handles ---- */
static void check_create_args(void)
{
    ito_thread_t t;
    ito_attr_t a;
    CHECK_EQ(ito_attr_init(NULL), ITO_EINVAL);
    CHECK_OK(ito_attr_init(&a));
    CHECK_EQ(a.worker, -1);
    CHECK_EQ(ito_create(NULL, ret_arg, NULL, NULL), ITO_EINVAL); /* joinable needs a handle */
    CHECK_EQ(ito_create(&t, NULL, NULL, NULL), ITO_EINVAL);
    a.stack_size = 1024;
    CHECK_EQ(ito_create(&t, ret_arg, NULL, &a), ITO_EINVAL);
    a.stack_size = ITO_STACK_MIN - 1;
    CHECK_EQ(ito_create(&t, ret_arg, NULL, &a), ITO_EINVAL);
    a.stack_size = ((size_t)1 << 30) + 1;
    CHECK_EQ(ito_create(&t, ret_arg, NULL, &a), ITO_EINVAL);
    a.stack_size = 0;
    a.worker = -2;
    CHECK_EQ(ito_create(&t, ret_arg, NULL, &a), ITO_EINVAL);
    a.worker = ito_worker_count();
    CHECK_EQ(ito_create(&t, ret_arg, NULL, &a), ITO_EINVAL);
    a.worker = -1;
    a.flags = 1u << 7;
    CHECK_EQ(ito_create(&t, ret_arg, NULL, &a), ITO_EINVAL);
    a.flags = ITO_ATTR_DETACHED | (1u << 30);
    CHECK_EQ(ito_create(NULL, ret_arg, NULL, &a), ITO_EINVAL);

    /* The bounds themselves are valid. */
    a.flags = 0;
    a.stack_size = ITO_STACK_MIN;
    a.worker = ito_worker_count() - 1;
    void *r = NULL;
    CHECK_OK(ito_create(&t, ret_arg, (void *)7, &a));
    CHECK_OK(ito_join(t, &r));
    CHECK_EQ((intptr_t)r, 7);
    a.flags = ITO_ATTR_DETACHED; /* a detached ULT needs no handle */
    CHECK_OK(ito_create(NULL, ret_arg, NULL, &a));

    /* Handle queries. */
    CHECK_OK(ito_create(&t, ret_arg, NULL, NULL));
    uint64_t id;
    char name[8];
    CHECK_EQ(ito_thread_id(NULL, &id), ITO_EINVAL);
    CHECK_EQ(ito_thread_id(t, NULL), ITO_EINVAL);
    CHECK_EQ(ito_thread_name(NULL, name, sizeof name), ITO_EINVAL);
    CHECK_EQ(ito_thread_name(t, NULL, sizeof name), ITO_EINVAL);
    CHECK_EQ(ito_thread_name(t, name, 0), ITO_EINVAL);
    CHECK_OK(ito_thread_name(t, name, 4)); /* truncated, still terminated */
    CHECK_EQ(strlen(name), 3);
    CHECK_OK(ito_join(t, NULL));
    /* A joined handle is stale: every use says so instead of touching a reused slot. */
    CHECK_EQ(ito_thread_id(t, &id), ITO_EJOINED);
    CHECK_EQ(ito_thread_name(t, name, sizeof name), ITO_EJOINED);
    CHECK_EQ(ito_yield_to(t), ITO_EJOINED);
    CHECK_EQ(ito_yield_to(NULL), ITO_EINVAL);
}

/* ---- join and detach misuse ---- */
static _Atomic int release_flag;

static void *wait_release(void *a)
{
    while (!release_flag) ito_yield();
    return a;
}

static void *join_self(void *unused)
{
    (void)unused;
    return (void *)(intptr_t)ito_join(ito_self(), NULL);
}

typedef struct {
    ito_thread_t target;
    int rc;
} joiner_t;

static void *joiner(void *a)
{
    joiner_t *j = a;
    j->rc = ito_join(j->target, NULL);
    return NULL;
}

static void *try_finalize(void *unused)
{
    (void)unused;
    return (void *)(intptr_t)ito_finalize();
}

static void *try_detach_main(void *main_handle)
{
    return (void *)(intptr_t)ito_detach((ito_thread_t)main_handle);
}

static void check_join_detach(void)
{
    ito_thread_t t, u;
    void *r;
    CHECK_EQ(ito_join(NULL, NULL), ITO_EINVAL);
    CHECK_EQ(ito_detach(NULL), ITO_EINVAL);
    CHECK_EQ(ito_join(ito_self(), NULL), ITO_EDEADLK); /* main joins itself */
    CHECK_OK(ito_create(&t, join_self, NULL, NULL)); /* a ULT joins itself */
    CHECK_OK(ito_join(t, &r));
    CHECK_EQ((intptr_t)r, ITO_EDEADLK);

    /* Double join, after the thread finished. */
    CHECK_OK(ito_create(&t, ret_arg, NULL, NULL));
    CHECK_OK(ito_join(t, NULL));
    CHECK_EQ(ito_join(t, NULL), ITO_EJOINED);
    CHECK_EQ(ito_detach(t), ITO_EJOINED); /* detach after join */

    /* Join after detach, and detach twice: while the thread still runs ... */
    release_flag = 0;
    CHECK_OK(ito_create(&t, wait_release, NULL, NULL));
    CHECK_OK(ito_detach(t));
    CHECK_EQ(ito_detach(t), ITO_EJOINED);
    CHECK_EQ(ito_join(t, NULL), ITO_EJOINED);
    release_flag = 1;
    /* ... and after it finished (the handle is stale by then). */
    CHECK_OK(ito_create(&t, ret_arg, NULL, NULL));
    for (int i = 0; i < 100; i++) ito_yield();
    CHECK_OK(ito_detach(t));
    CHECK_EQ(ito_detach(t), ITO_EJOINED);
    CHECK_EQ(ito_join(t, NULL), ITO_EJOINED);

    /* Two joiners of one running thread: the second one is refused. */
    release_flag = 0;
    ito_attr_t a;
    CHECK_OK(ito_attr_init(&a));
    a.worker = 0; /* all on main's worker: the first joiner is registered before the second runs */
    CHECK_OK(ito_create(&t, wait_release, (void *)5, &a));
    joiner_t j1 = {t, 1}, j2 = {t, 1};
    ito_thread_t tj1, tj2;
    CHECK_OK(ito_create(&tj1, joiner, &j1, &a));
    for (int i = 0; i < 10; i++) ito_yield();
    CHECK_OK(ito_create(&tj2, joiner, &j2, &a));
    for (int i = 0; i < 10; i++) ito_yield();
    CHECK_EQ(j2.rc, ITO_EJOINED); /* refused while j1 still waits */
    CHECK_EQ(j1.rc, 1);
    release_flag = 1;
    CHECK_OK(ito_join(tj1, NULL));
    CHECK_OK(ito_join(tj2, NULL));
    CHECK_EQ(j1.rc, ITO_OK);
    CHECK_EQ(ito_join(t, NULL), ITO_EJOINED);

    /* Main cannot be detached, cannot exit like a ULT, and only main may finalize. */
    CHECK_OK(ito_create(&u, try_detach_main, (void *)ito_self(), NULL));
    CHECK_OK(ito_join(u, &r));
    CHECK_EQ((intptr_t)r, ITO_EPERM);
    CHECK_EQ(ito_exit(NULL), ITO_EPERM);
    CHECK_OK(ito_create(&u, try_finalize, NULL, NULL));
    CHECK_OK(ito_join(u, &r));
    CHECK_EQ((intptr_t)r, ITO_EPERM);
    CHECK(ito_initialized());
}

/* ---- calls from a foreign pthread (not a ULT) ---- */
typedef struct {
    ito_thread_t live;
    ito_mutex_t *m;
    ito_cond_t *c;
    ito_stream_t *s;
    int ok;
} foreign_t;

static void *foreign_main(void *arg)
{
    foreign_t *f = arg;
    char b[4] = "abc";
    size_t n;
    CHECK(ito_self() == NULL);
    CHECK_EQ(ito_worker_id(), ITO_ENOTULT);
    CHECK_EQ(ito_yield(), ITO_ENOTULT);
    CHECK_EQ(ito_yield_to(f->live), ITO_ENOTULT);
    CHECK_EQ(ito_join(f->live, NULL), ITO_ENOTULT);
    CHECK_EQ(ito_exit(NULL), ITO_ENOTULT);
    CHECK_EQ(ito_finalize(), ITO_ENOTULT);
    CHECK_EQ(ito_create(&(ito_thread_t){0}, ret_arg, NULL, NULL), ITO_ENOTULT);
    CHECK_EQ(ito_mutex_lock(f->m), ITO_ENOTULT);
    CHECK_EQ(ito_mutex_unlock(f->m), ITO_ENOTULT);
    /* sync.h says try-variants work anywhere, but a mutex owner must be a ULT (only a
     * ULT could unlock it), so trylock is refused from a foreign thread as well. */
    CHECK_EQ(ito_mutex_trylock(f->m), ITO_ENOTULT);
    CHECK_EQ(ito_cond_wait(f->c, f->m), ITO_ENOTULT);
    CHECK_EQ(ito_stream_put(f->s, b, 3), ITO_ENOTULT);
    CHECK_EQ(ito_stream_get(f->s, b, 3, &n), ITO_ENOTULT);
    /* Non-blocking calls do work from anywhere. */
    CHECK_OK(ito_cond_signal(f->c));
    CHECK_OK(ito_cond_broadcast(f->c));
    CHECK_OK(ito_stream_try_put(f->s, b, 3, &n));
    CHECK_EQ(n, 3);
    CHECK_OK(ito_stream_try_get(f->s, b, 4, &n));
    CHECK_EQ(n, 3);
    CHECK_EQ(ito_worker_count(), 2);
    ito_stats_t st;
    CHECK_OK(ito_stats(&st));
    uint64_t id;
    CHECK_OK(ito_thread_id(f->live, &id));
    f->ok = 1;
    return NULL;
}

static void check_foreign(void)
{
    ito_mutex_t m;
    ito_cond_t c;
    ito_stream_t *s;
    CHECK_OK(ito_mutex_init(&m));
    CHECK_OK(ito_cond_init(&c));
    CHECK_OK(ito_stream_create(&s, 16));
    release_flag = 0;
    foreign_t f = {.m = &m, .c = &c, .s = s};
    CHECK_OK(ito_create(&f.live, wait_release, NULL, NULL));
    pthread_t pt;
    CHECK_EQ(pthread_create(&pt, NULL, foreign_main, &f), 0);
    /* Main is a ULT on worker 0: block the worker in the kernel until it is done. */
    CHECK_EQ(pthread_join(pt, NULL), 0);
    CHECK_EQ(f.ok, 1);
    release_flag = 1;
    CHECK_OK(ito_join(f.live, NULL));
    CHECK_OK(ito_stream_destroy(s));
    CHECK_OK(ito_cond_destroy(&c));
    CHECK_OK(ito_mutex_destroy(&m));
}

/* ---- mutex ---- */
typedef struct {
    ito_mutex_t *m;
    ito_cond_t *c;
    volatile int *flag;
    int rc[4];
} sync_arg_t;

static void *mutex_other(void *arg)
{
    sync_arg_t *a = arg;
    a->rc[0] = ito_mutex_unlock(a->m);  /* held by main: not ours */
    a->rc[1] = ito_mutex_trylock(a->m); /* taken */
    return NULL;
}

static void *mutex_waiter(void *arg)
{
    sync_arg_t *a = arg;
    a->rc[0] = ito_mutex_lock(a->m);
    a->rc[1] = ito_mutex_unlock(a->m);
    return NULL;
}

static void check_mutex(void)
{
    ito_mutex_t m;
    CHECK_EQ(ito_mutex_init(NULL), ITO_EINVAL);
    CHECK_EQ(ito_mutex_destroy(NULL), ITO_EINVAL);
    CHECK_EQ(ito_mutex_lock(NULL), ITO_EINVAL);
    CHECK_EQ(ito_mutex_trylock(NULL), ITO_EINVAL);
    CHECK_EQ(ito_mutex_unlock(NULL), ITO_EINVAL);
    CHECK_OK(ito_mutex_init(&m));
    CHECK_EQ(ito_mutex_unlock(&m), ITO_EPERM); /* unlocked: nobody owns it */
    CHECK_OK(ito_mutex_lock(&m));
    CHECK_EQ(ito_mutex_lock(&m), ITO_EDEADLK);
    CHECK_EQ(ito_mutex_trylock(&m), ITO_EDEADLK);
    CHECK_EQ(ito_mutex_destroy(&m), ITO_EBUSY);
    sync_arg_t a = {.m = &m};
    ito_thread_t t;
    CHECK_OK(ito_create(&t, mutex_other, &a, NULL));
    CHECK_OK(ito_join(t, NULL));
    CHECK_EQ(a.rc[0], ITO_EPERM);
    CHECK_EQ(a.rc[1], ITO_EBUSY);
    /* Busy with a waiter too. */
    ito_attr_t at;
    CHECK_OK(ito_attr_init(&at));
    at.worker = 0;
    CHECK_OK(ito_create(&t, mutex_waiter, &a, &at));
    for (int i = 0; i < 10; i++) ito_yield();
    CHECK_EQ(ito_mutex_destroy(&m), ITO_EBUSY);
    CHECK_OK(ito_mutex_unlock(&m));
    CHECK_EQ(ito_mutex_unlock(&m), ITO_EPERM); /* handed to the waiter: not ours any more */
    CHECK_OK(ito_join(t, NULL));
    CHECK_OK(a.rc[0]);
    CHECK_OK(a.rc[1]);
    CHECK_OK(ito_mutex_destroy(&m));
}

/* ---- condition variable ---- */
static void *cond_waiter(void *arg)
{
    sync_arg_t *a = arg;
    ito_mutex_lock(a->m);
    while (!*a->flag) a->rc[0] = ito_cond_wait(a->c, a->m);
    ito_mutex_unlock(a->m);
    return NULL;
}

static void check_cond(void)
{
    ito_cond_t c;
    ito_mutex_t m;
    CHECK_EQ(ito_cond_init(NULL), ITO_EINVAL);
    CHECK_EQ(ito_cond_destroy(NULL), ITO_EINVAL);
    CHECK_EQ(ito_cond_signal(NULL), ITO_EINVAL);
    CHECK_EQ(ito_cond_broadcast(NULL), ITO_EINVAL);
    CHECK_OK(ito_cond_init(&c));
    CHECK_OK(ito_mutex_init(&m));
    CHECK_EQ(ito_cond_wait(NULL, &m), ITO_EINVAL);
    CHECK_EQ(ito_cond_wait(&c, NULL), ITO_EINVAL);
    CHECK_EQ(ito_cond_wait(&c, &m), ITO_EPERM); /* the mutex is not held */
    CHECK_OK(ito_cond_signal(&c));              /* nobody waits: fine */
    CHECK_OK(ito_cond_broadcast(&c));
    volatile int flag = 0;
    sync_arg_t a = {.m = &m, .c = &c, .flag = &flag, .rc = {1}};
    ito_attr_t at;
    CHECK_OK(ito_attr_init(&at));
    at.worker = 0;
    ito_thread_t t;
    CHECK_OK(ito_create(&t, cond_waiter, &a, &at));
    for (int i = 0; i < 10; i++) ito_yield();
    CHECK_EQ(ito_cond_destroy(&c), ITO_EBUSY);
    CHECK_OK(ito_mutex_lock(&m));
    flag = 1;
    CHECK_OK(ito_cond_signal(&c));
    CHECK_OK(ito_mutex_unlock(&m));
    CHECK_OK(ito_join(t, NULL));
    CHECK_OK(a.rc[0]);
    CHECK_OK(ito_cond_destroy(&c));
    CHECK_OK(ito_mutex_destroy(&m));
}

/* ---- stream ---- */
static void *stream_blocked_get(void *arg)
{
    size_t got = 99;
    char b[4];
    int rc = ito_stream_get(arg, b, sizeof b, &got);
    return (void *)(intptr_t)(rc == ITO_ECLOSED && got == 0 ? 1 : 0);
}

static void check_stream(void)
{
    ito_stream_t *s;
    char b[8] = "1234567";
    size_t n;
    CHECK_EQ(ito_stream_create(NULL, 8), ITO_EINVAL);
    CHECK_EQ(ito_stream_create(&s, 0), ITO_EINVAL);
    CHECK_EQ(ito_stream_create(&s, ((size_t)1 << 30) + 1), ITO_EINVAL);
    CHECK_EQ(ito_stream_destroy(NULL), ITO_EINVAL);
    CHECK_EQ(ito_stream_put(NULL, b, 1), ITO_EINVAL);
    CHECK_EQ(ito_stream_get(NULL, b, 1, &n), ITO_EINVAL);
    CHECK_EQ(ito_stream_try_put(NULL, b, 1, &n), ITO_EINVAL);
    CHECK_EQ(ito_stream_try_get(NULL, b, 1, &n), ITO_EINVAL);
    CHECK_EQ(ito_stream_close(NULL), ITO_EINVAL);
    CHECK_EQ(ito_stream_stats(NULL, NULL, NULL), ITO_EINVAL);
    CHECK_OK(ito_stream_create(&s, 4));
    CHECK_EQ(ito_stream_put(s, NULL, 1), ITO_EINVAL);
    CHECK_EQ(ito_stream_get(s, NULL, 1, &n), ITO_EINVAL);
    CHECK_EQ(ito_stream_get(s, b, 1, NULL), ITO_EINVAL);
    CHECK_EQ(ito_stream_try_put(s, NULL, 1, &n), ITO_EINVAL);
    CHECK_EQ(ito_stream_try_put(s, b, 1, NULL), ITO_EINVAL);
    CHECK_EQ(ito_stream_try_get(s, NULL, 1, &n), ITO_EINVAL);
    CHECK_EQ(ito_stream_try_get(s, b, 1, NULL), ITO_EINVAL);
    CHECK_EQ(ito_stream_try_get(s, b, 1, &n), ITO_EAGAIN); /* empty */
    CHECK_EQ(n, 0);
    CHECK_OK(ito_stream_put(s, b, 4));
    CHECK_EQ(ito_stream_try_put(s, b, 1, &n), ITO_EAGAIN); /* full */
    CHECK_EQ(n, 0);
    CHECK_OK(ito_stream_get(s, b, 8, &n));
    CHECK_EQ(n, 4);

    /* A blocked getter makes the stream busy; close wakes it with ITO_ECLOSED. */
    ito_attr_t at;
    CHECK_OK(ito_attr_init(&at));
    at.worker = 0;
    ito_thread_t t;
    CHECK_OK(ito_create(&t, stream_blocked_get, s, &at));
    for (int i = 0; i < 10; i++) ito_yield();
    CHECK_EQ(ito_stream_destroy(s), ITO_EBUSY);
    CHECK_OK(ito_stream_close(s));
    void *r;
    CHECK_OK(ito_join(t, &r));
    CHECK_EQ((intptr_t)r, 1);
    CHECK_EQ(ito_stream_close(s), ITO_ECLOSED); /* twice */
    CHECK_EQ(ito_stream_put(s, b, 1), ITO_ECLOSED);
    CHECK_EQ(ito_stream_try_put(s, b, 1, &n), ITO_ECLOSED);
    CHECK_EQ(n, 0);
    n = 9;
    CHECK_EQ(ito_stream_get(s, b, 1, &n), ITO_ECLOSED);
    CHECK_EQ(n, 0);
    CHECK_EQ(ito_stream_try_get(s, b, 1, &n), ITO_ECLOSED);
    CHECK_OK(ito_stream_destroy(s));
}

/* ---- after ito_finalize ---- */
static void check_after_finalize(ito_thread_t stale)
{
    CHECK_EQ(ito_initialized(), 0);
    CHECK_EQ(ito_finalize(), ITO_ESTATE);
    CHECK_EQ(ito_create(&(ito_thread_t){0}, ret_arg, NULL, NULL), ITO_ESTATE);
    CHECK_EQ(ito_join(stale, NULL), ITO_ESTATE);
    CHECK_EQ(ito_detach(stale), ITO_ESTATE);
    CHECK_EQ(ito_worker_count(), ITO_ESTATE);
    ito_stats_t st;
    CHECK_EQ(ito_stats(&st), ITO_ESTATE);
    CHECK_EQ(ito_yield(), ITO_ENOTULT);
    CHECK_EQ(ito_worker_id(), ITO_ENOTULT);
    CHECK(ito_self() == NULL);
}

int main(void)
{
    check_strerror();
    check_before_init();
    check_bad_config();

    CHECK_OK(ito_init(NULL));
    CHECK_EQ(ito_init(NULL), ITO_ESTATE); /* twice */
    ito_config_t c = {.workers = 1};
    CHECK_EQ(ito_init(&c), ITO_ESTATE);
    CHECK(ito_initialized());
    CHECK_EQ(ito_worker_count(), 2); /* ctest sets ITO_WORKERS=2; check_bad_config restored it */
    check_create_args();
    check_join_detach();
    check_foreign();
    check_mutex();
    check_cond();
    check_stream();
    ito_thread_t stale;
    CHECK_OK(ito_create(&stale, ret_arg, NULL, NULL));
    CHECK_OK(ito_join(stale, NULL));
    CHECK_OK(ito_finalize());
    check_after_finalize(stale);

    /* The runtime can be started again after a finalize. */
    CHECK_OK(ito_init(NULL));
    ito_thread_t t;
    void *r;
    CHECK_OK(ito_create(&t, ret_arg, (void *)3, NULL));
    CHECK_OK(ito_join(t, &r));
    CHECK_EQ((intptr_t)r, 3);
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
