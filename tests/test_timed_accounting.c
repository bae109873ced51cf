/* test_timed_accounting: a timed wait that returns ITO_ETIMEDOUT has no effect, and a
 * wake-up arriving around the deadline is never lost nor doubled, counted one by one:
 *  - condition: per round a long waiter (10 s) known to be queued, short waiters with
 *    deadlines of 0..50 us, and one signal at a random moment from a ULT or a foreign
 *    thread: exactly one wait returns ITO_OK per signal (if no short one did, the long one
 *    wakes), and every return holds the mutex;
 *  - channel (capacity 0 and 1): senders and receivers with deadlines of 0..50 us and a
 *    foreign thread's try_send/try_recv; every item id is tracked: an item whose send said
 *    ITO_ETIMEDOUT is never received, one whose send said ITO_OK is received exactly once,
 *    a receive that timed out did not write its buffer;
 *  - semaphore: takers with deadlines of 0..50 us, posts from ULTs and foreign threads:
 *    posts == takes + the final value.
 * No ITO_ETIMEDOUT before its deadline anywhere. Written by an outside tester, h68c,
 * 2026-12-06, as a guard (no failure was found: the wait claim of src/core/itoi.h held). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ito/ito.h"
#include "ito_test.h"

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__) || defined(ITOI_ASAN) || defined(ITOI_TSAN)
#define SCALE 4
#else
#define SCALE 1
#endif

static _Atomic long early;

static unsigned rnd(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (*s >> 8) & 0xffffff;
}

static void spin_ns(uint64_t ns)
{
    uint64_t t = ito_now_ns() + ns;
    while (ito_now_ns() < t) {
    }
}

static void check_deadline(int rc, uint64_t deadline)
{
    if (rc == ITO_ETIMEDOUT && ito_now_ns() < deadline) atomic_fetch_add(&early, 1);
}

/* ---- condition ---- */
#define NSHORT 6
static ito_mutex_t m;
static ito_cond_t cv;
static _Atomic int l_queued, l_woken, go_signal, stop_foreign;
static _Atomic long oks, signals, not_held;

static void *cond_long(void *arg)
{
    (void)arg;
    CHECK_OK(ito_mutex_lock(&m));
    atomic_store(&l_queued, 1);
    int rc = ito_cond_wait_until(&cv, &m, ito_deadline_in(10000000000ull));
    if (ito_mutex_trylock(&m) != ITO_EDEADLK) atomic_fetch_add(&not_held, 1);
    CHECK_OK(ito_mutex_unlock(&m));
    CHECK_OK(rc);
    atomic_fetch_add(&oks, 1);
    atomic_store(&l_woken, 1);
    return NULL;
}

static void *cond_short(void *arg)
{
    unsigned s = (unsigned)(uintptr_t)arg;
    CHECK_OK(ito_mutex_lock(&m));
    uint64_t dl = rnd(&s) % 16 == 0 ? 1 : ito_now_ns() + rnd(&s) % 50000;
    int rc = ito_cond_wait_until(&cv, &m, dl);
    if (ito_mutex_trylock(&m) != ITO_EDEADLK) atomic_fetch_add(&not_held, 1);
    CHECK_OK(ito_mutex_unlock(&m));
    CHECK(rc == ITO_OK || rc == ITO_ETIMEDOUT);
    check_deadline(rc, dl);
    if (rc == ITO_OK) atomic_fetch_add(&oks, 1);
    return NULL;
}

static void *cond_foreign(void *arg)
{
    (void)arg;
    int seen = 0;
    while (!atomic_load(&stop_foreign)) {
        int g = atomic_load(&go_signal);
        if (g == seen) continue;
        seen = g;
        spin_ns((unsigned)g * 2654435761u % 40000);
        CHECK_OK(ito_cond_signal(&cv));
        atomic_fetch_add(&signals, 1);
    }
    return NULL;
}

