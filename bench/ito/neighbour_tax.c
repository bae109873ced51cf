/* neighbour_tax: how much a busy neighbour CPU slows this one, without ito.
 *
 *   neighbour_tax [--rounds R] [--cpu C] [--neighbour-cpu N]
 *
 * A software timer on another core (the helper of workloads/player/ticker.c, the nearest
 * software has to a predicated hardware timer) costs the core it ticks more than its
 * deliveries when the host shares something between the two vCPUs (SMT siblings under the
 * hypervisor, a power or frequency budget, a memory path): the worker runs slower while
 * the helper merely spins. This prices that on its own. The main thread, pinned to C, times
 * a fixed chunk of work (a floating-point chain beside a table walk in L1/L2, like a decoder's
 * mix) while a thread pinned to N alternates between two states, R rounds interleaved:
 *   asleep   nanosleep(200 us) in a loop: the neighbour CPU idles;
 *   spinning the ticker helper's loop (a CLOCK_MONOTONIC read and a pause, no store that
 *            the main thread reads: no cache line moves between the two).
 * Each sample waits 1 ms after the switch of state, runs one chunk to warm up and times the
 * next (TSC-free: CLOCK_MONOTONIC ns). The ratio spinning / asleep is taken per round, so
 * the host's slow and fast phases (which come in streaks of seconds) cancel out.
 * Prints RESULT benchmark=neighbour_tax asleep_median_ns= spinning_median_ns= ratio_p10=
 * ratio_median= ratio_p90= rounds= (ratio > 1: the busy neighbour slows this CPU). */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"

enum { ASLEEP = 0, SPINNING = 1, STOP = 2 };
static _Atomic int state;

static int pin(pthread_t t, int cpu)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    return pthread_setaffinity_np(t, sizeof s, &s);
}

static void *neighbour(void *arg)
{
    (void)arg;
    for (;;) {
        int s = atomic_load_explicit(&state, memory_order_relaxed);
        if (s == STOP) return NULL;
        if (s == SPINNING) {
            volatile double t = itob_now_ns(); /* the helper's clock poll */
            (void)t;
            __builtin_ia32_pause();
        } else {
            struct timespec ts = {0, 200000};
            nanosleep(&ts, NULL);
        }
    }
}

static volatile double sink;
static uint32_t table[8192]; /* 32 KiB */

static double chunk(void)
{
    double t0 = itob_now_ns();
    double a = 1.0001, b = 0;
    uint32_t h = 1;
    for (int i = 0; i < 200000; i++) {
        b += a * b + 1e-9;
        h = h * 2654435761u + table[h & 8191];
        table[(h >> 7) & 8191] ^= h;
    }
    sink = b + h;
    return itob_now_ns() - t0;
}

static double sample(int s)
{
    atomic_store(&state, s);
    struct timespec settle = {0, 1000000};
    nanosleep(&settle, NULL);
    chunk();
    return chunk();
}

int main(int argc, char **argv)
{
    int rounds = 201, cpu = -1, ncpu = -1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--cpu") && i + 1 < argc) cpu = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--neighbour-cpu") && i + 1 < argc) ncpu = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: neighbour_tax [--rounds R] [--cpu C] [--neighbour-cpu N]\n");
            return 2;
        }
    }
    if (rounds < 1 || rounds > 100000) {
        fprintf(stderr, "neighbour_tax: rounds 1..100000\n");
        return 2;
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (cpu < 0) cpu = n > 1 ? 1 : 0;
    if (ncpu < 0) ncpu = cpu == 0 ? 1 : 0;
    if (n < 2 || cpu == ncpu || cpu >= n || ncpu >= n) {
        printf("# neighbour_tax: needs two distinct online CPUs (have %ld): skipped\n", n);
        printf("RESULT benchmark=neighbour_tax skipped=1\n");
        return 0;
    }
    if (pin(pthread_self(), cpu) != 0) {
        fprintf(stderr, "neighbour_tax: cannot run on CPU %d\n", cpu);
        return 2;
    }
    pthread_t t;
    pthread_attr_t at;
    pthread_attr_init(&at);
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(ncpu, &s);
    pthread_attr_setaffinity_np(&at, sizeof s, &s);
    if (pthread_create(&t, &at, neighbour, NULL) != 0) {
        fprintf(stderr, "neighbour_tax: cannot start the neighbour on CPU %d\n", ncpu);
        return 2;
    }
    pthread_attr_destroy(&at);
    double *v[2], *ratio = calloc((size_t)rounds, sizeof *ratio);
    v[0] = calloc((size_t)rounds, sizeof *v[0]);
    v[1] = calloc((size_t)rounds, sizeof *v[1]);
    if (!ratio || !v[0] || !v[1]) return 1;
    for (int r = 0; r < rounds; r++) {
        int first = r & 1; /* alternate the order so neither state always comes first */
        v[first][r] = sample(first);
        v[!first][r] = sample(!first);
        ratio[r] = v[SPINNING][r] / v[ASLEEP][r];
    }
    atomic_store(&state, STOP);
    pthread_join(t, NULL);
    double ma = itob_median(v[ASLEEP], rounds), ms = itob_median(v[SPINNING], rounds);
    double mr = itob_median(ratio, rounds); /* sorts ratio */
    printf("RESULT benchmark=neighbour_tax cpu=%d neighbour_cpu=%d asleep_median_ns=%.0f spinning_median_ns=%.0f "
           "ratio_p10=%.3f ratio_median=%.3f ratio_p90=%.3f rounds=%d\n",
           cpu, ncpu, ma, ms, ratio[rounds / 10], mr, ratio[(rounds * 9) / 10], rounds);
    free(v[0]);
    free(v[1]);
    free(ratio);
    return 0;
}
