/* switchcost.c: the cycles of one compiler-inserted yield, by what its stub saves.
 *
 *   switchcost-<variant> [--rounds N] [--batch B]
 *
 * Built per variant by ito-cc like decoder.c (only kernel() has checks: this file is
 * compiled with the plugin, and main/rearmer are ito_noyield). Two worker ULTs run kernel(),
 * a loop keeping 6 integer and 4 floating-point values live across its check; two rearmer
 * ULTs sit between them in the ready queue (A R1 B R2) and set the flag before yielding, so
 * each check of A and B takes a yield (as in compiler/tests/realrt --every). A round is
 * A -> R1 -> B -> R2 -> A: two compiler-inserted yields and two ito_yield()s. The time-stamp
 * counter is read by A every B rounds; the output is the minimum and the median of the
 * cycles per round over the batches (the minimum is the figure that survives a loaded
 * machine: a batch the OS interrupted only gets slower). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ito/ito.h"

static volatile int done; /* workers finished: the rearmers go on until both have */
static unsigned batch = 200, nbatch = 500;
static uint64_t *samples;

ito_noyield static uint64_t tsc(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}

/* Each iteration passes one check (the loop header's). */
__attribute__((noinline)) static double kernel(int me, unsigned iters)
{
    uint64_t a = (uint64_t)me, b = 3, c = 5, d = 7, e = 11, f = 13;
    double x = me, y = 0.5, z = 0.25, w = 0.125;
    uint64_t t0 = 0;
    for (unsigned i = 0; i < iters; i++) {
        if (me == 0 && i % batch == 0) {
            uint64_t t = tsc();
            if (i) samples[i / batch - 1] = t - t0;
            t0 = t;
        }
        a += b ^ i; b += c; c ^= d + a; d += e; e ^= f; f += a >> 3;
        x = x * 0.999 + y; y += z; z *= 0.9999; w -= x * 1e-9;
    }
    return (double)(a + b + c + d + e + f) + x + y + z + w;
}

static double result[2];

ito_noyield static void *worker(void *arg)
{
    int me = (int)(intptr_t)arg;
    ito_coop_flag = 1; /* the first check yields; the rearmers keep it so */
    result[me] = kernel(me, batch * (nbatch + 1));
    done++;
    return NULL;
}

ito_noyield static void *rearmer(void *arg)
{
    (void)arg;
    while (done < 2) {
        ito_coop_flag = 1;
        ito_yield();
    }
    return NULL;
}

ito_noyield static int cmp(const void *p, const void *q)
{
    uint64_t a = *(const uint64_t *)p, b = *(const uint64_t *)q;
    return a < b ? -1 : a > b;
}

ito_noyield int main(int argc, char **argv)
{
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--rounds")) nbatch = (unsigned)atoi(argv[i + 1]) / batch;
        else if (!strcmp(argv[i], "--batch")) batch = (unsigned)atoi(argv[i + 1]);
    }
    if (batch == 0 || nbatch == 0) return 2;
    samples = calloc(nbatch, sizeof *samples);
    ito_config_t cfg = {.workers = 1};
    if (!samples || ito_init(&cfg) != ITO_OK) return 2;
    ito_attr_t at;
    ito_attr_init(&at);
    at.worker = 0;
    ito_thread_t t[4];
    ito_create(&t[0], worker, (void *)(intptr_t)0, &at);
    ito_create(&t[1], rearmer, NULL, &at);
    ito_create(&t[2], worker, (void *)(intptr_t)1, &at);
    ito_create(&t[3], rearmer, NULL, &at);
    for (int i = 0; i < 4; i++) ito_join(t[i], NULL);
    ito_stats_t s;
    ito_stats(&s);
    ito_finalize();
    qsort(samples, nbatch, sizeof *samples, cmp);
    printf("batches=%u\nrounds_per_batch=%u\nmin_cycles_per_round=%.1f\n"
           "median_cycles_per_round=%.1f\nswitches=%llu\nresult=%.6f\n",
           nbatch, batch, (double)samples[0] / batch, (double)samples[nbatch / 2] / batch,
           (unsigned long long)s.switches, result[0] + result[1]);
    free(samples);
    return 0;
}
