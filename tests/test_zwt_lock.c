/* test_zwt_lock: thread locks under contention (the paper's Fig. 6: many ZWTs compete
 * for one entry with trylock, and retry by continuing to themselves), the mode rule
 * between user, kernel and kernel-interface threads, bad input, and ULT<->ZWT interop
 * both ways (ULTs and foreign kernel threads fire ZWTs; ZWTs wake blocked ULTs). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "ito/ito.h"
#include "ito_test.h"

/* ---- lock contention ---- */
#define NC 64      /* contenders */
#define ROUNDS 200 /* critical sections each */
enum { D = NC, JOIN = NC + 1, LF = NC + 2 };

struct shared {
    long in_d;             /* plain: only the holder of D's lock touches it */
    uint64_t value_sum;    /* plain, likewise */
    int wins[NC];          /* per contender: written only by that contender's ZWT */
};
static _Atomic int inside;
static _Atomic long retries;

/* Thread D: the critical thread. Runs only while locked; re-arms itself, then unlocks. */
static void thread_d(ito_frame_t *f, int entry, uint64_t v)
{
    struct shared *s = ito_frame_data(f);
    CHECK_EQ(atomic_exchange(&inside, 1), 0);
    s->in_d++;
    s->value_sum += v;
    atomic_store(&inside, 0);
    CHECK_OK(ito_rearm(f, entry, 0)); /* self-continuation: wait for the next caller */
    CHECK_OK(ito_unlock(f, entry));
}

/* Contender i: lock D and continue to it, ROUNDS times; when D is taken, retry. */
static void contender(ito_frame_t *f, int i, uint64_t v)
{
    (void)v;
    struct shared *s = ito_frame_data(f);
    if (ito_trylock(f, D) != ITO_OK) {
        atomic_fetch_add_explicit(&retries, 1, memory_order_relaxed);
        CHECK_OK(ito_zwt_retry());
        return;
    }
    CHECK_OK(ito_continue_value(f, D, (uint64_t)i + 1));
    if (++s->wins[i] < ROUNDS) CHECK_OK(ito_zwt_retry());
    else CHECK_OK(ito_continue(f, JOIN));
}

static void lock_contention(void)
{
    ito_frame_t *f;
    CHECK_OK(ito_frame_create(&f, LF, sizeof(struct shared)));
    for (int i = 0; i < NC; i++) CHECK_OK(ito_entry_set(f, i, contender, 1, ITO_MODE_USER));
    CHECK_OK(ito_entry_set(f, D, thread_d, 1, ITO_MODE_USER));
    CHECK_OK(ito_entry_set(f, JOIN, NULL, NC, ITO_MODE_USER));
    for (int i = 0; i < NC; i++) CHECK_OK(ito_continue(f, i));
    CHECK_OK(ito_frame_wait(f, JOIN));
    /* The last D may still be running after the last contender joined: wait for the lock. */
    while (ito_trylock(f, D) != ITO_OK) ito_yield();
    struct shared *s = ito_frame_data(f);
    CHECK_EQ(s->in_d, (long)NC * ROUNDS);
    CHECK_EQ(s->value_sum, (uint64_t)ROUNDS * NC * (NC + 1) / 2);
    for (int i = 0; i < NC; i++) CHECK_EQ(s->wins[i], ROUNDS);
    printf("lock contention: %d critical sections, %ld failed trylocks (retries)\n", NC * ROUNDS,
           atomic_load(&retries));
    CHECK_OK(ito_unlock(f, D));
    CHECK_OK(ito_frame_destroy(f));
}

/* ---- the mode rule ---- */
enum { M_USER, M_KERNEL, M_KIF, M_PROBE, M_DONE, M_N };
static int mode_rc[4]; /* [0] user ZWT -> kernel, [3] foreign thread -> kernel */
static void m_kernel(ito_frame_t *f, int e, uint64_t v)
{
    (void)e;
    if (v == 1) CHECK_OK(ito_continue(f, M_DONE)); /* kernel -> user: allowed */
}
static void m_kif(ito_frame_t *f, int e, uint64_t v)
{
    (void)e;
    (void)v;
    CHECK_OK(ito_continue_value(f, M_KERNEL, 1)); /* kernel-interface -> kernel */
}
static void m_user(ito_frame_t *f, int e, uint64_t v)
{
    (void)e;
    (void)v;
    mode_rc[0] = ito_continue(f, M_KERNEL);   /* user ZWT -> kernel: refused */
    CHECK_OK(ito_continue(f, M_KIF));         /* user ZWT -> kernel-interface */
}
static void *foreign_kernel(void *arg)
{
    mode_rc[3] = ito_continue(arg, M_KERNEL);
    return NULL;
}

