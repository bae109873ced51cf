/* bench_util.h: what ito's benchmark programs share: the clock and the median. */
#ifndef ITO_BENCH_UTIL_H
#define ITO_BENCH_UTIL_H

#include <stdlib.h>
#include <time.h>

static inline double itob_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static inline int itob_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of v[0..n) (sorts v). */
static inline double itob_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, itob_cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif
