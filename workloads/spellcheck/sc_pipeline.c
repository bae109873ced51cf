/* sc_pipeline.c: the seven threads of the spell checker on ito streams (see sc.h for the
 * wiring). Scheduling is the runtime's: with one worker it is the paper's non-preemptive
 * FIFO -- a thread runs until it must wait for an empty input or a full output stream.
 *
 * Choices the paper leaves open (each stated in docs/reproductions/regwin.md):
 *  - the simulated devices (T4..T7) move one 32-bit word per call, the granularity that
 *    the paper's save counts for T4 (10,127 for a 40,500-byte input) and T6/T7 (12,502
 *    for 50,000 bytes) show;
 *  - readers take whatever their input stream holds, up to 64 bytes, per call (a stdio-like
 *    buffer), and get one character at a time from it;
 *  - S6 has two writers (T2 and T3); a line is written under an ito mutex so that lines
 *    do not interleave when S6 is smaller than a line;
 *  - the threads are created in the order T1..T7. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ito/ito.h"
#include "ito/regwin.h"
#include "sc.h"

enum { S1, S2, S3, S4, S5, S6, NSTREAMS };

typedef struct ctx {
    sc_run_t *run;
    ito_stream_t *s[NSTREAMS];
    ito_mutex_t s6_mu;
    unsigned char *dict1, *dict2; /* the tables as T2 and T3 received them */
    int err;
} ctx_t;

typedef struct reader {
    ito_stream_t *s;
    unsigned char buf[64];
    size_t pos, len;
    int eof;
} reader_t;

typedef struct targ {
    ctx_t *c;
    int id;
} targ_t;

static void fail(ctx_t *c, int rc)
{
    if (!c->err) c->err = rc;
}

static int rd_getc(reader_t *r)
{
    if (r->pos == r->len) {
        if (r->eof) return EOF;
        size_t got = 0;
        if (ito_stream_get(r->s, r->buf, sizeof r->buf, &got) != ITO_OK || got == 0) {
            r->eof = 1;
            return EOF;
        }
        r->pos = 0;
        r->len = got;
    }
    return r->buf[r->pos++];
}

/* One line (a word) without its '\n'; -1 at the end of the stream. */
static long rd_line(reader_t *r, char *w, size_t cap)
{
    size_t n = 0;
    int c;
    while ((c = rd_getc(r)) != EOF && c != '\n')
        if (n < cap - 1) w[n++] = (char)c;
    if (c == EOF && n == 0) return -1;
    w[n] = 0;
    return (long)n;
}

static void put_line(ctx_t *c, ito_stream_t *s, const char *w, size_t n)
{
    char line[SC_MAX_WORD + 1];
    memcpy(line, w, n);
    line[n] = '\n';
    int rc = ito_stream_put(s, line, n + 1);
    if (rc != ITO_OK) fail(c, rc);
}

static void put_result(ctx_t *c, const char *w, size_t n)
{
    ito_mutex_lock(&c->s6_mu);
    put_line(c, c->s[S6], w, n);
    ito_mutex_unlock(&c->s6_mu);
}

static void record(ctx_t *c, int id)
{
    ito_regwin_thread_stats_t st;
    if (ito_regwin_self_stats(&st) == ITO_OK) {
        c->run->th[id].resumes = st.resumes;
        c->run->th[id].saves = st.saves;
    }
}

/* ---- the simulated devices ---- */

static void dev_put_word(ctx_t *c, ito_stream_t *s, const unsigned char *p, size_t n)
{
    int rc = ito_stream_put(s, p, n);
    if (rc != ITO_OK) fail(c, rc);
}

static void dev_write(ctx_t *c, ito_stream_t *s, const unsigned char *p, size_t len)
{
    for (size_t i = 0; i < len; i += 4) dev_put_word(c, s, p + i, len - i < 4 ? len - i : 4);
    ito_stream_close(s);
}

static size_t dev_get_word(ito_stream_t *s, unsigned char *p)
{
    size_t got = 0;
    if (ito_stream_get(s, p, 4, &got) != ITO_OK) return 0;
    return got;
}

static void *t4_input(void *a)
{
    ctx_t *c = ((targ_t *)a)->c;
    dev_write(c, c->s[S1], (const unsigned char *)c->run->doc, c->run->doc_len);
    record(c, SC_T4);
    return NULL;
}

static void *t6_dict1(void *a)
{
    ctx_t *c = ((targ_t *)a)->c;
    dev_write(c, c->s[S4], c->run->tables->stop, SC_TABLE_BYTES);
    record(c, SC_T6);
    return NULL;
}

static void *t7_dict2(void *a)
{
    ctx_t *c = ((targ_t *)a)->c;
    dev_write(c, c->s[S5], c->run->tables->main, SC_TABLE_BYTES);
    record(c, SC_T7);
    return NULL;
}

static int grow(sc_run_t *r, size_t cap_needed, size_t *cap)
{
    if (cap_needed <= *cap) return 0;
    size_t nc = *cap ? *cap * 2 : 4096;
    while (nc < cap_needed) nc *= 2;
    char *p = realloc(r->out, nc);
    if (!p) return -1;
    r->out = p;
    *cap = nc;
    return 0;
}

