/* fuzz_wait: libFuzzer harness for ito's waits with deadlines, between ULTs and foreign
 * threads (clang-19, -fsanitize=fuzzer,address,undefined; built in the ASan tree).
 *
 * Each input is decoded into a runtime of 1 or 2 workers, a set of shared objects (a
 * mutex with a condition variable, a reader-writer lock, a semaphore, a wait group, a
 * future, a stream, a channel, TLS keys) and a program: the main ULT and up to 8 actor
 * ULTs and 2 foreign pthreads run scripts of actions on the shared objects, every wait
 * with a deadline of at most 1 ms (timed locks, timed condition waits, timed semaphore,
 * stream, channel, wait-group and future waits, sleeps, timed joins), plus closes,
 * signals, posts and thread-specific values. Nothing in a script waits for ever, so every
 * thread ends: a hang is a finding (libFuzzer's -timeout), as is a crash, a sanitizer
 * report, a return value that is not one of ito's codes, and a broken count:
 *  - every byte put into the stream is got exactly once (the rest is drained at the end),
 *  - every item sent on the channel is received exactly once (count and sum of values),
 *  - the semaphore's value is its start plus the posts minus the successful waits,
 *  - the wait group is back at 0 and its wait returns at once,
 *  - at most one ito_future_set succeeds and the future holds its value,
 *  - the mutex and the reader-writer lock are free at the end,
 *  - ito_finalize returns ITO_OK. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"

#define NACT 8  /* actor ULTs */
#define NFOR 2  /* foreign pthreads */
#define NKEY 3  /* TLS keys */
#define SCRIPT 12



static struct {
    ito_mutex_t m;
    ito_cond_t c;
    ito_rwlock_t rw;
    ito_sem_t sem;
    ito_waitgroup_t wg;
    ito_future_t fut;
    ito_stream_t *st;
    ito_chan_t *ch;
    ito_key_t key[NKEY];
    _Atomic long sem_posts, sem_takes;
    _Atomic long st_in, st_out;
    _Atomic long ch_in, ch_out;
    _Atomic uint64_t ch_sum_in, ch_sum_out, ch_seq;
    _Atomic int fut_sets;
    _Atomic uint64_t fut_value;
    _Atomic long dtor_calls;
} S;

typedef struct {
    uint8_t op[SCRIPT];
    int n;
    int wg_credit;
    uint64_t id;
} script_t;

static uint64_t deadline(unsigned k)
{
    static const uint64_t ns[4] = {0, 50000, 200000, 1000000};
    return k % 4 == 0 ? ito_now_ns() : ito_deadline_in(ns[k % 4]);
}

static void dtor(void *v)
{
    (void)v;
    atomic_fetch_add(&S.dtor_calls, 1);
}