static void mode_rule(void)
{
    ito_frame_t *f;
    CHECK_OK(ito_frame_create(&f, M_N, 0));
    CHECK_OK(ito_entry_set(f, M_USER, m_user, 1, ITO_MODE_USER));
    CHECK_OK(ito_entry_set(f, M_KERNEL, m_kernel, 1, ITO_MODE_KERNEL));
    CHECK_OK(ito_entry_set(f, M_KIF, m_kif, 1, ITO_MODE_KERNEL_IF));
    CHECK_OK(ito_entry_set(f, M_DONE, NULL, 1, ITO_MODE_USER));
    CHECK_EQ(ito_continue(f, M_KERNEL), ITO_EPERM); /* ULT -> kernel */
    pthread_t th;
    CHECK_EQ(pthread_create(&th, NULL, foreign_kernel, f), 0);
    CHECK_EQ(pthread_join(th, NULL), 0);
    CHECK_EQ(mode_rc[3], ITO_EPERM);               /* foreign thread -> kernel */
    CHECK_OK(ito_continue(f, M_USER));
    CHECK_OK(ito_frame_wait(f, M_DONE));
    CHECK_EQ(mode_rc[0], ITO_EPERM);
    /* the refused continuation did not count: the kernel entry fired exactly once */
    CHECK_EQ(ito_continue_value(f, M_KERNEL, 0), ITO_EPERM);
    CHECK_OK(ito_frame_destroy(f));
}

/* ---- bad input ---- */
static void nop(ito_frame_t *f, int e, uint64_t v) { (void)f; (void)e; (void)v; }
static void *foreign_wait(void *arg)
{
    return (void *)(intptr_t)ito_frame_wait(arg, 1);
}

static void bad_input(void)
{
    ito_frame_t *f, *g;
    CHECK_OK(ito_frame_create(&f, 4, 16));
    CHECK_OK(ito_entry_set(f, 0, NULL, 2, ITO_MODE_USER));
    CHECK_OK(ito_entry_set(f, 1, NULL, 1, ITO_MODE_USER));
    CHECK_OK(ito_entry_set(f, 2, nop, 1, ITO_MODE_USER));
    /* over-continuation: fan-in 2 takes two, the third is refused and changes nothing */
    CHECK_OK(ito_continue(f, 0));
    CHECK_OK(ito_continue(f, 0));
    CHECK_EQ(ito_continue(f, 0), ITO_ESTATE);
    CHECK_EQ(ito_continue_value(f, 0, 5), ITO_ESTATE);
    CHECK_OK(ito_frame_wait(f, 0)); /* it fired once */
    CHECK_OK(ito_rearm(f, 0, 1));
    CHECK_OK(ito_continue(f, 0));
    CHECK_EQ(ito_continue(f, 0), ITO_ESTATE);
    CHECK_EQ(ito_continue(f, 3), ITO_ESTATE); /* never defined */
    CHECK_EQ(ito_rearm(f, 3, 0), ITO_ESTATE);
    CHECK_EQ(ito_rearm(f, 0, (1u << 30) + 1), ITO_EINVAL);
    /* out-of-range entries, everywhere */
    CHECK_EQ(ito_continue(f, 4), ITO_ERANGE);
    CHECK_EQ(ito_continue_value(f, -1, 1), ITO_ERANGE);
    CHECK_EQ(ito_rearm(f, 4, 0), ITO_ERANGE);
    CHECK_EQ(ito_trylock(f, 4), ITO_ERANGE);
    CHECK_EQ(ito_unlock(f, -2), ITO_ERANGE);
    CHECK_EQ(ito_entry_set(f, 4, nop, 1, ITO_MODE_USER), ITO_ERANGE);
    CHECK_EQ(ito_frame_wait(f, 99), ITO_ERANGE);
    /* waits: only code-less entries, one ULT waiter, only from ULTs */
    CHECK_EQ(ito_frame_wait(f, 2), ITO_EINVAL);
    pthread_t th;
    void *ret;
    CHECK_EQ(pthread_create(&th, NULL, foreign_wait, f), 0);
    CHECK_EQ(pthread_join(th, &ret), 0);
    CHECK_EQ((intptr_t)ret, ITO_ENOTULT);
    /* outside a ZWT */
    int e;
    CHECK_EQ(ito_zwt_self(&g, &e), ITO_EPERM);
    CHECK_EQ(ito_zwt_retry(), ITO_EPERM);
    CHECK_EQ(ito_zwt_self(NULL, &e), ITO_EINVAL);
    CHECK_EQ(ito_frame_create(&g, ITO_FRAME_MAX_ENTRIES + 1, 0), ITO_EINVAL);
    CHECK_EQ(ito_frame_create(NULL, 1, 0), ITO_EINVAL);
    /* a freed frame: every call refuses it */
    CHECK_OK(ito_frame_destroy(f));
    CHECK_EQ(ito_continue(f, 1), ITO_EINVAL);
    CHECK_EQ(ito_continue_value(f, 1, 3), ITO_EINVAL);
    CHECK_EQ(ito_rearm(f, 1, 0), ITO_EINVAL);
    CHECK_EQ(ito_trylock(f, 1), ITO_EINVAL);
    CHECK_EQ(ito_unlock(f, 1), ITO_EINVAL);
    CHECK_EQ(ito_entry_set(f, 1, nop, 1, ITO_MODE_USER), ITO_EINVAL);
    CHECK_EQ(ito_frame_wait(f, 1), ITO_EINVAL);
    CHECK_EQ(ito_frame_destroy(f), ITO_EINVAL);
    CHECK(ito_frame_data(f) == NULL);
    /* a frame reused from the pool is a new frame: the old entries' state is gone */
    CHECK_OK(ito_frame_create(&g, 4, 16));
    CHECK_EQ(ito_continue(g, 0), ITO_ESTATE);
    CHECK_OK(ito_frame_destroy(g));
}

