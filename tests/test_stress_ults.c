/* test_stress_ults: many ULTs, with checksums that prove no work is lost or done twice.
 *  - 100,000 ULTs created and joined in batches (at most BATCH alive at once: each
 *    stack is a mapping plus a guard page and the kernel caps a process's mappings at
 *    about 65k), each returning a value derived from its argument;
 *  - random trees of create / yield / join driven by a seeded PRNG: every node
 *    derives its children from its own seed, so a sequential walk of the same tree
 *    gives the expected node count and checksum; nodes randomly use child-first
 *    creation, worker binding, yield_to and detached leaves;
 * each with 1, 2 and 4 workers. */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "ito/ito.h"
#include "ito_test.h"

#if defined(ITOI_TSAN)
/* Every ULT is a TSan fiber with mappings of its own: fewer, and fewer alive at once. */
#define TOTAL 20000
#define BATCH 2000
#define TREES 6
#else
#define TOTAL 100000
#define BATCH 10000
#define TREES 20
#endif

static uint64_t mix(uint64_t x) /* splitmix64 finaliser */
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- 100k in batches ---- */
static _Atomic uint64_t ran_count;

static void *leaf(void *arg)
{
    atomic_fetch_add_explicit(&ran_count, 1, memory_order_relaxed);
    return (void *)(uintptr_t)mix((uintptr_t)arg);
}

static void run_batches(int workers)
{
    static ito_thread_t t[BATCH];
    ito_stats_t s0, s1;
    CHECK_OK(ito_stats(&s0));
    atomic_store(&ran_count, 0);
    uint64_t sum = 0, expect = 0;
    for (int base = 0; base < TOTAL; base += BATCH) {
        for (int i = 0; i < BATCH; i++)
            CHECK_OK(ito_create(&t[i], leaf, (void *)(uintptr_t)(base + i), NULL));
        for (int i = 0; i < BATCH; i++) {
            void *r;
            CHECK_OK(ito_join(t[i], &r));
            sum += (uintptr_t)r;
            expect += mix((uint64_t)(base + i));
        }
    }
    CHECK_EQ(atomic_load(&ran_count), TOTAL);
    CHECK(sum == expect);
    CHECK_OK(ito_stats(&s1));
    CHECK_EQ(s1.created - s0.created, TOTAL);
    CHECK_EQ(s1.finished - s0.finished, TOTAL);
    /* Stacks are pooled: far fewer mappings than ULTs. */
    CHECK(s1.stacks_mapped - s0.stacks_mapped <= (uint64_t)BATCH + 64u * (uint64_t)workers * 8u);
}

/* ---- random trees ---- */
#define MAX_DEPTH 6
#define MAX_KIDS 4

static int nworkers;
static _Atomic uint64_t tree_nodes, detached_sum, detached_started, detached_done;

/* What a subtree must produce: node count and checksum (walked sequentially). */
static void expect_tree(uint64_t seed, int depth, uint64_t *count, uint64_t *sum)
{
    *count += 1;
    *sum += mix(seed ^ 0xabcdef);
    int kids = depth < MAX_DEPTH ? (int)(mix(seed) % (MAX_KIDS + 1)) : 0;
    for (int i = 0; i < kids; i++) expect_tree(mix(seed + (uint64_t)i + 1), depth + 1, count, sum);
}

typedef struct {
    uint64_t seed;
    int depth;
} node_arg_t;

static void *node(void *p);

static void *detached_node(void *p)
{
    node_arg_t *a = p;
    uint64_t v = (uintptr_t)node(a);
    atomic_fetch_add(&detached_sum, v);
    free(a);
    atomic_fetch_add(&detached_done, 1);
    return NULL;
}

