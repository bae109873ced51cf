/* test_sync_enter_destroy_locks: a ULT enters ito_mutex_lock, ito_rwlock_wrlock /
 * ito_rwlock_rdlock or ito_barrier_wait while another thread destroys the object. The
 * destroy may say ITO_OK only if the entering call then says ITO_EINVAL (it came too late)
 * or did its whole work before the destroy (the destroy's ITO_EBUSY until then). Before
 * the fix the call could pass the mark check before the destroy and take the object after
 * it: a lock said ITO_OK on a destroyed mutex or rwlock (its unlock then said ITO_EINVAL;
 * a second locker would have parked in it for ever), and a barrier waiter parked in the
 * destroyed barrier for ever. sync.h calls this use undefined ("destroyed when no ULT uses
 * them"), but the call can tell: the destroy takes the object under its lock (a mutex's
 * owner word, the rwlock's and barrier's mark) and the call checks there. The sem /
 * wait-group / cond / future half of this is test_sync_enter_destroy (h62d, 2026-12-05).
 *
 * Rounds: 6,000 per kind (1,500 in the sanitizer trees), or as many as 25 s allow on a
 * loaded machine with at least a quarter of them (ito_test_budget_t; the old code went
 * wrong 2-5 times in 6,000 mutex rounds). */
#define _GNU_SOURCE
#include <stdatomic.h>
#include "ito/ito.h"
#include "ito_test.h"

enum { MUTEX, WRLOCK, RDLOCK, BARRIER, KINDS };
static const char *names[KINDS] = {"mutex", "rwlock write", "rwlock read", "barrier"};

static ito_mutex_t m;
static ito_rwlock_t l;
static ito_barrier_t b;
static atomic_int go_, done_, lock_rc, unlock_rc;

static void *enter(void *arg)
{
    int kind = (int)(intptr_t)arg, r, u = ITO_OK;
    while (!atomic_load(&go_)) { }
    switch (kind) {
    case MUTEX:
        if ((r = ito_mutex_lock(&m)) == ITO_OK) u = ito_mutex_unlock(&m);
        break;
    case WRLOCK:
    case RDLOCK:
        r = kind == WRLOCK ? ito_rwlock_wrlock(&l) : ito_rwlock_rdlock(&l);
        if (r == ITO_OK) u = ito_rwlock_unlock(&l);
        break;
    default:
        r = ito_barrier_wait(&b);
        if (r == ITO_BARRIER_SERIAL) r = ITO_OK;
        break;
    }
    atomic_store(&lock_rc, r);
    atomic_store(&unlock_rc, u);
    atomic_store(&done_, 1);
    return NULL;
}

static int destroy(int kind)
{
    switch (kind) {
    case MUTEX: return ito_mutex_destroy(&m);
    case WRLOCK:
    case RDLOCK: return ito_rwlock_destroy(&l);
    default: {
        int r = ito_barrier_destroy(&b);
        /* the waiter arrived first (count 2): arrive too, which lets it through */
        if (r == ITO_EBUSY) CHECK(ito_barrier_wait(&b) >= 0);
        return r;
    }
    }
}

int main(void)
{
    CHECK_OK(ito_init(&(ito_config_t){.workers = 2}));
    long bad_all = 0;
    for (int kind = 0; kind < KINDS; kind++) {
        long late = 0, before = 0, bad = 0, rounds = ITO_TEST_SANITIZED ? 1500 : 6000;
        ito_test_budget_t budget;
        ito_test_budget_init(&budget, names[kind], rounds, rounds / 4, 25);
        for (int i = 0; ito_test_budget_more(&budget, i); i++) {
            CHECK_OK(ito_mutex_init(&m));
            CHECK_OK(ito_rwlock_init(&l));
            CHECK_OK(ito_barrier_init(&b, 2));
            atomic_store(&go_, 0);
            atomic_store(&done_, 0);
            ito_attr_t a;
            CHECK_OK(ito_attr_init(&a));
            a.worker = 1;
            ito_thread_t t;
            CHECK_OK(ito_create(&t, enter, (void *)(intptr_t)kind, &a));
            for (int j = 0; j < 2000; j++) __asm__ volatile("pause");
            atomic_store(&go_, 1);
            for (int j = 0; j < (int)(i % 64) * 4; j++) __asm__ volatile("pause");
            int r;
            while ((r = destroy(kind)) == ITO_EBUSY) { }
            CHECK_OK(r);
            /* the waiter must come out by itself: a parked one never does (bounded here
             * instead of a join that would hang the test) */
            uint64_t end = ito_now_ns() + 2000ull * 1000 * 1000;
            while (!atomic_load(&done_) && ito_now_ns() < end) ito_yield();
            if (!atomic_load(&done_)) {
                fprintf(stderr, "%s round %d: the waiter parked in the destroyed object\n", names[kind], i);
                CHECK(0);
            }
            CHECK_OK(ito_join(t, NULL));
            int lr = atomic_load(&lock_rc), ur = atomic_load(&unlock_rc);
            if (lr == ITO_EINVAL) late++;
            else if (lr == ITO_OK && ur == ITO_OK) before++;
            else {
                bad++;
                fprintf(stderr, "%s round %d: call %d, its unlock %d\n", names[kind], i, lr, ur);
            }
            if (kind != MUTEX) CHECK_OK(ito_mutex_destroy(&m));
            if (kind != WRLOCK && kind != RDLOCK) CHECK_OK(ito_rwlock_destroy(&l));
            if (kind != BARRIER) CHECK_OK(ito_barrier_destroy(&b));
        }
        fprintf(stderr, "%s: before the destroy %ld, ITO_EINVAL %ld, on the destroyed object %ld\n",
                names[kind], before, late, bad);
        bad_all += bad;
    }
    CHECK_EQ(bad_all, 0);
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
