/* locks_main.c: the harness of locks.c, built without the plugin. 8 ULTs (unbound, 2
 * workers, FLAG preemption every 100 us) call walk() 300 times each over a 20000-node list.
 * Prints "sum S switches N": S must be 8 * 300 * walk's value, N > 0 (preempted quanta).
 * A yield inside walk's locked loop made every run hang (locks.sh runs it under timeout). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "realrt_harness.h"

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
    ito_preempt_stats_t st;
    if (realrt_run(2, ULTS, run, &st) != 0) return 2;
    long s = 0;
    for (int i = 0; i < ULTS; i++) s += sums[i];
    printf("sum %ld switches %llu\n", s, (unsigned long long)st.preemptions);
    return 0;
}
