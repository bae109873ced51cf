/* spellcheck-regwin: runs the multi-threaded spell checker (sc.h) on one worker (FIFO,
 * non-preemptive) with the register-window emulation of each configuration attached,
 * and prints one line per run:
 *   RESULT experiment=regwin setting=<name> m=<M> n=<N> scheme=<off|NS|SNP|SP>
 *          windows=<W> ws=<0|1> saves=.. restores=.. overflow_traps=.. ... t1_resumes=..
 * Usage:
 *   spellcheck-regwin [--doc F] [--dict F | --tables F] [--save-tables F]
 *                     [--settings all|name,...|M:N,...] [--schemes off,NS,SNP,SP]
 *                     [--windows 4-32|list] [--ws 0,1] [--print] [--words] [--null] [--table2]
 * --print writes the misspelled words of the (first) run to stdout instead of RESULT
 * lines; --words writes the words T1 extracts from the document (one per line, the input of
 * the spelling checks) and exits, so that an independent checker can judge the same words; --null loads everything and runs nothing (the baseline of an instruction count);
 * --table2 prints the cost model of one switch (ito_regwin_switch_cost) per scheme and
 * windows saved/restored, as "RESULT table2 ..." lines, and exits.
 * Defaults: the shipped document, /usr/share/dict/american-english, all six settings of
 * Table 1, SP, 8 windows, ws 0. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ito/ito.h"
#include "ito/regwin.h"
#include "sc.h"

#ifndef SC_DEFAULT_DOC
#define SC_DEFAULT_DOC "data/paper.tex"
#endif

typedef struct setting {
    char name[48];
    size_t m, n;
} setting_t;

static const setting_t table1[] = {
    {"high-fine", 1, 1},       {"high-medium", 4, 4},     {"high-coarse", 16, 16},
    {"low-fine", 1024, 1},     {"low-medium", 1024, 4},   {"low-coarse", 1024, 16},
};

static void die(const char *what)
{
    fprintf(stderr, "spellcheck-regwin: %s\n", what);
    exit(2);
}

static char *slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    if (!b || fread(b, 1, (size_t)n, fp) != (size_t)n) {
        fclose(fp);
        free(b);
        return NULL;
    }
    fclose(fp);
    b[n] = 0;
    *len = (size_t)n;
    return b;
}

static int parse_scheme(const char *s)
{
    if (strcmp(s, "off") == 0) return ITO_REGWIN_OFF;
    if (strcmp(s, "NS") == 0) return ITO_REGWIN_NS;
    if (strcmp(s, "SNP") == 0) return ITO_REGWIN_SNP;
    if (strcmp(s, "SP") == 0) return ITO_REGWIN_SP;
    die("unknown scheme (off, NS, SNP, SP)");
    return -1;
}

/* "a,b,c" into ints, or "lo-hi" as a range */
static int parse_ints(const char *s, int *out, int max)
{
    int lo, hi, n = 0;
    if (sscanf(s, "%d-%d", &lo, &hi) == 2 && !strchr(s, ',')) {
        for (int v = lo; v <= hi && n < max; v++) out[n++] = v;
        return n;
    }
    char *dup = strdup(s), *save = NULL;
    for (char *tok = strtok_r(dup, ",", &save); tok && n < max; tok = strtok_r(NULL, ",", &save))
        out[n++] = atoi(tok);
    free(dup);
    return n;
}

static int parse_settings(const char *s, setting_t *out, int max)
{
    if (strcmp(s, "all") == 0) {
        memcpy(out, table1, sizeof table1);
        return (int)(sizeof table1 / sizeof table1[0]);
    }
    int n = 0;
    char *dup = strdup(s), *save = NULL;
    for (char *tok = strtok_r(dup, ",", &save); tok && n < max; tok = strtok_r(NULL, ",", &save)) {
        size_t m, nn;
        int found = 0;
        for (size_t i = 0; i < sizeof table1 / sizeof table1[0]; i++)
            if (strcmp(tok, table1[i].name) == 0) {
                out[n++] = table1[i];
                found = 1;
            }
        if (found) continue;
        if (sscanf(tok, "%zu:%zu", &m, &nn) != 2 || m == 0 || nn == 0) die("bad setting (name or M:N)");
        snprintf(out[n].name, sizeof out[n].name, "M%zu-N%zu", m, nn);
        out[n].m = m;
        out[n].n = nn;
        n++;
    }
    free(dup);
    return n;
}

