/* lat_host: LMbench-style costs of this host, for the table beside Table 1 of the CEFOS paper
 * (seed 001: "null call", "2p/0K", "2p/16K" process switches, L1/L2/main latency, in clock
 * cycles), and the pipe latency.  Our own small programs after LMbench's methods (lat_syscall,
 * lat_ctx, lat_pipe, lat_mem_rd); every number is the median of --trials timed trials, and
 * `ito-lab wsc` runs this program several times, interleaved with its other work, to report
 * min / median / max.  Plain C, no ito: these are costs of the host and its kernel.
 *
 *   null_call      syscall(SYS_getppid) in a loop (LMbench's "null call"), per call;
 *   ctx_0k, ctx_16k  two processes pinned to one CPU pass a token through two pipes; per switch
 *                  = (round trip / 2) - the pipe write + read done by one process alone
 *                  (LMbench's lat_ctx overhead subtraction); with 16K each process first sums
 *                  its own 16 KB array (the summing time, measured hot in one process, is
 *                  subtracted too, so the cache refill after a switch stays in the cost);
 *   pipe_rtt_1cpu  a 1-byte round trip between two processes pinned to one CPU (two switches);
 *   pipe_rtt_2cpu  the same with the processes on two CPUs (cross-CPU wake-ups), if any;
 *   mem_l1, mem_l2, mem_main  a dependent pointer chase through a random cyclic permutation of
 *                  64-byte lines in 16 KB, 256 KB and 64 MB (random order defeats the
 *                  prefetchers, so "main" is a true miss; LMbench's stride read may prefetch).
 * Cycles = ns x the TSC rate, measured against CLOCK_MONOTONIC over 200 ms (printed as tsc_ghz;
 * on a VM the TSC runs at the nominal clock, not at the momentary core clock).
 * Output: one line per quantity,
 *   RESULT bench=lat_host what=<name> ns=<median ns> cycles=<ns x tsc_ghz> tsc_ghz=<rate> trials=<t>
 * Usage: lat_host [--trials T] [--quick] [--tsc]
 *   --tsc  only the TSC rate (one line, what=tsc ns=0 cycles=0): what `ito-lab cooperative
 *          --part headline` converts decode times into cycles per yield with. */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

static int trials = 11, quick;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double tsc_ghz(void)
{
    uint64_t t0 = now_ns(), c0 = __rdtsc();
    struct timespec d = {0, 200000000};
    nanosleep(&d, NULL);
    uint64_t t1 = now_ns(), c1 = __rdtsc();
    return (double)(c1 - c0) / (double)(t1 - t0);
}

static void pin(int cpu)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    if (sched_setaffinity(0, sizeof s, &s) != 0) {
        perror("sched_setaffinity");
        exit(2);
    }
}

static void die(const char *what)
{
    perror(what);
    exit(2);
}

/* ---- null call ---- */
static double null_call(void)
{
    const int n = quick ? 20000 : 200000;
    uint64_t t0 = now_ns();
    for (int i = 0; i < n; i++)
        syscall(SYS_getppid);
    return (double)(now_ns() - t0) / n;
}

/* ---- the 16 KB working set of one process ---- */
enum { WS_WORDS = 16384 / sizeof(long) };
static volatile long sink;
static long ws[WS_WORDS];
static void touch(int kb16)
{
    if (!kb16)
        return;
    long s = 0;
    for (size_t i = 0; i < WS_WORDS; i++)
        s += ws[i];
    sink = s;
}

static void xread(int fd, char *c)
{
    if (read(fd, c, 1) != 1)
        die("read");
}
static void xwrite(int fd, char c)
{
    if (write(fd, &c, 1) != 1)
        die("write");
}

/* ns of one write + read of a byte through a pipe by one process, plus `touch` */
static double pipe_overhead(int kb16)
{
    int p[2];
    if (pipe(p))
        die("pipe");
    const int n = quick ? 2000 : 20000;
    char c = 0;
    touch(kb16);
    uint64_t t0 = now_ns();
    for (int i = 0; i < n; i++) {
        touch(kb16);
        xwrite(p[1], c);
        xread(p[0], &c);
    }
    double r = (double)(now_ns() - t0) / n;
    close(p[0]);
    close(p[1]);
    return r;
}

/* ns of one round trip between two processes (on cpu_a and cpu_b), each touching its 16 KB
 * (if kb16) before passing the token on */
