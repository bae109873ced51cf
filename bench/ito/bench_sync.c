/* bench_sync: ito's synchronization objects, for comparison with bench_sync_pthread and
 * bench_sync_boost_fiber (bench/peers/), which measure the same benchmarks the same way:
 *
 *   chan_pingpong  two threads bounce an 8-byte item through two channels of capacity 1,
 *                  per one-way message (elapsed / 2n);
 *   chan_mpmc      4 producers and 4 consumers move n 8-byte items through one channel of
 *                  63 slots, per item;
 *   barrier        4 threads pass a barrier n times, per round;
 *   future         two threads hand off through futures: A sets fa[i] and waits for fb[i],
 *                  B waits for fa[i] and sets fb[i]; per one-way hand-off (elapsed / 2n);
 *                  the futures are made before the timing (set + wake + wait are timed);
 *   sem_pingpong   two threads ping-pong through two semaphores, per one-way hand-off;
 *   rwlock_read    one thread takes and releases a read lock, per pair;
 *   tls_get        one thread reads its value of a key, per read;
 *   once           one thread calls once on an object already done, per call.
 * Every thread here is a ULT on one worker (the lab pins the process to one CPU); the
 * peers use fibers on one thread, or pthreads pinned to one CPU.
 * Each trial is timed around its whole batch with CLOCK_MONOTONIC after one warm-up trial;
 * the median of the trials is printed as
 *   RESULT benchmark=<b> system=ito median_ns=<x> trials=<n>
 * Usage: bench_sync [--trials N] [--quick] [--only BENCH] (any other --only: prints nothing) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "ito/ito.h"
#include "peer_common.h"

static void die(const char *what, int rc)
{
    fprintf(stderr, "bench_sync: %s: %s\n", what, ito_strerror(rc));
    exit(1);
}
#define OK(call)                                                                                 \
    do {                                                                                         \
        int rc_ = (call);                                                                        \
        if (rc_ < 0) die(#call, rc_);                                                            \
    } while (0)

/* Runs body(n) for the warm-up and the trials; per = ops per n for the division. */
static void measure(const peer_opts *o, const char *name, long n, double per, void (*body)(long n))
{
    peer_measure(o, name, "ito", n, per, body);
}

static ito_thread_t spawn(void *(*fn)(void *), void *arg)
{
    ito_thread_t t;
    OK(ito_create(&t, fn, arg, NULL));
    return t;
}

/* ---- channels ---- */
static ito_chan_t *c1, *c2;

static void *chan_echo(void *arg)
{
    long n = (long)(intptr_t)arg;
    uint64_t x;
    for (long i = 0; i < n; i++) {
        OK(ito_chan_recv(c1, &x));
        OK(ito_chan_send(c2, &x));
    }
    return NULL;
}

static void chan_pingpong(long n)
{
    ito_thread_t t = spawn(chan_echo, (void *)(intptr_t)n);
    for (uint64_t i = 0; i < (uint64_t)n; i++) {
        uint64_t x = i;
        OK(ito_chan_send(c1, &x));
        OK(ito_chan_recv(c2, &x));
    }
    OK(ito_join(t, NULL));
}

#define MPMC 4
static void *chan_producer(void *arg)
{
    long n = (long)(intptr_t)arg;
    for (uint64_t i = 0; i < (uint64_t)n; i++) OK(ito_chan_send(c1, &i));
    return NULL;
}

static void *chan_consumer(void *arg)
{
    long n = (long)(intptr_t)arg;
    uint64_t x;
    for (long i = 0; i < n; i++) OK(ito_chan_recv(c1, &x));
    return NULL;
}

static void chan_mpmc(long n)
{
    ito_thread_t t[2 * MPMC];
    for (int i = 0; i < MPMC; i++) t[i] = spawn(chan_consumer, (void *)(intptr_t)(n / MPMC));
    for (int i = 0; i < MPMC; i++) t[MPMC + i] = spawn(chan_producer, (void *)(intptr_t)(n / MPMC));
    for (int i = 0; i < 2 * MPMC; i++) OK(ito_join(t[i], NULL));
}

/* ---- barrier ---- */
#define PARTIES 4
static ito_barrier_t bar;

static void *barrier_loop(void *arg)
{
    long n = (long)(intptr_t)arg;
    for (long i = 0; i < n; i++) OK(ito_barrier_wait(&bar));
    return NULL;
}

static void barrier_rounds(long n)
{
    ito_thread_t t[PARTIES - 1];
    for (int i = 0; i < PARTIES - 1; i++) t[i] = spawn(barrier_loop, (void *)(intptr_t)n);
    barrier_loop((void *)(intptr_t)n);
    for (int i = 0; i < PARTIES - 1; i++) OK(ito_join(t[i], NULL));
}

/* ---- futures ---- */
static ito_future_t *fa, *fb;

