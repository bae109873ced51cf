/* bench_pthread: POSIX threads (glibc NPTL) for yield, create_join and create_1m.
 *
 * How the peer is used (see lab/README.md, "Peers and how they are measured"):
 *   - every thread gets a 64 KiB stack (ito's default ULT stack) through
 *     pthread_attr_setstacksize: with glibc's default 8 MiB stacks only ~5 stacks fit
 *     the 40 MiB stack cache, smaller stacks let glibc recycle them instead of mmap'ing;
 *   - yield is a ping-pong between two threads on two POSIX semaphores, both threads
 *     pinned to the same CPU (the first of the process's affinity mask), so that every
 *     hand-off is a kernel context switch on one core; per one-way hand-off = elapsed / 2n;
 *   - create_join creates one thread running an empty function and joins it, n times;
 *   - create_1m starts one creator thread per CPU of the affinity mask; each creates its
 *     share of the 1,000,000 threads in batches of 1000 alive at a time and joins them
 *     (so at most 1000 x CPUs threads exist at once); per thread = elapsed / 1e6; as
 *     a million kernel threads take 20-40 s on the 2-CPU machine, it runs 3 trials, not 5.
 * pthreads cost microseconds, so a trial runs fewer operations than the user-level peers
 * (20,000 round trips, 2000 threads): still milliseconds per trial, far above the timer.
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

#define STACK_SIZE (64 * 1024)
#define BATCH 1000

static void die(const char *what, int err)
{
    fprintf(stderr, "bench_pthread: %s: %s\n", what, strerror(err));
    exit(1);
}

static void attr_init(pthread_attr_t *a, int cpu)
{
    int e = pthread_attr_init(a);
    if (!e) e = pthread_attr_setstacksize(a, STACK_SIZE);
    if (!e && cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        e = pthread_attr_setaffinity_np(a, sizeof set, &set);
    }
    if (e) die("pthread_attr", e);
}

static void spawn(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg)
{
    int e = pthread_create(t, a, fn, arg);
    if (e) die("pthread_create", e);
}

static void *empty(void *arg) { return arg; }

/* ---- yield: semaphore ping-pong on one core ---- */
static sem_t ping, pong;

static void *ponger(void *arg)
{
    long n = (long)(intptr_t)arg;
    for (long i = 0; i < n; i++) {
        sem_wait(&ping);
        sem_post(&pong);
    }
    return NULL;
}

static void bench_yield(const peer_opts *o)
{
    long n = peer_ops(o, 20000);
    int cpu = peer_first_cpu();
    cpu_set_t saved, set;
    int e = pthread_getaffinity_np(pthread_self(), sizeof saved, &saved);
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (!e) e = pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    if (e) die("pthread_setaffinity_np", e);
    pthread_attr_t a;
    attr_init(&a, cpu);
    sem_init(&ping, 0, 0);
    sem_init(&pong, 0, 0);
    double *v = peer_samples(o->trials);
    for (int t = -1; t < o->trials; t++) { /* trial -1 warms up */
        pthread_t th;
        spawn(&th, &a, ponger, (void *)(intptr_t)n);
        double t0 = peer_now_ns();
        for (long i = 0; i < n; i++) {
            sem_post(&ping);
            sem_wait(&pong);
        }
        double dt = peer_now_ns() - t0;
        pthread_join(th, NULL);
        if (t >= 0) v[t] = dt / (2.0 * (double)n);
    }
    peer_report("yield", "pthread", v, o->trials);
    free(v);
    sem_destroy(&ping);
    sem_destroy(&pong);
    pthread_attr_destroy(&a);
    pthread_setaffinity_np(pthread_self(), sizeof saved, &saved); /* unpin main again */
}

/* ---- create_join: one thread at a time ---- */
static void bench_create_join(const peer_opts *o)
{
    long n = peer_ops(o, 2000);
    pthread_attr_t a;
    attr_init(&a, -1);
    double *v = peer_samples(o->trials);
    for (int t = -1; t < o->trials; t++) {
        double t0 = peer_now_ns();
        for (long i = 0; i < n; i++) {
            pthread_t th;
            spawn(&th, &a, empty, NULL);
            pthread_join(th, NULL);
        }
        double dt = peer_now_ns() - t0;
        if (t >= 0) v[t] = dt / (double)n;
    }
    peer_report("create_join", "pthread", v, o->trials);
    free(v);
    pthread_attr_destroy(&a);
}

/* ---- create_1m: one creator per CPU, batches of BATCH alive ---- */
static pthread_attr_t attr_1m;

static void *creator(void *arg)
{
    long n = (long)(intptr_t)arg;
    pthread_t ts[BATCH];
    for (long done = 0; done < n; done += BATCH) {
        long k = n - done < BATCH ? n - done : BATCH;
        for (long i = 0; i < k; i++) spawn(&ts[i], &attr_1m, empty, NULL);
        for (long i = 0; i < k; i++) pthread_join(ts[i], NULL);
    }
    return NULL;
}

static void bench_create_1m(const peer_opts *o)
{
    long n = peer_threads_1m(o);
    int trials = peer_trials_1m(o) < 3 ? peer_trials_1m(o) : 3; /* a trial lasts 20-40 s here */
    int nc = peer_cpu_count();
    attr_init(&attr_1m, -1);
    pthread_t *cs = calloc((size_t)nc, sizeof *cs);
    double *v = peer_samples(trials);
    if (!cs) die("calloc", 12);
    for (int t = -1; t < trials; t++) {
        long total = t < 0 ? n / 10 : n; /* a tenth of the threads to warm up */
        double t0 = peer_now_ns();
        for (int c = 0; c < nc; c++) {
            long share = total / nc + (c < total % nc);
            spawn(&cs[c], &attr_1m, creator, (void *)(intptr_t)share);
        }
        for (int c = 0; c < nc; c++) pthread_join(cs[c], NULL);
        double dt = peer_now_ns() - t0;
        if (t >= 0) v[t] = dt / (double)total;
    }
    peer_report("create_1m", "pthread", v, trials);
    free(v);
    free(cs);
    pthread_attr_destroy(&attr_1m);
}

int main(int argc, char **argv)
{
    peer_opts o = peer_parse_args(argc, argv);
    if (peer_wants(&o, "yield")) bench_yield(&o);
    if (peer_wants(&o, "create_join")) bench_create_join(&o);
    if (peer_wants(&o, "create_1m")) bench_create_1m(&o);
    return 0;
}
