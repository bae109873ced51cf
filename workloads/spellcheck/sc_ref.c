/* sc_ref.c: the single-threaded spell checker -- the same scanner and checks composed
 * directly, the whole document at once. The pipeline must print the same words (as a
 * multiset: T2 and T3 share S6, so their lines may come out in another order). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sc.h"

typedef struct out {
    const sc_tables_t *t;
    char *buf;
    size_t len, cap;
    int err;
} out_t;

static void check_word(void *a, const char *w, size_t n)
{
    out_t *o = a;
    int bad = sc_table_has(o->t->stop, w, n) || !sc_accepts(o->t->main, w, n);
    if (!bad || o->err) return;
    if (o->len + n + 1 > o->cap) {
        size_t nc = o->cap ? o->cap * 2 : 4096;
        while (nc < o->len + n + 1) nc *= 2;
        char *p = realloc(o->buf, nc);
        if (!p) {
            o->err = 1;
            return;
        }
        o->buf = p;
        o->cap = nc;
    }
    memcpy(o->buf + o->len, w, n);
    o->buf[o->len + n] = '\n';
    o->len += n + 1;
}

int sc_reference(const char *doc, size_t len, const sc_tables_t *t, char **out, size_t *out_len)
{
    out_t o = {.t = t};
    sc_delatex_t d;
    sc_delatex_init(&d);
    for (size_t i = 0; i < len; i++) sc_delatex_feed(&d, (unsigned char)doc[i], check_word, &o);
    sc_delatex_feed(&d, EOF, check_word, &o);
    *out = o.buf;
    *out_len = o.len;
    return o.err ? -1 : 0;
}
