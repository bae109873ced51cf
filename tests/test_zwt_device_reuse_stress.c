/* test_zwt_device_reuse_stress: timer devices delivering to code-less entries that ULTs
 * wait on (timed and untimed) and to entries with code that ack from the ZWT, on 2
 * workers, while frames are destroyed (masked or closed device: the documented ways) and
 * their memory taken at once by frames of another shape (1 entry + data) whose data is
 * checked. Outside tester h64g, 2026-12-06. Promises: every wait ends with ITO_OK or
 * ITO_ETIMEDOUT; deliveries == firings seen (none lost or doubled); data is the program's. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ito/ito.h"
#include "ito_test.h"

#define NU 6
#define NE 6
#define SECS 8

static _Atomic long n_bad, n_ok, n_to, n_zwt, n_rounds, n_same, n_dirty;
static _Atomic int stop;
static ito_device_t *zdev[NU];
static _Atomic long zruns[NU];
static _Atomic int closing[NU];
static _Atomic int inflight[NU];
static ito_frame_t *_Atomic zframe[NU];
static _Atomic long n_stale;

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void bad(const char *what, long u, int rc)
{
    fprintf(stderr, "u%ld: %s rc %d\n", u, what, rc);
    atomic_fetch_add(&n_bad, 1);
}

static void handler(ito_frame_t *f, int e, uint64_t v)
{
    (void)v;
    long u = e; /* entry index == ULT id for the ZWT variant (NE >= NU) */
    atomic_fetch_add(&inflight[u], 1);
    if (atomic_load(&closing[u]) || atomic_load(&zframe[u]) != f) {
        atomic_fetch_add(&n_stale, 1);
        atomic_fetch_sub(&inflight[u], 1);
        return;
    }
    atomic_fetch_add(&zruns[u], 1);
    atomic_fetch_add(&n_zwt, 1);
    int rc = ito_device_ack(zdev[u]);
    if (rc != ITO_OK && !(rc == ITO_EINVAL && atomic_load(&closing[u]))) {
        uint64_t dl = 0, rf = 0;
        int src = ito_device_stats(zdev[u], &dl, &rf);
        fprintf(stderr, "u%ld: zwt ack rc %d: value %lu runs %ld, stats rc %d delivered %lu refused %lu\n", u, rc,
                (unsigned long)v, atomic_load(&zruns[u]), src, (unsigned long)dl, (unsigned long)rf);
        atomic_fetch_add(&n_bad, 1);
    }
    atomic_fetch_sub(&inflight[u], 1);
}

static size_t bdata_same;