/* ---- interop ---- */
#define NU 64 /* ULTs */
#define K 3   /* continuations each ULT's entry needs */
enum { I_FAN = 0, I_ZJOIN = 1, I_W0 = 2, I_N = I_W0 + NU };
static _Atomic int zwt_fired, ult_woken;

static void fan_zwt(ito_frame_t *f, int e, uint64_t v)
{
    (void)e;
    (void)v;
    atomic_fetch_add(&zwt_fired, 1);
    /* a ZWT wakes every blocked ULT: K continuations each, the last one wakes it */
    for (int i = 0; i < NU; i++)
        for (int k = 0; k < K; k++) CHECK_OK(ito_continue(f, I_W0 + i));
}

struct wu { ito_frame_t *f; int i; };
static void *waiting_ult(void *arg)
{
    struct wu *w = arg;
    CHECK_OK(ito_continue(w->f, I_FAN));         /* ULT -> ZWT */
    CHECK_OK(ito_frame_wait(w->f, I_W0 + w->i)); /* blocked until a ZWT fires its entry */
    atomic_fetch_add(&ult_woken, 1);
    return NULL;
}

static void *foreign_fire(void *arg)
{
    for (int i = 0; i < 1000; i++) CHECK_OK(ito_continue(arg, I_ZJOIN));
    return NULL;
}

static _Atomic int zjoin_runs;
static void zjoin(ito_frame_t *f, int e, uint64_t v)
{
    (void)f;
    (void)e;
    (void)v;
    atomic_fetch_add(&zjoin_runs, 1);
}

static void interop(void)
{
    ito_frame_t *f;
    CHECK_OK(ito_frame_create(&f, I_N, 0));
    CHECK_OK(ito_entry_set(f, I_FAN, fan_zwt, NU, ITO_MODE_USER));
    CHECK_OK(ito_entry_set(f, I_ZJOIN, zjoin, 2000, ITO_MODE_USER));
    for (int i = 0; i < NU; i++) CHECK_OK(ito_entry_set(f, I_W0 + i, NULL, K, ITO_MODE_USER));
    ito_thread_t t[NU];
    struct wu a[NU];
    for (int i = 0; i < NU; i++) {
        a[i] = (struct wu){f, i};
        CHECK_OK(ito_create(&t[i], waiting_ult, &a[i], NULL));
    }
    for (int i = 0; i < NU; i++) CHECK_OK(ito_join(t[i], NULL));
    CHECK_EQ(atomic_load(&zwt_fired), 1);
    CHECK_EQ(atomic_load(&ult_woken), NU);
    /* foreign kernel threads fire a ZWT (through a worker's inbox): fan-in 2000 */
    pthread_t th[2];
    for (int i = 0; i < 2; i++) CHECK_EQ(pthread_create(&th[i], NULL, foreign_fire, f), 0);
    for (int i = 0; i < 2; i++) CHECK_EQ(pthread_join(th[i], NULL), 0);
    while (atomic_load(&zjoin_runs) == 0) ito_yield();
    CHECK_EQ(atomic_load(&zjoin_runs), 1);
    CHECK_EQ(ito_continue(f, I_ZJOIN), ITO_ESTATE);
    CHECK_OK(ito_frame_destroy(f));
}

int main(void)
{
    CHECK_OK(ito_init(NULL));
    lock_contention();
    mode_rule();
    bad_input();
    interop();
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
