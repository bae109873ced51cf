/* test_zwt_overcontinue: continuations beyond an entry's arming are refused (ITO_ESTATE)
 * and change nothing, while other threads continue and the entry re-arms itself.
 *
 * Before: a continuation that took the count below zero undid its decrement afterwards;
 * between the two, the entry's own re-arm or another continuation saw the wrong count,
 * so firings were lost (more continuations needed than the fan-in) or an entry was made
 * ready twice. Four threads (two ULTs, two foreign) continue a fan-in-2 entry that
 * re-arms itself when it runs; every accepted continuation is counted. Afterwards,
 * accepted = 2 x runs + (0 or 1, a half-filled arming): exact. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>

#include "ito/ito.h"
#include "ito_test.h"

#define FAN_IN 2
#define TRIES 200000

static _Atomic unsigned long runs, oks;
static _Atomic int running;

static void handler(ito_frame_t *f, int entry, uint64_t value)
{
    (void)value;
    CHECK_EQ(atomic_fetch_add(&running, 1), 0); /* never made ready twice at once */
    atomic_fetch_add(&runs, 1);
    atomic_fetch_sub(&running, 1);
    CHECK_OK(ito_rearm(f, entry, 0));
}

static void *hammer(void *arg)
{
    ito_frame_t *f = arg;
    int ult = ito_worker_id() >= 0;
    for (int i = 0; i < TRIES; i++) {
        int rc = ito_continue(f, 0);
        if (rc == ITO_OK) atomic_fetch_add(&oks, 1);
        else CHECK_EQ(rc, ITO_ESTATE);
        if (ult && i % 8 == 0) CHECK_OK(ito_yield()); /* the ZWT runs on these workers too */
    }
    return NULL;
}

int main(void)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
    ito_frame_t *f;
    CHECK_OK(ito_frame_create(&f, 1, 0));
    CHECK_OK(ito_entry_set(f, 0, handler, FAN_IN, ITO_MODE_USER));
    pthread_t p[2];
    for (int i = 0; i < 2; i++) CHECK_EQ(pthread_create(&p[i], NULL, hammer, f), 0);
    ito_thread_t t[2];
    for (int i = 0; i < 2; i++) CHECK_OK(ito_create(&t[i], hammer, f, NULL));
    for (int i = 0; i < 2; i++) CHECK_EQ(pthread_join(p[i], NULL), 0);
    for (int i = 0; i < 2; i++) CHECK_OK(ito_join(t[i], NULL));
    CHECK_OK(ito_finalize()); /* the last firing's ZWT has run */
    unsigned long r = atomic_load(&runs), o = atomic_load(&oks);
    fprintf(stderr, "accepted %lu, runs %lu\n", o, r);
    CHECK(r > 0);
    CHECK(o >= FAN_IN * r && o - FAN_IN * r < FAN_IN);
    TEST_DONE();
}
