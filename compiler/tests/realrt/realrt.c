/* realrt.c: code built with the yield plugin behaves exactly as without it, on the real
 * ito runtime, with two ULTs really interleaving.
 *
 * Two ULTs share one worker and run the same battery of computations (loops with many
 * live integer and floating-point values, recursion, switch dispatch, callbacks, 128-bit
 * arithmetic, variadic functions, setjmp/longjmp across frames, a signal handler, an
 * ito_noyield function). A timer (workloads/player/ticker.c, every 20 us) sets the
 * worker's ito_coop_flag, so the yield points the plugin compiled in switch between them
 * all the time. stdout holds only results that do not depend on the interleaving; it must
 * be byte-identical between the build without the plugin and every plugin variant at each
 * of -O0..-O3 (run.sh compares). With --every (a tenth of the rounds, no timer) a yield is
 * taken at every check executed (see rearmer()). stderr reports what does depend on it: switches, how
 * often each ULT saw the other make progress, and the checks of the two regions where no
 * yield may happen (inside the signal handler, inside the ito_noyield function): each one
 * forces the flag on and then verifies that the other ULT did not run meanwhile. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ito/ito.h"
#include "ticker.h"

enum { NULT = 2, ROUNDS = 60 };

static volatile uint64_t progress[NULT];  /* bumped by each ULT as it goes */
static uint64_t seen_other[NULT];         /* times a ULT saw the other's progress move */
static volatile int noyield_violations, handler_violations, handler_runs;
static volatile int handler_ult;

static void step(int me)
{
    static uint64_t last[NULT];
    uint64_t o = progress[1 - me];
    if (o != last[me]) seen_other[me]++;
    last[me] = o;
    progress[me]++;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    return (h ^ v) * 1099511628211u;
}

/* Many values live at once (a 4x4 block of accumulators). */
static uint64_t matmul(int seed)
{
    enum { N = 20 };
    int32_t a[N][N], b[N][N];
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            a[i][j] = (i * 31 + j * 17 + seed) % 97 - 48;
            b[i][j] = (i * 13 + j * 29 + seed) % 89 - 44;
        }
    uint64_t h = 1469598103934665603u;
    for (int i = 0; i < N; i += 4)
        for (int j = 0; j < N; j += 4) {
            int64_t s[4][4] = {{0}};
            for (int k = 0; k < N; k++)
                for (int x = 0; x < 4; x++)
                    for (int y = 0; y < 4; y++) s[x][y] += (int64_t)a[i + x][k] * b[k][j + y];
            for (int x = 0; x < 4; x++)
                for (int y = 0; y < 4; y++) h = mix(h, (uint64_t)s[x][y]);
        }
    return h;
}

/* Doubles and floats kept in vector registers across the loop's yield points. */
static uint64_t filters(int n)
{
    double x1 = 0, x2 = 0, y1 = 0, y2 = 0, acc = 0;
    float v[64], w = 0.5f;
    for (int i = 0; i < 64; i++) v[i] = (float)(i % 7) * 0.25f;
    for (int i = 0; i < n; i++) {
        double x = (double)((i * 7919) % 1000) / 1000.0 - 0.5;
        double y = 0.2 * x + 0.4 * x1 + 0.2 * x2 + 0.3 * y1 - 0.1 * y2;
        x2 = x1, x1 = x, y2 = y1, y1 = y;
        acc += y * y;
        v[i & 63] = v[i & 63] * w + (float)y;
    }
    float s = 0;
    for (int i = 0; i < 64; i++) s += v[i] * v[(i + 1) & 63];
    uint64_t h;
    memcpy(&h, &acc, sizeof h);
    uint32_t f;
    memcpy(&f, &s, sizeof f);
    return mix(h, f);
}

static uint64_t ackermann(uint64_t m, uint64_t n)
{
    if (m == 0) return n + 1;
    if (n == 0) return ackermann(m - 1, 1);
    return ackermann(m - 1, ackermann(m, n - 1));
}

