/* test_zwt_dag: random DAGs of ZWTs (seeded; up to 1,000,000 nodes with random fan-in,
 * repeated edges included) run on all workers: every node fires exactly once, after all
 * of its predecessors, and the checksum of what the nodes computed is the serial one.
 * Sanitizer builds run smaller graphs (the size is chosen at compile time). */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "ito/ito.h"
#include "ito_test.h"

#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#endif
#ifdef SANITIZED
#define BIG 30000
#else
#define BIG 1000000
#endif

static uint64_t rng;
static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
static uint64_t mix(uint64_t x)
{
    x ^= x >> 31;
    x *= 0x7fb5d329728ea185ull;
    x ^= x >> 27;
    return x;
}

/* the graph: node i's predecessors pred[pstart[i] .. pstart[i+1]), successors likewise */
static int n, nsinks;
static int *pstart, *pred, *sstart, *succ;
static _Atomic uint8_t *fired;
static _Atomic uint64_t checksum;
static ito_frame_t *fr;

static void node(ito_frame_t *f, int i, uint64_t v)
{
    (void)v;
    CHECK_EQ(atomic_fetch_add_explicit(&fired[i], 1, memory_order_relaxed), 0);
    for (int k = pstart[i]; k < pstart[i + 1]; k++)
        CHECK_EQ(atomic_load_explicit(&fired[pred[k]], memory_order_relaxed), 1);
    atomic_fetch_add_explicit(&checksum, mix((uint64_t)i), memory_order_relaxed);
    /* Read everything before the first continuation: the last one may let the whole
     * graph finish and main free or rebuild these arrays. */
    const int a = sstart[i], b = sstart[i + 1], nn = n, *sc = succ;
    if (a == b) {
        CHECK_OK(ito_continue(f, nn)); /* a sink: the join entry */
        return;
    }
    for (int k = a; k < b; k++) CHECK_OK(ito_continue(f, sc[k]));
}

/* Node i has fan-in 0 (a source, fed once by main) with probability 1/src_every, else
 * 1..maxin edges from earlier nodes, biased to recent ones (long chains) or uniform. */
static void build(int nn, uint64_t seed, int maxin, int src_every)
{
    n = nn;
    rng = seed | 1;
    pstart = calloc((size_t)n + 1, sizeof *pstart);
    int cap = n * maxin + 1;
    pred = malloc((size_t)cap * sizeof *pred);
    int m = 0;
    for (int i = 0; i < n; i++) {
        pstart[i] = m;
        if (i == 0 || rnd() % (uint64_t)src_every == 0) continue;
        int k = 1 + (int)(rnd() % (uint64_t)maxin);
        for (int j = 0; j < k; j++) {
            int p = (rnd() & 1) ? i - 1 - (int)(rnd() % (uint64_t)(i < 16 ? i : 16)) : (int)(rnd() % (uint64_t)i);
            pred[m++] = p; /* repeats allowed: each counts as one continuation */
        }
    }
    pstart[n] = m;
    sstart = calloc((size_t)n + 1, sizeof *sstart);
    succ = malloc((size_t)(m + 1) * sizeof *succ);
    for (int k = 0; k < m; k++) sstart[pred[k] + 1]++;
    for (int i = 0; i < n; i++) sstart[i + 1] += sstart[i];
    int *fill = malloc((size_t)n * sizeof *fill);
    for (int i = 0; i < n; i++) fill[i] = sstart[i];
    for (int i = 0; i < n; i++)
        for (int k = pstart[i]; k < pstart[i + 1]; k++) succ[fill[pred[k]]++] = i;
    free(fill);
    nsinks = 0;
    for (int i = 0; i < n; i++) nsinks += sstart[i] == sstart[i + 1];
}

static void run_graph(int nn, uint64_t seed, int maxin, int src_every)
{
    build(nn, seed, maxin, src_every);
    fired = calloc((size_t)n, 1);
    atomic_store(&checksum, 0);
    CHECK_OK(ito_frame_create(&fr, n + 1, 0));
    for (int i = 0; i < n; i++) {
        int fan = pstart[i + 1] - pstart[i];
        CHECK_OK(ito_entry_set(fr, i, node, fan ? (uint32_t)fan : 1, ITO_MODE_USER));
    }
    CHECK_OK(ito_entry_set(fr, n, NULL, (uint32_t)nsinks, ITO_MODE_USER));
    uint64_t fired0, fired1;
    CHECK_OK(ito_zwt_stats(&fired0, NULL));
    for (int i = 0; i < n; i++)
        if (pstart[i] == pstart[i + 1]) CHECK_OK(ito_continue(fr, i));
    CHECK_OK(ito_frame_wait(fr, n));
    uint64_t want = 0;
    for (int i = 0; i < n; i++) {
        CHECK_EQ(atomic_load(&fired[i]), 1);
        want += mix((uint64_t)i);
    }
    CHECK_EQ(atomic_load(&checksum), want);
    CHECK_OK(ito_zwt_stats(&fired1, NULL));
    CHECK(fired1 - fired0 >= (uint64_t)n); /* the counters saw them all */
    /* everything fired exactly once: one more continuation is refused everywhere */
    CHECK_EQ(ito_continue(fr, 0), ITO_ESTATE);
    CHECK_EQ(ito_continue(fr, n), ITO_ESTATE);
    CHECK_OK(ito_frame_destroy(fr));
    free((void *)fired);
    free(pstart);
    free(pred);
    free(sstart);
    free(succ);
}

int main(void)
{
    CHECK_OK(ito_init(NULL));
    run_graph(1, 1, 1, 1);
    run_graph(2, 2, 1, 1000);
    run_graph(100, 3, 3, 10);
    run_graph(5000, 4, 8, 50);
    run_graph(5000, 5, 1, 1 << 30);  /* a forest of chains from node 0 */
    run_graph(BIG / 10, 6, 4, 100);
    run_graph(BIG, 7, 4, 1000);
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
