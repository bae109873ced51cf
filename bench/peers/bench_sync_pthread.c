/* bench_sync_pthread: POSIX threads (glibc NPTL) on the synchronization benchmarks of
 * bench/ito/bench_sync.c that pthreads has an object for:
 *   barrier       4 threads pass a pthread_barrier_t n times, per round;
 *   sem_pingpong  two threads ping-pong through two sem_t, per one-way hand-off;
 *   rwlock_read   pthread_rwlock_rdlock + unlock, uncontended, per pair;
 *   tls_get       pthread_getspecific, per read;
 *   once          pthread_once on an object already done, per call.
 * (pthreads has no channel or future: chan_pingpong, chan_mpmc and future are not
 * measured here.) Every thread is pinned to the first CPU of the process's affinity mask,
 * so that the threads share one core as ito's ULTs share one worker: each hand-off is a
 * kernel context switch. pthreads cost microseconds per switch, so the switching
 * benchmarks run a tenth of ito's operations (still milliseconds per trial).
 * Prints RESULT lines with system=pthread (see peer_common.h). */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peer_common.h"

static void die(const char *what, int err)
{
    fprintf(stderr, "bench_sync_pthread: %s: %s\n", what, strerror(err));
    exit(1);
}

static pthread_attr_t pinned;

static void pin_setup(void)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(peer_first_cpu(), &set);
    int e = pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    if (!e) e = pthread_attr_init(&pinned);
    if (!e) e = pthread_attr_setstacksize(&pinned, 64 * 1024);
    if (!e) e = pthread_attr_setaffinity_np(&pinned, sizeof set, &set);
    if (e) die("pinning", e);
}

static pthread_t spawn(void *(*fn)(void *), long n)
{
    pthread_t t;
    int e = pthread_create(&t, &pinned, fn, (void *)(intptr_t)n);
    if (e) die("pthread_create", e);
    return t;
}

static void measure(const peer_opts *o, const char *name, long n, double per, void (*body)(long n))
{
    peer_measure(o, name, "pthread", n, per, body);
}

#define PARTIES 4
static pthread_barrier_t bar;
static void *barrier_loop(void *arg)
{
    long n = (long)(intptr_t)arg;
    for (long i = 0; i < n; i++) pthread_barrier_wait(&bar);
    return NULL;
}
static void barrier_rounds(long n)
{
    pthread_t t[PARTIES - 1];
    for (int i = 0; i < PARTIES - 1; i++) t[i] = spawn(barrier_loop, n);
    barrier_loop((void *)(intptr_t)n);
    for (int i = 0; i < PARTIES - 1; i++) pthread_join(t[i], NULL);
}

static sem_t ping, pong;
static void *sem_echo(void *arg)
{
    long n = (long)(intptr_t)arg;
    for (long i = 0; i < n; i++) {
        sem_wait(&ping);
        sem_post(&pong);
    }
    return NULL;
}
static void sem_pingpong(long n)
{
    pthread_t t = spawn(sem_echo, n);
    for (long i = 0; i < n; i++) {
        sem_post(&ping);
        sem_wait(&pong);
    }
    pthread_join(t, NULL);
}

static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static void rwlock_read(long n)
{
    for (long i = 0; i < n; i++) {
        pthread_rwlock_rdlock(&rw);
        pthread_rwlock_unlock(&rw);
    }
}

static pthread_key_t key;
static void tls_get(long n)
{
    void *volatile sink;
    for (long i = 0; i < n; i++) sink = pthread_getspecific(key);
    (void)sink;
}

static pthread_once_t once = PTHREAD_ONCE_INIT;
static void once_init(void) {}
static void once_done(long n)
{
    for (long i = 0; i < n; i++) pthread_once(&once, once_init);
}

int main(int argc, char **argv)
{
    peer_opts o = peer_parse_args_any(argc, argv);
    pin_setup();
    int e = pthread_barrier_init(&bar, NULL, PARTIES);
    if (!e) e = sem_init(&ping, 0, 0) ? 1 : sem_init(&pong, 0, 0) ? 1 : 0;
    if (!e) e = pthread_key_create(&key, NULL);
    if (!e) e = pthread_setspecific(key, &key);
    if (e) die("init", e);
    if (peer_wants(&o, "barrier")) measure(&o, "barrier", peer_ops(&o, 5000), 1, barrier_rounds);
    if (peer_wants(&o, "sem_pingpong")) measure(&o, "sem_pingpong", peer_ops(&o, 20000), 2, sem_pingpong);
    if (peer_wants(&o, "rwlock_read")) measure(&o, "rwlock_read", peer_ops(&o, 2000000), 1, rwlock_read);
    if (peer_wants(&o, "tls_get")) measure(&o, "tls_get", peer_ops(&o, 5000000), 1, tls_get);
    if (peer_wants(&o, "once")) measure(&o, "once", peer_ops(&o, 5000000), 1, once_done);
    return 0;
}