/* A tiny stack machine: switch dispatch in a loop. */
static int64_t interp(int64_t x)
{
    static const unsigned char prog[] = {1, 2, 3, 1, 4, 5, 2, 6, 0};
    int64_t st[16];
    int sp = 0;
    for (int round = 0; round < 50; round++)
        for (const unsigned char *pc = prog; *pc; pc++) {
            switch (*pc) {
            case 1: st[sp++] = x; break;
            case 2: st[sp - 1] = st[sp - 1] * 3 + 1; break;
            case 3: st[sp - 1] ^= (int64_t)round << 3; break;
            case 4: sp--; st[sp - 1] += st[sp]; break;
            case 5: st[sp - 1] %= 1000003; break;
            case 6: x = st[--sp]; break;
            }
        }
    return x;
}

typedef struct { int64_t a, b, c; double d; } quad_t;

static quad_t make_quad(int64_t s, double (*f)(double))
{
    quad_t q = {s, s * s, s ^ 0x55, f((double)s)};
    return q;
}

static double half(double x) { return x / 2; }
static double sq(double x) { return x * x; }

static uint64_t u128(uint64_t s)
{
    unsigned __int128 p = 1;
    for (int i = 0; i < 40; i++) p = p * (s + (uint64_t)i) % (((unsigned __int128)1 << 100) - 3);
    return (uint64_t)(p >> 64) ^ (uint64_t)p;
}

/* Variadic: va_arg in a loop (the region between va_start and va_end gets no yields by
 * default), and vsnprintf through a va_list. */
static int64_t va_sum(int n, ...)
{
    va_list ap;
    va_start(ap, n);
    int64_t s = 0;
    for (int i = 0; i < n; i++) s = s * 7 + va_arg(ap, int);
    va_end(ap);
    return s;
}

static uint64_t va_format(const char *fmt, ...)
{
    char buf[128];
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    uint64_t h = 0;
    for (int i = 0; i < len; i++) h = mix(h, (unsigned char)buf[i]);
    return h;
}

/* setjmp/longjmp: the setjmp caller has points too (before h74b it had none), and so do
 * the frames longjmp skips, which yield inside. */
static jmp_buf jb[NULT];

static void dive(int me, int depth, uint64_t *acc)
{
    *acc = mix(*acc, (uint64_t)depth * 977u);
    for (int i = 0; i < 200; i++) *acc += (uint64_t)i * (uint64_t)depth;
    if (depth == 25) longjmp(jb[me], depth);
    dive(me, depth + 1, acc);
}

static uint64_t jumps(int me)
{
    volatile uint64_t acc = 0;
    uint64_t work = 0;
    int r = setjmp(jb[me]);
    if (r == 0) dive(me, 0, &work);
    acc = mix(work, (uint64_t)r);
    return acc;
}

/* No yield may happen in a signal handler: the handler (and what it calls, found by the
 * plugin because sigaction is called in this unit) forces the flag on, works, and checks
 * that the other ULT has not moved. */
static uint64_t handler_work(int n)
{
    uint64_t h = 0;
    for (int i = 0; i < n; i++) h = mix(h, (uint64_t)i);
    return h;
}

static volatile uint64_t handler_result;

static void on_usr1(int sig)
{
    (void)sig;
    int me = handler_ult;
    uint64_t before = progress[1 - me];
    ito_coop_flag = 1;
    handler_result = handler_work(20000);
    if (progress[1 - me] != before) handler_violations++;
    handler_runs++;
}

/* The same check in a function marked ito_noyield (which implies noinline: the plugin runs
 * after inlining, and the body of an ito_noyield function inlined into an instrumented
 * caller would get yield points). */
ito_noyield static uint64_t noyield_work(int me, int n)
{
    uint64_t before = progress[1 - me];
    ito_coop_flag = 1;
    uint64_t h = 0;
    for (int i = 0; i < n; i++) h = mix(h, (uint64_t)i * 3u);
    if (progress[1 - me] != before) noyield_violations++;
    return h;
}

/* A VLA beside an over-aligned array: the frame is reached through a base pointer (rbx),
 * which the min variant's preserve_none yield does not keep (found by an outside tester,
 * 2026-12-04: such a function crashed after a switch; Insert.cpp calls the ABI yield). */
