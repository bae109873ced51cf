/* test_zwt_set_race: ito_entry_set redefining an entry while other threads wait on it and
 * fire it (src/zwt/frame.c entry_set, fire.c; the protocol is in src/zwt/zwt.h). Found by
 * a misuse fuzzer (2026-12-04):
 *  1. a set racing ito_frame_wait_until on a code-less entry stored 0 into the waiter word
 *     after its look, wiping a waiter installed in between: that ULT's timed wait never
 *     ended (10 of 10 runs within 0.2 s). Here a ULT loops 50 us waits while a foreign
 *     thread sets the entry (code-less, then alternating with code) and another fires it;
 *     every wait must come back, and main watches each one's deadline.
 *  2. the run cleared "queued" before it read the code: a set in between (code NULL) had
 *     the worker call address 0 (SEGV in 4 of 8 runs), and a continuation that read the
 *     code twice could make a code-less arming ready as a unit. Here one foreign thread
 *     fires while another alternates the code between NULL and a function; afterwards the
 *     entry still works: one continuation, one run.
 *  3. (found by a reviewer of the fix) the fix made a code-less entry's firing pass through
 *     "queued", and a set hold the sync word, so a re-arm racing them said ITO_EBUSY for an
 *     entry that is never queued (427,678 times in 3 s with 2 workers). Here foreign threads
 *     set, fire and re-arm one code-less entry: no re-arm may say ITO_EBUSY.
 *  4. (found by a reviewer of part 3's fix) a firing during a set overwrote the set's hold
 *     of the waiter word with FIRED; a re-arm turned that to 0, a ULT installed itself,
 *     and the set's release wiped it: the wait never ended (7 of 7 stress runs). Part 1
 *     runs with a re-arming thread too. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>

#include "ito/ito.h"
#include "ito_test.h"

static ito_frame_t *fr;
static atomic_int stop;
static _Atomic uint64_t cur_deadline;
static atomic_long waits, runs, fires, sets;
static atomic_int with_code; /* part 1b: the setter alternates code-less and code */

static void z(ito_frame_t *f, int e, uint64_t v)
{
    (void)f;
    (void)e;
    (void)v;
    atomic_fetch_add(&runs, 1);
}

static void *waiter(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop)) {
        uint64_t d = ito_deadline_in(50 * 1000);
        atomic_store(&cur_deadline, d);
        int rc = ito_frame_wait_until(fr, 0, d);
        CHECK(rc == ITO_OK || rc == ITO_ETIMEDOUT || rc == ITO_EBUSY || rc == ITO_EINVAL);
        if (rc == ITO_EINVAL) CHECK(atomic_load(&with_code));
        atomic_store(&cur_deadline, 0);
        atomic_fetch_add(&waits, 1);
        if (rc != ITO_ETIMEDOUT) CHECK_OK(ito_yield()); /* EBUSY/OK at once: let others run */
    }
    return NULL;
}

static void *setter(void *arg)
{
    (void)arg;
    for (unsigned i = 0; !atomic_load(&stop); i++) {
        ito_zwt_fn code = atomic_load(&with_code) && (i & 1) ? z : NULL;
        int rc = ito_entry_set(fr, 0, code, 1, ITO_MODE_USER);
        CHECK(rc == ITO_OK || rc == ITO_EBUSY);
        if (rc == ITO_OK) atomic_fetch_add(&sets, 1);
    }
    return NULL;
}

static void *firer(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop)) {
        int rc = ito_continue(fr, 0);
        CHECK(rc == ITO_OK || rc == ITO_ESTATE);
        if (rc == ITO_OK) atomic_fetch_add(&fires, 1);
    }
    return NULL;
}

static atomic_long rearm_busy;

static void *rearmer(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop)) {
        int rc = ito_rearm(fr, 0, 0);
        CHECK(rc == ITO_OK || rc == ITO_EBUSY);
        if (rc == ITO_EBUSY) atomic_fetch_add(&rearm_busy, 1);
    }
    return NULL;
}

