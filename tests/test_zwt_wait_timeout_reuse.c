/* test_zwt_wait_timeout_reuse: timed ito_frame_wait_until waits whose entry fires close to
 * their deadline, after which a foreign thread destroys the frame, creates one of another
 * shape in its memory (fewer entries and a data area, the same size class) and writes that
 * frame's data. A timeout that comes to a waiter already readied by the firing must not
 * touch the waiter word it waited on: that memory is now the program's data (a frame's
 * data area is the program's alone). Each wait says ITO_OK or ITO_ETIMEDOUT, and the data
 * is what the program wrote; the TSan tree checks that nothing in the runtime races the
 * program's writes. Rounds for about 4 s, deadlines spread around the firing.
 * Found by an outside tester, h64a, 2026-12-06, with a random stress of the ZWT API under
 * TSan (test_zwt_stress_mix): the timeout's unlink (src/zwt/fire.c, wait_unlink) CASed the
 * old life's waiter word, which was in the new frame's data: a data race with the
 * program's memset (TSan reports in every run without the fix; in release a data word
 * equal to the ULT's address would have been zeroed). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ito/ito.h"
#include "ito_test.h"

#define NE 8
#define DATA 600

static ito_frame_t *_Atomic fa;
static ito_frame_t *fb;
static _Atomic int parked, wait_rc;
static _Atomic uint64_t deadline, fire_at;

static void *waiter(void *unused)
{
    (void)unused;
    atomic_store(&parked, 1);
    atomic_store(&wait_rc, ito_frame_wait_until(atomic_load(&fa), NE - 1, atomic_load(&deadline)));
    return NULL;
}

static void *other(void *unused)
{
    (void)unused;
    ito_frame_t *a = atomic_load(&fa);
    while (!atomic_load(&parked)) {
    }
    while (ito_now_ns() < atomic_load(&fire_at)) {
    }
    CHECK_OK(ito_continue(a, NE - 1));
    int rc;
    while ((rc = ito_frame_destroy(a)) == ITO_EBUSY) {
    }
    CHECK_OK(rc);
    CHECK_OK(ito_frame_create(&fb, 1, DATA)); /* the shared pool: often A's memory */
    memset(ito_frame_data(fb), 0x07, DATA);
    return NULL;
}

int main(void)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
    ito_attr_t at;
    CHECK_OK(ito_attr_init(&at));
    at.worker = 1; /* main stays off the waiter's worker */
    uint64_t end = ito_now_ns() + 4000000000ull, seed = 12345;
    int rounds = 0, ok = 0, timedout = 0;
    while (ito_now_ns() < end) {
        ito_frame_t *a;
        CHECK_OK(ito_frame_create(&a, NE, 0));
        for (int i = 0; i < NE; i++) CHECK_OK(ito_entry_set(a, i, NULL, 1, ITO_MODE_USER));
        atomic_store(&fa, a);
        atomic_store(&parked, 0);
        atomic_store(&wait_rc, -1000);
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t now = ito_now_ns(), d = 200000 + (seed >> 33) % 200000; /* 200-400 us */
        atomic_store(&deadline, now + d);
        atomic_store(&fire_at, now + 300000); /* before or after the deadline */
        ito_thread_t w;
        CHECK_OK(ito_create(&w, waiter, NULL, &at));
        pthread_t t;
        CHECK(pthread_create(&t, NULL, other, NULL) == 0);
        CHECK_OK(ito_join(w, NULL));
        CHECK(pthread_join(t, NULL) == 0);
        int rc = atomic_load(&wait_rc);
        CHECK(rc == ITO_OK || rc == ITO_ETIMEDOUT || rc == ITO_EINVAL); /* EINVAL: it looked after the destroy */
        ok += rc == ITO_OK;
        timedout += rc == ITO_ETIMEDOUT;
        unsigned char *p = ito_frame_data(fb);
        for (int i = 0; i < DATA; i++) CHECK_EQ(p[i], 0x07);
        CHECK_OK(ito_frame_destroy(fb));
        rounds++;
    }
    printf("%d rounds: %d ITO_OK, %d ITO_ETIMEDOUT\n", rounds, ok, timedout);
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
