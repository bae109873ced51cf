/* blocked-native: run one of the six programs natively with pthreads, check its result and
 * print the wall time.  Usage: blocked-native KIND [paper|quick|test] [THREADS] */
#define _POSIX_C_SOURCE 200809L
#include "wl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv)
{
    if (argc < 2 || !wl_find(argv[1])) {
        fprintf(stderr, "usage: %s KIND [paper|quick|test] [THREADS]\nkinds:", argv[0]);
        for (const wl_kind *const *k = wl_all(); *k; k++)
            fprintf(stderr, " %s", (*k)->name);
        fprintf(stderr, "\n");
        return 2;
    }
    const wl_kind *k = wl_find(argv[1]);
    wl_scale sc = WL_SCALE_PAPER;
    if (argc > 2)
        sc = !strcmp(argv[2], "quick") ? WL_SCALE_QUICK : !strcmp(argv[2], "test") ? WL_SCALE_TEST : WL_SCALE_PAPER;
    int p = argc > 3 ? atoi(argv[3]) : 8;
    if (p < 1 || p > 256) {
        fprintf(stderr, "bad thread count\n");
        return 2;
    }
    char err[256] = "";
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = wl_run_native(k, &k->sizes[sc], p, err, sizeof err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    printf("%s n=%ld b=%ld iters=%ld threads=%d %s %.3f s (including setup and check)\n", k->label,
           k->sizes[sc].n, k->sizes[sc].b, k->sizes[sc].iters, p, rc ? err : "ok", s);
    return rc ? 1 : 0;
}
