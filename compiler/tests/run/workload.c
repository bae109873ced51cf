/* workload.c: a program whose output must not change when the plugin inserts yields.
 * Built with and without the plugin and run against the fake runtime (fake_runtime.S),
 * whose yields destroy every register their convention allows: any value the compiler
 * failed to keep across a yield point shows up as a different checksum. It covers
 * integer and floating-point loops with many live values, vectorisable loops, recursion,
 * switch dispatch, callbacks, variadic functions, setjmp/longjmp, a signal handler,
 * struct returns and 128-bit arithmetic. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 24

static uint32_t mat_checksum(void)
{
    static int32_t a[N][N], b[N][N], c[N][N];
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            a[i][j] = (i * 31 + j * 17) % 97 - 48;
            b[i][j] = (i * 13 + j * 29) % 89 - 44;
        }
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            int32_t s = 0;
            for (int k = 0; k < N; k++)
                s += a[i][k] * b[k][j];
            c[i][j] = s;
        }
    uint32_t h = 2166136261u;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            h = (h ^ (uint32_t)c[i][j]) * 16777619u;
    return h;
}

/* A biquad filter: many doubles live in xmm registers across the loop's points. */
static double biquad(int n)
{
    double b0 = 0.2, b1 = 0.4, b2 = 0.2, a1 = -0.3, a2 = 0.1;
    double x1 = 0, x2 = 0, y1 = 0, y2 = 0, acc = 0;
    for (int i = 0; i < n; i++) {
        double x = (double)((i * 7919) % 1000) / 1000.0 - 0.5;
        double y = b0 * x + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2;
        x2 = x1; x1 = x; y2 = y1; y1 = y;
        acc += y * y;
    }
    return acc;
}

static float dot(const float *p, const float *q, int n)
{
    float s = 0;
    for (int i = 0; i < n; i++)
        s += p[i] * q[i];
    return s;
}

static long fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

static unsigned crc32(const unsigned char *p, size_t n)
{
    unsigned c = ~0u;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0xEDB88320u & -(c & 1u));
    }
    return ~c;
}

static int tokens(const char *s)
{
    int words = 0, digits = 0, punct = 0, state = 0;
    for (; *s; s++) {
        switch (*s) {
        case ' ': case '\n': case '\t': state = 0; break;
        case '0': case '1': case '2': case '3': case '4':
        case '5': case '6': case '7': case '8': case '9': digits++; break;
        case '.': case ',': case ';': case '!': punct++; state = 0; break;
        default: if (!state) words++; state = 1; break;
        }
    }
    return words * 10000 + digits * 100 + punct;
}

static int cmp_int(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    return (a > b) - (a < b);
}

static long vsum(int n, ...)
{
    va_list ap;
    va_start(ap, n);
    long s = 0;
    for (int i = 0; i < n; i++)
        s = s * 3 + va_arg(ap, int);
    va_end(ap);
    return s;
}

static jmp_buf env;
static int depth_then_jump(int d)
{
    if (d > 0)
        return depth_then_jump(d - 1) + 1;
    if (d == 0)
        longjmp(env, 42);
    return 0;
}

static int jumped(void)
{
    volatile int tries = 0;
    int r = setjmp(env);
    if (r == 0) {
        tries++;
        depth_then_jump(10);
    }
    return r + tries;
}

static volatile sig_atomic_t got;
static void on_usr1(int s)
{
    for (int i = 0; i < 3; i++)
        got += s;
}

struct pair { long lo, hi; double f; };
static struct pair mkpair(long x)
{
    struct pair p = {x * 3, x * 5, (double)x / 7};
    return p;
}

static unsigned __int128 mulmod(unsigned __int128 a, unsigned __int128 b, unsigned __int128 m)
{
    unsigned __int128 r = 0;
    a %= m;
    while (b) {
        if (b & 1)
            r = (r + a) % m;
        a = (a * 2) % m;
        b >>= 1;
    }
    return r;
}

int main(void)
{
    printf("mat %08x\n", mat_checksum());
    printf("biquad %.17g\n", biquad(5000));
    float p[1000], q[1000];
    for (int i = 0; i < 1000; i++) {
        p[i] = (float)(i % 13) * 0.25f;
        q[i] = (float)(i % 7) - 3.0f;
    }
    printf("dot %.9g\n", (double)dot(p, q, 1000));
    printf("fib %ld\n", fib(22));
    const char *text = "The quick brown fox, 1234 jumps; over 56 lazy dogs!\n";
    printf("crc %08x\n", crc32((const unsigned char *)text, strlen(text)));
    printf("tokens %d\n", tokens(text));
    int v[200];
    for (int i = 0; i < 200; i++)
        v[i] = (i * 7919) % 211;
    qsort(v, 200, sizeof v[0], cmp_int);
    long vs = 0;
    for (int i = 0; i < 200; i++)
        vs = vs * 31 + v[i];
    printf("sort %ld\n", vs);
    printf("vsum %ld\n", vsum(6, 1, -2, 3, -4, 5, -6));
    printf("jump %d\n", jumped());
    signal(SIGUSR1, on_usr1);
    raise(SIGUSR1);
    printf("signal %d\n", (int)got);
    struct pair pr = mkpair(12345);
    printf("pair %ld %ld %.17g\n", pr.lo, pr.hi, pr.f);
    unsigned __int128 m = ((unsigned __int128)1 << 100) + 277;
    unsigned __int128 r = mulmod((unsigned __int128)0x123456789abcdefULL << 40, 0xfedcba987654321ULL, m);
    printf("i128 %016llx%016llx\n", (unsigned long long)(r >> 64), (unsigned long long)r);
    return 0;
}
