/* test_spellcheck: the seven-thread checker prints exactly the words the single-threaded
 * checker prints (as a multiset: T2 and T3 share S6), for the six buffer settings of the
 * paper's Table 1 and a few more, without the window emulation and with each scheme at
 * few and many windows (where a lost window would change the words). Also checks the
 * scanner, the derivative rules and the dictionaries on small cases, and that no word of the
 * word list is ever flagged (a bit-table false positive in the stop list once flagged
 * "adding"). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ito/ito.h"
#include "ito/regwin.h"
#include "ito_test.h"
#include "sc.h"

static sc_tables_t tables;

static char collected[512];
static void collect(void *ctx, const char *w, size_t n)
{
    (void)ctx;
    strncat(collected, w, n);
    strcat(collected, " ");
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The lines of buf, sorted, joined again. */
static char *sorted(const char *buf, size_t len)
{
    char *copy = malloc(len + 1);
    memcpy(copy, buf, len);
    copy[len] = 0;
    size_t n = 0, cap = 16;
    char **lines = malloc(cap * sizeof *lines);
    for (char *save = NULL, *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (n == cap) lines = realloc(lines, (cap *= 2) * sizeof *lines);
        lines[n++] = l;
    }
    qsort(lines, n, sizeof *lines, cmp_str);
    char *out = calloc(len + 2, 1);
    for (size_t i = 0; i < n; i++) {
        strcat(out, lines[i]);
        strcat(out, "\n");
    }
    free(lines);
    free(copy);
    return out;
}

