/* sc.h: the multi-threaded LaTeX spell checker of Hidaka, Koike and Tanaka (sec. 5.1),
 * on ito streams, and its single-threaded reference.
 *
 *            S4 (M)                S5 (M)
 *      T6 dict1 --> T2 spell1      T7 dict2 --> T3 spell2
 *   T4 input --S1 (M)--> T1 delatex --S2 (N)--> T2 --S3 (N)--> T3
 *                                               T2 --S6 (M)--> T5 output <--S6-- T3
 *
 * T1 strips LaTeX and writes one word per line; T2 writes the words that are in the stop
 * list (incorrect derivatives that T3's rules would accept) to S6 and the others to S3;
 * T3 drops the words that are in the main list, directly or through a derivative rule,
 * and writes the rest to S6; T4..T7 simulate the file system: they copy memory buffers
 * (the "disk cache") into or out of their streams one 32-bit word per call.
 * The dictionaries are hashed bit tables (as UNIX spell's), SC_TABLE_BYTES each, built
 * from a word list (Debian's wamerican) by sc_tables_build before any thread runs.
 *
 * Everything in sc_pipeline.c, sc_delatex.c, sc_rules.c and sc_lookup.c is compiled with
 * -finstrument-functions: each call there is a `save` of the register-window emulation
 * when a run is attached (ito_regwin_attach). */
#ifndef ITO_WORKLOADS_SC_H
#define ITO_WORKLOADS_SC_H

#include <stddef.h>
#include <stdint.h>

#define SC_TABLE_BYTES 50000u /* the paper's T6/T7: 50,001 switches with 1-byte buffers */
#define SC_TABLE_BITS (SC_TABLE_BYTES * 8u)
#define SC_HASHES 4           /* bits set per word in a table */
#define SC_MAX_WORD 64        /* longer words are cut (and checked as cut) */
#define SC_MAX_STEMS 16

/* ---- dictionaries (sc_tables.c builds, sc_lookup.c reads) ---- */
typedef struct sc_tables {
    unsigned char stop[SC_TABLE_BYTES]; /* dict1: the stop list, streamed by T6 to T2 */
    unsigned char main[SC_TABLE_BYTES]; /* dict2: the main list, streamed by T7 to T3 */
    size_t words_in, stems, stop_words;  /* statistics of the build */
    size_t stop_dropped;                 /* wrong forms left out so that no listed word is flagged */
} sc_tables_t;

/* Reads the word list (one word per line) and builds both tables; 0 or -1 (errno). */
int sc_tables_build(sc_tables_t *t, const char *wordlist_path);
uint32_t sc_hash(const char *w, size_t n, unsigned k);
int sc_table_has(const unsigned char *table, const char *w, size_t n);
/* The main list accepts w: w itself or one of its stems is in the table. */
int sc_accepts(const unsigned char *main_table, const char *w, size_t n);

/* ---- derivatives (sc_rules.c) ---- */
/* The stems w may derive from by the suffix rules (-s, -es, -ies, -ed, -d, -ied, -ing,
 * -ly, -ily, -er, -est, 's, doubled consonants, dropped e); w itself excluded. Each stem
 * is written NUL-terminated into out[i] (SC_MAX_WORD bytes). Returns the count. */
int sc_stems(const char *w, size_t n, char out[SC_MAX_STEMS][SC_MAX_WORD]);
/* The forms a stem s yields under the plural, past and progressive rules (for the stop
 * list): s+s, s+ed (s+d after e), s+ing (e dropped), and after a final consonant-vowel-
 * consonant also the doubled s+Ced and s+Cing. Returns the count (3 or 5). */
#define SC_NFORMS 5
int sc_forms(const char *s, char out[SC_NFORMS][SC_MAX_WORD + 4]);

/* ---- de-LaTeX (sc_delatex.c): a character-at-a-time scanner ---- */
typedef struct sc_delatex {
    int state;                 /* text, command name, comment, math, skipped group */
    int depth;                 /* brace depth inside a skipped group */
    int skip_next_group;       /* the command just read takes an argument to skip */
    char cmd[24];
    size_t cmd_len;
    char env[24];              /* the name in \begin{...}, while it is read */
    size_t env_len;
    char tail[40];             /* ENV_SKIP: the last characters read, to find \end{env} */
    size_t tail_len;
    char word[SC_MAX_WORD];
    size_t word_len;
} sc_delatex_t;
typedef void (*sc_word_fn)(void *ctx, const char *w, size_t n); /* lowercased, no '\n' */
void sc_delatex_init(sc_delatex_t *d);
void sc_delatex_feed(sc_delatex_t *d, int c, sc_word_fn emit, void *ctx); /* c = EOF ends */

/* ---- the pipeline (sc_pipeline.c) ---- */
enum { SC_T1, SC_T2, SC_T3, SC_T4, SC_T5, SC_T6, SC_T7, SC_NTHREADS };
typedef struct sc_thread_stats {
    uint64_t resumes;   /* context switches to the thread (window emulation attached) */
    uint64_t saves;     /* function entries (window emulation attached) */
} sc_thread_stats_t;
typedef struct sc_run {
    /* in */
    const char *doc;
    size_t doc_len;
    const sc_tables_t *tables;
    size_t m, n;        /* buffer sizes: S1, S4, S5, S6 = m; S2, S3 = n */
    /* out */
    char *out;          /* T5's buffer: the misspelled words, one per line (malloc'd) */
    size_t out_len;
    sc_thread_stats_t th[SC_NTHREADS];
} sc_run_t;
/* Runs T1..T7 as ULTs on the calling ULT's runtime and joins them; 0, or an ito error. */
int sc_pipeline_run(sc_run_t *r);

/* ---- the single-threaded reference (sc_ref.c) ---- */
/* The same checks, one word at a time, no threads, no streams. *out malloc'd. */
int sc_reference(const char *doc, size_t len, const sc_tables_t *t, char **out, size_t *out_len);

#endif
