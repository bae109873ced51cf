/* test_basic: create, join, return values, yield, self, names, ids. */
#include "ito/ito.h"
#include "ito_test.h"

static void *ret_arg(void *a) { return a; }

static void *yielder(void *a)
{
    int *n = a;
    for (int i = 0; i < 100; i++) {
        (*n)++;
        CHECK_OK(ito_yield());
    }
    return NULL;
}

static void *check_self(void *a)
{
    ito_thread_t self = ito_self();
    CHECK(self != NULL);
    char name[32];
    CHECK_OK(ito_thread_name(self, name, sizeof name));
    CHECK(strcmp(name, (const char *)a) == 0);
    return NULL;
}

int main(void)
{
    CHECK_OK(ito_init(NULL));
    CHECK(ito_initialized());
    CHECK(ito_worker_count() >= 1);
    CHECK(ito_self() != NULL);
    CHECK_EQ(ito_worker_id(), 0);

    for (intptr_t i = 0; i < 1000; i++) {
        ito_thread_t t;
        void *r = NULL;
        CHECK_OK(ito_create(&t, ret_arg, (void *)i, NULL));
        CHECK_OK(ito_join(t, &r));
        CHECK_EQ((intptr_t)r, i);
    }
    /* Many yielders interleave and all run to the end. */
    int counts[8] = {0};
    ito_thread_t ts[8];
    for (int i = 0; i < 8; i++) CHECK_OK(ito_create(&ts[i], yielder, &counts[i], NULL));
    for (int i = 0; i < 8; i++) CHECK_OK(ito_join(ts[i], NULL));
    for (int i = 0; i < 8; i++) CHECK_EQ(counts[i], 100);

    ito_attr_t at;
    CHECK_OK(ito_attr_init(&at));
    at.name = "worker-bee";
    ito_thread_t t;
    CHECK_OK(ito_create(&t, check_self, "worker-bee", &at));
    uint64_t id;
    CHECK_OK(ito_thread_id(t, &id));
    CHECK(id != 0);
    CHECK_OK(ito_join(t, NULL));

    /* Child-first creation runs the child before create returns. */
    at.name = NULL;
    at.flags = ITO_ATTR_CHILD_FIRST;
    at.worker = 0;
    int ran = 0;
    CHECK_OK(ito_create(&t, yielder, &ran, &at));
    CHECK(ran >= 1);
    CHECK_OK(ito_join(t, NULL));
    CHECK_EQ(ran, 100);

    ito_stats_t st;
    CHECK_OK(ito_stats(&st));
    CHECK(st.created >= 1010);
    CHECK_OK(ito_finalize());
    CHECK(!ito_initialized());
    TEST_DONE();
}