/* One action of a ULT (main or an actor). k: the action's argument byte. */
static void ult_action(unsigned op, unsigned k, uint64_t id)
{
    unsigned char buf[80];
    size_t n = 0;
    uint64_t v = 0;
    int rc;
    switch (op % 20) {
    case 0: check(rc = ito_sem_post(&S.sem)); if (rc == ITO_OK) atomic_fetch_add(&S.sem_posts, 1); break;
    case 1: check(rc = ito_sem_wait_until(&S.sem, deadline(k))); if (rc == ITO_OK) atomic_fetch_add(&S.sem_takes, 1); break;
    case 2: check(rc = ito_sem_trywait(&S.sem)); if (rc == ITO_OK) atomic_fetch_add(&S.sem_takes, 1); break;
    case 3: /* a short critical section */
        check(rc = ito_mutex_lock_until(&S.m, deadline(k)));
        if (rc == ITO_OK) {
            if (k & 4) check(ito_yield());
            check(ito_mutex_unlock(&S.m));
        }
        break;
    case 4: /* a timed condition wait (m is held again on return either way) */
        check(rc = ito_mutex_lock_until(&S.m, deadline(k)));
        if (rc == ITO_OK) {
            check(ito_cond_wait_until(&S.c, &S.m, deadline(k >> 2)));
            check(ito_mutex_unlock(&S.m));
        }
        break;
    case 5: check(k & 1 ? ito_cond_signal(&S.c) : ito_cond_broadcast(&S.c)); break;
    case 6:
        check(rc = k & 1 ? ito_rwlock_rdlock_until(&S.rw, deadline(k >> 1)) : ito_rwlock_wrlock_until(&S.rw, deadline(k >> 1)));
        if (rc == ITO_OK) {
            if (k & 8) check(ito_yield());
            check(ito_rwlock_unlock(&S.rw));
        }
        break;
    case 7:
        memset(buf, (int)k, sizeof buf);
        check(ito_stream_put_until(S.st, buf, k % sizeof buf, &n, deadline(k >> 5)));
        atomic_fetch_add(&S.st_in, (long)n);
        break;
    case 8:
        check(ito_stream_get_until(S.st, buf, 1 + k % (sizeof buf - 1), &n, deadline(k >> 5)));
        atomic_fetch_add(&S.st_out, (long)n);
        break;
    case 9:
        v = (id << 32) | atomic_fetch_add(&S.ch_seq, 1);
        check(rc = ito_chan_send_until(S.ch, &v, deadline(k)));
        if (rc == ITO_OK) {
            atomic_fetch_add(&S.ch_in, 1);
            atomic_fetch_add(&S.ch_sum_in, v);
        }
        break;
    case 10:
        check(rc = ito_chan_recv_until(S.ch, &v, deadline(k)));
        if (rc == ITO_OK) {
            atomic_fetch_add(&S.ch_out, 1);
            atomic_fetch_add(&S.ch_sum_out, v);
        }
        break;
    case 11: check(ito_sleep_ns((k % 4) * 100000u)); break;
    case 12: check(ito_yield()); break;
    case 13:
        check(rc = ito_future_set(&S.fut, 1000 + id));
        if (rc == ITO_OK) {
            atomic_fetch_add(&S.fut_sets, 1);
            atomic_store(&S.fut_value, 1000 + id);
        }
        break;
    case 14:
        check(rc = ito_future_wait_until(&S.fut, &v, deadline(k)));
        break;
    case 15: check(ito_waitgroup_wait_until(&S.wg, deadline(k))); break;
    case 16: check(ito_key_set(S.key[k % NKEY], k & 8 ? (void *)buf : NULL)); break;
    case 17: { void *p; check(ito_key_get(S.key[k % NKEY] ^ (k & 16 ? 0x10000u : 0), &p)); break; }
    case 18: check(k & 1 ? ito_stream_close(S.st) : ito_chan_close(S.ch)); break;
    default: check(k & 1 ? ito_rwlock_tryrdlock(&S.rw) == ITO_OK ? ito_rwlock_unlock(&S.rw) : ITO_OK
                         : ito_mutex_trylock(&S.m) == ITO_OK ? ito_mutex_unlock(&S.m) : ITO_OK);
        break;
    }
}

static void *actor(void *arg)
{
    script_t *s = arg;
    for (int i = 0; i < s->n; i++) ult_action(s->op[i], s->op[i] >> 3 ^ (unsigned)i * 37u, s->id);
    if (s->wg_credit) check(ito_waitgroup_done(&S.wg));
    return NULL;
}

/* A foreign thread: the calls documented for any thread, and some that are for ULTs only
 * (ITO_ENOTULT, never a crash), and a sleep (the kernel sleeps). */
static void *foreign(void *arg)
{
    script_t *s = arg;
    for (int i = 0; i < s->n; i++) {
        unsigned k = s->op[i];
        uint64_t v;
        size_t n = 0;
        int rc;
        unsigned char buf[16];
        switch (k % 8) {
        case 0: check(rc = ito_sem_post(&S.sem)); if (rc == ITO_OK) atomic_fetch_add(&S.sem_posts, 1); break;
        case 1: check(rc = ito_sem_trywait(&S.sem)); if (rc == ITO_OK) atomic_fetch_add(&S.sem_takes, 1); break;
        case 2: check(k & 8 ? ito_cond_signal(&S.c) : ito_cond_broadcast(&S.c)); break;
        case 3:
            memset(buf, (int)k, sizeof buf);
            check(ito_stream_try_put(S.st, buf, k % sizeof buf, &n));
            atomic_fetch_add(&S.st_in, (long)n);
            break;
        case 4:
            v = (s->id << 32) | atomic_fetch_add(&S.ch_seq, 1);
            check(rc = ito_chan_try_send(S.ch, &v));
            if (rc == ITO_OK) {
                atomic_fetch_add(&S.ch_in, 1);
                atomic_fetch_add(&S.ch_sum_in, v);
            }
            break;
        case 5:
            check(rc = ito_future_set(&S.fut, 1000 + s->id));
            if (rc == ITO_OK) {
                atomic_fetch_add(&S.fut_sets, 1);
                atomic_store(&S.fut_value, 1000 + s->id);
            }
            break;
        case 6: require(ito_mutex_lock(&S.m) == ITO_ENOTULT); break;
        default: require(ito_sleep_ns(1000) == ITO_OK); break; /* the kernel sleeps */
        }
    }
    return NULL;
}

