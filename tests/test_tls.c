/* test_tls: thread-specific values (ito/tls.h). Each ULT sees its own value; destructors
 * run on the exiting ULT (return and ito_exit), only for non-NULL values of live keys,
 * may block, and run again (at most ITO_KEY_DESTRUCTOR_ROUNDS rounds) for values they
 * store; deleting a key runs none and hides its values from a later key in the same slot;
 * a recycled descriptor starts without values; main's destructors run in ito_finalize;
 * bad input and foreign threads get their error codes. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "ito/ito.h"
#include "ito_test.h"

#define NULT 16

static ito_key_t key;
static _Atomic int dtor_calls;
static _Atomic uint64_t dtor_sum;

static void plain_dtor(void *v)
{
    atomic_fetch_add(&dtor_calls, 1);
    atomic_fetch_add(&dtor_sum, (uint64_t)(uintptr_t)v);
}

static void *own_value(void *arg)
{
    uintptr_t mine = (uintptr_t)arg;
    void *v = (void *)1;
    CHECK_OK(ito_key_get(key, &v));
    CHECK(v == NULL); /* a new ULT has no value */
    CHECK_OK(ito_key_set(key, (void *)mine));
    for (int i = 0; i < 10; i++) {
        CHECK_OK(ito_yield()); /* others run (and set theirs) meanwhile */
        CHECK_OK(ito_key_get(key, &v));
        CHECK_EQ((uintptr_t)v, mine);
    }
    if (mine % 2) ito_exit(NULL); /* both ways out run the destructors */
    return NULL;
}

static void check_per_ult_and_exit(void)
{
    CHECK_OK(ito_key_create(&key, plain_dtor));
    atomic_store(&dtor_calls, 0);
    atomic_store(&dtor_sum, 0);
    ito_thread_t t[NULT];
    uint64_t want = 0;
    for (uintptr_t i = 0; i < NULT; i++) {
        CHECK_OK(ito_create(&t[i], own_value, (void *)(i + 1), NULL));
        want += i + 1;
    }
    for (int i = 0; i < NULT; i++) CHECK_OK(ito_join(t[i], NULL));
    CHECK_EQ(atomic_load(&dtor_calls), NULT);
    CHECK_EQ(atomic_load(&dtor_sum), want);
    void *v = (void *)1;
    CHECK_OK(ito_key_get(key, &v));
    CHECK(v == NULL); /* main has no value */
    /* Recycled descriptors start empty, and a NULL value has no destructor call. */
    CHECK_OK(ito_create(&t[0], own_value, (void *)2, NULL));
    CHECK_OK(ito_join(t[0], NULL));
    CHECK_EQ(atomic_load(&dtor_calls), NULT + 1);
    CHECK_OK(ito_key_delete(key));
}

/* A destructor runs on the exiting ULT itself, and may block. */
static ito_mutex_t dm;
static ito_thread_t dtor_self;
static void blocking_dtor(void *v)
{
    (void)v;
    dtor_self = ito_self();
    CHECK_OK(ito_mutex_lock(&dm)); /* main holds it for a while */
    CHECK_OK(ito_mutex_unlock(&dm));
    atomic_fetch_add(&dtor_calls, 1);
}

static void *set_once(void *arg)
{
    CHECK_OK(ito_key_set(key, arg));
    return NULL;
}

static void check_dtor_context(void)
{
    CHECK_OK(ito_key_create(&key, blocking_dtor));
    CHECK_OK(ito_mutex_init(&dm));
    atomic_store(&dtor_calls, 0);
    CHECK_OK(ito_mutex_lock(&dm));
    ito_thread_t t;
    CHECK_OK(ito_create(&t, set_once, (void *)7, NULL));
    for (int i = 0; i < 50; i++) CHECK_OK(ito_yield());
    CHECK_EQ(atomic_load(&dtor_calls), 0); /* parked in the destructor, on the mutex */
    CHECK_OK(ito_mutex_unlock(&dm));
    CHECK_OK(ito_join(t, NULL));
    CHECK_EQ(atomic_load(&dtor_calls), 1);
    CHECK(dtor_self == t);
    CHECK_OK(ito_mutex_destroy(&dm));
    CHECK_OK(ito_key_delete(key));
}

/* A destructor that stores a value again is called again, for a bounded number of rounds. */
static void resetting_dtor(void *v)
{
    atomic_fetch_add(&dtor_calls, 1);
    CHECK_OK(ito_key_set(key, v));
}

static void check_rounds(void)
{
    CHECK_OK(ito_key_create(&key, resetting_dtor));
    atomic_store(&dtor_calls, 0);
    ito_thread_t t;
    CHECK_OK(ito_create(&t, set_once, (void *)1, NULL));
    CHECK_OK(ito_join(t, NULL));
    CHECK_EQ(atomic_load(&dtor_calls), ITO_KEY_DESTRUCTOR_ROUNDS);
    CHECK_OK(ito_key_delete(key));
}