static void *node(void *p)
{
    node_arg_t *a = p;
    uint64_t seed = a->seed, rng = mix(seed ^ 0x5555);
    int depth = a->depth;
    atomic_fetch_add_explicit(&tree_nodes, 1, memory_order_relaxed);
    uint64_t sum = mix(seed ^ 0xabcdef);
    int kids = depth < MAX_DEPTH ? (int)(mix(seed) % (MAX_KIDS + 1)) : 0;
    ito_thread_t t[MAX_KIDS] = {0};
    node_arg_t args[MAX_KIDS];
    for (int i = 0; i < kids; i++) {
        args[i].seed = mix(seed + (uint64_t)i + 1);
        args[i].depth = depth + 1;
        rng = mix(rng);
        ito_attr_t at;
        CHECK_OK(ito_attr_init(&at));
        if (rng % 5 == 0) at.flags |= ITO_ATTR_CHILD_FIRST;
        if (rng % 7 == 0) at.worker = (int)((rng >> 8) % (uint64_t)nworkers);
        if (rng % 11 == 0) at.stack_size = 32 * 1024;
        if (rng % 13 == 0) {
            /* A detached child reports through detached_sum; its argument outlives us. */
            node_arg_t *d = malloc(sizeof *d);
            CHECK(d != NULL);
            *d = args[i];
            at.flags |= ITO_ATTR_DETACHED;
            atomic_fetch_add(&detached_started, 1);
            CHECK_OK(ito_create(NULL, detached_node, d, &at));
            continue;
        }
        CHECK_OK(ito_create(&t[i], node, &args[i], &at));
        for (uint64_t y = (rng >> 16) % 3; y > 0; y--) CHECK_OK(ito_yield());
        if ((rng >> 20) % 4 == 0) CHECK_OK(ito_yield_to(t[i]));
    }
    /* Join in a random order. */
    int order[MAX_KIDS];
    for (int i = 0; i < kids; i++) order[i] = i;
    for (int i = kids - 1; i > 0; i--) {
        rng = mix(rng);
        int j = (int)(rng % (uint64_t)(i + 1));
        int x = order[i];
        order[i] = order[j];
        order[j] = x;
    }
    for (int k = 0; k < kids; k++) {
        int i = order[k];
        if (!t[i]) continue;
        void *r;
        CHECK_OK(ito_join(t[i], &r));
        sum += (uintptr_t)r;
    }
    return (void *)(uintptr_t)sum;
}

static void run_trees(void)
{
    for (int tree = 0; tree < TREES; tree++) {
        uint64_t seed = mix(0x1234 + (uint64_t)tree), cnt = 0, sum = 0;
        expect_tree(seed, 0, &cnt, &sum);
        atomic_store(&tree_nodes, 0);
        atomic_store(&detached_sum, 0);
        atomic_store(&detached_started, 0);
        atomic_store(&detached_done, 0);
        node_arg_t root = {seed, 0};
        ito_thread_t t;
        void *r;
        CHECK_OK(ito_create(&t, node, &root, NULL));
        CHECK_OK(ito_join(t, &r));
        /* Detached subtrees may still run: wait until every detached root has added its
         * sum (a detached root is started only by a node that has not returned yet, so
         * once the joinable root is joined, detached_started is final). The time bound
         * only turns a hang into a failure. */
        double t0 = now();
        while (atomic_load(&detached_done) < atomic_load(&detached_started) && now() - t0 < 60.0)
            CHECK_OK(ito_yield());
        CHECK_EQ(atomic_load(&detached_done), atomic_load(&detached_started));
        uint64_t got = (uintptr_t)r + atomic_load(&detached_sum);
        CHECK_EQ(atomic_load(&tree_nodes), cnt);
        CHECK(got == sum);
    }
}

int main(void)
{
    const int configs[] = {1, 2, 4};
    for (int c = 0; c < 3; c++) {
        ito_config_t cfg = {.workers = configs[c]};
        nworkers = configs[c];
        CHECK_OK(ito_init(&cfg));
        CHECK_EQ(ito_worker_count(), configs[c]);
        run_batches(configs[c]);
        run_trees();
        CHECK_OK(ito_finalize()); /* also waits for any detached straggler */
        printf("workers=%d: %d ULTs in batches, %d random trees: checksums match\n", configs[c],
               TOTAL, TREES);
    }
    TEST_DONE();
}
