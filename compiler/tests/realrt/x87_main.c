/* x87_main.c: the harness of x87.c, built without the plugin. 8 ULTs on one worker each
 * compute x87_sum() under FLAG preemption (or the budget check) and compare the result with
 * the same sum computed here, before any ULT runs. Prints "bad B interleaved I": x87.sh
 * wants B = 0 (no ULT got a wrong sum) and I = 1 (some ULT started before the first one
 * finished: the ULTs really switched at the yield points in the middle of their sums). */
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include "realrt_harness.h"

#define ULTS 8
#define TERMS 1000000

long double x87_sum(int n);

static long double results[ULTS];
static _Atomic int started, started_at_first_finish;

/* the reference: the same operations in the same order, in code without yield points */
static long double reference(int n)
{
    long double s = 0.0L;
    for (int i = 1; i <= n; i++) s += 1.0L / ((long double)i * i);
    return sqrtl(s * 6.0L);
}

static void *run(void *arg)
{
    atomic_fetch_add(&started, 1);
    results[(intptr_t)arg] = x87_sum(TERMS);
    int none = 0;
    atomic_compare_exchange_strong(&started_at_first_finish, &none, atomic_load(&started));
    return NULL;
}

int main(void)
{
    volatile int terms = TERMS; /* computed at run time, like the ULTs' sums */
    long double ref = reference(terms);
    if (realrt_run(1, ULTS, run, NULL) != 0) return 2;
    int bad = 0;
    for (int i = 0; i < ULTS; i++)
        if (!(results[i] == ref)) {
            fprintf(stderr, "x87: ULT %d: %.20Lg, not %.20Lg\n", i, results[i], ref);
            bad++;
        }
    printf("bad %d interleaved %d\n", bad, atomic_load(&started_at_first_finish) > 1);
    return 0;
}
