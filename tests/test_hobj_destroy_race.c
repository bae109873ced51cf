/* test_hobj_destroy_race: a stream or channel handle destroyed by one thread while another
 * destroys it too, or calls into it, never frees anything twice nor touches freed memory
 * (error.h: a destroyed handle is ITO_EINVAL, never a read of freed memory).
 *
 * Found by a misuse fuzzer (2026-12-03). Both destroys passed the handle check before
 * either retired the slot: both said ITO_OK, the buffer was freed twice and the slot went
 * on the free list twice (later two live objects in one slot). A try-call racing a destroy
 * locked the object's lock after the destroy and wrote it while it was the free list's
 * link, then read the freed ring (ASan: heap-use-after-free), and a later create crashed
 * on the corrupted free list. Now the lock lives in the slot's header and the destroy
 * retires the handle under it; every call checks the handle again once it holds it.
 *
 * Part 3: ito_stream_try_get(s, NULL, 0, &got) on a non-empty stream (allowed by sync.h)
 * passed NULL to memcpy (UBSan in the ASan tree).
 *
 * Part 4 (found by a reviewer of the fix): a getter or putter woken (by a put, a get or a
 * close) but not yet run is on no wait queue, and the destroy, which looked at the queues
 * only, said ITO_OK; the waiter then took the lock again and went on with the destroyed
 * stream (or the next stream in its slot: a getter read that stream's bytes, a putter
 * wrote over the next slot's header). On one worker the woken ULT cannot run before the
 * destroy, so this is deterministic: the destroy must say ITO_EBUSY.
 *
 * Parts 1 and 2 run ROUNDS and 4 * ROUNDS rounds per kind, or on a loaded machine (three
 * spinning threads on two CPUs) as many as 25 s allow, a quarter of them at least
 * (ito_test_budget_t). */
#define _GNU_SOURCE /* CLOCK_MONOTONIC (ito_test_budget_t) */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "ito/ito.h"
#include "ito_test.h"

#if defined(ITOI_ASAN) || defined(ITOI_TSAN)
#define ROUNDS 2000
#else
#define ROUNDS 10000
#endif

typedef struct kind {
    const char *name;
    int (*create)(void **out);
    int (*destroy)(void *h);
    void (*poke)(void *h); /* every call a foreign thread may make, results ignored */
} kind_t;

static int s_create(void **out) { return ito_stream_create((ito_stream_t **)out, 64); }
static int s_destroy(void *h) { return ito_stream_destroy(h); }
static void s_poke(void *h)
{
    char buf[16] = {0};
    size_t n;
    uint64_t a, b;
    (void)ito_stream_try_put(h, buf, sizeof buf, &n);
    (void)ito_stream_try_get(h, buf, sizeof buf, &n);
    (void)ito_stream_stats(h, &a, &b);
    (void)ito_stream_close(h);
}
static int c_create(void **out) { return ito_chan_create((ito_chan_t **)out, 8, 4); }
static int c_destroy(void *h) { return ito_chan_destroy(h); }
static void c_poke(void *h)
{
    uint64_t item = 7;
    ito_chan_stats_t st;
    (void)ito_chan_try_send(h, &item);
    (void)ito_chan_try_recv(h, &item);
    (void)ito_chan_stats(h, &st);
    (void)ito_chan_close(h);
}

static const kind_t kinds[] = {{"stream", s_create, s_destroy, s_poke}, {"chan", c_create, c_destroy, c_poke}};

/* ---- part 1: two destroyers of one handle ---- */

static const kind_t *cur_kind;
static _Atomic(void *) cur;
static _Atomic int round_go, round_done, stop;
static _Atomic int oks, others;

static void *destroyer(void *arg)
{
    (void)arg;
    for (int seen = 0;;) {
        int g;
        while ((g = atomic_load(&round_go)) == seen) {
            if (atomic_load(&stop)) return NULL;
            sched_yield(); /* three spinners on two CPUs: let the others run */
        }
        seen = g;
        int rc = cur_kind->destroy(atomic_load(&cur));
        if (rc == ITO_OK) atomic_fetch_add(&oks, 1);
        else if (rc != ITO_EINVAL) atomic_fetch_add(&others, 1);
        atomic_fetch_add(&round_done, 1);
    }
}

static void double_destroy(const kind_t *k)
{
    char what[64];
    snprintf(what, sizeof what, "%s, two destroyers", k->name);
    ito_test_budget_t budget;
    ito_test_budget_init(&budget, what, ROUNDS, ROUNDS / 4, 25);
    cur_kind = k;
    atomic_store(&stop, 0);
    atomic_store(&round_go, 0);
    pthread_t a, b;
    CHECK_EQ(pthread_create(&a, NULL, destroyer, NULL), 0);
    CHECK_EQ(pthread_create(&b, NULL, destroyer, NULL), 0);
    for (int i = 1; ito_test_budget_more(&budget, i - 1); i++) {
        void *h;
        CHECK_OK(k->create(&h));
        atomic_store(&cur, h);
        atomic_store(&oks, 0);
        atomic_store(&round_done, 0);
        atomic_store(&round_go, i);
        while (atomic_load(&round_done) < 2) sched_yield();
        if (atomic_load(&oks) != 1) fprintf(stderr, "%s round %d: %d destroys said ITO_OK\n", k->name, i, atomic_load(&oks));
        CHECK_EQ(atomic_load(&oks), 1); /* exactly one of the two destroyed it */
        CHECK_EQ(atomic_load(&others), 0);
        CHECK_EQ(k->destroy(h), ITO_EINVAL);
    }
    atomic_store(&stop, 1);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
}

