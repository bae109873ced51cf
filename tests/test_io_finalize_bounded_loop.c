/* test_io_finalize_bounded_loop: ito_finalize cancels a ULT that waits in a loop with a
 * timeout shorter than the grace period (src/core/runtime.c progress, src/wsc/area.c
 * itoi_wsc_complete), both backends, 1 and 2 workers. syscall.h: "A ULT's I/O deadline
 * or an ito_poll timeout does not delay this (it bounds the wait, it is not work)".
 * Found on 2026-12-04 by a server tester: an accept loop that polls with a timeout to
 * look at a stop flag, or a connection that renews its idle deadline and waits again,
 * kept finalize waiting for ever: each expiry woke the ULT and completed its request,
 * and both counted as progress, so the grace period never ran out (the default grace of
 * 1 s with a 200 ms poll timeout: 3 of 3 runs hung; with one worker also the latency
 * bound's flush timer, armed after each re-post, counted as pending work).
 * Each part: a ULT loops over {ito_poll with a timeout | ito_read with an I/O deadline}
 * of an empty pipe, going on after each timeout; finalize (grace 100 ms) must cancel it
 * (ECANCELED) and return ITO_OK (before: never). */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static int p[2], use_deadline, tmo_ms;
static _Atomic long loops, end_err;
static atomic_int finished_all;

static void *waiter(void *arg)
{
    (void)arg;
    char c;
    for (;;) {
        int r;
        if (use_deadline) {
            CHECK_OK(ito_io_deadline(ito_deadline_in((uint64_t)tmo_ms * 1000000)));
            r = (int)ito_read(p[0], &c, 1);
        } else {
            struct pollfd f = {p[0], POLLIN, 0};
            r = ito_poll(&f, 1, tmo_ms);
            CHECK(r <= 0);
        }
        atomic_fetch_add(&loops, 1);
        if (r < 0 && errno != ETIMEDOUT) {
            atomic_store(&end_err, errno);
            return NULL;
        }
    }
}

static void run(const char *backend, int workers, int deadline, int tmo)
{
    use_deadline = deadline;
    tmo_ms = tmo;
    atomic_store(&loops, 0);
    atomic_store(&end_err, 0);
    CHECK_EQ(pipe(p), 0);
    CHECK_OK(setenv("ITO_WSC_BACKEND", backend, 1));
    CHECK_OK(setenv("ITO_FINALIZE_GRACE_MS", "100", 1));
    CHECK_OK(ito_init(&(ito_config_t){.workers = workers}));
    ito_attr_t a;
    CHECK_OK(ito_attr_init(&a));
    a.flags = ITO_ATTR_DETACHED;
    CHECK_OK(ito_create(NULL, waiter, NULL, &a));
    CHECK_OK(ito_sleep_ns(30000000));
    CHECK_OK(ito_finalize()); /* a hang is the failure: the watchdog's 60 s for all parts */
    CHECK_EQ(atomic_load(&end_err), ECANCELED);
    close(p[0]);
    close(p[1]);
    CHECK_OK(unsetenv("ITO_FINALIZE_GRACE_MS"));
    CHECK_OK(unsetenv("ITO_WSC_BACKEND"));
}

int main(void)
{
    ito_test_watchdog(&finished_all, 60, "test_io_finalize_bounded_loop: ito_finalize did not return");
    for (int b = 0; b < ITO_TEST_NBACKENDS; b++)
        for (int workers = 1; workers <= 2; workers++)
            for (int deadline = 0; deadline <= 1; deadline++)
                for (int tmo = 2; tmo <= 20; tmo *= 10) run(ito_test_backends[b], workers, deadline, tmo);
    atomic_store(&finished_all, 1);
    TEST_DONE();
}
