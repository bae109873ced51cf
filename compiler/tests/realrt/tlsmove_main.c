/* tlsmove_main.c: the harness of tlsmove.c, built without the plugin. 32 ULTs (unbound,
 * 2 workers) each run probe(); hop() does some work and yields, so idle workers steal and
 * ULTs move. Then (first, in fact) SELF_CYCLES rounds of 8 ULTs with FLAG preemption run
 * self_probe's call-free loops, ULTs moving inside them when a worker that ran out of work
 * steals. Prints "moves M stale S lost L selfmoves N" (N: loops inside which the ULT
 * moved); tlsmove.sh wants M > 0 and, from the builds with the plugin, N > 0, S = 0 and
 * L = 0 (the build without it shows S > 0: the check can fail; without the plugin's F4
 * fix, S > 0 in every variant with the plugin). */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <resolv.h>

#include "ito/ito.h"

extern _Thread_local int tls_mark;
extern _Thread_local struct pair { long a, b; } tls_pair;
void probe(int rounds, int *stale, int *lost);
void self_probe(int rounds, int *stale, int *moved);

#define ULTS 32
#define ROUNDS 300
static _Atomic int moves;

__attribute__((noinline)) int *here_errno(void) { return &errno; }
__attribute__((noinline)) int *here_mark(void) { return &tls_mark; }
__attribute__((noinline)) long *here_pair_b(void) { return &tls_pair.b; }
__attribute__((noinline)) uintptr_t here_mark_key(void) { return (uintptr_t)&tls_mark; }
__attribute__((noinline)) struct __res_state *here_res(void) { return &_res; }
__attribute__((noinline)) void *here_tp(void)
{
    void *p;
    __asm__ volatile("mov %%fs:0, %0" : "=r"(p));
    return p;
}

void hop(void)
{
    int w = ito_worker_id();
    volatile uint64_t x = 0;
    for (int i = 0; i < 5000; i++) x += (uint64_t)i;
    if (ito_yield() != ITO_OK) fprintf(stderr, "tlsmove: ito_yield failed\n");
    if (ito_worker_id() != w) atomic_fetch_add(&moves, 1);
}

static int stale[ULTS], lost[ULTS];

static void *run(void *arg)
{
    int i = (int)(intptr_t)arg;
    probe(ROUNDS, &stale[i], &lost[i]);
    return NULL;
}

/* self_probe in 3 ULTs on the 2 workers: a worker often runs out of work and steals, so
 * ULTs move inside self_loop's call-free loop (at its compiled yield points) */
#define SELF_ULTS 8
#define SELF_CYCLES 40
static int self_stale[SELF_ULTS], self_moved[SELF_ULTS]; /* each written by one ULT at a time */

static void *run_self(void *arg)
{
    int i = (int)(intptr_t)arg;
    self_probe(2 + 2 * i, &self_stale[i], &self_moved[i]);
    return NULL;
}

static void *spawn(void *arg)
{
    (void)arg;
    /* FLAG preemption for the self_probe phase only: the compiled yield points in
     * self_loop's call-free loop switch. Off for probe(), whose checks compare an address
     * taken before a call with the one the call returns: a switch at a point between them
     * would be counted stale though the plugin retook the address. */
    ito_preempt_config_t pc = {.quantum_us = 100, .mode = ITO_PREEMPT_FLAG};
    if (ito_preempt_enable(&pc) != ITO_OK) return (void *)1;
    for (int c = 0; c < SELF_CYCLES; c++) {
        ito_thread_t s[SELF_ULTS];
        for (int i = 0; i < SELF_ULTS; i++)
            if (ito_create(&s[i], run_self, (void *)(intptr_t)i, NULL) != ITO_OK) return (void *)1;
        for (int i = 0; i < SELF_ULTS; i++) ito_join(s[i], NULL);
    }
    if (ito_preempt_disable() != ITO_OK) return (void *)1;
    ito_thread_t t[ULTS];
    for (int i = 0; i < ULTS; i++)
        if (ito_create(&t[i], run, (void *)(intptr_t)i, NULL) != ITO_OK) return (void *)1;
    for (int i = 0; i < ULTS; i++) ito_join(t[i], NULL);
    return NULL;
}

int main(void)
{
    ito_config_t cfg = {.workers = 2};
    if (ito_init(&cfg) != ITO_OK) return 2;
    ito_thread_t t;
    void *r = (void *)1;
    if (ito_create(&t, spawn, NULL, NULL) != ITO_OK || ito_join(t, &r) != ITO_OK || r) return 2;
    if (ito_finalize() != ITO_OK) return 2;
    int s = 0, l = 0, sm = 0;
    for (int i = 0; i < SELF_ULTS; i++) {
        s += self_stale[i];
        sm += self_moved[i];
    }
    for (int i = 0; i < ULTS; i++) {
        s += stale[i];
        l += lost[i];
    }
    printf("moves %d stale %d lost %d selfmoves %d\n", atomic_load(&moves), s, l, sm);
    return 0;
}