static void *future_echo(void *arg)
{
    long n = (long)(intptr_t)arg;
    uint64_t x;
    for (long i = 0; i < n; i++) {
        OK(ito_future_wait(&fa[i], &x));
        OK(ito_future_set(&fb[i], x));
    }
    return NULL;
}

/* ---- semaphores ---- */
static ito_sem_t ping, pong;

static void *sem_echo(void *arg)
{
    long n = (long)(intptr_t)arg;
    for (long i = 0; i < n; i++) {
        OK(ito_sem_wait(&ping));
        OK(ito_sem_post(&pong));
    }
    return NULL;
}

static void sem_pingpong(long n)
{
    ito_thread_t t = spawn(sem_echo, (void *)(intptr_t)n);
    for (long i = 0; i < n; i++) {
        OK(ito_sem_post(&ping));
        OK(ito_sem_wait(&pong));
    }
    OK(ito_join(t, NULL));
}

/* ---- uncontended fast paths ---- */
static ito_rwlock_t rw;
static void rwlock_read(long n)
{
    for (long i = 0; i < n; i++) {
        OK(ito_rwlock_rdlock(&rw));
        OK(ito_rwlock_unlock(&rw));
    }
}

static ito_key_t key;
static void tls_get(long n)
{
    void *v, *volatile sink;
    for (long i = 0; i < n; i++) {
        OK(ito_key_get(key, &v));
        sink = v;
    }
    (void)sink;
}

static ito_once_t once = ITO_ONCE_INIT;
static void once_init(void) {}
static void once_done(long n)
{
    for (long i = 0; i < n; i++) OK(ito_once(&once, once_init));
}

/* The futures are made (initialised) before each trial's clock starts: only the
 * hand-off is timed. */
static void future_timed(long n)
{
    ito_thread_t t = spawn(future_echo, (void *)(intptr_t)n);
    for (long i = 0; i < n; i++) {
        uint64_t x;
        OK(ito_future_set(&fa[i], (uint64_t)i));
        OK(ito_future_wait(&fb[i], &x));
    }
    OK(ito_join(t, NULL));
}

static void measure_futures(const peer_opts *o, long n)
{
    fa = calloc((size_t)n, sizeof *fa);
    fb = calloc((size_t)n, sizeof *fb);
    if (!fa || !fb) die("calloc", ITO_ENOMEM);
    double *v = peer_samples(o->trials);
    for (int t = -1; t < o->trials; t++) {
        for (long i = 0; i < n; i++) {
            OK(ito_future_init(&fa[i]));
            OK(ito_future_init(&fb[i]));
        }
        double t0 = peer_now_ns();
        future_timed(n);
        double dt = peer_now_ns() - t0;
        if (t >= 0) v[t] = dt / (2.0 * (double)n);
    }
    peer_report("future", "ito", v, o->trials);
    free(v);
    free(fa);
    free(fb);
}

int main(int argc, char **argv)
{
    peer_opts o = peer_parse_args_any(argc, argv);
    ito_config_t cfg = {.workers = 1};
    OK(ito_init(&cfg));
    OK(ito_chan_create(&c1, sizeof(uint64_t), 1));
    OK(ito_chan_create(&c2, sizeof(uint64_t), 1));
    if (peer_wants(&o, "chan_pingpong")) measure(&o, "chan_pingpong", peer_ops(&o, 200000), 2, chan_pingpong);
    OK(ito_chan_destroy(c1));
    OK(ito_chan_create(&c1, sizeof(uint64_t), 63));
    if (peer_wants(&o, "chan_mpmc")) measure(&o, "chan_mpmc", peer_ops(&o, 400000), 1, chan_mpmc);
    OK(ito_barrier_init(&bar, PARTIES));
    if (peer_wants(&o, "barrier")) measure(&o, "barrier", peer_ops(&o, 50000), 1, barrier_rounds);
    if (peer_wants(&o, "future")) measure_futures(&o, peer_ops(&o, 100000));
    OK(ito_sem_init(&ping, 0));
    OK(ito_sem_init(&pong, 0));
    if (peer_wants(&o, "sem_pingpong")) measure(&o, "sem_pingpong", peer_ops(&o, 200000), 2, sem_pingpong);
    OK(ito_rwlock_init(&rw));
    if (peer_wants(&o, "rwlock_read")) measure(&o, "rwlock_read", peer_ops(&o, 2000000), 1, rwlock_read);
    OK(ito_key_create(&key, NULL));
    OK(ito_key_set(key, &key));
    if (peer_wants(&o, "tls_get")) measure(&o, "tls_get", peer_ops(&o, 5000000), 1, tls_get);
    if (peer_wants(&o, "once")) measure(&o, "once", peer_ops(&o, 5000000), 1, once_done);
    OK(ito_chan_destroy(c1));
    OK(ito_chan_destroy(c2));
    OK(ito_finalize());
    return 0;
}
