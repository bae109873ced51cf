/* test_stress_sync: synchronization under load, with checksums, for 1, 2 and 4 workers.
 *  - producers and consumers on one stream: bytes from a PRNG; the count, the sum and
 *    a nonlinear multiset hash of everything consumed must equal what was produced
 *    (bytes of different producers may interleave: a put is not atomic);
 *  - a pipeline of single-producer streams carrying 8-byte sequence numbers through
 *    relay ULTs: every record arrives once, in order, reassembled from partial gets;
 *  - mutex-protected non-atomic counters incremented from many ULTs on all workers;
 *  - condition-variable ping-pong: two ULTs strictly alternate. */
#include <stdatomic.h>
#include <stdint.h>

#include "ito/ito.h"
#include "ito_test.h"

#if defined(ITOI_TSAN)
#define SCALE 8
#else
#define SCALE 1
#endif

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* ---- MPMC bytes ---- */
#define PRODUCERS 4
#define CONSUMERS 3
#define BYTES_PER_PRODUCER (200000 / SCALE)

typedef struct {
    uint64_t count, sum, hash;
} tally_t;

static void tally_add(tally_t *t, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        t->count++;
        t->sum += p[i];
        t->hash += mix(p[i] + 1);
    }
}

static ito_stream_t *mpmc;
static tally_t produced[PRODUCERS], consumed[CONSUMERS];

static void *producer(void *arg)
{
    int id = (int)(intptr_t)arg;
    uint64_t rng = mix((uint64_t)id + 77);
    unsigned char buf[97];
    size_t left = BYTES_PER_PRODUCER;
    while (left) {
        rng = mix(rng);
        size_t n = 1 + rng % sizeof buf;
        if (n > left) n = left;
        for (size_t i = 0; i < n; i++) buf[i] = (unsigned char)(mix(rng + i) >> 13);
        if (rng % 4 == 0) {
            size_t put = 0;
            int rc = ito_stream_try_put(mpmc, buf, n, &put);
            CHECK(rc == ITO_OK || rc == ITO_EAGAIN);
            n = put;
        } else {
            CHECK_OK(ito_stream_put(mpmc, buf, n));
        }
        tally_add(&produced[id], buf, n);
        left -= n;
        if (n == 0) CHECK_OK(ito_yield());
    }
    return NULL;
}

static void *consumer(void *arg)
{
    int id = (int)(intptr_t)arg;
    unsigned char buf[61];
    size_t got;
    int rc;
    uint64_t rng = (uint64_t)id;
    for (;;) {
        rng = mix(rng);
        rc = ito_stream_get(mpmc, buf, 1 + rng % sizeof buf, &got);
        if (rc == ITO_ECLOSED) break;
        CHECK_OK(rc);
        CHECK(got >= 1);
        tally_add(&consumed[id], buf, got);
    }
    CHECK_EQ(got, 0);
    return NULL;
}

static void run_mpmc(void)
{
    memset(produced, 0, sizeof produced);
    memset(consumed, 0, sizeof consumed);
    CHECK_OK(ito_stream_create(&mpmc, 509));
    ito_thread_t p[PRODUCERS], c[CONSUMERS];
    for (int i = 0; i < CONSUMERS; i++) CHECK_OK(ito_create(&c[i], consumer, (void *)(intptr_t)i, NULL));
    for (int i = 0; i < PRODUCERS; i++) CHECK_OK(ito_create(&p[i], producer, (void *)(intptr_t)i, NULL));
    for (int i = 0; i < PRODUCERS; i++) CHECK_OK(ito_join(p[i], NULL));
    CHECK_OK(ito_stream_close(mpmc));
    for (int i = 0; i < CONSUMERS; i++) CHECK_OK(ito_join(c[i], NULL));
    tally_t in = {0}, out = {0};
    for (int i = 0; i < PRODUCERS; i++) {
        CHECK_EQ(produced[i].count, BYTES_PER_PRODUCER);
        in.count += produced[i].count, in.sum += produced[i].sum, in.hash += produced[i].hash;
    }
    for (int i = 0; i < CONSUMERS; i++)
        out.count += consumed[i].count, out.sum += consumed[i].sum, out.hash += consumed[i].hash;
    CHECK_EQ(out.count, in.count);
    CHECK(out.sum == in.sum);
    CHECK(out.hash == in.hash);
    CHECK_OK(ito_stream_destroy(mpmc));
}

/* ---- pipeline of ordered records ---- */
#define STAGES 4
#define RECORDS (50000 / SCALE)
static ito_stream_t *pipe_s[STAGES];

/* Read exactly one 8-byte record, however the stream splits it; 0 at end. */
static int read_record(ito_stream_t *s, uint64_t *v)
{
    unsigned char b[8];
    size_t have = 0, got;
    while (have < 8) {
        int rc = ito_stream_get(s, b + have, 8 - have, &got);
        if (rc == ITO_ECLOSED) {
            CHECK_EQ(have, 0); /* never a torn record at the end */
            return 0;
        }
        CHECK_OK(rc);
        have += got;
    }
    memcpy(v, b, 8);
    return 1;
}

static void *source(void *unused)
{
    (void)unused;
    for (uint64_t i = 0; i < RECORDS; i++) CHECK_OK(ito_stream_put(pipe_s[0], &i, 8));
    CHECK_OK(ito_stream_close(pipe_s[0]));
    return NULL;
}