static uint64_t realigned_vla(int n)
{
    _Alignas(64) int64_t big[8];
    uint64_t h = 7;
    for (int r = 0; r < 40; r++) {
        int64_t v[n];
        memset(big, 0, sizeof big);
        for (int i = 0; i < n; i++) { v[i] = (int64_t)(i * r) + (int64_t)(h & 0xff); big[i & 7] += v[i]; }
        for (int i = 0; i < n; i++) h = mix(h, (uint64_t)(v[n - 1 - i] % 13 + big[i & 7] % 7));
    }
    return h;
}

static uint64_t results[NULT];
static int rounds = ROUNDS;
static volatile int finished; /* battery ULTs done (--every) */

/* --every: a rearmer sits between the two battery ULTs in the ready queue (A R1 B R2) and
 * sets the flag before it yields, so each battery ULT resumes with the flag set and
 * switches at its very next check: a yield is taken at every check executed. */
static void *rearmer(void *arg)
{
    (void)arg;
    while (finished < NULT) {
        ito_coop_flag = 1;
        ito_yield();
    }
    return NULL;
}

static void *ult_main(void *arg)
{
    int me = (int)(intptr_t)arg;
    uint64_t h = 0;
    for (int r = 0; r < rounds; r++) {
        int s = r * 3 + me;   /* both ULTs compute the same sequence, offset by ULT */
        h = mix(h, matmul(s)); step(me);
        h = mix(h, filters(2000 + s)); step(me);
        h = mix(h, ackermann(2, (uint64_t)(s % 40))); step(me);
        h = mix(h, (uint64_t)interp(s)); step(me);
        quad_t q = make_quad(s, (s & 1) ? half : sq);
        h = mix(h, (uint64_t)(q.a + q.b + q.c) ^ (uint64_t)(int64_t)q.d); step(me);
        h = mix(h, u128((uint64_t)s)); step(me);
        h = mix(h, (uint64_t)va_sum(6, s, 1, 2, 3, s * 5, -s)); step(me);
        h = mix(h, va_format("%d:%s:%.3f:%lld", s, "ito", s * 0.5, (long long)s << 20)); step(me);
        h = mix(h, jumps(me)); step(me);
        h = mix(h, noyield_work(me, 20000)); step(me);
        h = mix(h, realigned_vla(30 + s % 17)); step(me);
        if (r % 10 == 0) {
            handler_ult = me;
            raise(SIGUSR1);
            h = mix(h, handler_result);
            step(me);
        }
    }
    results[me] = h;
    finished++;
    return NULL;
}

int main(int argc, char **argv)
{
    int every = argc > 1 && strcmp(argv[1], "--every") == 0;
    if (every) rounds = ROUNDS / 10;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGUSR1, &sa, NULL) != 0) return 2;
    ito_config_t cfg = {.workers = 1, .stack_size = 0};
    if (ito_init(&cfg) != ITO_OK) return 2;
    ito_stats_t s0, s1;
    ito_stats(&s0);
    if (!every && ply_ticker_start(20000, PLY_TICK_FLAG) != 0) return 2;
    ito_thread_t t[NULT], rt[NULT];
    for (int i = 0; i < NULT; i++) {
        ito_attr_t a;
        ito_attr_init(&a);
        a.worker = 0;
        a.stack_size = 256u << 10;
        if (ito_create(&t[i], ult_main, (void *)(intptr_t)i, &a) != ITO_OK) return 2;
        if (every && ito_create(&rt[i], rearmer, NULL, &a) != ITO_OK) return 2;
    }
    for (int i = 0; i < NULT; i++) ito_join(t[i], NULL);
    if (every)
        for (int i = 0; i < NULT; i++) ito_join(rt[i], NULL);
    ply_tick_stats_t ts = {0};
    if (!every) ply_ticker_stop(&ts);
    ito_stats(&s1);
    for (int i = 0; i < NULT; i++) printf("ult %d: %016llx\n", i, (unsigned long long)results[i]);
    printf("noyield violations: %d\nhandler violations: %d\nhandler runs: %d\n",
           noyield_violations, handler_violations, handler_runs);
    fprintf(stderr, "switches %llu\nticks %llu\ninterleavings %llu %llu\n",
            (unsigned long long)(s1.switches - s0.switches), (unsigned long long)ts.ticks,
            (unsigned long long)seen_other[0], (unsigned long long)seen_other[1]);
    ito_finalize();
    return 0;
}
