/* probe.c: the data of the interval probe (probe_hit_x86_64_sysv_elf_gas.S) and its report.
 *
 * A measurement build (ito-cc --ito-probe) calls ito_probe_hit at every check instead of
 * testing the flag; linked with this file, the program writes at exit, to the file named
 * by ITO_PROBE_OUT (or stderr), one key=value per line: the number of intervals, the
 * time-stamp counter's rate, and the percentiles and maximum of the cycles between two
 * consecutive checks of a thread (16-cycle resolution). The probe's own cost (about the
 * smallest interval it reports) is included in every interval. Single-threaded data:
 * the histogram is meant for one running thread of instrumented code at a time. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { NBUCKET = 65536, BUCKET_CYCLES = 16 };

_Thread_local uint64_t ito_probe_last;
uint32_t ito_probe_hist[NBUCKET];
uint64_t ito_probe_max, ito_probe_count;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t tsc(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}

/* cycles per microsecond of the time-stamp counter, measured over 20 ms */
static double tsc_per_us(void)
{
    uint64_t t0 = now_ns(), c0 = tsc();
    struct timespec d = {0, 20000000};
    nanosleep(&d, NULL);
    uint64_t t1 = now_ns(), c1 = tsc();
    return (double)(c1 - c0) * 1000.0 / (double)(t1 - t0);
}

static uint64_t percentile(double q)
{
    uint64_t want = (uint64_t)(q * (double)ito_probe_count), seen = 0;
    for (unsigned b = 0; b < NBUCKET; b++) {
        seen += ito_probe_hist[b];
        if (seen > want) return (uint64_t)(b + 1) * BUCKET_CYCLES;
    }
    return ito_probe_max;
}

static void report(void)
{
    const char *path = getenv("ITO_PROBE_OUT");
    FILE *f = path ? fopen(path, "w") : stderr;
    if (!f) return;
    uint64_t min = 0;
    for (unsigned b = 0; b < NBUCKET; b++)
        if (ito_probe_hist[b]) {
            min = (uint64_t)b * BUCKET_CYCLES;
            break;
        }
    fprintf(f, "probe_intervals=%llu\nprobe_tsc_per_us=%.1f\nprobe_min_cycles=%llu\n"
               "probe_p50_cycles=%llu\nprobe_p90_cycles=%llu\nprobe_p99_cycles=%llu\n"
               "probe_p999_cycles=%llu\nprobe_p9999_cycles=%llu\nprobe_max_cycles=%llu\n",
            (unsigned long long)ito_probe_count, tsc_per_us(), (unsigned long long)min,
            (unsigned long long)percentile(0.5), (unsigned long long)percentile(0.9),
            (unsigned long long)percentile(0.99), (unsigned long long)percentile(0.999),
            (unsigned long long)percentile(0.9999), (unsigned long long)ito_probe_max);
    if (f != stderr) fclose(f);
}

__attribute__((constructor)) static void probe_init(void)
{
    atexit(report);
}
