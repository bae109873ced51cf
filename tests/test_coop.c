/* test_coop: the co-operative yields of ito/coop.h.
 * Two ULTs bound to one worker (main waits in a join, so they are alone there) yield
 * to each other through each flavour; they must strictly alternate, and their live
 * values must survive:
 *   ito_coop_yield_abi / ito_coop_yield_full: called from assembly with known values
 *     in rbx rbp r12-r15 (the registers a C caller relies on), checked after;
 *   ITO_COOP_YIELD_MIN() (and, under clang >= 19, a direct preserve_none call of
 *     ito_coop_yield): many live C values across the yield.
 * Also: ITO_COOP_POINT() yields only when ito_coop_flag is set and clears it, and the
 * yields are no-ops outside a ULT. */
#include <pthread.h>
#include <stdint.h>

#include "ito/ito.h"
#include "ito_test.h"

#if defined(ITOI_TSAN)
#define N 300
#else
#define N 2000
#endif

uint64_t c_in[6], c_out[6];
void *c_yield_fn; /* which yield the probe calls */
void c_probe(void); /* rbx rbp r12-r15 := c_in; call *c_yield_fn; c_out := them */

__asm__(".text\n"
        ".globl c_probe\n"
        ".type c_probe, @function\n"
        "c_probe:\n"
        "  pushq %rbx\n  pushq %rbp\n  pushq %r12\n  pushq %r13\n  pushq %r14\n  pushq %r15\n"
        "  subq $8, %rsp\n"
        "  movq c_in+0(%rip), %rbx\n"
        "  movq c_in+8(%rip), %rbp\n"
        "  movq c_in+16(%rip), %r12\n"
        "  movq c_in+24(%rip), %r13\n"
        "  movq c_in+32(%rip), %r14\n"
        "  movq c_in+40(%rip), %r15\n"
        "  call *c_yield_fn(%rip)\n"
        "  movq %rbx, c_out+0(%rip)\n"
        "  movq %rbp, c_out+8(%rip)\n"
        "  movq %r12, c_out+16(%rip)\n"
        "  movq %r13, c_out+24(%rip)\n"
        "  movq %r14, c_out+32(%rip)\n"
        "  movq %r15, c_out+40(%rip)\n"
        "  addq $8, %rsp\n"
        "  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n  popq %rbp\n  popq %rbx\n"
        "  ret\n"
        ".size c_probe, .-c_probe\n");

enum { F_ABI, F_FULL, F_MIN, F_PRESERVE_NONE, F_POINT };
static int flavour;
static char trace[2 * N + 8];
static int ntrace, reg_errors, value_errors;

static void one_yield(void)
{
    switch (flavour) {
    case F_ABI:
    case F_FULL:
        CHECK(0); /* through c_probe */
        break;
    case F_MIN:
        ITO_COOP_YIELD_MIN();
        break;
    case F_PRESERVE_NONE:
#if defined(__clang__) && __clang_major__ >= 19
        ito_coop_yield();
#endif
        break;
    case F_POINT:
        ito_coop_flag = 1;
        ITO_COOP_POINT();
        if (ito_coop_flag != 0) value_errors++; /* the yield clears the flag */
        ITO_COOP_POINT(); /* flag clear: no yield */
        break;
    }
}

static void *player(void *arg)
{
    char me = (char)(intptr_t)arg;
    uint64_t k = (uint64_t)me;
    /* Live values across every yield. */
    uint64_t a = k * 3, b = k * 5, c = k * 7, d = k * 11, e = k * 13, f = k * 17, g = k * 19;
    double x = (double)k / 3.0;
    for (int i = 0; i < N; i++) {
        trace[ntrace++] = me;
        if (flavour == F_ABI || flavour == F_FULL) {
            uint64_t want[6];
            for (int r = 0; r < 6; r++) want[r] = c_in[r] = (k << 56) ^ ((uint64_t)i << 8) ^ (uint64_t)r;
            c_probe();
            for (int r = 0; r < 6; r++)
                if (c_out[r] != want[r]) reg_errors++;
        } else {
            one_yield();
        }
        a += 1, b += 2, c += 3, d += 4, e += 5, f += 6, g += 7, x += 1.0;
    }
    if (a != k * 3 + N || b != k * 5 + 2 * N || c != k * 7 + 3 * N || d != k * 11 + 4 * N ||
        e != k * 13 + 5 * N || f != k * 17 + 6 * N || g != k * 19 + 7 * N || x != (double)k / 3.0 + N)
        value_errors++;
    return NULL;
}

static void run(int fl)
{
    flavour = fl;
    c_yield_fn = fl == F_FULL ? (void *)ito_coop_yield_full : (void *)ito_coop_yield_abi;
    ntrace = reg_errors = value_errors = 0;
    ito_attr_t at;
    CHECK_OK(ito_attr_init(&at));
    at.worker = 0;
    ito_thread_t ta, tb;
    ito_stats_t s0, s1;
    CHECK_OK(ito_stats(&s0));
    CHECK_OK(ito_create(&ta, player, (void *)(intptr_t)'A', &at));
    CHECK_OK(ito_create(&tb, player, (void *)(intptr_t)'B', &at));
    CHECK_OK(ito_join(ta, NULL));
    CHECK_OK(ito_join(tb, NULL));
    CHECK_OK(ito_stats(&s1));
    CHECK_EQ(ntrace, 2 * N);
    for (int i = 0; i < 2 * N; i++) {
        if (trace[i] != (i % 2 ? 'B' : 'A')) {
            fprintf(stderr, "flavour %d: not interleaved at %d\n", fl, i);
            CHECK(0);
        }
    }
    CHECK_EQ(reg_errors, 0);
    CHECK_EQ(value_errors, 0);
    CHECK(s1.switches - s0.switches >= 2 * N); /* every yield switched */
}

/* Outside a ULT every yield returns at once. */
static void *foreign(void *unused)
{
    (void)unused;
    ito_coop_flag = 1;
    ito_coop_yield_abi();
    CHECK_EQ(ito_coop_flag, 0);
    ito_coop_yield_full();
    ITO_COOP_YIELD_MIN();
    ito_coop_flag = 1;
    ITO_COOP_POINT();
    CHECK_EQ(ito_coop_flag, 0);
    return NULL;
}

int main(void)
{
    /* Before ito_init: no-ops too. */
    ito_coop_yield_abi();
    ito_coop_yield_full();
    ITO_COOP_YIELD_MIN();
    CHECK_OK(ito_init(NULL));
    /* main alone on its worker: the yields return to it. */
    ito_coop_yield_abi();
    ito_coop_yield_full();
    ITO_COOP_YIELD_MIN();
    run(F_ABI);
    run(F_FULL);
    run(F_MIN);
#if defined(__clang__) && __clang_major__ >= 19
    run(F_PRESERVE_NONE);
#endif
    run(F_POINT);
    pthread_t pt;
    CHECK_EQ(pthread_create(&pt, NULL, foreign, NULL), 0);
    CHECK_EQ(pthread_join(pt, NULL), 0);
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
