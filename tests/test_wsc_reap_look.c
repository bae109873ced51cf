/* test_wsc_reap_look: the poller keeps one look at a frame across the completions of a
 * reap (src/wsc/area.c, wsc_poll; zwt.h, itoi_zlook_t), and closes it before the
 * continuations it took run. A receiver run after the reap destroys the frame that the
 * reap's last completion looked at (its entry counted down, not yet ready): the destroy
 * waits for every look at the frame, so a look still open there would make it wait for
 * ever (the watchdog fails the test). Checked too: the destroy succeeds (ITO_OK), the
 * destroyed frame's handle is refused afterwards, and a later request whose continuation
 * names it is refused at the post. Rounds alternate which frame comes first in the
 * bucket; both backends (on sync the flusher completes the bucket itself, no reap). */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ito/ito.h"
#include "ito_test.h"

#define ROUNDS 50

static ito_frame_t *victim;
static int destroy_rc;
static long res_a, res_b;

/* Frame A's entry 0: runs after the reap, destroys frame B, then ends the round. */
static void destroyer(ito_frame_t *f, int entry, uint64_t v)
{
    (void)entry;
    CHECK_EQ((long)v, 0);
    destroy_rc = ito_frame_destroy(victim);
    CHECK_OK(ito_continue(f, 1));
}

static void never(ito_frame_t *f, int entry, uint64_t v)
{
    (void)f;
    (void)entry;
    (void)v;
    CHECK(!"frame B's entry fired: its count was 2, one request");
}

static void post_nop(ito_frame_t *f, int entry, long *res)
{
    ito_sysreq_t q = {.op = ITO_SYS_NOP, .result = res, .frame = f, .entry = entry};
    CHECK_OK(ito_sys_post(&q));
}

static void round_(const char *backend)
{
    (void)backend;
    CHECK_OK(ito_wsc_set_threshold(2)); /* both requests in one bucket, one reap */
    for (int r = 0; r < ROUNDS; r++) {
        ito_frame_t *a, *b;
        CHECK_OK(ito_frame_create(&a, 2, 0));
        CHECK_OK(ito_entry_set(a, 0, destroyer, 1, ITO_MODE_USER));
        CHECK_OK(ito_entry_set(a, 1, NULL, 1, ITO_MODE_USER));
        CHECK_OK(ito_frame_create(&b, 1, 0));
        CHECK_OK(ito_entry_set(b, 0, never, 2, ITO_MODE_USER)); /* counted down, never ready */
        victim = b;
        destroy_rc = -12345;
        res_a = res_b = -9999;
        /* Mostly B last (the look the reap ends on is B's); every fourth round A last. */
        if (r % 4 == 3) {
            post_nop(b, 0, &res_b);
            post_nop(a, 0, &res_a);
        } else {
            post_nop(a, 0, &res_a);
            post_nop(b, 0, &res_b);
        }
        CHECK_OK(ito_frame_wait(a, 1));
        CHECK_OK(destroy_rc);
        CHECK_EQ(res_a, 0);
        CHECK_EQ(res_b, 0);
        CHECK_EQ(ito_rearm(b, 0, 1), ITO_EINVAL); /* destroyed: its handle is stale */
        ito_sysreq_t q = {.op = ITO_SYS_NOP, .frame = b, .entry = 0};
        CHECK_EQ(ito_sys_post(&q), ITO_EINVAL);
        CHECK_OK(ito_frame_destroy(a));
    }
    CHECK_OK(ito_wsc_set_threshold(32));
}

int main(void)
{
    static atomic_int done;
    ito_test_watchdog(&done, 60, "a destroy run after the reap waited for the reap's look");
    ito_test_each_backend(1, round_);
    ito_test_each_backend(2, round_);
    atomic_store(&done, 1);
    TEST_DONE();
}
