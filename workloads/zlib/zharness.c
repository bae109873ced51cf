/* zharness.c: zlib's own tests and a round-trip workload, run inside ULTs under FLAG-mode
 * preemption (issue 12, deliverable 4).
 *
 *   zharness [--workers N] [--quantum-us Q] [--rounds R] [--ults U] [--dir D]
 *
 * zlib (Debian's source, fetched at build/test time) and its tests test/example.c and
 * test/infcover.c are compiled by ito-cc, with or without the yield plugin; this harness is
 * the same in every build. U ULTs (default 6) run on N workers (default 2): ULT 0 runs
 * example.c's main (its gz file in D), ULT 1 infcover.c's main, the others R rounds of a
 * deflate/inflate round trip over generated data at levels 1/6/9 and four strategies. With
 * Q > 0 (default 100 us) the runtime's timer sets ito_coop_flag every Q us on each worker and
 * the compiled checks switch ULTs; Q = 0 runs without a timer.
 *
 * The tests' output (printf/fprintf/fputs, redirected by -D at compile time to zh_*) goes to
 * a buffer per ULT; stdout is those buffers in ULT order, so it is the same whatever the
 * interleaving, and must be byte-identical between the plain build and every plugin build.
 * stderr has what depends on the interleaving: switches, ticks. Exit status 0: every ULT
 * finished and every round trip matched. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ito/ito.h"
#include "zlib.h"

int zlib_example_main(int argc, char *argv[]);
int zlib_infcover_main(void);

enum { MAX_ULTS = 64 };

typedef struct slot {
    ito_thread_t t;
    char *buf;
    size_t len, cap;
    int rounds, index, failed;
} slot_t;

static slot_t slots[MAX_ULTS];
static int nslots;
static const char *gzdir = ".";

static slot_t *me(void)
{
    ito_thread_t t = ito_self();
    for (int i = 0; i < nslots; i++)
        if (slots[i].t == t) return &slots[i];
    return NULL;
}

static int append(const char *fmt, va_list ap)
{
    slot_t *s = me();
    if (!s) return vfprintf(stderr, fmt, ap);
    va_list cp;
    va_copy(cp, ap);
    int n = vsnprintf(NULL, 0, fmt, cp);
    va_end(cp);
    if (n < 0) return n;
    if (s->len + (size_t)n + 1 > s->cap) {
        size_t cap = (s->cap + (size_t)n + 1) * 2;
        char *b = realloc(s->buf, cap);
        if (!b) return -1;
        s->buf = b;
        s->cap = cap;
    }
    vsnprintf(s->buf + s->len, (size_t)n + 1, fmt, ap);
    s->len += (size_t)n;
    return n;
}

int zh_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = append(fmt, ap);
    va_end(ap);
    return n;
}

int zh_fprintf(FILE *f, const char *fmt, ...)
{
    (void)f;
    va_list ap;
    va_start(ap, fmt);
    int n = append(fmt, ap);
    va_end(ap);
    return n;
}

int zh_fputs(const char *str, FILE *f)
{
    return zh_fprintf(f, "%s", str);
}

/* Deterministic, compressible input: words and numbers from a small generator. */
static void make_data(unsigned char *d, size_t n, uint32_t seed)
{
    static const char *words[] = {"thread", "yield", "register", "live", "stub", "check",
                                  "bound", "switch", "worker", "decoder", "the", "of", "a"};
    uint32_t x = seed * 2654435761u + 1;
    size_t i = 0;
    while (i < n) {
        x = x * 1103515245u + 12345u;
        const char *w = words[(x >> 16) % 13];
        char tmp[32];
        int k = (x >> 8) % 7 == 0 ? snprintf(tmp, sizeof tmp, "%u ", (x >> 4) % 100000)
                                  : snprintf(tmp, sizeof tmp, "%s ", w);
        for (int j = 0; j < k && i < n; j++) d[i++] = (unsigned char)tmp[j];
    }
}

