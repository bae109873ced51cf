/* test_handle_forged_inside: a forged thread or frame handle that points into the middle
 * of a live descriptor or frame is refused (ITO_EINVAL) without a load of the words its
 * owner writes unsynchronized (as handle objects already were, itoi_hobj_get). Found by a
 * misuse fuzzer under TSan (2026-12-04): the keyed-tag check loaded the word at the forged
 * address plus the tag's offset, which for some offsets was a field the running ULT wrote
 * (its blocked_on, a frame's entry): a data race report, though the answer was right. In
 * the TSan tree the checks now test the arena map first; this test is a TSan report there
 * without it, and checks the codes everywhere. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>

#include "ito/ito.h"
#include "ito_test.h"

static ito_thread_t main_h;
static ito_frame_t *frame_h;
static _Atomic int stop;

static void *checker(void *arg)
{
    (void)arg;
    uint64_t id;
    char name[8];
    while (!atomic_load(&stop)) {
        for (intptr_t k = -96; k <= 96; k++) {
            if (k == 0) continue;
            ito_thread_t t = (ito_thread_t)((uintptr_t)main_h + (uintptr_t)(k * 8));
            int r = ito_thread_id(t, &id);
            CHECK(r == ITO_EINVAL || r == ITO_EJOINED);
            r = ito_thread_name(t, name, sizeof name);
            CHECK(r == ITO_EINVAL || r == ITO_EJOINED);
            ito_frame_t *f = (ito_frame_t *)((uintptr_t)frame_h + (uintptr_t)(k * 8));
            CHECK_EQ(ito_trylock(f, 0), ITO_EINVAL);
            CHECK(ito_frame_data(f) == NULL);
        }
    }
    return NULL;
}

static void zfn(ito_frame_t *f, int e, uint64_t v)
{
    (void)v;
    ito_rearm(f, e, 1);
}

int main(void)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
    main_h = ito_self();
    CHECK_OK(ito_frame_create(&frame_h, 8, 64));
    for (int e = 0; e < 8; e++) CHECK_OK(ito_entry_set(frame_h, e, zfn, 1, ITO_MODE_USER));
    pthread_t th;
    CHECK_EQ(pthread_create(&th, NULL, checker, NULL), 0);
    uint64_t end = ito_deadline_in(300000000); /* 0.3 s of sleeps, continuations and writes */
    while (ito_now_ns() < end) {
        CHECK_OK(ito_sleep_ns(10000));
        for (int e = 0; e < 8; e++) (void)ito_continue_value(frame_h, e, (uint64_t)e);
        memset(ito_frame_data(frame_h), 1, 64);
    }
    atomic_store(&stop, 1);
    CHECK_EQ(pthread_join(th, NULL), 0);
    while (ito_frame_destroy(frame_h) == ITO_EBUSY) CHECK_OK(ito_yield());
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