/* ---- part 2: a foreign thread calls into handles another thread destroys ---- */

static void *poker(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop)) {
        void *h = atomic_load(&cur);
        if (h) cur_kind->poke(h);
    }
    return NULL;
}

/* Live objects never share a slot: the free list was not corrupted. */
static void check_distinct(const kind_t *k)
{
    void *live[64];
    for (int j = 0; j < 64; j++) CHECK_OK(k->create(&live[j]));
    for (int j = 0; j < 64; j++)
        for (int i = 0; i < j; i++) CHECK(((uintptr_t)live[i] & 0xffffffffffffu) != ((uintptr_t)live[j] & 0xffffffffffffu));
    for (int j = 0; j < 64; j++) CHECK_OK(k->destroy(live[j]));
}

static void destroy_under_calls(const kind_t *k)
{
    char what[64];
    snprintf(what, sizeof what, "%s, destroyed under calls", k->name);
    ito_test_budget_t budget;
    ito_test_budget_init(&budget, what, 4 * ROUNDS, ROUNDS, 25);
    cur_kind = k;
    atomic_store(&cur, NULL);
    atomic_store(&stop, 0);
    pthread_t p;
    CHECK_EQ(pthread_create(&p, NULL, poker, NULL), 0);
    for (int i = 0; ito_test_budget_more(&budget, i); i++) {
        void *h;
        CHECK_OK(k->create(&h));
        atomic_store(&cur, h);
        for (volatile int spin = 0; spin < 50; spin++) {
        }
        int rc = k->destroy(h); /* nobody waits in it: only try-calls */
        CHECK_EQ(rc, ITO_OK);
        if (i % 1000 == 0) check_distinct(k);
    }
    atomic_store(&stop, 1);
    pthread_join(p, NULL);
    check_distinct(k);
}

/* ---- part 4: a woken waiter that has not run yet ---- */

static ito_stream_t *ws;
static int wrc;
static size_t wgot;

static void *w_get(void *unused)
{
    (void)unused;
    char b[16];
    wrc = ito_stream_get(ws, b, sizeof b, &wgot);
    return NULL;
}

static void *w_put(void *unused)
{
    (void)unused;
    wrc = ito_stream_put(ws, "PPPPPPPP", 8); /* more than the room left: it waits */
    return NULL;
}

/* Yield until the waiter is parked (its blocked count moved). */
static void until_blocked(bool put)
{
    for (int i = 0; i < 100000; i++) {
        uint64_t p = 0, g = 0;
        CHECK_OK(ito_stream_stats(ws, &p, &g));
        if (put ? p : g) return;
        ito_yield();
    }
    CHECK(!"the waiter never blocked");
}

/* how: 0 a put wakes the getter, 1 a close wakes it, 2 a get wakes the putter */
static void woken_then_destroyed(int how)
{
    size_t n;
    char b[16];
    ito_thread_t t;
    CHECK_OK(ito_stream_create(&ws, 8));
    if (how == 2) CHECK_OK(ito_stream_try_put(ws, "1234", 4, &n));
    CHECK_OK(ito_create(&t, how == 2 ? w_put : w_get, NULL, NULL));
    until_blocked(how == 2);
    if (how == 0) CHECK_OK(ito_stream_try_put(ws, "AAAA", 4, &n));
    if (how == 1) CHECK_OK(ito_stream_close(ws));
    if (how == 2) CHECK_OK(ito_stream_try_get(ws, b, 4, &n));
    CHECK_EQ(ito_stream_destroy(ws), ITO_EBUSY); /* the woken ULT has not run: one worker */
    CHECK_OK(ito_join(t, NULL));
    CHECK_EQ(wrc, how == 1 ? ITO_ECLOSED : ITO_OK);
    if (how == 0) CHECK_EQ(wgot, 4);
    CHECK_OK(ito_stream_destroy(ws));
}

int main(void)
{
    ito_config_t one = {.workers = 1};
    CHECK_OK(ito_init(&one));
    for (int how = 0; how < 3; how++) woken_then_destroyed(how);
    CHECK_OK(ito_finalize());

    CHECK_OK(ito_init(NULL));
    for (int i = 0; i < 2; i++) {
        double_destroy(&kinds[i]);
        destroy_under_calls(&kinds[i]);
    }

    /* part 3: a zero-length try_get with a NULL buffer */
    ito_stream_t *s;
    size_t n = 99;
    CHECK_OK(ito_stream_create(&s, 16));
    CHECK_OK(ito_stream_try_put(s, "abcd", 4, &n));
    CHECK_EQ(n, 4);
    CHECK_OK(ito_stream_try_get(s, NULL, 0, &n));
    CHECK_EQ(n, 0);
    char out[4];
    CHECK_OK(ito_stream_try_get(s, out, sizeof out, &n));
    CHECK_EQ(n, 4);
    CHECK(memcmp(out, "abcd", 4) == 0);
    CHECK_OK(ito_stream_destroy(s));

    CHECK_OK(ito_finalize());
    TEST_DONE();
}
