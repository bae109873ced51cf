/* regwin_trace.c: replays a trace of window events through the window manager, for a
 * set of schemes and window counts, and prints the counters (CSV with --csv).
 *
 * Trace format, one event per line ('#' starts a comment):
 *   T <id>        a new thread (ids: 0 .. 65535, each used once)
 *   S <id>|- [k]  switch from the current thread to <id> ('-': none); k is the kind of
 *                 the suspension: L leave (default), F flush, X exit
 *   E             save (function entry of the current thread)
 *   R             restore (function exit)
 * A trace recorded under FIFO scheduling does not depend on the scheme or the window
 * count, so one trace serves every configuration (the working-set policy changes the
 * schedule and must run live instead).
 *
 * Usage: regwin-trace [--csv] [--check] [--schemes NS,SNP,SP] [--windows LO-HI] FILE */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "regwin.h"

enum { EV_NEW, EV_SWITCH, EV_SAVE, EV_RESTORE };
typedef struct ev {
    uint8_t op, kind;
    int32_t id; /* EV_NEW, EV_SWITCH: the thread, -1 for none */
    int line;
} ev_t;

static ev_t *evs;
static size_t nev, capev;
static int max_id = -1;

static void die(const char *msg, int line)
{
    if (line > 0)
        fprintf(stderr, "regwin-trace: line %d: %s\n", line, msg);
    else
        fprintf(stderr, "regwin-trace: %s\n", msg);
    exit(2);
}

static void add(ev_t e)
{
    if (nev == capev) {
        capev = capev ? 2 * capev : 4096;
        evs = realloc(evs, capev * sizeof *evs);
        if (!evs) die("out of memory", 0);
    }
    evs[nev++] = e;
}

static int parse_id(const char *s, int line)
{
    if (strcmp(s, "-") == 0) return -1;
    char *end;
    long v = strtol(s, &end, 10);
    if (*end || v < 0 || v > 65535) die("bad thread id", line);
    return (int)v;
}

static void load(const char *path)
{
    FILE *fp = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
    if (!fp) die("cannot open the trace", 0);
    char buf[256];
    int line = 0;
    while (fgets(buf, sizeof buf, fp)) {
        line++;
        char *h = strchr(buf, '#');
        if (h) *h = 0;
        char a[16] = "", b[32] = "", c[16] = "";
        int n = sscanf(buf, "%15s %31s %15s", a, b, c);
        if (n <= 0) continue;
        ev_t e = {.line = line, .id = -1, .kind = ITOI_REGWIN_LEAVE};
        if (strcmp(a, "E") == 0) {
            e.op = EV_SAVE;
        } else if (strcmp(a, "R") == 0) {
            e.op = EV_RESTORE;
        } else if (strcmp(a, "T") == 0 && n >= 2) {
            e.op = EV_NEW;
            e.id = parse_id(b, line);
            if (e.id < 0) die("T needs an id", line);
            if (e.id > max_id) max_id = e.id;
        } else if (strcmp(a, "S") == 0 && n >= 2) {
            e.op = EV_SWITCH;
            e.id = parse_id(b, line);
            if (n == 3) {
                if (strcmp(c, "L") == 0) e.kind = ITOI_REGWIN_LEAVE;
                else if (strcmp(c, "F") == 0) e.kind = ITOI_REGWIN_FLUSH;
                else if (strcmp(c, "X") == 0) e.kind = ITOI_REGWIN_EXIT;
                else die("switch kind must be L, F or X", line);
            }
        } else {
            die("unknown event", line);
        }
        add(e);
    }
    if (fp != stdin) fclose(fp);
}

static void replay(int scheme, int windows, int check, ito_regwin_counters_t *out)
{
    ito_regwin_config_t cfg;
    ito_regwin_config_init(&cfg);
    cfg.scheme = scheme;
    cfg.windows = windows;
    int err;
    itoi_regwin_file_t *f = itoi_regwin_file_new(0, &cfg, &err);
    if (!f) die("cannot make a window file", 0);
    size_t nt = (size_t)(max_id + 1);
    itoi_regwin_thread_t *th = calloc(nt ? nt : 1, sizeof *th);
    char *made = calloc(nt ? nt : 1, 1);
    if (!th || !made) die("out of memory", 0);
    itoi_regwin_thread_t *cur = NULL;
    for (size_t i = 0; i < nev; i++) {
        const ev_t *e = &evs[i];
        int rc = ITO_OK;
        switch (e->op) {
        case EV_NEW:
            if (made[e->id]) die("thread id used twice", e->line);
            made[e->id] = 1;
            rc = itoi_regwin_thread_init(&th[e->id], NULL);
            break;
        case EV_SWITCH: {
            itoi_regwin_thread_t *to = e->id >= 0 ? &th[e->id] : NULL;
            if (e->id >= 0 && !made[e->id]) die("switch to an unknown thread", e->line);
            rc = itoi_regwin_switch(f, cur, to, e->kind);
            if (rc == ITO_OK) cur = to;
            break;
        }
        case EV_SAVE: rc = itoi_regwin_save(f); break;
        default: rc = itoi_regwin_restore(f); break;
        }
        if (rc != ITO_OK) die("the window manager refused the event", e->line);
        if (check) {
            const char *m = itoi_regwin_check(f);
            if (m) die(m, e->line);
        }
    }
    if (cur) itoi_regwin_switch(f, cur, NULL, ITOI_REGWIN_LEAVE);
    itoi_regwin_file_counters(f, out);
    for (size_t i = 0; i < nt; i++)
        if (made[i]) itoi_regwin_thread_fini(&th[i]);
    itoi_regwin_file_free(f);
    free(th);
    free(made);
}

