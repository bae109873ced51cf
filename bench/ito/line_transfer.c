/* line_transfer: what one cache line costs to move between two CPUs of this host.
 *
 * Two kernel threads, pinned to two different CPUs, hand a counter back and forth through
 * one cache line (each waits for the other's value, then writes the next): every hand-off
 * moves the line once. It is the unit price of any scheme where one worker makes a thread
 * and another one runs it (the descriptor, its queue links, the stack's first lines) and of
 * every shared counter a hot path writes; `ito-lab spawn` prints it beside the ns per
 * created thread. Prints
 *   RESULT benchmark=line_transfer system=host cpus=<a>,<b> median_ns=<one-way ns> trials=<t>
 * Usage: line_transfer [--trials T] [--quick] */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

#define HANDOFFS 200000L

static _Alignas(64) _Atomic long baton;
static int cpu_a = -1, cpu_b = -1;

static void pin(int cpu)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    pthread_setaffinity_np(pthread_self(), sizeof s, &s);
}

static void *partner(void *arg)
{
    long rounds = *(long *)arg;
    pin(cpu_b);
    for (long i = 1; i < 2 * rounds; i += 2) {
        while (atomic_load_explicit(&baton, memory_order_acquire) != i) ;
        atomic_store_explicit(&baton, i + 1, memory_order_release);
    }
    return NULL;
}

/* One trial: ns per one-way transfer. */
static double trial(long rounds)
{
    atomic_store(&baton, 0);
    pthread_t t;
    if (pthread_create(&t, NULL, partner, &rounds) != 0) {
        perror("pthread_create");
        exit(1);
    }
    double t0 = itob_now_ns();
    for (long i = 0; i < 2 * rounds; i += 2) {
        atomic_store_explicit(&baton, i + 1, memory_order_release);
        while (atomic_load_explicit(&baton, memory_order_acquire) != i + 2) ;
    }
    double dt = itob_now_ns() - t0;
    pthread_join(t, NULL);
    return dt / (double)(2 * rounds);
}

int main(int argc, char **argv)
{
    int trials = 11, quick = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--trials") && i + 1 < argc) trials = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--quick")) quick = 1;
        else {
            fprintf(stderr, "usage: %s [--trials T] [--quick]\n", argv[0]);
            return 2;
        }
    }
    if (trials < 1 || trials > 1000) {
        fprintf(stderr, "line_transfer: --trials must be 1..1000\n");
        return 2;
    }
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &set)) {
            if (cpu_a < 0) cpu_a = c;
            else if (cpu_b < 0) cpu_b = c;
        }
    if (cpu_b < 0) {
        printf("SKIP line_transfer: needs two CPUs in the affinity mask\n");
        return 0;
    }
    pin(cpu_a);
    long rounds = quick ? HANDOFFS / 10 : HANDOFFS;
    double *v = malloc((size_t)trials * sizeof *v);
    trial(rounds / 10); /* warm-up */
    for (int t = 0; t < trials; t++) v[t] = trial(rounds);
    qsort(v, (size_t)trials, sizeof *v, itob_cmp);
    printf("RESULT benchmark=line_transfer system=host cpus=%d,%d median_ns=%.3f trials=%d\n", cpu_a, cpu_b,
           v[trials / 2], trials);
    free(v);
    return 0;
}
