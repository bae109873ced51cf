/* test_sync_double_destroy: two threads destroy the same synchronization object at once.
 * sync.h: every call but init gives ITO_EINVAL for storage that was destroyed, "a second
 * destroy too"; so of two destroys exactly one may say ITO_OK (as ito_stream_destroy and
 * ito_chan_destroy promise). Found by an outside tester, h62d, 2026-12-05: both said ITO_OK
 * (the mark was checked before the lock, cleared after it, by plain accesses that TSan
 * also reports racing with a concurrent call's check). Runs without a runtime: destroy
 * works from any thread. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "ito/ito.h"
#include "ito_test.h"

#define ROUNDS 50000

enum { K_SEM, K_MUTEX, K_COND, K_RW, K_BAR, K_WG, K_FUT, NK };
static union {
    ito_sem_t s;
    ito_mutex_t m;
    ito_cond_t c;
    ito_rwlock_t l;
    ito_barrier_t b;
    ito_waitgroup_t w;
    ito_future_t f;
} o;
static atomic_int kind, gate, oks;
static atomic_long arrived;

static int destroy(int k)
{
    switch (k) {
    case K_SEM: return ito_sem_destroy(&o.s);
    case K_MUTEX: return ito_mutex_destroy(&o.m);
    case K_COND: return ito_cond_destroy(&o.c);
    case K_RW: return ito_rwlock_destroy(&o.l);
    case K_BAR: return ito_barrier_destroy(&o.b);
    case K_WG: return ito_waitgroup_destroy(&o.w);
    default: return ito_future_destroy(&o.f);
    }
}

static void *other(void *arg)
{
    (void)arg;
    for (long r = 1; r <= ROUNDS; r++) {
        while (atomic_load(&gate) != (int)(r & 0x7fffffff)) { }
        int rc = destroy(atomic_load(&kind));
        CHECK(rc == ITO_OK || rc == ITO_EINVAL);
        if (rc == ITO_OK) atomic_fetch_add(&oks, 1);
        atomic_fetch_add(&arrived, 1);
    }
    return NULL;
}

int main(void)
{
    pthread_t p;
    CHECK(pthread_create(&p, NULL, other, NULL) == 0);
    long both = 0;
    for (long r = 1; r <= ROUNDS; r++) {
        int k = (int)(r % NK);
        switch (k) {
        case K_SEM: CHECK_OK(ito_sem_init(&o.s, 0)); break;
        case K_MUTEX: CHECK_OK(ito_mutex_init(&o.m)); break;
        case K_COND: CHECK_OK(ito_cond_init(&o.c)); break;
        case K_RW: CHECK_OK(ito_rwlock_init(&o.l)); break;
        case K_BAR: CHECK_OK(ito_barrier_init(&o.b, 2)); break;
        case K_WG: CHECK_OK(ito_waitgroup_init(&o.w)); break;
        default: CHECK_OK(ito_future_init(&o.f)); break;
        }
        atomic_store(&kind, k);
        atomic_store(&oks, 0);
        atomic_store(&gate, (int)(r & 0x7fffffff));
        int rc = destroy(k);
        CHECK(rc == ITO_OK || rc == ITO_EINVAL);
        while (atomic_load(&arrived) != r) { }
        int n = atomic_load(&oks) + (rc == ITO_OK);
        if (n != 1) both++;
    }
    CHECK(pthread_join(p, NULL) == 0);
    if (both) fprintf(stderr, "%ld of %d rounds: both destroys said ITO_OK (or none)\n", both, ROUNDS);
    CHECK_EQ(both, 0);
    TEST_DONE();
}
