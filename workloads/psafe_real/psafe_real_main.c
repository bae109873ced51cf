/* psafe-real: run one programming level of the preemption-safe paper on ito and print one
 * CSV row per program (see psr.h).  Usage:
 *   psafe-real [--policy preempt|psafe] [--scale paper|quick|test] [--quantum US]
 *              [--bound QUANTA] [--workers P] [--iters KIND=N]... [--no-check] KIND...
 * KIND: bmm blu bs fft ocean mp3d (or the paper's labels).  --iters overrides the pass count
 * of one kind (the reduced-size real run uses it); --no-check skips the result checks (for the
 * run under cachegrind, whose counts must hold the kernels only).  Exit status 1 if any program computed a
 * wrong result, 2 on a usage or runtime error. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psr.h"

static int usage(const char *argv0)
{
    fprintf(stderr, "usage: %s [--policy preempt|psafe] [--scale paper|quick|test] [--quantum US] "
                    "[--bound QUANTA] [--workers P] [--iters KIND=N]... [--no-check] KIND...\n", argv0);
    return 2;
}

static int parse_uint(const char *s, unsigned long lo, unsigned long hi, unsigned long *out)
{
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    if (!*s || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int main(int argc, char **argv)
{
    psr_config cfg = {.policy = PSR_PREEMPT, .quantum_us = 10000, .bound_quanta = 10, .workers = 2};
    wl_scale scale = WL_SCALE_PAPER;
    struct { const wl_kind *k; long iters; } over[PSR_MAX_PROGS];
    int nover = 0;
    unsigned long v;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--policy") && val) {
            if (!strcmp(val, "preempt"))
                cfg.policy = PSR_PREEMPT;
            else if (!strcmp(val, "psafe"))
                cfg.policy = PSR_PSAFE;
            else
                return usage(argv[0]);
            i++;
        } else if (!strcmp(a, "--scale") && val) {
            if (!strcmp(val, "paper"))
                scale = WL_SCALE_PAPER;
            else if (!strcmp(val, "quick"))
                scale = WL_SCALE_QUICK;
            else if (!strcmp(val, "test"))
                scale = WL_SCALE_TEST;
            else
                return usage(argv[0]);
            i++;
        } else if (!strcmp(a, "--quantum") && val) {
            if (parse_uint(val, 100, 10000000, &v))
                return usage(argv[0]);
            cfg.quantum_us = (unsigned)v;
            i++;
        } else if (!strcmp(a, "--bound") && val) {
            if (parse_uint(val, 1, 1000, &v))
                return usage(argv[0]);
            cfg.bound_quanta = (unsigned)v;
            i++;
        } else if (!strcmp(a, "--workers") && val) {
            if (parse_uint(val, 1, 64, &v))
                return usage(argv[0]);
            cfg.workers = (int)v;
            i++;
        } else if (!strcmp(a, "--iters") && val) {
            const char *eq = strchr(val, '=');
            char name[32];
            if (!eq || (size_t)(eq - val) >= sizeof name || nover == PSR_MAX_PROGS ||
                parse_uint(eq + 1, 1, 1000000, &v))
                return usage(argv[0]);
            memcpy(name, val, (size_t)(eq - val));
            name[eq - val] = 0;
            if (!(over[nover].k = wl_find(name)))
                return usage(argv[0]);
            over[nover++].iters = (long)v;
            i++;
        } else if (!strcmp(a, "--no-check")) {
            cfg.no_check = 1;
        } else if (a[0] == '-') {
            return usage(argv[0]);
        } else {
            const wl_kind *k = wl_find(a);
            if (!k || cfg.nprogs == PSR_MAX_PROGS)
                return usage(argv[0]);
            cfg.kinds[cfg.nprogs++] = k;
        }
    }
    if (cfg.nprogs == 0)
        return usage(argv[0]);
    for (int i = 0; i < cfg.nprogs; i++) {
        cfg.sizes[i] = cfg.kinds[i]->sizes[scale];
        for (int o = 0; o < nover; o++)
            if (over[o].k == cfg.kinds[i])
                cfg.sizes[i].iters = over[o].iters;
    }
    psr_prog_result res[PSR_MAX_PROGS];
    psr_totals tot;
    char err[256] = "";
    int rc = psr_run(&cfg, res, &tot, err, sizeof err);
    if (rc) {
        fprintf(stderr, "psafe-real: %s\n", err);
        return 2;
    }
    const char *pol = cfg.policy == PSR_PSAFE ? "psafe" : "preempt";
    printf("# quantum_us=%u bound_quanta=%u workers=%d wall_ns=%llu ticks=%llu preemptions=%llu "
           "deferred=%llu delayed=%llu forced=%llu\n", cfg.quantum_us, cfg.bound_quanta, cfg.workers,
           (unsigned long long)tot.wall_ns, (unsigned long long)tot.ticks, (unsigned long long)tot.preemptions,
           (unsigned long long)tot.deferred, (unsigned long long)tot.delayed, (unsigned long long)tot.forced);
    printf("program,label,policy,n,b,iters,time_ns,blocks,preemptions,delayed,delay_ns,forced,check\n");
    int bad = 0;
    for (int i = 0; i < cfg.nprogs; i++) {
        psr_prog_result *r = &res[i];
        for (char *p = r->err; *p; p++)
            if (*p == ',' || *p == '\n')
                *p = ';';
        printf("%s,%s,%s,%ld,%ld,%ld,%llu,%llu,%llu,%llu,%llu,%llu,%s\n", cfg.kinds[i]->name,
               cfg.kinds[i]->label, pol, cfg.sizes[i].n, cfg.sizes[i].b, cfg.sizes[i].iters,
               (unsigned long long)r->time_ns, (unsigned long long)r->blocks,
               (unsigned long long)r->preemptions, (unsigned long long)r->delayed,
               (unsigned long long)r->delay_ns, (unsigned long long)r->forced, !r->ok ? r->err : cfg.no_check ? "unchecked" : "ok");
        bad |= !r->ok;
    }
    return bad ? 1 : 0;
}
