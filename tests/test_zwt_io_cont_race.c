/* test_zwt_io_cont_race: a split-phase request's continuation racing its frame's destroy.
 * ito_frame_destroy (zwt.h) promises: "A request in flight whose continuation is an entry
 * of the frame (ito_sys_post, ito_sys_wait_all) does not hold it: destroyed first, the
 * request still stores its result and its continuation is dropped"; and a frame's data is
 * the program's alone. ITO_FAULT_IOCONT=1 (failure-injection builds) makes the first I/O
 * continuation sleep 50 ms after it validated its frame, before it takes its count, as if
 * the OS had descheduled its worker there. A ULT posts a read of a pipe whose continuation
 * is entry 7 of frame A (8 entries, fan-in 1, no data); a foreign thread writes the pipe
 * (the read completes: the continuation pauses) and destroys A (ITO_OK: the continuation
 * has taken no count). Two parts, each in a runtime of its own:
 *  - "destroy": entry 7 has code; its ZWT must not run after the destroy said ITO_OK (a
 *    ready entry in a freed frame);
 *  - "reuse": the entries are code-less; the foreign thread then creates B (1 entry and a
 *    data area: the same size class, so B takes A's memory; checked), fills B's data with
 *    0x05 bytes and checks them 150 ms later.
 * Found by an outside tester, h64g, 2026-12-06 (review of the `lookers` change: waits
 * looked at their frame's life, I/O continuations did not): the late continuation queued
 * the destroyed frame's ZWT, which ran (every run), or took a count from B's data
 * (0x05050505 became 0x05050504; 5 of 5 runs). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

#define NE 8

static bool reuse; /* the part: "reuse" (true) or "destroy" */
static ito_frame_t *fa;
static int pfd[2];
static long result;
static size_t data_size;
static _Atomic int posted, destroy_rc, same_memory, dirty, late, destroyed, ran_after;

static void zwt(ito_frame_t *f, int e, uint64_t v)
{
    (void)f;
    (void)e;
    (void)v;
    if (atomic_load(&destroyed)) atomic_fetch_add(&ran_after, 1);
}

/* B takes A's memory and its data must stay the program's: 0 when it does. */
static int reuse_memory(void)
{
    ito_frame_t *b;
    CHECK_OK(ito_frame_create(&b, 1, data_size)); /* the shared pool: A's memory */
    atomic_store(&same_memory, ((uintptr_t)b & 0xffffffffffffull) == ((uintptr_t)fa & 0xffffffffffffull));
    unsigned char *d = ito_frame_data(b);
    memset(d, 0x05, data_size);
    ito_test_sleep_us(150 * 1000); /* the continuation's pause ends meanwhile */
    int bad = 0;
    for (size_t i = 0; i < data_size; i++)
        if (d[i] != 0x05) {
            if (!bad) printf("B's data at %zu: %02x, not 05\n", i, d[i]);
            bad = 1;
        }
    CHECK_OK(ito_frame_destroy(b));
    return bad;
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
    if (rc != ITO_OK) {
        printf("destroy %d: the continuation came first, nothing to test\n", rc);
        atomic_store(&late, 1);
        return NULL;
    }
    atomic_store(&destroyed, 1);
    if (reuse) {
        atomic_store(&dirty, reuse_memory());
    } else {
        ito_test_sleep_us(150 * 1000); /* the continuation's pause ends meanwhile */
        atomic_store(&dirty, 0);
    }
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

static void part(bool with_reuse)
{
    reuse = with_reuse;
    result = -1000;
    atomic_store(&posted, 0);
    atomic_store(&destroy_rc, -1000);
    atomic_store(&same_memory, 0);
    atomic_store(&dirty, -1);
    atomic_store(&late, 0);
    atomic_store(&destroyed, 0);
    atomic_store(&ran_after, 0);
    CHECK_EQ(pipe(pfd), 0);
    CHECK_OK(ito_init(&(ito_config_t){.workers = 2})); /* the fault counter starts again */
    if (reuse) {
        data_size = ito_test_same_class_data(NE);
        CHECK(data_size > 0);
    }
    CHECK_OK(ito_frame_create(&fa, NE, 0));
    for (int i = 0; i < NE; i++) CHECK_OK(ito_entry_set(fa, i, !reuse && i == NE - 1 ? zwt : NULL, 1, ITO_MODE_USER));
    pthread_t th;
    CHECK_EQ(pthread_create(&th, NULL, other, NULL), 0);
    ito_thread_t t;
    CHECK_OK(ito_create(&t, poster, NULL, NULL));
    CHECK_OK(ito_join(t, NULL));
    while (atomic_load(&dirty) == -1 && !atomic_load(&late)) ito_yield(); /* a worker polls the completion */
    CHECK_EQ(pthread_join(th, NULL), 0);
    CHECK_OK(ito_sleep_ns(100 * 1000 * 1000ull));
    printf("%s: destroy %d, ZWT runs after it %d, same memory %d, B's data dirty %d, result %ld\n",
           reuse ? "reuse" : "destroy", atomic_load(&destroy_rc), atomic_load(&ran_after), atomic_load(&same_memory),
           atomic_load(&dirty), result);
    if (!atomic_load(&late)) {
        CHECK_EQ(atomic_load(&destroy_rc), ITO_OK);
        CHECK_EQ(atomic_load(&ran_after), 0);
        if (reuse) CHECK_EQ(atomic_load(&same_memory), 1);
        CHECK_EQ(atomic_load(&dirty), 0);
        CHECK_EQ(result, 1);
    }
    CHECK_OK(ito_finalize());
    close(pfd[0]);
    close(pfd[1]);
}

int main(void)
{
    static atomic_int done;
    ito_test_watchdog(&done, 30, "test_zwt_io_cont_race");
    setenv("ITO_FAULT_IOCONT", "1", 1);
    part(false);
    part(true);
    atomic_store(&done, 1);
    TEST_DONE();
}
