/* test_zwt_io_cont_destroy: a split-phase request whose continuation is an entry with code
 * completes while its frame is destroyed. ito_frame_destroy promises: "A request in flight
 * whose continuation is an entry of the frame ... does not hold it: destroyed first, the
 * request still stores its result and its continuation is dropped". ITO_FAULT_IOCONT=1
 * makes the completion's continuation sleep 50 ms after it validated its frame, before it
 * takes its count; a foreign thread destroys the frame meanwhile (ITO_OK). The entry's ZWT
 * must not run after that destroy said ITO_OK (the frame's memory may be reused: a ready
 * entry in a freed frame). Found by an outside tester, h64g, 2026-12-06: the late
 * continuation took the freed entry's count and queued its ZWT, which ran after the
 * destroy (every run). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

#define NE 8

static ito_frame_t *fa;
static int pfd[2];
static long result = -1000;
static _Atomic int posted, destroy_rc = -1000, dirty = -1, late, destroyed, ran, ran_after;

static void zwt(ito_frame_t *f, int e, uint64_t v)
{
    (void)f;
    (void)e;
    (void)v;
    atomic_fetch_add(&ran, 1);
    if (atomic_load(&destroyed)) atomic_fetch_add(&ran_after, 1);
}

static void *other(void *unused)
{
    (void)unused;
    while (!atomic_load(&posted)) ito_test_sleep_us(1000);
    ito_test_sleep_us(5000);
    CHECK_EQ(write(pfd[1], "x", 1), 1);
    ito_test_sleep_us(15 * 1000); /* the completion is reaped: its continuation pauses */
    int rc = ito_frame_destroy(fa);
    atomic_store(&destroy_rc, rc);
    if (rc == ITO_OK) atomic_store(&destroyed, 1);
    if (rc != ITO_OK) {
        printf("destroy %d: the continuation came first, nothing to test\n", rc);
        atomic_store(&late, 1);
        return NULL;
    }
    atomic_store(&destroyed, 1);
    ito_test_sleep_us(150 * 1000); /* the continuation's pause ends meanwhile */
    atomic_store(&dirty, 0);
    return NULL;
}

static void *poster(void *unused)
{
    (void)unused;
    static char buf[4];
    ito_test_post_read1(pfd[0], buf, &result, fa, NE - 1);
    atomic_store(&posted, 1);
    return NULL;
}

int main(void)
{
    static atomic_int done;
    ito_test_watchdog(&done, 30, "test_zwt_io_cont_destroy");
    setenv("ITO_FAULT_IOCONT", "1", 1);
    CHECK_EQ(pipe(pfd), 0);
    CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
    CHECK_OK(ito_frame_create(&fa, NE, 0));
    for (int i = 0; i < NE; i++) CHECK_OK(ito_entry_set(fa, i, i == NE - 1 ? zwt : NULL, 1, ITO_MODE_USER));
    pthread_t th;
    CHECK_EQ(pthread_create(&th, NULL, other, NULL), 0);
    ito_thread_t t;
    CHECK_OK(ito_create(&t, poster, NULL, NULL));
    CHECK_OK(ito_join(t, NULL));
    while (atomic_load(&dirty) == -1 && !atomic_load(&late)) ito_yield(); /* a worker polls the completion */
    CHECK_EQ(pthread_join(th, NULL), 0);
    CHECK_OK(ito_sleep_ns(100 * 1000 * 1000ull));
    printf("destroy %d, ZWT runs %d, after the destroy %d, result %ld\n", atomic_load(&destroy_rc), atomic_load(&ran),
           atomic_load(&ran_after), result);
    if (!atomic_load(&late)) {
        CHECK_EQ(atomic_load(&destroy_rc), ITO_OK);
        CHECK_EQ(atomic_load(&ran_after), 0);
        CHECK_EQ(result, 1);
    }
    CHECK_OK(ito_finalize());
    close(pfd[0]);
    close(pfd[1]);
    atomic_store(&done, 1);
    TEST_DONE();
}
