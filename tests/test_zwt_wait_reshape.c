/* test_zwt_wait_reshape: a ULT's ito_frame_wait on a frame that another thread destroys
 * and whose memory a frame of another shape (fewer entries, a data area) takes at once.
 * zwt.h promises that such a wait "ends: ITO_OK, or ITO_EINVAL if the destroy came first;
 * it never waits in another frame"; and a frame's data area is the program's alone.
 * ITO_FAULT_WAITPOST=1 (failure-injection builds) makes the first post action sleep 50 ms
 * before it installs the ULT in the entry's waiter word (and 50 ms after), as if the OS had
 * descheduled its worker between the wait's look and its install:
 *  - W waits on entry 7 of frame A (8 code-less entries, no data);
 *  - meanwhile a foreign thread destroys A and creates B (1 entry and a data area: the
 *    same size class, so B takes A's memory; checked), and fills B's data.
 * Part 1: B's data is 0x07 bytes. Part 2: B's data is zero, then (in W's window after its
 * install) the foreign thread checks that it is still zero and writes it.
 * W's wait must end (ITO_EINVAL: the destroy came first) and B's data must be what the
 * program wrote. Found by an outside tester, h64a, 2026-12-06 (review of 328163e): the post
 * action CASes the old life's entry address, which in B is data: part 1 spun for ever in
 * the worker's scheduler (an odd word > 4 looks like a "checking" waiter, 328163e), part 2
 * put the ULT into B's data (read back as non-zero) and, the program's write making the
 * back-out CAS fail, W was never readied (both hang without the fix, every run). */
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

static ito_frame_t *fa, *_Atomic fb;
static _Atomic int started, wait_rc, ended, part, data_dirty, same_memory, late;

static void *waiter(void *unused)
{
    (void)unused;
    atomic_store(&started, 1);
    atomic_store(&wait_rc, ito_frame_wait(fa, NE - 1));
    atomic_store(&ended, 1);
    return NULL;
}

static void *other(void *unused)
{
    (void)unused;
    while (!atomic_load(&started)) ito_test_sleep_us(1 * 1000);
    ito_test_sleep_us(5 * 1000); /* W looked at A and sleeps before its install */
    int rc = ito_frame_destroy(fa);
    if (rc == ITO_EBUSY) { /* this thread came after the 50 ms (a loaded machine): W waits in A */
        printf("part %d: the destroy came late, W waits in A: nothing to test\n", atomic_load(&part));
        atomic_store(&late, 1);
        CHECK_OK(ito_continue(fa, NE - 1));
        while ((rc = ito_frame_destroy(fa)) == ITO_EBUSY) ito_test_sleep_us(1 * 1000);
        CHECK_OK(rc);
    } else {
        CHECK_OK(rc);
    }
    ito_frame_t *b;
    CHECK_OK(ito_frame_create(&b, 1, DATA)); /* the shared pool: A's memory */
    atomic_store(&same_memory, ((uintptr_t)b & 0xffffffffffffull) == ((uintptr_t)fa & 0xffffffffffffull));
    unsigned char *d = ito_frame_data(b);
    memset(d, atomic_load(&part) == 1 ? 0x07 : 0, DATA);
    atomic_store(&fb, b);
    if (atomic_load(&part) == 2) {
        ito_test_sleep_us(60 * 1000); /* W's window after its install */
        for (int i = 0; i < DATA; i++)
            if (d[i]) atomic_store(&data_dirty, 1);
        memset(d, 0x10, DATA);
    }
    return NULL;
}

static void run(int p)
{
    atomic_store(&part, p);
    atomic_store(&started, 0);
    atomic_store(&ended, 0);
    atomic_store(&wait_rc, -1000);
    atomic_store(&data_dirty, 0);
    atomic_store(&late, 0);
    CHECK_OK(setenv("ITO_FAULT_WAITPOST", "1", 1));
    CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
    CHECK_OK(unsetenv("ITO_FAULT_WAITPOST"));
    CHECK_OK(ito_frame_create(&fa, NE, 0));
    for (int i = 0; i < NE; i++) CHECK_OK(ito_entry_set(fa, i, NULL, 1, ITO_MODE_USER));
    ito_thread_t w;
    CHECK_OK(ito_create(&w, waiter, NULL, NULL));
    pthread_t t;
    CHECK(pthread_create(&t, NULL, other, NULL) == 0);
    CHECK_OK(ito_join(w, NULL)); /* main is on W's worker: a spinning post action hangs here */
    CHECK(pthread_join(t, NULL) == 0);
    if (!atomic_load(&same_memory)) printf("part %d: B did not take A's memory (setup)\n", p);
    CHECK(atomic_load(&same_memory));
    fflush(stdout);
    printf("part %d: wait %d, data dirty %d\n", p, atomic_load(&wait_rc), atomic_load(&data_dirty));
    CHECK_EQ(atomic_load(&wait_rc), atomic_load(&late) ? ITO_OK : ITO_EINVAL);
    CHECK_EQ(atomic_load(&data_dirty), 0);
    CHECK_OK(ito_frame_destroy(atomic_load(&fb)));
    CHECK_OK(ito_finalize());
}

int main(void)
{
    static atomic_int done;
    ito_test_watchdog(&done, 10, "test_zwt_wait_reshape: a wait on a reshaped frame hung");
    const char *only = getenv("H64_PART"); /* diagnosis: one part */
    if (!only || *only == '1') run(1);
    if (!only || *only == '2') run(2);
    atomic_store(&done, 1);
    TEST_DONE();
}