static double round_trip(int cpu_a, int cpu_b, int kb16)
{
    int ab[2], ba[2];
    if (pipe(ab) || pipe(ba))
        die("pipe");
    const int n = quick ? 2000 : 20000;
    pid_t child = fork();
    if (child < 0)
        die("fork");
    if (child == 0) {
        pin(cpu_b);
        char c;
        for (int i = 0; i < n + 100; i++) {
            xread(ab[0], &c);
            touch(kb16);
            xwrite(ba[1], c);
        }
        _exit(0);
    }
    pin(cpu_a);
    char c = 1;
    for (int i = 0; i < 100; i++) { /* warm up */
        touch(kb16);
        xwrite(ab[1], c);
        xread(ba[0], &c);
    }
    uint64_t t0 = now_ns();
    for (int i = 0; i < n; i++) {
        touch(kb16);
        xwrite(ab[1], c);
        xread(ba[0], &c);
    }
    double r = (double)(now_ns() - t0) / n;
    waitpid(child, NULL, 0);
    close(ab[0]);
    close(ab[1]);
    close(ba[0]);
    close(ba[1]);
    return r;
}

/* ---- memory latency ---- */
static double chase(size_t bytes)
{
    const size_t line = 64, n = bytes / line;
    char *buf = aligned_alloc(4096, bytes);
    size_t *order = malloc(n * sizeof *order);
    if (!buf || !order)
        die("malloc");
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    uint64_t x = 88172645463325252ull; /* xorshift: a fixed random permutation */
    for (size_t i = n - 1; i > 0; i--) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        size_t j = x % (i + 1), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (size_t i = 0; i < n; i++)
        *(void **)(buf + order[i] * line) = buf + order[(i + 1) % n] * line;
    const size_t steps = quick ? 200000 : 2000000;
    void *p = buf + order[0] * line;
    for (size_t i = 0; i < n; i++) /* one lap to warm caches and TLB */
        p = *(void **)p;
    uint64_t t0 = now_ns();
    for (size_t i = 0; i < steps; i++)
        p = *(void **)p;
    double r = (double)(now_ns() - t0) / (double)steps;
    sink = (long)(uintptr_t)p;
    free(order);
    free(buf);
    return r;
}

static void report(const char *what, double *v, int n, double ghz)
{
    double ns = median(v, n);
    printf("RESULT bench=lat_host what=%s ns=%.2f cycles=%.0f tsc_ghz=%.3f trials=%d\n", what, ns, ns * ghz, ghz, n);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--trials") && i + 1 < argc)
            trials = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--tsc")) {
            printf("RESULT bench=lat_host what=tsc ns=0 cycles=0 tsc_ghz=%.4f trials=1\n", tsc_ghz());
            return 0;
        } else {
            fprintf(stderr, "usage: %s [--trials T] [--quick] [--tsc]\n", argv[0]);
            return 2;
        }
    }
    if (trials < 1 || trials > 1000) {
        fprintf(stderr, "lat_host: --trials must be 1..1000\n");
        return 2;
    }
    for (size_t i = 0; i < WS_WORDS; i++)
        ws[i] = (long)i;
    signal(SIGPIPE, SIG_IGN);
    const double ghz = tsc_ghz();
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int last = ncpu > 1 ? (int)ncpu - 1 : 0;
    double *v = calloc((size_t)trials, sizeof *v);
    if (!v)
        die("calloc");
    pin(last);
    for (int t = 0; t < trials; t++)
        v[t] = null_call();
    report("null_call", v, trials, ghz);
    for (int kb = 0; kb <= 1; kb++) {
        for (int t = 0; t < trials; t++)
            v[t] = round_trip(last, last, kb) / 2 - pipe_overhead(kb);
        report(kb ? "ctx_16k" : "ctx_0k", v, trials, ghz);
    }
    for (int t = 0; t < trials; t++)
        v[t] = round_trip(last, last, 0);
    report("pipe_rtt_1cpu", v, trials, ghz);
    if (ncpu > 1) {
        for (int t = 0; t < trials; t++)
            v[t] = round_trip(0, last, 0);
        report("pipe_rtt_2cpu", v, trials, ghz);
    }
    static const struct {
        const char *name;
        size_t bytes;
    } mem[] = {{"mem_l1", 16u << 10}, {"mem_l2", 256u << 10}, {"mem_main", 64u << 20}};
    for (size_t m = 0; m < sizeof mem / sizeof mem[0]; m++) {
        int tr = trials < 5 ? trials : 5;
        for (int t = 0; t < tr; t++)
            v[t] = chase(mem[m].bytes);
        report(mem[m].name, v, tr, ghz);
    }
    free(v);
    return 0;
}
