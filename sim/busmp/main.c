/* busmp: command-line front end of the bus-multiprocessor simulator.
 *
 *   busmp [options] PROGRAM[:ITERS] ...      e.g.  busmp --policy psafe bmm fft bs
 *
 * Runs the programs (workloads/blocked kinds, by name or label) together under gang
 * scheduling and prints one CSV row per program on stdout (header first).  ITERS overrides
 * the program's iteration / pass count.  Every program's result is checked after the run
 * (column check: ok / the error).  Options (defaults: the paper's machine, Tables 1 and 2):
 *   --policy preempt|psafe   --scale paper|quick|test   --quantum C   --signal C
 *   --switch C   --bound K (quanta)   --window C   --ncpu N   --seed S   --slices FILE
 *   --rule paper|fair|runtime   a preset of the three rules below (default paper):
 *        paper   = --comp sitout  --pending stop --grid 0   (Fig. 4 literally)
 *        fair    = --comp shorten --pending stop --grid 0   (Sect. 1: "subtracting ... from
 *                                                            their next quantum")
 *        runtime = --comp skip    --pending gang --grid 1   (ito's src/preempt/gang.c)
 *   --comp sitout|shorten|skip   --pending stop|gang   --grid 0|1   (after --rule, override it)
 *   --ops-scale K   non-memory instruction cycles times K (instruction-cost sensitivity) */
#include "busmp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(const char *argv0)
{
    fprintf(stderr,
            "usage: %s [--policy preempt|psafe] [--scale paper|quick|test] [--rule paper|fair|runtime]\n"
            "          [--comp sitout|shorten|skip] [--pending stop|gang] [--grid 0|1] [--ops-scale K]\n"
            "          [--quantum C] [--signal C]"
            "          [--switch C] [--bound K] [--window C] [--ncpu N] [--seed S] [--slices FILE]\n"
            "          PROGRAM[:ITERS]...\nprograms:",
            argv0);
    for (const wl_kind *const *k = wl_all(); *k; k++)
        fprintf(stderr, " %s", (*k)->name);
    fprintf(stderr, "\n");
}

static int parse_u64(const char *s, uint64_t *v)
{
    char *end;
    unsigned long long x = strtoull(s, &end, 10);
    if (!*s || *end)
        return -1;
    *v = x;
    return 0;
}