static void *relay(void *arg)
{
    int k = (int)(intptr_t)arg;
    uint64_t v, expect = 0;
    while (read_record(pipe_s[k], &v)) {
        CHECK(v == expect);
        expect++;
        v = v * 3 + (uint64_t)k; /* transform, so the sink can tell every stage ran */
        uint64_t back = (v - (uint64_t)k) / 3;
        CHECK(back == expect - 1);
        v = back;
        CHECK_OK(ito_stream_put(pipe_s[k + 1], &v, 8));
    }
    CHECK_OK(ito_stream_close(pipe_s[k + 1]));
    return (void *)(uintptr_t)expect;
}

static void *sink(void *unused)
{
    (void)unused;
    uint64_t v, n = 0, sum = 0;
    while (read_record(pipe_s[STAGES - 1], &v)) {
        CHECK(v == n);
        n++;
        sum += v;
    }
    CHECK(sum == (uint64_t)RECORDS * (RECORDS - 1) / 2);
    return (void *)(uintptr_t)n;
}

static void run_pipeline(void)
{
    const size_t caps[STAGES] = {3, 8, 13, 64}; /* 3: every record is split */
    for (int k = 0; k < STAGES; k++) CHECK_OK(ito_stream_create(&pipe_s[k], caps[k]));
    ito_thread_t src, snk, rel[STAGES - 1];
    CHECK_OK(ito_create(&snk, sink, NULL, NULL));
    for (int k = 0; k < STAGES - 1; k++) CHECK_OK(ito_create(&rel[k], relay, (void *)(intptr_t)k, NULL));
    CHECK_OK(ito_create(&src, source, NULL, NULL));
    CHECK_OK(ito_join(src, NULL));
    void *r;
    for (int k = 0; k < STAGES - 1; k++) {
        CHECK_OK(ito_join(rel[k], &r));
        CHECK_EQ((uintptr_t)r, RECORDS);
    }
    CHECK_OK(ito_join(snk, &r));
    CHECK_EQ((uintptr_t)r, RECORDS);
    for (int k = 0; k < STAGES; k++) CHECK_OK(ito_stream_destroy(pipe_s[k]));
}

/* ---- mutex counters ---- */
#define COUNTERS 4
#define INCR_ULTS 32
#define INCRS (5000 / SCALE)
static ito_mutex_t cm[COUNTERS];
static uint64_t counters[COUNTERS];

static void *incrementer(void *arg)
{
    uint64_t rng = mix((uintptr_t)arg);
    for (int i = 0; i < INCRS; i++) {
        rng = mix(rng);
        int k = (int)(rng % COUNTERS);
        CHECK_OK(ito_mutex_lock(&cm[k]));
        uint64_t v = counters[k];
        if (rng % 16 == 0) CHECK_OK(ito_yield()); /* hold the lock across a switch */
        counters[k] = v + 1;
        CHECK_OK(ito_mutex_unlock(&cm[k]));
    }
    return NULL;
}

static void run_counters(void)
{
    for (int k = 0; k < COUNTERS; k++) {
        CHECK_OK(ito_mutex_init(&cm[k]));
        counters[k] = 0;
    }
    ito_thread_t t[INCR_ULTS];
    for (int i = 0; i < INCR_ULTS; i++) CHECK_OK(ito_create(&t[i], incrementer, (void *)(intptr_t)i, NULL));
    for (int i = 0; i < INCR_ULTS; i++) CHECK_OK(ito_join(t[i], NULL));
    uint64_t total = 0;
    for (int k = 0; k < COUNTERS; k++) {
        total += counters[k];
        CHECK_OK(ito_mutex_destroy(&cm[k]));
    }
    CHECK_EQ(total, (uint64_t)INCR_ULTS * INCRS);
}

/* ---- condition-variable ping-pong ---- */
#define ROUNDS (20000 / SCALE)
static ito_mutex_t pm;
static ito_cond_t pc;
static int turn;            /* 0: ping's turn, 1: pong's */
static uint64_t trace_sum;  /* sum of (round * 2 + side) in the order the turns happen */
static uint64_t steps;

static void *player(void *arg)
{
    int side = (int)(intptr_t)arg;
    for (uint64_t r = 0; r < ROUNDS; r++) {
        CHECK_OK(ito_mutex_lock(&pm));
        while (turn != side) CHECK_OK(ito_cond_wait(&pc, &pm));
        CHECK_EQ(steps, r * 2 + (uint64_t)side); /* strict alternation */
        steps++;
        trace_sum += r * 2 + (uint64_t)side;
        turn = 1 - side;
        CHECK_OK(ito_cond_signal(&pc));
        CHECK_OK(ito_mutex_unlock(&pm));
    }
    return NULL;
}

static void run_pingpong(void)
{
    CHECK_OK(ito_mutex_init(&pm));
    CHECK_OK(ito_cond_init(&pc));
    turn = 0;
    steps = trace_sum = 0;
    ito_thread_t a, b;
    CHECK_OK(ito_create(&b, player, (void *)1, NULL));
    CHECK_OK(ito_create(&a, player, (void *)0, NULL));
    CHECK_OK(ito_join(a, NULL));
    CHECK_OK(ito_join(b, NULL));
    CHECK_EQ(steps, 2 * ROUNDS);
    CHECK(trace_sum == (uint64_t)(2 * ROUNDS) * (2 * ROUNDS - 1) / 2);
    CHECK_OK(ito_cond_destroy(&pc));
    CHECK_OK(ito_mutex_destroy(&pm));
}

int main(void)
{
    const int configs[] = {1, 2, 4};
    for (int c = 0; c < 3; c++) {
        ito_config_t cfg = {.workers = configs[c]};
        CHECK_OK(ito_init(&cfg));
        run_mpmc();
        run_pipeline();
        run_counters();
        run_pingpong();
        CHECK_OK(ito_finalize());
        printf("workers=%d: streams, pipeline, mutex counters, cond ping-pong: checksums match\n",
               configs[c]);
    }
    TEST_DONE();
}
