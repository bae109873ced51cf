/* Trace mode of the workloads: with one thread and a counting consumer, the kernels emit the
 * exact event stream their loops imply (B-MM counted in closed form), every address lies in
 * the program's simulated range, instruction counts survive the 4-bit packing, tracing does
 * not change results, and every check rejects an uncomputed program. */
#include "ito_test.h"
#include "wl.h"

#include <stdint.h>

#define SIM_BASE (1ull << 40)

typedef struct counts {
    uint64_t ev[8], ops, flushes, lo, hi, bad_addr;
} counts;

static void count_flush(wl_tracer *t)
{
    counts *c = t->owner;
    for (uint32_t i = 0; i < t->n; i++) {
        uint64_t e = t->buf[i];
        unsigned k = WL_EV_KIND(e);
        c->ev[k]++;
        c->ops += WL_EV_OPS_BEFORE(e);
        if (k == WL_EV_OPS)
            c->ops += WL_EV_PAYLOAD(e);
        if (k == WL_EV_READ || k == WL_EV_WRITE) {
            uint64_t a = WL_EV_PAYLOAD(e);
            if (a < c->lo || a >= c->hi)
                c->bad_addr++;
        }
    }
    c->flushes++;
    t->n = 0;
}

static counts run_traced(const wl_kind *k, const wl_size *s, int *check_rc)
{
    static uint64_t buf[1000];
    counts c = {0};
    wl_arena a;
    CHECK_EQ(wl_arena_init(&a, k->arena_bytes(s, 1)), 0);
    void *prog = k->setup(&a, s, 1, 7);
    CHECK(prog != NULL);
    c.lo = SIM_BASE;
    c.hi = SIM_BASE + a.size;
    wl_tracer tr = {.buf = buf, .n = 0, .cap = 1000, .pending_ops = 0,
                    .delta = (intptr_t)SIM_BASE - (intptr_t)a.base, .flush = count_flush, .owner = &c};
    wl_ctx ctx = {.tid = 0, .nthreads = 1, .tr = &tr, .hooks = NULL, .prog = prog};
    k->thread(&ctx);
    CHECK_EQ(tr.n, 0); /* exit flushes */
    char err[256];
    *check_rc = k->check(prog, err, sizeof err);
    wl_arena_free(&a);
    return c;
}

int main(void)
{
    int rc;
    /* B-MM in closed form */
    const wl_size bs = {32, 8, 1};
    const uint64_t n = 32, b = 8;
    counts c = run_traced(&wl_bmm, &bs, &rc);
    CHECK_EQ(rc, 0);
    CHECK_EQ(c.ev[WL_EV_READ], 2 * n * n * n + n * n * n / b);
    CHECK_EQ(c.ev[WL_EV_WRITE], n * n * n);
    CHECK_EQ(c.ev[WL_EV_BEGIN], (n / b) * (n / b));
    CHECK_EQ(c.ev[WL_EV_END], (n / b) * (n / b));
    CHECK_EQ(c.ev[WL_EV_BARRIER], 0);
    CHECK_EQ(c.ev[WL_EV_EXIT], 1);
    CHECK_EQ(c.ops, 4 * n * n * n + 3 * n * n * n / b + 3 * (n / b) * (n / b) * n);
    CHECK_EQ(c.bad_addr, 0);
    CHECK(c.flushes > 1);

    /* bitonic: one barrier per stage */
    const wl_size bss = {256, 0, 2};
    c = run_traced(&wl_bs, &bss, &rc);
    CHECK_EQ(rc, 0);
    CHECK_EQ(c.ev[WL_EV_BARRIER], 2 * 8 * 9 / 2);
    CHECK_EQ(c.ev[WL_EV_READ], 2 * 36 * 128 * 2);
    CHECK_EQ(c.ev[WL_EV_BEGIN], 0);

    /* FFT: 17 instructions per butterfly do not fit in 4 bits and become OPS events */
    const wl_size fs = {64, 0, 1};
    c = run_traced(&wl_fft, &fs, &rc);
    CHECK_EQ(rc, 0);
    CHECK(c.ev[WL_EV_OPS] > 0);
    CHECK_EQ(c.ops, 64 * 12 + 6 * 32 * 17);
    CHECK_EQ(c.ev[WL_EV_BARRIER], 1 + 6);

    /* every kind: tracing leaves results right, addresses in range, B-LU has regions */
    for (const wl_kind *const *k = wl_all(); *k; k++) {
        c = run_traced(*k, &(*k)->sizes[WL_SCALE_TEST], &rc);
        CHECK_EQ(rc, 0);
        CHECK_EQ(c.bad_addr, 0);
        CHECK_EQ(c.ev[WL_EV_BEGIN], c.ev[WL_EV_END]);
        CHECK((c.ev[WL_EV_BEGIN] > 0) == ((*k)->blocked != 0));
        CHECK(c.ev[WL_EV_READ] > 0 && c.ev[WL_EV_WRITE] > 0);

        /* a program whose threads never ran must fail its check */
        wl_arena a;
        CHECK_EQ(wl_arena_init(&a, (*k)->arena_bytes(&(*k)->sizes[WL_SCALE_TEST], 2)), 0);
        void *prog = (*k)->setup(&a, &(*k)->sizes[WL_SCALE_TEST], 2, 7);
        char err[256] = "";
        CHECK(prog != NULL);
        CHECK_EQ((*k)->check(prog, err, sizeof err), -1);
        CHECK(err[0] != 0);
        wl_arena_free(&a);
    }
    TEST_DONE();
}
