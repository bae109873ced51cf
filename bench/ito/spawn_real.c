/* spawn_real: real bulk creation on this machine (issue "parallel creation").
 *
 * For n in {10^3, 10^4, 10^5, 10^6} and each scheme:
 *   spawn      the time of one ito_create_many(n) call divided by n (creation only; the
 *              empty threads are joined afterwards, untimed), and the same for a loop of
 *              single ito_create calls (scheme "loop", in rounds of 10^4 created then
 *              joined);
 *   spawn_run  creating and running: ito_create_many(n) of detached empty threads until
 *              all n have finished (the runtime's own count), divided by n.
 * Prints
 *   RESULT benchmark=<spawn|spawn_run> scheme=<s> workers=<w> n=<n> median_ns=<per thread> trials=<t>
 * and, after each loop, where its descriptors lie (layout(): spawn_layout lines).
 * Usage: bench_spawn [--workers W] [--trials T] [--quick] */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "ito/ito.h"



static void *empty(void *a) { return a; }

/* Where the descriptors of the loop's last round lie (an explanation, not a time):
 * consecutive creates whose descriptors are neighbours in memory, and the span of the
 * round's descriptors. A thread handle is its descriptor's address with a generation in
 * the top 16 bits (src/core/itoi.h, ITOI_HANDLE_PTR_BITS). Fresh pools hand out
 * descriptors in address order; pools shuffled by bulk creation on several workers do
 * not, and a create then misses the cache on every descriptor line. */
static void layout(const ito_thread_t *hs, size_t k, int nw, size_t n)
{
    uintptr_t lo = UINTPTR_MAX, hi = 0, mask = ((uintptr_t)1 << 48) - 1;
    size_t near = 0;
    for (size_t i = 0; i < k; i++) {
        uintptr_t a = (uintptr_t)hs[i] & mask;
        lo = a < lo ? a : lo;
        hi = a > hi ? a : hi;
        if (i) {
            uintptr_t b = (uintptr_t)hs[i - 1] & mask;
            near += (a > b ? a - b : b - a) <= 512;
        }
    }
    printf("RESULT benchmark=spawn_layout scheme=loop workers=%d n=%zu round=%zu neighbours=%zu span_mb=%.1f\n",
           nw, n, k, near, (double)(hi - lo) / 1e6);
}

static const char *names[] = {"serial", "simple", "template", "chunk", "combination"};

static int run(int workers, int trials, int quick)
{
    ito_config_t cfg = {.workers = workers};
    int rc = ito_init(&cfg);
    if (rc != ITO_OK) {
        fprintf(stderr, "ito_init: %s\n", ito_strerror(rc));
        return 1;
    }
    int nw = ito_worker_count();
    size_t maxn = quick ? 100000 : 1000000;
    ito_thread_t *hs = malloc(maxn * sizeof *hs);
    double *v = malloc((size_t)trials * sizeof *v);
    for (size_t n = 1000; n <= maxn; n *= 10) {
        int tr = n >= 1000000 ? (trials < 5 ? trials : 5) : trials;
        for (int s = -1; s <= ITO_SPAWN_COMBINED; s++) {
            for (int t = -1; t < tr; t++) {
                double dt = 0;
                if (s < 0) { /* a loop of single creates */
                    for (size_t done = 0; done < n; done += 10000) {
                        size_t k = n - done < 10000 ? n - done : 10000;
                        double t0 = itob_now_ns();
                        for (size_t i = 0; i < k; i++) ito_create(&hs[i], empty, NULL, NULL);
                        dt += itob_now_ns() - t0;
                        for (size_t i = 0; i < k; i++) ito_join(hs[i], NULL);
                    }
                } else {
                    ito_spawn_attr_t a;
                    ito_spawn_attr_init(&a);
                    a.scheme = (ito_spawn_scheme_t)s;
                    double t0 = itob_now_ns();
                    rc = ito_create_many(n, empty, NULL, 0, NULL, hs, NULL, &a);
                    dt = itob_now_ns() - t0;
                    if (rc != ITO_OK) {
                        fprintf(stderr, "ito_create_many: %s\n", ito_strerror(rc));
                        return 1;
                    }
                    for (size_t i = 0; i < n; i++) ito_join(hs[i], NULL);
                }
                if (t >= 0) v[t] = dt / (double)n;
            }
            qsort(v, (size_t)tr, sizeof *v, itob_cmp);
            printf("RESULT benchmark=spawn scheme=%s workers=%d n=%zu median_ns=%.3f trials=%d\n",
                   s < 0 ? "loop" : names[s], nw, n, v[tr / 2], tr);
            if (s < 0) layout(hs, n < 10000 ? n : 10000, nw, n);
            fflush(stdout);
        }
        for (int s = 0; s <= ITO_SPAWN_COMBINED; s++) { /* create and run */
            for (int t = -1; t < tr; t++) {
                ito_spawn_attr_t a;
                ito_spawn_attr_init(&a);
                a.scheme = (ito_spawn_scheme_t)s;
                a.flags = ITO_ATTR_DETACHED;
                ito_stats_t st;
                ito_stats(&st);
                uint64_t f0 = st.finished;
                double t0 = itob_now_ns();
                rc = ito_create_many(n, empty, NULL, 0, NULL, NULL, NULL, &a);
                if (rc != ITO_OK) {
                    fprintf(stderr, "ito_create_many: %s\n", ito_strerror(rc));
                    return 1;
                }
                do {
                    ito_yield();
                    ito_stats(&st);
                } while (st.finished - f0 < n);
                double dt = itob_now_ns() - t0;
                if (t >= 0) v[t] = dt / (double)n;
            }
            qsort(v, (size_t)tr, sizeof *v, itob_cmp);
            printf("RESULT benchmark=spawn_run scheme=%s workers=%d n=%zu median_ns=%.3f trials=%d\n", names[s],
                   nw, n, v[tr / 2], tr);
            fflush(stdout);
        }
    }
    free(v);
    free(hs);
    ito_finalize();
    return 0;
}

int main(int argc, char **argv)
{
    int workers = 0, trials = 11, quick = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--workers") && i + 1 < argc) workers = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--trials") && i + 1 < argc) trials = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--quick")) quick = 1;
        else {
            fprintf(stderr, "usage: %s [--workers W] [--trials T] [--quick]\n", argv[0]);
            return 2;
        }
    }
    for (int nw = workers ? workers : 1; nw <= (workers ? workers : 2); nw++)
        if (run(nw, trials, quick) != 0) return 1;
    return 0;
}
