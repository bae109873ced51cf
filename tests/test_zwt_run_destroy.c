/* test_zwt_run_destroy: a frame may be destroyed as soon as its entry is no longer ready
 * (zwt.h: ito_frame_destroy is ITO_EBUSY "while an entry is ready (queued)"), so the
 * runtime must have read what it needs of the entry before it marks it running. Found by
 * a misuse fuzzer under TSan (2026-12-04): itoi_zwt_run stored "running" (sync 0) and only
 * then read the entry's frame and index to call its code; a destroy on another thread in
 * between let ito_frame_create reuse the memory (a data race on the entry; the code could
 * be called with the new frame's handle, or read the frame pointer while the new frame's
 * memset had cleared it). Here a foreign thread fires an entry, destroys the frame as soon
 * as destroy allows and creates frames over the same memory, while the workers run the
 * ZWTs: each must get the handle and the entry it was fired for (and TSan must be quiet).
 * Then a ZWT whose frame is destroyed while it runs, and the memory taken by a new frame:
 * ito_zwt_self still names its own (destroyed) frame, and ito_zwt_retry is refused
 * (ITO_EINVAL) rather than re-arming and continuing the new frame's entry (it did). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>

#include "ito/ito.h"
#include "ito_test.h"

#define ROUNDS 20000
static ito_frame_t *expect[ROUNDS];
static ito_frame_t *_Atomic got[ROUNDS];
static _Atomic int got_entry[ROUNDS], ran;

static void record(ito_frame_t *f, int entry, uint64_t v)
{
    atomic_store(&got[v], f);
    atomic_store(&got_entry[v], entry);
    atomic_fetch_add(&ran, 1);
}

static void *firer(void *arg)
{
    (void)arg;
    for (int i = 0; i < ROUNDS; i++) {
        ito_frame_t *f, *g;
        CHECK_OK(ito_frame_create(&f, 2, 16));
        CHECK_OK(ito_entry_set(f, 1, record, 1, ITO_MODE_USER));
        expect[i] = f;
        CHECK_OK(ito_continue_value(f, 1, (uint64_t)i));
        int r;
        while ((r = ito_frame_destroy(f)) == ITO_EBUSY) {}
        CHECK_OK(r);
        CHECK_OK(ito_frame_create(&g, 2, 16)); /* over f's memory, most likely */
        CHECK_OK(ito_entry_set(g, 0, record, 1, ITO_MODE_USER));
        CHECK_OK(ito_frame_destroy(g));
    }
    return NULL;
}

static _Atomic int started, recreated, wrong_fired;
static ito_frame_t *_Atomic self_h;
static _Atomic int self_e = -1, retry_rc = 99;

static void wrong(ito_frame_t *f, int entry, uint64_t v)
{
    (void)f;
    (void)entry;
    (void)v;
    atomic_fetch_add(&wrong_fired, 1);
}

static void selfcheck(ito_frame_t *f, int entry, uint64_t v)
{
    (void)f;
    (void)entry;
    (void)v;
    atomic_store(&started, 1);
    uint64_t end = ito_deadline_in(2000000000);
    while (!atomic_load(&recreated) && ito_now_ns() < end) {} /* bounded: the other side is quick */
    ito_frame_t *h;
    int e;
    CHECK_OK(ito_zwt_self(&h, &e));
    atomic_store(&self_h, h);
    atomic_store(&self_e, e);
    atomic_store(&retry_rc, ito_zwt_retry());
}

static void destroyed_while_running(void)
{
    ito_frame_t *f, *g;
    CHECK_OK(ito_frame_create(&f, 2, 0));
    CHECK_OK(ito_entry_set(f, 1, selfcheck, 1, ITO_MODE_USER));
    CHECK_OK(ito_continue(f, 1));
    while (!atomic_load(&started)) {}
    CHECK_OK(ito_frame_destroy(f)); /* running, not ready: allowed */
    CHECK_OK(ito_frame_create(&g, 2, 0));
    CHECK_OK(ito_entry_set(g, 1, wrong, 1, ITO_MODE_USER));
    uintptr_t mask = ((uintptr_t)1 << 48) - 1;
    int same = ((uintptr_t)g & mask) == ((uintptr_t)f & mask);
    atomic_store(&recreated, 1);
    while (atomic_load(&retry_rc) == 99) {}
    CHECK(atomic_load(&self_h) == f);
    CHECK_EQ(atomic_load(&self_e), 1);
    CHECK_EQ(atomic_load(&retry_rc), ITO_EINVAL);
    CHECK_EQ(atomic_load(&wrong_fired), 0);
    if (!same) printf("note: the new frame did not take the old one's memory\n");
    CHECK_OK(ito_frame_destroy(g));
}

static _Atomic int phase2_done;
static void *phase2(void *arg)
{
    (void)arg;
    destroyed_while_running();
    atomic_store(&phase2_done, 1);
    return NULL;
}

int main(void)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
    pthread_t th;
    CHECK_EQ(pthread_create(&th, NULL, firer, NULL), 0);
    while (atomic_load(&ran) < ROUNDS) CHECK_OK(ito_sleep_ns(100000));
    CHECK_EQ(pthread_join(th, NULL), 0);
    for (int i = 0; i < ROUNDS; i++) {
        CHECK(atomic_load(&got[i]) == expect[i]);
        CHECK_EQ(atomic_load(&got_entry[i]), 1);
    }
    CHECK_EQ(pthread_create(&th, NULL, phase2, NULL), 0); /* a foreign thread: the ZWT runs on a worker */
    while (!atomic_load(&phase2_done)) CHECK_OK(ito_sleep_ns(100000)); /* worker 0 stays free */
    CHECK_EQ(pthread_join(th, NULL), 0);
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
