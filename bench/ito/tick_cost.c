/* tick_cost: what one preemption tick costs this host, without ito.
 *
 *   tick_cost [--rounds R] [--iters N]
 *
 * ito's preemption (src/preempt) gives each worker a POSIX timer that signals its thread
 * every quantum. The price of a tick is the host's: the timer interrupt (on a VM, the
 * hypervisor's), the signal's delivery and sigreturn. This runs the same dependent chain of
 * N multiply-adds with no timer, then with a thread-directed POSIX timer (SIGEV_THREAD_ID,
 * an empty handler) at 1 ms and at 100 us, R rounds interleaved, and prints per quantum the
 * min / median / max time and the cost per tick: (time - untimed time of the same round) /
 * ticks. On the 2-vCPU AMD EPYC VM of 2026-11-27: ~35 us per tick, so a 100 us quantum
 * slowed the loop by 40-55 % and 1 ms by 4 %.
 * Prints RESULT benchmark=tick_cost quantum_us=Q min_s= median_s= max_s= us_per_tick=
 * (the median over rounds). */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"

static volatile sig_atomic_t ticks;
static void on_tick(int sig)
{
    (void)sig;
    ticks++;
}

/* The chain, timed in seconds, under a timer of `us` microseconds (0: none). */
static double chain(long iters, long us, long *nticks)
{
    timer_t t;
    if (us) {
        struct sigevent sev;
        memset(&sev, 0, sizeof sev);
        sev.sigev_notify = SIGEV_THREAD_ID;
        sev.sigev_signo = SIGURG;
        sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
        struct itimerspec its = {{0, us * 1000}, {0, us * 1000}};
        if (timer_create(CLOCK_MONOTONIC, &sev, &t) != 0 || timer_settime(t, 0, &its, NULL) != 0) {
            perror("tick_cost: timer");
            exit(1);
        }
    }
    ticks = 0;
    volatile double x = 1.0;
    double t0 = itob_now_ns();
    for (long i = 0; i < iters; i++) x = x * 1.0000001 + 1e-9;
    double dt = (itob_now_ns() - t0) * 1e-9;
    if (us) timer_delete(t);
    *nticks = ticks;
    return dt;
}

int main(int argc, char **argv)
{
    int rounds = 5;
    long iters = 200000000;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--iters") && i + 1 < argc) iters = atol(argv[++i]);
        else {
            fprintf(stderr, "usage: tick_cost [--rounds R] [--iters N]\n");
            return 2;
        }
    }
    if (rounds < 1 || rounds > 1000 || iters < 1) {
        fprintf(stderr, "tick_cost: rounds 1..1000, iters >= 1\n");
        return 2;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_tick;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGURG, &sa, NULL);
    static const long quanta[] = {0, 1000, 100};
    enum { NQ = 3 };
    double *secs = calloc((size_t)rounds * NQ, sizeof *secs), *per = calloc((size_t)rounds * NQ, sizeof *per);
    if (!secs || !per) return 1;
    for (int r = 0; r < rounds; r++) {
        double base = 0;
        for (int q = 0; q < NQ; q++) {
            long n;
            double s = chain(iters, quanta[q], &n);
            if (q == 0) base = s;
            secs[q * rounds + r] = s;
            per[q * rounds + r] = n ? (s - base) * 1e6 / (double)n : 0;
        }
    }
    for (int q = 0; q < NQ; q++) {
        double *v = &secs[q * rounds];
        double med = itob_median(v, rounds); /* sorts v */
        printf("RESULT benchmark=tick_cost quantum_us=%ld min_s=%.3f median_s=%.3f max_s=%.3f us_per_tick=%.1f\n",
               quanta[q], v[0], med, v[rounds - 1], itob_median(&per[q * rounds], rounds));
    }
    free(secs);
    free(per);
    return 0;
}