static void *ult(void *arg)
{
    long u = (long)arg;
    uint64_t s = 0x9e3779b97f4a7c15ull * (uint64_t)(u + 1);
    while (!atomic_load(&stop)) {
        uint64_t r = rnd(&s);
        ito_frame_t *a;
        int rc = ito_frame_create(&a, NE, 0);
        if (rc != ITO_OK) { bad("create", u, rc); break; }
        int k = (int)(r % NE);
        bool zwt = (r >> 8) % 3 == 0;
        if (zwt) k = (int)u;
        for (int i = 0; i < NE; i++) CHECK_OK(ito_entry_set(a, i, (zwt && i == k) ? handler : NULL, 1, ITO_MODE_USER));
        ito_device_t *d;
        uint64_t period = 5000 + (r >> 16) % 40000;
        bool oneshot = (r >> 30) & 1;
        /* a ZWT of an earlier round may still start late (between its run's start and its
         * count in inflight): it must not take this round for its own */
        atomic_store(&zframe[u], zwt ? a : NULL);
        if (zwt) atomic_store(&zruns[u], 0);
        atomic_store(&closing[u], 0);
        rc = ito_device_timer(0, a, k, &d);
        if (rc != ITO_OK) { bad("timer", u, rc); break; }
        if (zwt) zdev[u] = d;
        CHECK_OK(ito_device_timer_set(d, period, oneshot ? 0 : period));
        long oks = 0;
        bool masked = false;
        if (!zwt) {
            int m = 1 + (int)((r >> 40) % 6);
            for (int it = 0; it < m; it++) {
                uint64_t rr = rnd(&s);
                if (oneshot && it > 0) CHECK_OK(ito_device_timer_set(d, 1000 + rr % 30000, 0));
                for (;;) {
                    rc = (rr & 3) == 0 ? ito_frame_wait(a, k) : ito_frame_wait_until(a, k, ito_now_ns() + rr % 30000);
                    if (rc == ITO_OK) break;
                    if (rc != ITO_ETIMEDOUT) { bad("wait", u, rc); break; }
                    atomic_fetch_add(&n_to, 1);
                    rr = rnd(&s);
                }
                if (rc != ITO_OK) break;
                oks++;
                atomic_fetch_add(&n_ok, 1);
                if (it + 1 < m) {
                    rc = ito_device_ack(d);
                    if (rc != ITO_OK) bad("ack", u, rc);
                } else {
                    masked = true;
                }
            }
        } else {
            long want = 1 + (long)((r >> 40) % 5);
            if (oneshot) want = 1;
            uint64_t t0 = ito_now_ns();
            while (atomic_load(&zruns[u]) < want) {
                if (ito_now_ns() - t0 > 5000000000ull) { bad("zwt never ran enough", u, 0); break; }
                ito_yield();
            }
        }
        uint64_t dl = 0, rf = 0;
        if (masked) {
            CHECK_OK(ito_device_stats(d, &dl, &rf));
            if ((long)dl != oks || rf != 0) {
                fprintf(stderr, "u%ld: delivered %lu refused %lu, waits ok %ld\n", u, (unsigned long)dl, (unsigned long)rf, oks);
                atomic_fetch_add(&n_bad, 1);
            }
        }
        /* destroy: masked device (documented safe) or after close */
        bool close_first = !masked || (r >> 50) & 1;
        atomic_store(&closing[u], 1);
        while (atomic_load(&inflight[u])) ito_yield(); /* no ZWT acks d once it is closed (its slot may be another's) */
        if (close_first) CHECK_OK(ito_device_close(d));
        for (int t = 0; (rc = ito_frame_destroy(a)) == ITO_EBUSY && t < 1000000; t++) ito_yield();
        if (rc != ITO_OK) bad("destroy", u, rc);
        if (zwt && !close_first) bad("impossible", u, 0);
        if (zwt) {
            for (int y = 0; y < 4; y++) ito_yield();
            while (atomic_load(&inflight[u])) ito_yield();
        }
        ito_frame_t *b;
        size_t bdata = bdata_same;
        rc = ito_frame_create(&b, 1, bdata);
        if (rc != ITO_OK) { bad("create b", u, rc); break; }
        if (((uintptr_t)b & 0xffffffffffffull) == ((uintptr_t)a & 0xffffffffffffull)) atomic_fetch_add(&n_same, 1);
        unsigned char *p = ito_frame_data(b);
        unsigned char pat = (unsigned char)(0x11 + u);
        memset(p, pat, bdata);
        if (!close_first) {
            rc = ito_device_ack(d); /* handler frame destroyed: EINVAL */
            if (rc != ITO_EINVAL) bad("ack after destroy", u, rc);
            ito_yield();
            CHECK_OK(ito_device_close(d));
        }
        for (int y = 0; y < 3; y++) ito_yield();
        for (size_t i = 0; i < bdata; i++)
            if (p[i] != pat) { atomic_fetch_add(&n_dirty, 1); fprintf(stderr, "u%ld dirty at %zu: %02x\n", u, i, p[i]); break; }
        CHECK_OK(ito_frame_destroy(b));
        atomic_fetch_add(&n_rounds, 1);
    }
    return NULL;
}

int main(void)
{
    static atomic_int done;
    ito_test_watchdog(&done, 60, "test_zwt_device_reuse_stress");
    CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
    bdata_same = ito_test_same_class_data(NE);
    printf("B: 1 entry, %zu bytes of data\n", bdata_same);
    CHECK(bdata_same > 0);
    ito_thread_t t[NU];
    for (long i = 0; i < NU; i++) CHECK_OK(ito_create(&t[i], ult, (void *)i, NULL));
    ito_sleep_ns((uint64_t)SECS * 1000000000ull);
    atomic_store(&stop, 1);
    for (int i = 0; i < NU; i++) CHECK_OK(ito_join(t[i], NULL));
    printf("stale zwt runs %ld\n", atomic_load(&n_stale));
    printf("rounds %ld same-memory %ld waits ok %ld timeouts %ld zwt runs %ld bad %ld dirty %ld\n", atomic_load(&n_rounds),
           atomic_load(&n_same), atomic_load(&n_ok), atomic_load(&n_to), atomic_load(&n_zwt), atomic_load(&n_bad),
           atomic_load(&n_dirty));
    CHECK_EQ(atomic_load(&n_bad), 0);
    CHECK_EQ(atomic_load(&n_dirty), 0);
    CHECK_OK(ito_finalize());
    atomic_store(&done, 1);
    TEST_DONE();
}
