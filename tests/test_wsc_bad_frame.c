/* test_wsc_bad_frame: a split-phase request whose continuation names no live frame entry
 * is refused when it is posted (ITO_EINVAL for a forged or destroyed frame, ITO_ERANGE for
 * an entry outside the frame), by ito_sys_post and by ito_sys_wait_all (which then posts
 * nothing), on both backends. Before, such a request was taken (ITO_OK) and its
 * completion's firing was dropped in silence. A good request still runs afterwards. */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "ito/ito.h"
#include "ito_test.h"

static _Atomic long fired;

static void on_done(ito_frame_t *f, int entry, uint64_t v)
{
    (void)f;
    (void)entry;
    (void)v;
    atomic_fetch_add(&fired, 1);
}

static uint64_t posted(void)
{
    ito_wsc_stats_t s;
    CHECK_OK(ito_wsc_stats(&s));
    return s.posted;
}

static void run_backend(const char *backend)
{
    setenv("ITO_WSC_BACKEND", backend, 1);
    atomic_store(&fired, 0);
    ito_config_t cfg = {.workers = 1};
    CHECK_OK(ito_init(&cfg));
    ito_frame_t *f, *dead;
    CHECK_OK(ito_frame_create(&f, 2, 0));
    CHECK_OK(ito_entry_set(f, 0, on_done, 1, ITO_MODE_USER));
    CHECK_OK(ito_frame_create(&dead, 2, 0));
    CHECK_OK(ito_frame_destroy(dead));
    long res = 0;
    ito_sysreq_t q = {.op = ITO_SYS_NOP, .result = &res, .frame = f, .entry = 0};
    CHECK_OK(ito_sys_post(&q)); /* makes the common area: the counts below start here */
    CHECK_OK(ito_wsc_flush());
    while (atomic_load(&fired) < 1) ito_yield(); /* its continuation has run: entry 0 is free */
    uint64_t p0 = posted();

    ito_sysreq_t bad = q;
    bad.frame = (ito_frame_t *)(uintptr_t)0xdeadbeef000ull; /* forged */
    CHECK_EQ(ito_sys_post(&bad), ITO_EINVAL);
    bad.frame = dead; /* destroyed */
    CHECK_EQ(ito_sys_post(&bad), ITO_EINVAL);
    bad.frame = f;
    bad.entry = -1;
    CHECK_EQ(ito_sys_post(&bad), ITO_ERANGE);
    bad.entry = 2; /* the frame has entries 0 and 1 */
    CHECK_EQ(ito_sys_post(&bad), ITO_ERANGE);

    ito_sysreq_t two[2] = {{.op = ITO_SYS_NOP}, bad};
    CHECK_EQ(ito_sys_wait_all(two, 2), ITO_ERANGE);
    two[1].frame = dead;
    two[1].entry = 0;
    CHECK_EQ(ito_sys_wait_all(two, 2), ITO_EINVAL);
    CHECK_EQ(posted(), p0); /* nothing was posted */

    /* A good request still works, its continuation fires once. */
    CHECK_OK(ito_rearm(f, 0, 1));
    long before = atomic_load(&fired);
    two[1] = q;
    CHECK_OK(ito_sys_wait_all(two, 2));
    CHECK_EQ(posted(), p0 + 2);
    while (atomic_load(&fired) == before) ito_yield();
    CHECK_EQ(atomic_load(&fired), before + 1);
    CHECK_EQ(res, 0);
    CHECK_OK(ito_finalize());
    unsetenv("ITO_WSC_BACKEND");
}

int main(void)
{
    run_backend("uring");
    run_backend("sync");
    TEST_DONE();
}
