/* ito_create_many of detached threads, when the issuer's own worker joined the message as
 * a helper (its scheduler context, while the issuer waited): the helper creates a slice
 * per call of its poller, and that worker's scheduler context ran again only when nothing
 * else was ready there; the issuer, done with its own indices and unable to split a
 * remainder under 2 * SLICE, yielded alone on that worker for ever (found by an outside
 * tester, h71c, 2026-12-07: a stress of bulk creation mixed with blocking threads).
 *
 * Made deterministic: worker 1 is kept busy by a spinner (it never joins). Main issues a
 * CHUNK bulk of N on 2 workers, so it claims [0, N/2); at index 64 its private_init
 * sleeps (on the issuer it may block), and worker 0's scheduler context, with nothing else
 * to run, joins the message through its poller and claims [N/2, N). Those threads are
 * slow (busy for 20 us each), so main wakes long before the helper is through; it makes
 * its own half, then splits the helper's remainder while it has 2 * SLICE left, and then
 * waits for the rest, which only the helper (worker 0's scheduler context) may make. */
#define _GNU_SOURCE
#include <ito/ito.h>

#include "ito_test.h"

#define N 1000

static atomic_int spinning, stop, done;
static atomic_long ran;
static _Atomic uint8_t seen[N];

static void *spinner(void *arg)
{
    (void)arg;
    atomic_store(&spinning, 1);
    while (!atomic_load(&stop)) {
    }
    return NULL;
}

static void *body(void *arg)
{
    (void)arg;
    if (ito_test_spawn_mark(seen, N) >= N / 2) ito_test_busy_ns(20000);
    atomic_fetch_add(&ran, 1);
    return NULL;
}

static void *priv(size_t i, void *common)
{
    if (i == 64 && ito_self() != NULL) CHECK_OK(ito_sleep_ns(1000000)); /* on the issuer */
    return common;
}

int main(void)
{
    ito_test_watchdog(&done, 10, "ito_create_many never returned (its own worker's helper stalled)");
    CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
    ito_attr_t at;
    CHECK_OK(ito_attr_init(&at));
    at.worker = 1;
    ito_thread_t sp;
    CHECK_OK(ito_create(&sp, spinner, NULL, &at));
    while (!atomic_load(&spinning)) CHECK_OK(ito_sleep_ns(100000));
    ito_spawn_attr_t a;
    CHECK_OK(ito_spawn_attr_init(&a));
    a.scheme = ITO_SPAWN_CHUNK;
    a.flags = ITO_ATTR_DETACHED;
    CHECK_OK(ito_create_many(N, body, NULL, 0, priv, NULL, NULL, &a));
    atomic_store(&stop, 1);
    CHECK_OK(ito_join(sp, NULL));
    while (atomic_load(&ran) < N) CHECK_OK(ito_sleep_ns(100000));
    CHECK_OK(ito_finalize());
    atomic_store(&done, 1);
    TEST_DONE();
}