static int scheme_of(const char *s)
{
    for (int k = ITO_REGWIN_NS; k <= ITO_REGWIN_SP; k++)
        if (strcmp(s, ito_regwin_scheme_name(k)) == 0) return k;
    die("schemes are NS, SNP, SP", 0);
    return 0;
}

int main(int argc, char **argv)
{
    int csv = 0, check = 0, lo = ITO_REGWIN_MIN_WINDOWS, hi = ITO_REGWIN_MAX_WINDOWS;
    int schemes[3] = {ITO_REGWIN_NS, ITO_REGWIN_SNP, ITO_REGWIN_SP}, ns = 3;
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--csv") == 0) {
            csv = 1;
        } else if (strcmp(argv[i], "--check") == 0) {
            check = 1;
        } else if (strcmp(argv[i], "--windows") == 0 && i + 1 < argc) {
            if (sscanf(argv[++i], "%d-%d", &lo, &hi) == 1) hi = lo;
            if (lo < ITO_REGWIN_MIN_WINDOWS || hi > ITO_REGWIN_MAX_WINDOWS || lo > hi) die("windows: 4..32", 0);
        } else if (strcmp(argv[i], "--schemes") == 0 && i + 1 < argc) {
            ns = 0;
            for (char *t = strtok(argv[++i], ","); t && ns < 3; t = strtok(NULL, ",")) schemes[ns++] = scheme_of(t);
        } else if (argv[i][0] == '-' && argv[i][1]) {
            die("usage: regwin-trace [--csv] [--check] [--schemes NS,SNP,SP] [--windows LO-HI] FILE", 0);
        } else {
            path = argv[i];
        }
    }
    if (!path) die("no trace file", 0);
    load(path);
    if (csv)
        printf("scheme,windows,saves,restores,overflow_traps,underflow_traps,switches,"
               "switches_resident,switch_window_saves,switch_window_restores,switch_cycles_lo,"
               "switch_cycles_hi,switches_extrapolated,trap_cycles,hist\n");
    else
        printf("%-4s %3s %9s %9s %8s %8s %8s %8s %8s %12s %12s %10s\n", "sch", "W", "saves", "restores",
               "ovf", "unf", "switches", "resident", "sw_saves", "sw_cyc_lo", "sw_cyc_hi", "trap_cyc");
    for (int s = 0; s < ns; s++)
        for (int w = lo; w <= hi; w++) {
            ito_regwin_counters_t c;
            replay(schemes[s], w, check, &c);
            const char *name = ito_regwin_scheme_name(schemes[s]);
            if (!csv) {
                printf("%-4s %3d %9llu %9llu %8llu %8llu %8llu %8llu %8llu %12llu %12llu %10llu\n", name, w,
                       (unsigned long long)c.saves, (unsigned long long)c.restores,
                       (unsigned long long)c.overflow_traps, (unsigned long long)c.underflow_traps,
                       (unsigned long long)c.switches, (unsigned long long)c.switches_resident,
                       (unsigned long long)c.switch_window_saves, (unsigned long long)c.switch_cycles_lo,
                       (unsigned long long)c.switch_cycles_hi, (unsigned long long)c.trap_cycles);
                continue;
            }
            printf("%s,%d,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,", name, w,
                   (unsigned long long)c.saves, (unsigned long long)c.restores,
                   (unsigned long long)c.overflow_traps, (unsigned long long)c.underflow_traps,
                   (unsigned long long)c.switches, (unsigned long long)c.switches_resident,
                   (unsigned long long)c.switch_window_saves, (unsigned long long)c.switch_window_restores,
                   (unsigned long long)c.switch_cycles_lo, (unsigned long long)c.switch_cycles_hi,
                   (unsigned long long)c.switches_extrapolated, (unsigned long long)c.trap_cycles);
            const char *sep = "";
            for (int i = 0; i < ITO_REGWIN_HIST_SAVES; i++)
                for (int j = 0; j < ITO_REGWIN_HIST_RESTORES; j++)
                    if (c.switch_hist[i][j]) {
                        printf("%s%d:%d=%llu", sep, i, j, (unsigned long long)c.switch_hist[i][j]);
                        sep = ";";
                    }
            printf("\n");
        }
    free(evs);
    return 0;
}