int main(int argc, char **argv)
{
    busmp_params p = busmp_paper_params();
    wl_scale scale = WL_SCALE_PAPER;
    uint64_t seed = 2000, v;
    const char *slices_file = NULL;
    const wl_kind *kinds[32];
    wl_size sizes[32];
    int np = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (a[0] == '-' && a[1] == '-') {
            if (!val) {
                usage(argv[0]);
                return 2;
            }
            i++;
            if (!strcmp(a, "--policy")) {
                if (!strcmp(val, "preempt"))
                    p.policy = BUSMP_PREEMPT;
                else if (!strcmp(val, "psafe"))
                    p.policy = BUSMP_PSAFE;
                else
                    return usage(argv[0]), 2;
            } else if (!strcmp(a, "--scale")) {
                if (!strcmp(val, "paper"))
                    scale = WL_SCALE_PAPER;
                else if (!strcmp(val, "quick"))
                    scale = WL_SCALE_QUICK;
                else if (!strcmp(val, "test"))
                    scale = WL_SCALE_TEST;
                else
                    return usage(argv[0]), 2;
            } else if (!strcmp(a, "--rule")) {
                if (!strcmp(val, "paper")) {
                    p.comp = BUSMP_COMP_SITOUT;
                    p.pending = BUSMP_PEND_STOP;
                    p.tick_grid = 0;
                } else if (!strcmp(val, "fair")) {
                    p.comp = BUSMP_COMP_SHORTEN;
                    p.pending = BUSMP_PEND_STOP;
                    p.tick_grid = 0;
                } else if (!strcmp(val, "runtime")) {
                    p.comp = BUSMP_COMP_SKIP;
                    p.pending = BUSMP_PEND_GANG;
                    p.tick_grid = 1;
                } else {
                    return usage(argv[0]), 2;
                }
            } else if (!strcmp(a, "--comp")) {
                if (!strcmp(val, "sitout"))
                    p.comp = BUSMP_COMP_SITOUT;
                else if (!strcmp(val, "shorten"))
                    p.comp = BUSMP_COMP_SHORTEN;
                else if (!strcmp(val, "skip"))
                    p.comp = BUSMP_COMP_SKIP;
                else
                    return usage(argv[0]), 2;
            } else if (!strcmp(a, "--pending")) {
                if (!strcmp(val, "stop"))
                    p.pending = BUSMP_PEND_STOP;
                else if (!strcmp(val, "gang"))
                    p.pending = BUSMP_PEND_GANG;
                else
                    return usage(argv[0]), 2;
            } else if (!strcmp(a, "--slices")) {
                slices_file = val;
            } else if (parse_u64(val, &v)) {
                return usage(argv[0]), 2;
            } else if (!strcmp(a, "--quantum")) {
                p.quantum = v;
            } else if (!strcmp(a, "--signal")) {
                p.signal_cost = v;
            } else if (!strcmp(a, "--switch")) {
                p.switch_cost = v;
            } else if (!strcmp(a, "--bound")) {
                p.bound_quanta = (int)v;
            } else if (!strcmp(a, "--grid")) {
                p.tick_grid = v != 0;
            } else if (!strcmp(a, "--ops-scale")) {
                p.ops_scale = (uint32_t)v;
            } else if (!strcmp(a, "--window")) {
                p.window = v;
            } else if (!strcmp(a, "--ncpu")) {
                p.ncpu = (int)v;
            } else if (!strcmp(a, "--seed")) {
                seed = v;
            } else {
                return usage(argv[0]), 2;
            }
            continue;
        }
        char name[64];
        snprintf(name, sizeof name, "%s", a);
        char *colon = strchr(name, ':');
        if (colon)
            *colon = 0;
        const wl_kind *k = wl_find(name);
        if (!k || np == 32) {
            fprintf(stderr, "unknown program %s\n", name);
            return usage(argv[0]), 2;
        }
        kinds[np] = k;
        sizes[np] = k->sizes[scale];
        if (colon && parse_u64(colon + 1, &v) == 0)
            sizes[np].iters = (long)v;
        np++;
    }
    if (!np)
        return usage(argv[0]), 2;
    busmp *m = busmp_new(&p);
    if (!m) {
        fprintf(stderr, "busmp: bad parameters\n");
        return 2;
    }
    busmp_wprog *w[32];
    for (int i = 0; i < np; i++) {
        w[i] = busmp_add_workload(m, kinds[i], &sizes[i], seed + (uint64_t)i);
        if (!w[i]) {
            fprintf(stderr, "busmp: cannot set up %s\n", kinds[i]->name);
            return 1;
        }
    }
    if (busmp_run(m)) {
        fprintf(stderr, "busmp: a process ran out of events\n");
        return 1;
    }
    int bad = 0;
    printf("policy,program,label,blocked,n,b,iters,finish,run_cycles,slices,reads,writes,misses,c2c,mem,"
           "inval,regions,signals,delays,delayed_ticks,forced,delay_cycles,comp_waived,turns_skipped,"
           "cyc_instr,cyc_penalty,cyc_signal,cyc_barrier,cyc_idle,fair_cycles,machine_idle,check\n");
    for (int i = 0; i < np; i++) {
        const busmp_pstats *s = busmp_stats(m, i);
        char err[256] = "ok";
        if (busmp_wprog_check(w[i], err, sizeof err))
            bad = 1;
        printf("%s,%s,%s,%d,%ld,%ld,%ld,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,"
               "%llu,%llu,%llu,%llu,%llu,%llu,%llu,%lld,%.0f,%llu,%s\n",
               p.policy == BUSMP_PSAFE ? "psafe" : "preempt", kinds[i]->name, s->name, s->blocked, sizes[i].n,
               sizes[i].b, sizes[i].iters, (unsigned long long)s->finish, (unsigned long long)s->run_cycles,
               (unsigned long long)s->slices, (unsigned long long)s->mem.reads,
               (unsigned long long)s->mem.writes, (unsigned long long)s->mem.misses,
               (unsigned long long)s->mem.c2c, (unsigned long long)s->mem.mem, (unsigned long long)s->mem.inval,
               (unsigned long long)s->regions, (unsigned long long)s->signals, (unsigned long long)s->delays,
               (unsigned long long)s->delayed_ticks, (unsigned long long)s->forced,
               (unsigned long long)s->delay_cycles, (unsigned long long)s->comp_waived,
               (unsigned long long)s->turns_skipped, (unsigned long long)s->cyc_instr,
               (unsigned long long)s->cyc_penalty, (unsigned long long)s->cyc_signal,
               (unsigned long long)s->cyc_barrier, (long long)s->cyc_idle, s->fair_cycles,
               (unsigned long long)busmp_idle_cycles(m), err);
    }
    if (slices_file) {
        FILE *f = fopen(slices_file, "w");
        if (f) {
            int ns;
            const busmp_slice *sl = busmp_slices(m, &ns);
            fprintf(f, "program,start,end,reason,delay\n");
            for (int i = 0; i < ns; i++)
                fprintf(f, "%s,%llu,%llu,%d,%llu\n", kinds[sl[i].prog]->name, (unsigned long long)sl[i].start,
                        (unsigned long long)sl[i].end, sl[i].reason, (unsigned long long)sl[i].delay);
            fclose(f);
        }
    }
    for (int i = 0; i < np; i++)
        busmp_wprog_free(w[i]);
    busmp_free(m);
    return bad;
}
