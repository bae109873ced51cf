/* test_wsc_kernel_cont: split-phase requests whose continuation is a kernel-mode entry
 * (syscall.h ito_sys_post, zwt.h modes). Found by an outside tester (2026-12-05): the mode
 * rule was applied at the completion, as whoever reaped it: the poller counted as a user
 * thread, so ito_sys_post accepted the request (ITO_OK), stored its result and dropped the
 * continuation (ITO_EPERM, ignored), also when a kernel-interface ZWT had posted it; and
 * with the threshold at 1 the same request completed inside the posting ZWT and fired.
 * Now the rule is checked at the post with the poster's mode and the completion continues
 * as the kernel (as a device's event does):
 *  1. a ULT (user mode) posting to a kernel-mode entry: ITO_EPERM, nothing posted; so is
 *     ito_sys_wait_all (nothing posted, results untouched);
 *  2. a kernel-interface ZWT posting NOP and GETPID to a kernel-mode entry: accepted, and
 *     the continuation fires once with the result, at thresholds 32 and 1, on both backends;
 *  3. a user-mode ZWT posting to a kernel-mode entry: ITO_EPERM. */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static ito_frame_t *fr;
static atomic_int fired, post_rc_kif, post_rc_user;
static _Atomic uint64_t got;
static long res;

static void kern(ito_frame_t *f, int e, uint64_t v)
{
    (void)f;
    (void)e;
    atomic_store(&got, v);
    atomic_fetch_add(&fired, 1);
}

static ito_sysop_t op;

static void kif(ito_frame_t *f, int e, uint64_t v)
{
    (void)e;
    (void)v;
    ito_sysreq_t q = {.op = op, .result = &res, .frame = f, .entry = 0};
    atomic_store(&post_rc_kif, ito_sys_post(&q));
}

static void user(ito_frame_t *f, int e, uint64_t v)
{
    (void)e;
    (void)v;
    ito_sysreq_t q = {.op = ITO_SYS_NOP, .result = &res, .frame = f, .entry = 0};
    atomic_store(&post_rc_user, ito_sys_post(&q));
}

static void round_(const char *backend)
{
    (void)backend;
    CHECK_OK(ito_frame_create(&fr, 3, 0));
    CHECK_OK(ito_entry_set(fr, 0, kern, 1, ITO_MODE_KERNEL));
    CHECK_OK(ito_entry_set(fr, 1, kif, 1, ITO_MODE_KERNEL_IF));
    CHECK_OK(ito_entry_set(fr, 2, user, 1, ITO_MODE_USER));
    /* 1 */
    res = 12345;
    ito_sysreq_t q = {.op = ITO_SYS_NOP, .result = &res, .frame = fr, .entry = 0};
    CHECK_EQ(ito_sys_post(&q), ITO_EPERM);
    ito_sysreq_t qs[2] = {{.op = ITO_SYS_NOP, .result = &res}, q};
    CHECK_EQ(ito_sys_wait_all(qs, 2), ITO_EPERM);
    CHECK_EQ(res, 12345);
    /* 2 */
    int thresholds[2] = {32, 1};
    for (int t = 0; t < 2; t++) {
        CHECK_OK(ito_wsc_set_threshold(thresholds[t]));
        for (int o = 0; o < 2; o++) {
            op = o ? ITO_SYS_GETPID : ITO_SYS_NOP;
            atomic_store(&fired, 0);
            atomic_store(&post_rc_kif, 1);
            res = 12345;
            CHECK_OK(ito_rearm(fr, 0, 0));
            CHECK_OK(ito_rearm(fr, 1, 0));
            CHECK_OK(ito_continue(fr, 1));
            uint64_t d = ito_deadline_in(5ull * 1000 * 1000 * 1000);
            while (atomic_load(&fired) == 0 && ito_now_ns() < d) CHECK_OK(ito_sleep_ns(100 * 1000));
            CHECK_EQ(atomic_load(&post_rc_kif), ITO_OK);
            CHECK_EQ(atomic_load(&fired), 1);
            CHECK_EQ((long)atomic_load(&got), o ? (long)getpid() : 0L);
            CHECK_EQ(res, o ? (long)getpid() : 0L);
        }
    }
    CHECK_OK(ito_wsc_set_threshold(32));
    /* 3 */
    atomic_store(&post_rc_user, 1);
    CHECK_OK(ito_continue(fr, 2));
    while (atomic_load(&post_rc_user) == 1) CHECK_OK(ito_sleep_ns(100 * 1000));
    CHECK_EQ(atomic_load(&post_rc_user), ITO_EPERM);
    CHECK_OK(ito_sleep_ns(10 * 1000 * 1000));
    CHECK_EQ(atomic_load(&fired), 1); /* nothing more */
    int rc;
    while ((rc = ito_frame_destroy(fr)) == ITO_EBUSY) CHECK_OK(ito_yield());
    CHECK_OK(rc);
}

int main(void)
{
    ito_test_each_backend(2, round_);
    TEST_DONE();
}