static int load_tables(sc_tables_t *t, const char *dict, const char *tables, const char *save)
{
    if (tables) {
        FILE *fp = fopen(tables, "rb");
        if (!fp) return -1;
        size_t ok = fread(t, sizeof *t, 1, fp);
        fclose(fp);
        return ok == 1 ? 0 : -1;
    }
    if (sc_tables_build(t, dict) != 0) return -1;
    if (save) {
        FILE *fp = fopen(save, "wb");
        if (!fp || fwrite(t, sizeof *t, 1, fp) != 1) return -1;
        fclose(fp);
    }
    return 0;
}

static void print_result(const setting_t *st, int scheme, int windows, int ws, const sc_run_t *r,
                         const ito_regwin_counters_t *c, uint64_t core_switches)
{
    static const char *const tn[SC_NTHREADS] = {"t1", "t2", "t3", "t4", "t5", "t6", "t7"};
    printf("RESULT experiment=regwin setting=%s m=%zu n=%zu scheme=%s windows=%d ws=%d "
           "out_bytes=%zu core_switches=%llu saves=%llu restores=%llu overflow_traps=%llu "
           "underflow_traps=%llu switches=%llu switches_resident=%llu switches_flush=%llu "
           "switch_window_saves=%llu switch_window_restores=%llu switch_cycles_lo=%llu "
           "switch_cycles_hi=%llu switches_extrapolated=%llu trap_cycles=%llu",
           st->name, st->m, st->n, ito_regwin_scheme_name(scheme), windows, ws, r->out_len,
           (unsigned long long)core_switches, (unsigned long long)c->saves,
           (unsigned long long)c->restores, (unsigned long long)c->overflow_traps,
           (unsigned long long)c->underflow_traps, (unsigned long long)c->switches,
           (unsigned long long)c->switches_resident, (unsigned long long)c->switches_flush,
           (unsigned long long)c->switch_window_saves, (unsigned long long)c->switch_window_restores,
           (unsigned long long)c->switch_cycles_lo, (unsigned long long)c->switch_cycles_hi,
           (unsigned long long)c->switches_extrapolated, (unsigned long long)c->trap_cycles);
    for (int i = 0; i < SC_NTHREADS; i++)
        printf(" %s_resumes=%llu %s_saves=%llu", tn[i], (unsigned long long)r->th[i].resumes, tn[i],
               (unsigned long long)r->th[i].saves);
    /* the switch histogram, sparse: hist_<saves>_<restores>=count */
    for (int s = 0; s < ITO_REGWIN_HIST_SAVES; s++)
        for (int q = 0; q < ITO_REGWIN_HIST_RESTORES; q++)
            if (c->switch_hist[s][q]) printf(" hist_%d_%d=%llu", s, q, (unsigned long long)c->switch_hist[s][q]);
    printf("\n");
    fflush(stdout);
}

static void print_word(void *ctx, const char *w, size_t n)
{
    (void)ctx;
    printf("%.*s\n", (int)n, w);
}

static uint64_t core_switch_count(void)
{
    ito_stats_t s;
    return ito_stats(&s) == ITO_OK ? s.switches : 0;
}