static void check_cond(int rounds)
{
    CHECK_OK(ito_mutex_init(&m));
    CHECK_OK(ito_cond_init(&cv));
    pthread_t f;
    CHECK(pthread_create(&f, NULL, cond_foreign, NULL) == 0);
    for (int r = 1; r <= rounds; r++) {
        atomic_store(&l_queued, 0);
        atomic_store(&l_woken, 0);
        long oks0 = atomic_load(&oks), sig0 = atomic_load(&signals);
        ito_thread_t L, S[NSHORT];
        for (int i = 0; i < NSHORT / 2; i++) CHECK_OK(ito_create(&S[i], cond_short, (void *)(uintptr_t)(r * 31 + i), NULL));
        CHECK_OK(ito_create(&L, cond_long, NULL, NULL));
        for (int i = NSHORT / 2; i < NSHORT; i++)
            CHECK_OK(ito_create(&S[i], cond_short, (void *)(uintptr_t)(r * 31 + i), NULL));
        while (!atomic_load(&l_queued)) ito_yield();
        CHECK_OK(ito_mutex_lock(&m)); /* L is queued once m is free again */
        CHECK_OK(ito_mutex_unlock(&m));
        if (r % 2) { /* a foreign thread signals; wait until it has (main must not block) */
            atomic_store(&go_signal, r);
            while (atomic_load(&signals) == sig0) ito_yield();
        } else {
            spin_ns((unsigned)r * 2654435761u % 40000);
            CHECK_OK(ito_cond_signal(&cv));
            atomic_fetch_add(&signals, 1);
        }
        for (int i = 0; i < NSHORT; i++) CHECK_OK(ito_join(S[i], NULL));
        if (atomic_load(&oks) == oks0) { /* no short waiter took it: the long one must wake */
            uint64_t until = ito_now_ns() + 5000000000ull;
            while (!atomic_load(&l_woken) && ito_now_ns() < until) ito_sleep_ns(100000);
            CHECK(atomic_load(&l_woken)); /* else the signal was lost */
        }
        if (!atomic_load(&l_woken)) {
            CHECK_OK(ito_cond_signal(&cv));
            atomic_fetch_add(&signals, 1);
        }
        CHECK_OK(ito_join(L, NULL));
        CHECK_EQ(atomic_load(&oks) - oks0, atomic_load(&signals) - sig0); /* none lost, none doubled */
    }
    atomic_store(&stop_foreign, 1);
    CHECK(pthread_join(f, NULL) == 0);
    CHECK_EQ(atomic_load(&not_held), 0);
    CHECK_OK(ito_cond_destroy(&cv));
    CHECK_OK(ito_mutex_destroy(&m));
}

/* ---- channel ---- */
#define NSEND 4
#define NRECV 4
#define PER (2000 / SCALE)
#define FPER 4000
static ito_chan_t *ch;
static _Atomic unsigned char *seen; /* by item id: 1 sent, 2 received */
static _Atomic long sent_ok, recvd, dups, wrote_on_timeout;
static _Atomic int senders_left;

static void got_item(uint32_t id)
{
    if (atomic_fetch_or(&seen[id], 2) & 2) atomic_fetch_add(&dups, 1);
    atomic_fetch_add(&recvd, 1);
}

static void *chan_sender(void *arg)
{
    unsigned s = (unsigned)(uintptr_t)arg * 7919u + 1;
    for (uint32_t i = 0; i < PER; i++) {
        uint32_t id = (uint32_t)(uintptr_t)arg * PER + i;
        uint64_t dl = rnd(&s) % 16 == 0 ? 1 : ito_now_ns() + rnd(&s) % 50000;
        int rc = ito_chan_send_until(ch, &id, dl);
        CHECK(rc == ITO_OK || rc == ITO_ETIMEDOUT);
        check_deadline(rc, dl);
        if (rc == ITO_OK) {
            atomic_fetch_or(&seen[id], 1);
            atomic_fetch_add(&sent_ok, 1);
        }
        if (rnd(&s) % 8 == 0) ito_yield();
    }
    atomic_fetch_sub(&senders_left, 1);
    return NULL;
}

static void *chan_recver(void *arg)
{
    unsigned s = (unsigned)(uintptr_t)arg * 104729u + 3;
    while (atomic_load(&senders_left) > 0) {
        uint32_t id = UINT32_MAX;
        uint64_t dl = rnd(&s) % 16 == 0 ? 1 : ito_now_ns() + rnd(&s) % 50000;
        int rc = ito_chan_recv_until(ch, &id, dl);
        CHECK(rc == ITO_OK || rc == ITO_ETIMEDOUT);
        check_deadline(rc, dl);
        if (rc == ITO_OK) got_item(id);
        else if (id != UINT32_MAX) atomic_fetch_add(&wrote_on_timeout, 1);
    }
    return NULL;
}

static void *chan_foreign(void *arg)
{
    unsigned s = 99;
    uint32_t base = (uint32_t)(uintptr_t)arg, i = 0;
    while (atomic_load(&senders_left) > 0 && i < FPER) {
        uint32_t id = base + i, got;
        if (rnd(&s) % 2) {
            int rc = ito_chan_try_send(ch, &id);
            CHECK(rc == ITO_OK || rc == ITO_EAGAIN);
            if (rc == ITO_OK) {
                atomic_fetch_or(&seen[id], 1);
                atomic_fetch_add(&sent_ok, 1);
                i++;
            }
        } else {
            int rc = ito_chan_try_recv(ch, &got);
            CHECK(rc == ITO_OK || rc == ITO_EAGAIN);
            if (rc == ITO_OK) got_item(got);
        }
        spin_ns(rnd(&s) % 20000);
    }
    return NULL;
}

