/* tlsmove_main.c: the harness of tlsmove.c, built without the plugin. 32 ULTs (unbound,
 * 2 workers) each run probe(); hop() does some work and yields, so idle workers steal and
 * ULTs move. Prints "moves M stale S lost L"; tlsmove.sh wants M > 0 and, from the builds
 * with the plugin, S = 0 and L = 0 (the build without it shows S > 0: the check can fail). */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <resolv.h>

#include "ito/ito.h"

extern _Thread_local int tls_mark;
extern _Thread_local struct pair { long a, b; } tls_pair;
void probe(int rounds, int *stale, int *lost);

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

static void *spawn(void *arg)
{
    (void)arg;
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
    int s = 0, l = 0;
    for (int i = 0; i < ULTS; i++) {
        s += stale[i];
        l += lost[i];
    }
    printf("moves %d stale %d lost %d\n", atomic_load(&moves), s, l);
    return 0;
}
