/* locks_main.c: the harness of locks.c, built without the plugin. 8 ULTs (unbound, 2
 * workers, FLAG preemption every 100 us) call walk() 300 times each over a 20000-node list.
 * Prints "sum S switches N": S must be 8 * 300 * walk's value, N > 0 (preempted quanta).
 * A yield inside walk's locked loop made every run hang (locks.sh runs it under timeout). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "ito/ito.h"

struct node { struct node *next; long size; };
struct node *locks_list;
long walk(long want);

#define ULTS 8
#define ROUNDS 300
static long sums[ULTS];

static void *run(void *arg)
{
    int me = (int)(intptr_t)arg;
    for (int r = 0; r < ROUNDS; r++) sums[me] += walk(-1);
    return NULL;
}

int main(void)
{
    for (long i = 0; i < 20000; i++) {
        struct node *n = malloc(sizeof *n);
        if (!n) return 2;
        n->size = i;
        n->next = locks_list;
        locks_list = n;
    }
    ito_config_t cfg = {.workers = 2};
    if (ito_init(&cfg) != ITO_OK) return 2;
    ito_preempt_config_t pc = {.quantum_us = 100, .mode = ITO_PREEMPT_FLAG};
    if (ito_preempt_enable(&pc) != ITO_OK) return 2;
    ito_thread_t t[ULTS];
    for (int i = 0; i < ULTS; i++)
        if (ito_create(&t[i], run, (void *)(intptr_t)i, NULL) != ITO_OK) return 2;
    for (int i = 0; i < ULTS; i++) ito_join(t[i], NULL);
    ito_preempt_stats_t st;
    if (ito_preempt_stats(&st) != ITO_OK) return 2;
    if (ito_preempt_disable() != ITO_OK || ito_finalize() != ITO_OK) return 2;
    long s = 0;
    for (int i = 0; i < ULTS; i++) s += sums[i];
    printf("sum %ld switches %llu\n", s, (unsigned long long)st.preemptions);
    return 0;
}
