/* test_zwt_wait_two: two ULTs on two workers call ito_frame_wait on the same code-less
 * entry at the same moment: one waits, the other gets ITO_EBUSY (zwt.h: "ITO_EBUSY if
 * another ULT already waits on it"); neither returns ITO_OK before the entry fires. Many
 * rounds, so that both pass the first look and race for the waiter word. (Found by mutation
 * testing, h60d: the loser of that race was told ITO_OK, as if the entry had fired, and no
 * test had two waiters at once.) */
#include <stdatomic.h>
#include <stdint.h>

#include "ito/ito.h"
#include "ito_test.h"

#define ROUNDS 3000

static ito_frame_t *frame;
static _Atomic int go, fired, early, busy, ok, arrived;

static void *waiter(void *unused)
{
    (void)unused;
    atomic_fetch_add(&arrived, 1);
    while (!atomic_load(&go)) (void)ito_yield(); /* (worker 0 is shared with main) */
    int rc = ito_frame_wait(frame, 0);
    if (rc == ITO_OK) {
        if (!atomic_load(&fired)) atomic_fetch_add(&early, 1);
        atomic_fetch_add(&ok, 1);
    } else if (rc == ITO_EBUSY) {
        atomic_fetch_add(&busy, 1);
    } else {
        atomic_fetch_add(&early, 1000);
    }
    return NULL;
}

int main(void)
{
    CHECK_OK(ito_init(NULL));
    if (ito_worker_count() < 2) {
        CHECK_OK(ito_finalize());
        TEST_DONE(); /* needs two workers at once */
    }
    CHECK_OK(ito_frame_create(&frame, 1, 0));
    CHECK_OK(ito_entry_set(frame, 0, NULL, 1, ITO_MODE_USER));
    for (int r = 0; r < ROUNDS; r++) {
        atomic_store(&go, 0);
        atomic_store(&fired, 0);
        atomic_store(&arrived, 0);
        atomic_store(&ok, 0);
        atomic_store(&busy, 0);
        ito_thread_t t[2];
        for (int i = 0; i < 2; i++) {
            ito_attr_t a;
            CHECK_OK(ito_attr_init(&a));
            a.worker = i;
            CHECK_OK(ito_create(&t[i], waiter, NULL, &a));
        }
        while (atomic_load(&arrived) < 2) CHECK_OK(ito_yield());
        atomic_store(&go, 1);
        while (atomic_load(&busy) + atomic_load(&ok) < 1) CHECK_OK(ito_yield()); /* one refused (or misled) */
        CHECK_OK(ito_sleep_ns(20000));
        atomic_store(&fired, 1);
        CHECK_OK(ito_continue(frame, 0));
        for (int i = 0; i < 2; i++) CHECK_OK(ito_join(t[i], NULL));
        if (atomic_load(&early) || atomic_load(&busy) != 1 || atomic_load(&ok) != 1)
            fprintf(stderr, "round %d: early %d busy %d ok %d\n", r, atomic_load(&early), atomic_load(&busy), atomic_load(&ok));
        CHECK_EQ(atomic_load(&early), 0);
        CHECK_EQ(atomic_load(&busy), 1);
        CHECK_EQ(atomic_load(&ok), 1);
        CHECK_OK(ito_rearm(frame, 0, 1));
    }
    CHECK_OK(ito_frame_destroy(frame));
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
