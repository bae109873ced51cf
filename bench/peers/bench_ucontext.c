/* bench_ucontext: raw one-direction context switch with glibc's swapcontext.
 *
 * Two contexts ping-pong: main swaps to the peer, the peer swaps back. A round trip is
 * two switches, so the time of one direction is elapsed / (2 * round trips). Each
 * swapcontext also saves and restores the signal mask with a rt_sigprocmask system
 * call: that is what ucontext costs, and why it is the slow reference.
 * Prints RESULT benchmark=switch system=ucontext ... (see peer_common.h). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>

#include "peer_common.h"

#define STACK_SIZE (64 * 1024)

static ucontext_t main_uc, peer_uc;

static void peer_loop(void)
{
    for (;;) swapcontext(&peer_uc, &main_uc);
}

int main(int argc, char **argv)
{
    peer_opts o = peer_parse_args(argc, argv);
    if (!peer_wants(&o, "switch")) return 0;
    long n = peer_ops(&o, 100000);
    char *stack = malloc(STACK_SIZE);
    if (!stack || getcontext(&peer_uc) != 0) {
        perror("bench_ucontext");
        return 1;
    }
    peer_uc.uc_stack.ss_sp = stack;
    peer_uc.uc_stack.ss_size = STACK_SIZE;
    peer_uc.uc_link = NULL; /* peer_loop never returns */
    makecontext(&peer_uc, peer_loop, 0);
    double *v = peer_samples(o.trials);
    for (int t = -1; t < o.trials; t++) { /* trial -1 warms up */
        double t0 = peer_now_ns();
        for (long i = 0; i < n; i++) swapcontext(&main_uc, &peer_uc);
        double dt = peer_now_ns() - t0;
        if (t >= 0) v[t] = dt / (2.0 * (double)n);
    }
    peer_report("switch", "ucontext", v, o.trials);
    free(v);
    free(stack);
    return 0;
}
