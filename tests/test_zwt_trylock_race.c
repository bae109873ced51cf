/* test_zwt_trylock_race: an entry's thread lock excludes for real when several threads
 * take it at the same moment (zwt.h: ito_trylock "ITO_OK: locked by the caller; ITO_EBUSY
 * if it is locked"). Three foreign threads (and main, a ULT) hammer ito_trylock/ito_unlock
 * on one entry for half a second; whoever holds it checks that nobody else is inside. (Found by mutation
 * testing, h60d: a trylock that trusted its first look and ignored what the exchange
 * returned let two takers in at once, and test_zwt_lock, which takes the lock from one
 * thread at a time, passed.) */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "ito/ito.h"
#include "ito_test.h"

#define THREADS 3
#define RUN_NS 500000000ull /* each thread hammers for half a second */

static ito_frame_t *frame;
static _Atomic int inside, overlap, go;
static _Atomic long taken;

static void hammer(void)
{
    uint64_t end = ito_now_ns() + RUN_NS;
    for (unsigned i = 0;; i++) {
        if ((i & 1023) == 0 && ito_now_ns() >= end) return;
        int rc = ito_trylock(frame, 0);
        if (rc == ITO_EBUSY) continue;
        if (rc != ITO_OK) {
            atomic_store(&overlap, 1000 + rc);
            return;
        }
        if (atomic_fetch_add(&inside, 1) != 0) atomic_fetch_add(&overlap, 1);
        atomic_fetch_add(&taken, 1);
        atomic_fetch_sub(&inside, 1);
        if (ito_unlock(frame, 0) != ITO_OK) atomic_fetch_add(&overlap, 1); /* ESTATE: another released it */
    }
}

static void *foreign(void *unused)
{
    (void)unused;
    while (!atomic_load(&go)) {
    }
    hammer();
    return NULL;
}

int main(void)
{
    CHECK_OK(ito_init(NULL));
    CHECK_OK(ito_frame_create(&frame, 1, 0));
    pthread_t pt[THREADS];
    for (int i = 0; i < THREADS; i++) CHECK_EQ(pthread_create(&pt[i], NULL, foreign, NULL), 0);
    atomic_store(&go, 1);
    hammer();
    for (int i = 0; i < THREADS; i++) CHECK_EQ(pthread_join(pt[i], NULL), 0);
    if (atomic_load(&overlap)) fprintf(stderr, "%d overlaps in %ld takes\n", atomic_load(&overlap), atomic_load(&taken));
    CHECK_EQ(atomic_load(&overlap), 0);
    CHECK(atomic_load(&taken) > 0);
    CHECK_EQ(ito_trylock(frame, 0), ITO_OK); /* free at the end */
    CHECK_OK(ito_unlock(frame, 0));
    CHECK_OK(ito_frame_destroy(frame));
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