static void units(void)
{
    sc_delatex_t d;
    sc_delatex_init(&d);
    const char *tex = "\\section{Intro} Hello $x+y$ world % a comment\n\\cite{knuth} don't "
                      "\\begin{itemize}\\item A-b \\emph{Thread's} \\\\ end";
    for (const char *p = tex; *p; p++) sc_delatex_feed(&d, *p, collect, NULL);
    sc_delatex_feed(&d, EOF, collect, NULL);
    CHECK(strcmp(collected, "intro hello world don't thread's end ") == 0);

    const char *good[] = {"thread", "threads", "walked", "running", "stopped", "carries", "happily",
                          "windows", "register", "faster", "baking", "the", "processor's", "adding"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        int ok = !sc_table_has(tables.stop, good[i], strlen(good[i])) &&
                 sc_accepts(tables.main, good[i], strlen(good[i]));
        if (!ok) fprintf(stderr, "rejected: %s\n", good[i]);
        CHECK(ok);
    }
    const char *bad[] = {"thraed", "windwos", "registre", "qzxvbn"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK(!sc_accepts(tables.main, bad[i], strlen(bad[i])));
    /* wrong derivatives: accepted by the rules, caught by the stop list */
    CHECK(sc_accepts(tables.main, "runned", 6) && sc_table_has(tables.stop, "runned", 6));
    CHECK(sc_accepts(tables.main, "goed", 4) && sc_table_has(tables.stop, "goed", 4));
}

/* Every word of the list (lowercased, a-z only, as the builder reads it) passes both checks. */
static void no_listed_word_flagged(const char *path)
{
    FILE *fp = fopen(path, "r");
    CHECK(fp != NULL);
    char line[256];
    size_t n = 0, flagged = 0;
    while (fgets(line, sizeof line, fp)) {
        size_t len = strcspn(line, "\r\n");
        int ok = len > 0 && len < SC_MAX_WORD;
        for (size_t i = 0; i < len && ok; i++) {
            if (line[i] >= 'A' && line[i] <= 'Z') line[i] = (char)(line[i] - 'A' + 'a');
            else if (line[i] < 'a' || line[i] > 'z') ok = 0;
        }
        if (!ok) continue;
        n++;
        if (sc_table_has(tables.stop, line, len) || !sc_accepts(tables.main, line, len)) {
            if (flagged++ < 5) fprintf(stderr, "listed word flagged: %.*s\n", (int)len, line);
        }
    }
    fclose(fp);
    CHECK(n > 50000);
    CHECK_EQ(flagged, 0);
    /* the repair leaves out a few hundred forms (about the 0.3 % false-positive rate of the
     * stop table times the list's words), never a large part of the stop list */
    CHECK(tables.stop_dropped > 0 && tables.stop_dropped < tables.stop_words / 20);
}

static void compare(const char *doc, size_t len, const char *ref_sorted, size_t m, size_t n, int scheme,
                    int windows, int ws)
{
    ito_regwin_config_t rc;
    CHECK_OK(ito_regwin_config_init(&rc));
    rc.scheme = scheme;
    rc.windows = windows;
    rc.working_set = ws;
    CHECK_OK(ito_regwin_configure(&rc));
    if (scheme != ITO_REGWIN_OFF) CHECK_OK(ito_regwin_attach());
    sc_run_t r = {.doc = doc, .doc_len = len, .tables = &tables, .m = m, .n = n};
    CHECK_OK(sc_pipeline_run(&r));
    if (scheme != ITO_REGWIN_OFF) {
        CHECK_EQ(ito_regwin_errors(), 0);
        CHECK_OK(ito_regwin_detach());
        for (int i = 0; i < SC_NTHREADS; i++) CHECK(r.th[i].resumes > 0 && r.th[i].saves > 0);
    }
    char *got = sorted(r.out, r.out_len);
    if (strcmp(got, ref_sorted) != 0) {
        fprintf(stderr, "M=%zu N=%zu scheme=%d windows=%d ws=%d: output differs\n", m, n, scheme, windows, ws);
        CHECK(0);
    }
    free(got);
    free(r.out);
}

/* Reads a document (at least min bytes) into buf; returns the reference checker's words, sorted. */
static char *load_doc(const char *path, char *buf, size_t cap, size_t min, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    CHECK(fp != NULL);
    *len = fread(buf, 1, cap, fp);
    fclose(fp);
    CHECK(*len > min && *len < cap);
    char *ref;
    size_t ref_len;
    CHECK(sc_reference(buf, *len, &tables, &ref, &ref_len) == 0);
    CHECK(ref_len > 0); /* each document has misspellings */
    char *out = sorted(ref, ref_len);
    free(ref);
    return out;
}

int main(void)
{
    CHECK(sc_tables_build(&tables, "/usr/share/dict/american-english") == 0);
    CHECK(tables.words_in > 50000 && tables.stems < tables.words_in && tables.stop_words > 1000);
    units();
    no_listed_word_flagged("/usr/share/dict/american-english");

    static char doc[1 << 17];
    size_t len;
    char *ref_sorted = load_doc(SC_DEFAULT_DOC, doc, sizeof doc, 30000, &len);

    ito_config_t cfg = {.workers = 1};
    CHECK_OK(ito_init(&cfg));
    static const size_t mn[][2] = {{1, 1}, {4, 4}, {16, 16}, {1024, 1}, {1024, 4}, {1024, 16}, {3, 7}, {65536, 65536}};
    for (size_t i = 0; i < sizeof mn / sizeof mn[0]; i++)
        compare(doc, len, ref_sorted, mn[i][0], mn[i][1], ITO_REGWIN_OFF, 8, 0);
    for (int s = ITO_REGWIN_NS; s <= ITO_REGWIN_SP; s++) {
        compare(doc, len, ref_sorted, 1, 1, s, 4, 0);
        compare(doc, len, ref_sorted, 4, 4, s, 7, 1);
        compare(doc, len, ref_sorted, 1024, 16, s, 32, 0);
    }

    /* the second document, in another LaTeX style (display math, tables, lists, macros) */
    static char notes[1 << 16];
    size_t nlen;
    char *nref_sorted = load_doc(SC_NOTES_DOC, notes, sizeof notes, 5000, &nlen);
    CHECK(strstr(nref_sorted, "teh\n") != NULL); /* a planted misspelling is reported */
    CHECK(strstr(nref_sorted, "frac") == NULL);  /* display math is not read as words */
    compare(notes, nlen, nref_sorted, 1, 1, ITO_REGWIN_OFF, 8, 0);
    compare(notes, nlen, nref_sorted, 16, 4, ITO_REGWIN_SP, 6, 1);
    free(nref_sorted);
    CHECK_OK(ito_finalize());
    free(ref_sorted);
    TEST_DONE();
}