static void check_chan(size_t cap)
{
    size_t total = NSEND * PER + FPER;
    seen = calloc(total, 1);
    CHECK(seen != NULL);
    atomic_store(&sent_ok, 0);
    atomic_store(&recvd, 0);
    CHECK_OK(ito_chan_create(&ch, sizeof(uint32_t), cap));
    atomic_store(&senders_left, NSEND);
    pthread_t f;
    CHECK(pthread_create(&f, NULL, chan_foreign, (void *)(uintptr_t)(NSEND * PER)) == 0);
    ito_thread_t t[NSEND + NRECV];
    for (int i = 0; i < NSEND; i++) CHECK_OK(ito_create(&t[i], chan_sender, (void *)(uintptr_t)i, NULL));
    for (int i = 0; i < NRECV; i++) CHECK_OK(ito_create(&t[NSEND + i], chan_recver, (void *)(uintptr_t)i, NULL));
    for (int i = 0; i < NSEND + NRECV; i++) CHECK_OK(ito_join(t[i], NULL));
    CHECK(pthread_join(f, NULL) == 0); /* it stops once the senders are done */
    uint32_t id;
    while (ito_chan_try_recv(ch, &id) == ITO_OK) got_item(id);
    for (size_t i = 0; i < total; i++) CHECK(seen[i] == 0 || seen[i] == 3); /* sent once and got, or neither */
    CHECK_EQ(atomic_load(&dups), 0);
    CHECK_EQ(atomic_load(&wrote_on_timeout), 0);
    CHECK_EQ(atomic_load(&sent_ok), atomic_load(&recvd));
    CHECK_OK(ito_chan_destroy(ch));
    free((void *)seen);
}

/* ---- semaphore ---- */
static ito_sem_t sem;
static _Atomic long posts, takes;
static _Atomic int posters_left;

static void *sem_taker(void *arg)
{
    unsigned s = (unsigned)(uintptr_t)arg * 77u + 5;
    while (atomic_load(&posters_left) > 0) {
        uint64_t dl = rnd(&s) % 16 == 0 ? 1 : ito_now_ns() + rnd(&s) % 50000;
        int rc = ito_sem_wait_until(&sem, dl);
        CHECK(rc == ITO_OK || rc == ITO_ETIMEDOUT);
        check_deadline(rc, dl);
        if (rc == ITO_OK) atomic_fetch_add(&takes, 1);
    }
    return NULL;
}

static void *sem_poster(void *arg)
{
    unsigned s = (unsigned)(uintptr_t)arg * 3u + 1;
    bool ult = ito_worker_id() >= 0;
    for (int i = 0; i < 8000 / SCALE; i++) {
        CHECK_OK(ito_sem_post(&sem));
        atomic_fetch_add(&posts, 1);
        if (ult) {
            if (rnd(&s) % 4 == 0) CHECK_OK(ito_sleep_ns(rnd(&s) % 30000));
            else CHECK_OK(ito_yield());
        } else {
            if (rnd(&s) % 2 && ito_sem_trywait(&sem) == ITO_OK) atomic_fetch_add(&takes, 1);
            spin_ns(rnd(&s) % 30000);
        }
    }
    atomic_fetch_sub(&posters_left, 1);
    return NULL;
}

static void check_sem(void)
{
    CHECK_OK(ito_sem_init(&sem, 0));
    atomic_store(&posters_left, 4);
    pthread_t f[2];
    for (int i = 0; i < 2; i++) CHECK(pthread_create(&f[i], NULL, sem_poster, (void *)(uintptr_t)i) == 0);
    ito_thread_t t[8];
    for (int i = 0; i < 6; i++) CHECK_OK(ito_create(&t[i], sem_taker, (void *)(uintptr_t)i, NULL));
    for (int i = 6; i < 8; i++) CHECK_OK(ito_create(&t[i], sem_poster, (void *)(uintptr_t)i, NULL));
    for (int i = 0; i < 8; i++) CHECK_OK(ito_join(t[i], NULL));
    for (int i = 0; i < 2; i++) CHECK(pthread_join(f[i], NULL) == 0);
    unsigned v;
    CHECK_OK(ito_sem_value(&sem, &v));
    CHECK_EQ(atomic_load(&posts), atomic_load(&takes) + (long)v);
    CHECK_OK(ito_sem_destroy(&sem));
}

int main(void)
{
    CHECK_OK(ito_init(NULL));
    check_cond(300 / SCALE);
    check_chan(0);
    check_chan(1);
    check_sem();
    CHECK_EQ(atomic_load(&early), 0);
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