/* Main watches the waiter: a wait still blocked well after its deadline is the bug. */
static void watch(uint64_t ns)
{
    uint64_t end = ito_deadline_in(ns);
    while (ito_now_ns() < end) {
        CHECK_OK(ito_sleep_ns(10 * 1000 * 1000));
        uint64_t d = atomic_load(&cur_deadline);
        if (d && ito_now_ns() > d + 3000ull * 1000 * 1000) {
            fprintf(stderr, "FAIL: a timed frame wait is blocked 3 s after its deadline (waits %ld, sets %ld)\n",
                    atomic_load(&waits), atomic_load(&sets));
            exit(1);
        }
    }
}

static void waiter_race(int code)
{
    atomic_store(&stop, 0);
    atomic_store(&with_code, code);
    atomic_store(&waits, 0);
    CHECK_OK(ito_entry_set(fr, 0, NULL, 1, ITO_MODE_USER));
    ito_attr_t a;
    ito_attr_init(&a);
    a.worker = 1;
    ito_thread_t t;
    CHECK_OK(ito_create(&t, waiter, NULL, &a));
    pthread_t p[3];
    CHECK_EQ(pthread_create(&p[0], NULL, setter, NULL), 0);
    CHECK_EQ(pthread_create(&p[1], NULL, firer, NULL), 0);
    CHECK_EQ(pthread_create(&p[2], NULL, rearmer, NULL), 0); /* part 4 */
    watch(1000ull * 1000 * 1000);
    atomic_store(&stop, 1);
    for (int i = 0; i < 3; i++) CHECK_EQ(pthread_join(p[i], NULL), 0);
    watch(100ull * 1000 * 1000); /* the last wait too */
    CHECK_OK(ito_join(t, NULL));
    CHECK(atomic_load(&waits) > 0 && atomic_load(&sets) > 0);
}

/* Three foreign threads running a, b and c for `ms`, then stopped and joined. */
static void three(void *(*a)(void *), void *(*b)(void *), void *(*c)(void *), uint64_t ms)
{
    atomic_store(&stop, 0);
    void *(*fn[3])(void *) = {a, b, c};
    pthread_t p[3];
    for (int i = 0; i < 3; i++) CHECK_EQ(pthread_create(&p[i], NULL, fn[i], NULL), 0);
    CHECK_OK(ito_sleep_ns(ms * 1000 * 1000));
    atomic_store(&stop, 1);
    for (int i = 0; i < 3; i++) CHECK_EQ(pthread_join(p[i], NULL), 0);
}

static void run_race(void)
{
    atomic_store(&with_code, 1);
    CHECK_OK(ito_entry_set(fr, 0, z, 1, ITO_MODE_USER));
    three(setter, firer, firer, 500);
    CHECK(atomic_load(&runs) <= atomic_load(&fires));
    /* the entry still works: defined anew (retried while its last unit is queued), one
     * continuation, one run */
    int rc;
    for (int i = 0; (rc = ito_entry_set(fr, 0, z, 1, ITO_MODE_USER)) == ITO_EBUSY && i < 1000; i++)
        CHECK_OK(ito_sleep_ns(1000 * 1000));
    CHECK_OK(rc);
    CHECK_OK(ito_sleep_ns(20 * 1000 * 1000));
    long before = atomic_load(&runs);
    CHECK_OK(ito_continue(fr, 0));
    for (int i = 0; i < 2000 && atomic_load(&runs) == before; i++) CHECK_OK(ito_sleep_ns(1000 * 1000));
    CHECK_OK(ito_sleep_ns(20 * 1000 * 1000));
    CHECK_EQ(atomic_load(&runs), before + 1);
}

static void rearm_race(void)
{
    atomic_store(&with_code, 0);
    atomic_store(&rearm_busy, 0);
    CHECK_OK(ito_entry_set(fr, 0, NULL, 1, ITO_MODE_USER));
    three(setter, firer, rearmer, 300);
    CHECK_EQ(atomic_load(&rearm_busy), 0);
}

int main(void)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
    CHECK_OK(ito_frame_create(&fr, 1, 0));
    waiter_race(0);
    waiter_race(1);
    run_race();
    rearm_race();
    int rc;
    while ((rc = ito_frame_destroy(fr)) == ITO_EBUSY) CHECK_OK(ito_sleep_ns(1000 * 1000));
    CHECK_OK(rc);
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