static int round_trip(const unsigned char *in, size_t n, int level, int strategy, size_t chunk)
{
    size_t cap = deflateBound(NULL, (uLong)n) + 64;
    unsigned char *z = malloc(cap), *back = malloc(n);
    if (!z || !back) return -1;
    z_stream s;
    memset(&s, 0, sizeof s);
    if (deflateInit2(&s, level, Z_DEFLATED, 15, 8, strategy) != Z_OK) return -1;
    s.next_in = (Bytef *)(uintptr_t)in;
    size_t done = 0;
    int rc;
    do { /* feed in chunks, flush once in the middle */
        size_t take = n - done < chunk ? n - done : chunk;
        s.next_in = (Bytef *)(uintptr_t)(in + done);
        s.avail_in = (uInt)take;
        done += take;
        s.next_out = z + s.total_out;
        s.avail_out = (uInt)(cap - s.total_out);
        int flush = done == n ? Z_FINISH : (done / chunk == 3 ? Z_FULL_FLUSH : Z_NO_FLUSH);
        rc = deflate(&s, flush);
    } while (rc == Z_OK);
    size_t zlen = s.total_out;
    deflateEnd(&s);
    if (rc != Z_STREAM_END) return -1;
    memset(&s, 0, sizeof s);
    if (inflateInit2(&s, 15) != Z_OK) return -1;
    s.next_out = back;
    s.avail_out = (uInt)n;
    size_t fed = 0;
    do {
        size_t take = zlen - fed < chunk / 3 + 1 ? zlen - fed : chunk / 3 + 1;
        s.next_in = z + fed;
        s.avail_in = (uInt)take;
        fed += take;
        rc = inflate(&s, Z_NO_FLUSH);
    } while (rc == Z_OK && fed < zlen + 1);
    inflateEnd(&s);
    int ok = rc == Z_STREAM_END && s.total_out == n && memcmp(in, back, n) == 0;
    zh_printf("rt level %d strategy %d chunk %zu: in %zu out %zu adler %08lx crc %08lx %s\n",
              level, strategy, chunk, n, zlen, adler32(1, back, (uInt)n),
              crc32(0, back, (uInt)n), ok ? "ok" : "MISMATCH");
    free(z);
    free(back);
    return ok ? 0 : -1;
}

static void *ult_main(void *arg)
{
    slot_t *s = arg;
    s->t = ito_self(); /* before any output: me() finds the slot by it */
    if (s->index == 0) {
        char path[512];
        snprintf(path, sizeof path, "%s/zharness-%d.gz", gzdir, (int)getpid());
        char *argv[] = {"example", path, NULL};
        s->failed = zlib_example_main(2, argv) != 0;
        remove(path);
    } else if (s->index == 1) {
        s->failed = zlib_infcover_main() != 0;
    } else {
        static const int strategies[] = {Z_DEFAULT_STRATEGY, Z_FILTERED, Z_HUFFMAN_ONLY, Z_RLE};
        size_t n = 256 * 1024;
        unsigned char *d = malloc(n);
        if (!d) {
            s->failed = 1;
            return NULL;
        }
        for (int r = 0; r < s->rounds; r++) {
            make_data(d, n, (uint32_t)(s->index * 1000 + r));
            for (int level = 1; level <= 9; level += 4)
                for (int k = 0; k < 4; k++)
                    if (round_trip(d, n, level, strategies[k], 4096u << (r % 4)) != 0)
                        s->failed = 1;
        }
        free(d);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    unsigned workers = 2, quantum = 100;
    int rounds = 2;
    nslots = 6;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--workers") && i + 1 < argc) workers = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--quantum-us") && i + 1 < argc) quantum = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--ults") && i + 1 < argc) nslots = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--dir") && i + 1 < argc) gzdir = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--workers N] [--quantum-us Q] [--rounds R] [--ults U] [--dir D]\n", argv[0]);
            return 2;
        }
    }
    if (nslots < 2 || nslots > MAX_ULTS) nslots = 6;
    ito_config_t cfg = {.workers = workers};
    if (ito_init(&cfg) != ITO_OK) return 2;
    if (quantum > 0) {
        ito_preempt_config_t pc = {.quantum_us = quantum, .mode = ITO_PREEMPT_FLAG};
        int rc = ito_preempt_enable(&pc);
        if (rc != ITO_OK) {
            fprintf(stderr, "zharness: ito_preempt_enable: %d\n", rc);
            return 2;
        }
    }
    ito_stats_t s0, s1;
    ito_stats(&s0);
    for (int i = 0; i < nslots; i++) {
        slots[i].index = i;
        slots[i].rounds = rounds;
    }
    int n = nslots;
    ito_thread_t handles[MAX_ULTS];
    for (int i = 0; i < n; i++)
        if (ito_create(&handles[i], ult_main, &slots[i], NULL) != ITO_OK) return 2;
    int failed = 0;
    for (int i = 0; i < n; i++) {
        ito_join(handles[i], NULL);
        failed |= slots[i].failed;
    }
    ito_stats(&s1);
    ito_preempt_stats_t ps = {0};
    if (quantum > 0) {
        ito_preempt_stats(&ps);
        ito_preempt_disable();
    }
    for (int i = 0; i < n; i++) {
        printf("== ULT %d\n", i);
        fwrite(slots[i].buf ? slots[i].buf : "", 1, slots[i].len, stdout);
        free(slots[i].buf);
    }
    fprintf(stderr, "switches %llu ticks %llu\n", (unsigned long long)(s1.switches - s0.switches),
            (unsigned long long)ps.ticks);
    ito_finalize();
    return failed ? 1 : 0;
}