static void read_script(script_t *s, uint64_t id)
{
    s->n = (int)(byte() % (SCRIPT + 1));
    for (int i = 0; i < s->n; i++) s->op[i] = (uint8_t)byte();
    s->id = id;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_begin(data, size);
    memset(&S, 0, sizeof S);
    ito_config_t cfg = {.workers = 1 + (int)(byte() & 1)};
    if (ito_init(&cfg) != ITO_OK) abort();
    unsigned sem0 = byte() % 4;
    check(ito_mutex_init(&S.m));
    check(ito_cond_init(&S.c));
    check(ito_rwlock_init(&S.rw));
    check(ito_sem_init(&S.sem, sem0));
    check(ito_waitgroup_init(&S.wg));
    check(ito_future_init(&S.fut));
    check(ito_stream_create(&S.st, 1 + byte() % 64));
    check(ito_chan_create(&S.ch, sizeof(uint64_t), byte() % 4)); /* 0: unbuffered */
    for (int i = 0; i < NKEY; i++) check(ito_key_create(&S.key[i], dtor));

    static script_t scripts[NACT], fscripts[NFOR];
    ito_thread_t act[NACT] = {0};
    int joined[NACT] = {0}, nact = 0;
    pthread_t ft[NFOR];
    int nfor = 0;
    for (int steps = 0; steps < 48 && in_at < in_n; steps++) {
        unsigned op = byte(), k = byte();
        if (op < 40 && nact < NACT) { /* a new actor */
            script_t *s = &scripts[nact];
            read_script(s, (uint64_t)nact + 1);
            s->wg_credit = k & 1;
            if (s->wg_credit) check(ito_waitgroup_add(&S.wg, 1));
            int rc = ito_create(&act[nact], actor, s, NULL);
            check(rc);
            if (rc != ITO_OK) {
                if (s->wg_credit) check(ito_waitgroup_done(&S.wg));
                continue;
            }
            nact++;
        } else if (op < 48 && nfor < NFOR) { /* a foreign thread */
            script_t *s = &fscripts[nfor];
            read_script(s, (uint64_t)NACT + 1 + (uint64_t)nfor);
            if (pthread_create(&ft[nfor], NULL, foreign, s) == 0) nfor++;
        } else if (op < 64 && nact > 0) { /* a timed join */
            int i = (int)(k % (unsigned)nact);
            int rc = ito_join_until(act[i], NULL, deadline(k >> 3));
            check(rc);
            if (rc == ITO_OK) {
                require(!joined[i]);
                joined[i] = 1;
            } else {
                require(rc == ITO_ETIMEDOUT || (joined[i] && rc == ITO_EJOINED));
            }
        } else {
            ult_action(op, k, 0);
        }
    }
    for (int i = 0; i < nact; i++)
        if (!joined[i]) check(ito_join(act[i], NULL));
    for (int i = 0; i < nfor; i++) pthread_join(ft[i], NULL);

    /* the counts */
    unsigned char buf[64];
    size_t got;
    while (ito_stream_try_get(S.st, buf, sizeof buf, &got) == ITO_OK && got > 0) atomic_fetch_add(&S.st_out, (long)got);
    require(atomic_load(&S.st_in) == atomic_load(&S.st_out));
    uint64_t v;
    while (ito_chan_try_recv(S.ch, &v) == ITO_OK) {
        atomic_fetch_add(&S.ch_out, 1);
        atomic_fetch_add(&S.ch_sum_out, v);
    }
    require(atomic_load(&S.ch_in) == atomic_load(&S.ch_out));
    require(atomic_load(&S.ch_sum_in) == atomic_load(&S.ch_sum_out));
    unsigned sv;
    check(ito_sem_value(&S.sem, &sv));
    require((long)sv == (long)sem0 + atomic_load(&S.sem_posts) - atomic_load(&S.sem_takes));
    int64_t wgc;
    check(ito_waitgroup_count(&S.wg, &wgc));
    require(wgc == 0);
    require(ito_waitgroup_wait_until(&S.wg, ito_now_ns()) == ITO_OK);
    require(atomic_load(&S.fut_sets) <= 1);
    if (atomic_load(&S.fut_sets) == 1) {
        require(ito_future_try_get(&S.fut, &v) == ITO_OK);
        require(v == atomic_load(&S.fut_value));
    }
    require(ito_mutex_trylock(&S.m) == ITO_OK);
    check(ito_mutex_unlock(&S.m));
    require(ito_rwlock_trywrlock(&S.rw) == ITO_OK);
    check(ito_rwlock_unlock(&S.rw));

    for (int i = 0; i < NKEY; i++) check(ito_key_delete(S.key[i]));
    check(ito_stream_destroy(S.st));
    check(ito_chan_destroy(S.ch));
    check(ito_future_destroy(&S.fut));
    check(ito_waitgroup_destroy(&S.wg));
    check(ito_sem_destroy(&S.sem));
    check(ito_rwlock_destroy(&S.rw));
    check(ito_cond_destroy(&S.c));
    check(ito_mutex_destroy(&S.m));
    if (ito_finalize() != ITO_OK) abort(); /* every thread ended: nothing may be left */
    return 0;
}