/* Delete runs no destructor; the slot's next key does not see the old values. */
static ito_key_t old_key, new_key;
static ito_sem_t step, done;
static void *holds_value(void *arg)
{
    (void)arg;
    CHECK_OK(ito_key_set(old_key, (void *)42));
    CHECK_OK(ito_sem_post(&done));
    CHECK_OK(ito_sem_wait(&step)); /* main deletes old_key and creates new_key */
    void *v = (void *)1;
    CHECK_EQ(ito_key_get(old_key, &v), ITO_EINVAL);
    CHECK(v == NULL);
    CHECK_OK(ito_key_get(new_key, &v));
    CHECK(v == NULL);
    CHECK_EQ(ito_key_set(old_key, (void *)1), ITO_EINVAL);
    return NULL;
}

static void check_delete(void)
{
    CHECK_OK(ito_sem_init(&step, 0));
    CHECK_OK(ito_sem_init(&done, 0));
    CHECK_OK(ito_key_create(&old_key, plain_dtor));
    atomic_store(&dtor_calls, 0);
    ito_thread_t t;
    CHECK_OK(ito_create(&t, holds_value, NULL, NULL));
    CHECK_OK(ito_sem_wait(&done));
    CHECK_OK(ito_key_delete(old_key));
    CHECK_EQ(ito_key_delete(old_key), ITO_EINVAL); /* twice */
    CHECK_OK(ito_key_create(&new_key, plain_dtor));
    CHECK(new_key != old_key);
    CHECK_OK(ito_sem_post(&step));
    CHECK_OK(ito_join(t, NULL));
    CHECK_EQ(atomic_load(&dtor_calls), 0);
    CHECK_OK(ito_key_delete(new_key));
    CHECK_OK(ito_sem_destroy(&step));
    CHECK_OK(ito_sem_destroy(&done));
}

/* Many keys in one ULT (its table grows), and the key limit. */
static ito_key_t many[ITO_KEYS_MAX];
static int nmany;
static void *uses_many(void *arg)
{
    (void)arg;
    for (int i = 0; i < nmany; i++) CHECK_OK(ito_key_set(many[i], (void *)(uintptr_t)(i + 1)));
    for (int i = 0; i < nmany; i++) {
        void *v;
        CHECK_OK(ito_key_get(many[i], &v));
        CHECK_EQ((uintptr_t)v, (uintptr_t)(i + 1));
    }
    return NULL;
}

static void check_many_and_limit(void)
{
    nmany = 0;
    int rc;
    while ((rc = ito_key_create(&many[nmany], plain_dtor)) == ITO_OK) nmany++;
    CHECK_EQ(rc, ITO_ERANGE);
    CHECK(nmany >= ITO_KEYS_MAX - 4); /* the main key of check_main_at_finalize may exist */
    atomic_store(&dtor_calls, 0);
    ito_thread_t t;
    CHECK_OK(ito_create(&t, uses_many, NULL, NULL));
    CHECK_OK(ito_join(t, NULL));
    CHECK_EQ(atomic_load(&dtor_calls), nmany);
    for (int i = 0; i < nmany; i++) CHECK_OK(ito_key_delete(many[i]));
}

static void *foreign_calls(void *arg)
{
    (void)arg;
    ito_key_t k;
    CHECK_OK(ito_key_create(&k, NULL)); /* keys: any thread */
    void *v = (void *)1;
    CHECK_EQ(ito_key_set(k, (void *)1), ITO_ENOTULT);
    CHECK_EQ(ito_key_get(k, &v), ITO_ENOTULT);
    CHECK(v == NULL);
    CHECK_OK(ito_key_delete(k));
    return NULL;
}

static void check_errors(void)
{
    CHECK_EQ(ito_key_create(NULL, NULL), ITO_EINVAL);
    CHECK_EQ(ito_key_delete(0), ITO_EINVAL);
    CHECK_EQ(ito_key_delete(0xffffffffu), ITO_EINVAL);
    void *v;
    CHECK_EQ(ito_key_get(0, &v), ITO_EINVAL);
    CHECK_EQ(ito_key_set(12345, &v), ITO_EINVAL);
    ito_key_t k;
    CHECK_OK(ito_key_create(&k, NULL));
    CHECK_EQ(ito_key_get(k, NULL), ITO_EINVAL);
    if (ito_self()) CHECK_OK(ito_key_set(k, NULL)); /* clearing what was never set */
    else CHECK_EQ(ito_key_set(k, NULL), ITO_ENOTULT); /* before ito_init */
    CHECK_OK(ito_key_delete(k));
    pthread_t pt;
    CHECK_EQ(pthread_create(&pt, NULL, foreign_calls, NULL), 0);
    CHECK_EQ(pthread_join(pt, NULL), 0);
}

/* main's values are destructed by ito_finalize. */
static void check_main_at_finalize(void)
{
    CHECK_OK(ito_key_create(&key, plain_dtor));
    atomic_store(&dtor_calls, 0);
    atomic_store(&dtor_sum, 0);
    CHECK_OK(ito_key_set(key, (void *)99));
    CHECK_OK(ito_finalize());
    CHECK_EQ(atomic_load(&dtor_calls), 1);
    CHECK_EQ(atomic_load(&dtor_sum), 99);
    CHECK_OK(ito_key_delete(key)); /* keys outlive the runtime */
}

int main(void)
{
    check_errors(); /* keys work before ito_init */
    CHECK_OK(ito_init(NULL));
    check_errors();
    check_per_ult_and_exit();
    check_dtor_context();
    check_rounds();
    check_delete();
    check_many_and_limit();
    check_main_at_finalize();
    TEST_DONE();
}