static void *t5_output(void *a)
{
    ctx_t *c = ((targ_t *)a)->c;
    sc_run_t *r = c->run;
    size_t cap = 0;
    unsigned char w[4];
    size_t got;
    while ((got = dev_get_word(c->s[S6], w)) > 0) {
        if (grow(r, r->out_len + got, &cap) != 0) {
            fail(c, ITO_ENOMEM);
            break;
        }
        memcpy(r->out + r->out_len, w, got);
        r->out_len += got;
    }
    record(c, SC_T5);
    return NULL;
}

/* ---- the filters ---- */

static void t1_emit(void *a, const char *w, size_t n)
{
    ctx_t *c = a;
    put_line(c, c->s[S2], w, n);
}

static void *t1_delatex(void *a)
{
    ctx_t *c = ((targ_t *)a)->c;
    reader_t in = {.s = c->s[S1]};
    sc_delatex_t d;
    sc_delatex_init(&d);
    int ch;
    do {
        ch = rd_getc(&in);
        sc_delatex_feed(&d, ch, t1_emit, c);
    } while (ch != EOF);
    ito_stream_close(c->s[S2]);
    record(c, SC_T1);
    return NULL;
}

static void read_table(ctx_t *c, ito_stream_t *s, unsigned char *table)
{
    size_t have = 0, got;
    while (have < SC_TABLE_BYTES) {
        if (ito_stream_get(s, table + have, SC_TABLE_BYTES - have, &got) != ITO_OK || got == 0) {
            fail(c, ITO_ECLOSED); /* a short dictionary */
            return;
        }
        have += got;
    }
}

static void *t2_spell1(void *a)
{
    ctx_t *c = ((targ_t *)a)->c;
    read_table(c, c->s[S4], c->dict1);
    reader_t in = {.s = c->s[S2]};
    char w[SC_MAX_WORD];
    long n;
    while ((n = rd_line(&in, w, sizeof w)) >= 0) {
        if (sc_table_has(c->dict1, w, (size_t)n))
            put_result(c, w, (size_t)n); /* an incorrect derivative */
        else
            put_line(c, c->s[S3], w, (size_t)n);
    }
    ito_stream_close(c->s[S3]);
    record(c, SC_T2);
    return NULL;
}

static void *t3_spell2(void *a)
{
    ctx_t *c = ((targ_t *)a)->c;
    read_table(c, c->s[S5], c->dict2);
    reader_t in = {.s = c->s[S3]};
    char w[SC_MAX_WORD];
    long n;
    while ((n = rd_line(&in, w, sizeof w)) >= 0)
        if (!sc_accepts(c->dict2, w, (size_t)n)) put_result(c, w, (size_t)n);
    ito_stream_close(c->s[S6]); /* T2 closed S3 after its last line to S6 */
    record(c, SC_T3);
    return NULL;
}

int sc_pipeline_run(sc_run_t *r)
{
    static void *(*const fns[SC_NTHREADS])(void *) = {t1_delatex, t2_spell1, t3_spell2, t4_input,
                                                       t5_output, t6_dict1, t7_dict2};
    static const char *const names[SC_NTHREADS] = {"T1 delatex", "T2 spell1", "T3 spell2", "T4 input",
                                                    "T5 output", "T6 dict1", "T7 dict2"};
    if (!r || !r->doc || !r->tables || r->m == 0 || r->n == 0) return ITO_EINVAL;
    ctx_t c;
    memset(&c, 0, sizeof c);
    c.run = r;
    r->out = NULL;
    r->out_len = 0;
    memset(r->th, 0, sizeof r->th);
    int rc = ito_mutex_init(&c.s6_mu);
    c.dict1 = malloc(SC_TABLE_BYTES);
    c.dict2 = malloc(SC_TABLE_BYTES);
    if (!c.dict1 || !c.dict2) rc = ITO_ENOMEM;
    for (int i = 0; i < NSTREAMS && rc == ITO_OK; i++)
        rc = ito_stream_create(&c.s[i], (i == S2 || i == S3) ? r->n : r->m);
    ito_thread_t t[SC_NTHREADS];
    targ_t args[SC_NTHREADS];
    int made = 0;
    for (; made < SC_NTHREADS && rc == ITO_OK; made++) {
        ito_attr_t at;
        ito_attr_init(&at);
        at.name = names[made];
        args[made] = (targ_t){&c, made};
        rc = ito_create(&t[made], fns[made], &args[made], &at);
        if (rc != ITO_OK) break;
    }
    if (rc != ITO_OK) /* unblock whatever was started */
        for (int i = 0; i < NSTREAMS; i++)
            if (c.s[i]) ito_stream_close(c.s[i]);
    for (int i = 0; i < made; i++) ito_join(t[i], NULL);
    for (int i = 0; i < NSTREAMS; i++)
        if (c.s[i]) ito_stream_destroy(c.s[i]);
    ito_mutex_destroy(&c.s6_mu);
    free(c.dict1);
    free(c.dict2);
    return rc != ITO_OK ? rc : c.err;
}