int main(int argc, char **argv)
{
    const char *doc_path = SC_DEFAULT_DOC, *dict = "/usr/share/dict/american-english";
    const char *tables_path = NULL, *save_tables = NULL;
    const char *settings_arg = "all", *schemes_arg = "SP", *windows_arg = "8", *ws_arg = "0";
    int print = 0, null_run = 0, table2 = 0, words = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--print") == 0) print = 1;
        else if (strcmp(a, "--words") == 0) words = 1;
        else if (strcmp(a, "--null") == 0) null_run = 1;
        else if (strcmp(a, "--table2") == 0) table2 = 1;
        else if (!v) die("missing value");
        else if (strcmp(a, "--doc") == 0) doc_path = v, i++;
        else if (strcmp(a, "--dict") == 0) dict = v, i++;
        else if (strcmp(a, "--tables") == 0) tables_path = v, i++;
        else if (strcmp(a, "--save-tables") == 0) save_tables = v, i++;
        else if (strcmp(a, "--settings") == 0) settings_arg = v, i++;
        else if (strcmp(a, "--schemes") == 0) schemes_arg = v, i++;
        else if (strcmp(a, "--windows") == 0) windows_arg = v, i++;
        else if (strcmp(a, "--ws") == 0) ws_arg = v, i++;
        else die("unknown option");
    }
    if (table2) {
        for (int sc = ITO_REGWIN_NS; sc <= ITO_REGWIN_SP; sc++)
            for (unsigned q = 0; q <= 1; q++)
                for (unsigned sv = 0; sv <= 8; sv++) {
                    uint32_t lo, hi;
                    int exact;
                    if (ito_regwin_switch_cost(sc, sv, q, &lo, &hi, &exact) != ITO_OK) return 1;
                    printf("RESULT table2=1 scheme=%s saves=%u restores=%u lo=%u hi=%u exact=%d\n",
                           ito_regwin_scheme_name(sc), sv, q, lo, hi, exact);
                }
        ito_regwin_config_t d;
        ito_regwin_config_init(&d);
        printf("RESULT traps=1 overflow_trap=%u underflow_trap=%u underflow_inplace_extra=%u\n",
               d.costs.overflow_trap, d.costs.underflow_trap, d.costs.underflow_inplace_extra);
        return 0;
    }
    size_t doc_len;
    char *doc = slurp(doc_path, &doc_len);
    if (!doc) die("cannot read the document (--doc)");
    if (words) {
        sc_delatex_t d;
        sc_delatex_init(&d);
        for (size_t i = 0; i < doc_len; i++) sc_delatex_feed(&d, (unsigned char)doc[i], print_word, NULL);
        sc_delatex_feed(&d, EOF, print_word, NULL);
        free(doc);
        return 0;
    }
    static sc_tables_t tables;
    if (load_tables(&tables, dict, tables_path, save_tables) != 0) die(strerror(errno));
    fprintf(stderr,
            "spellcheck-regwin: %zu bytes of LaTeX; word list %zu words -> %zu stems, %zu stop words "
            "(%zu left out so that no listed word is flagged)\n",
            doc_len, tables.words_in, tables.stems, tables.stop_words, tables.stop_dropped);

    setting_t settings[32];
    int nset = parse_settings(settings_arg, settings, 32);
    int schemes[4], nsch = 0;
    {
        char *dup = strdup(schemes_arg), *save = NULL;
        for (char *tok = strtok_r(dup, ",", &save); tok && nsch < 4; tok = strtok_r(NULL, ",", &save))
            schemes[nsch++] = parse_scheme(tok);
        free(dup);
    }
    int windows[64], nwin = parse_ints(windows_arg, windows, 64);
    int wss[2], nws = parse_ints(ws_arg, wss, 2);

    ito_config_t cfg = {.workers = 1}; /* the paper's single processor: FIFO, non-preemptive */
    if (ito_init(&cfg) != ITO_OK) die("ito_init failed");
    int status = 0;
    if (!null_run) {
        for (int a = 0; a < nset; a++)
            for (int b = 0; b < nsch; b++)
                for (int w = 0; w < nwin; w++)
                    for (int k = 0; k < nws; k++) {
                        ito_regwin_config_t rc;
                        ito_regwin_config_init(&rc);
                        rc.scheme = schemes[b];
                        rc.windows = windows[w];
                        rc.working_set = wss[k];
                        if (ito_regwin_configure(&rc) != ITO_OK) die("bad window configuration");
                        ito_regwin_reset_counters();
                        if (schemes[b] != ITO_REGWIN_OFF && ito_regwin_attach() != ITO_OK) die("attach failed");
                        uint64_t sw0 = core_switch_count();
                        sc_run_t r = {.doc = doc, .doc_len = doc_len, .tables = &tables,
                                      .m = settings[a].m, .n = settings[a].n};
                        int prc = sc_pipeline_run(&r);
                        uint64_t sw = core_switch_count() - sw0;
                        int drc = schemes[b] != ITO_REGWIN_OFF ? ito_regwin_detach() : ITO_OK;
                        if (prc != ITO_OK || drc != ITO_OK) {
                            fprintf(stderr, "spellcheck-regwin: run failed (pipeline %d, windows %d)\n", prc, drc);
                            status = 1;
                        }
                        ito_regwin_counters_t c;
                        ito_regwin_read_counters(&c);
                        if (print) {
                            fwrite(r.out, 1, r.out_len, stdout);
                            free(r.out);
                            goto done;
                        }
                        print_result(&settings[a], schemes[b], windows[w], wss[k], &r, &c, sw);
                        free(r.out);
                    }
    }
done:
    ito_finalize();
    free(doc);
    return status;
}
