/* sc_delatex.c: T1's scanner -- LaTeX in, words out (like `detex -w` or the lex program
 * of the paper's T1). One character per call, so that it can sit behind a stream.
 * Dropped: comments (% to end of line), inline math ($...$, \(...\), \[...\]), command
 * names, the arguments of the commands that name things rather than say them (\begin,
 * \end, \label, \ref, \cite, ...), their optional [..] arguments, control symbols (\%,
 * \\). Kept: letters; an apostrophe between letters. Words are lowercased; words of one
 * letter are dropped; longer than SC_MAX_WORD-1 letters are cut. */
#include <stdio.h>
#include <string.h>

#include "sc.h"

enum { TEXT, CMD, COMMENT, MATH, MATH_ESC, WAIT_GROUP, OPTION, SKIP_GROUP };

static const char *const skip_arg[] = {
    "begin", "end", "label", "ref", "eqref", "pageref", "cite", "citep", "citet", "usepackage",
    "documentclass", "includegraphics", "bibliography", "bibliographystyle", "input", "url",
    "newcommand", "renewcommand", "setlength", "vspace", "hspace", "pagestyle", "thispagestyle",
};

void sc_delatex_init(sc_delatex_t *d) { memset(d, 0, sizeof *d); }

static int letter(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

static void flush_word(sc_delatex_t *d, sc_word_fn emit, void *ctx)
{
    while (d->word_len > 0 && d->word[d->word_len - 1] == '\'') d->word_len--;
    if (d->word_len >= 2) emit(ctx, d->word, d->word_len);
    d->word_len = 0;
}

static void add_letter(sc_delatex_t *d, int c)
{
    if (c >= 'A' && c <= 'Z') c = c - 'A' + 'a';
    if (d->word_len < SC_MAX_WORD - 1) d->word[d->word_len++] = (char)c;
}

static int takes_skipped_arg(const sc_delatex_t *d)
{
    for (size_t i = 0; i < sizeof skip_arg / sizeof skip_arg[0]; i++)
        if (strlen(skip_arg[i]) == d->cmd_len && memcmp(skip_arg[i], d->cmd, d->cmd_len) == 0) return 1;
    return 0;
}

static void text_char(sc_delatex_t *d, int c, sc_word_fn emit, void *ctx)
{
    if (letter(c) || (c == '\'' && d->word_len > 0)) {
        add_letter(d, c);
        return;
    }
    flush_word(d, emit, ctx);
    if (c == '\\') {
        d->state = CMD;
        d->cmd_len = 0;
    } else if (c == '%') {
        d->state = COMMENT;
    } else if (c == '$') {
        d->state = MATH;
    }
}

/* The character that ended a command name. */
static void end_command(sc_delatex_t *d, int c, sc_word_fn emit, void *ctx)
{
    if (d->cmd_len == 0) { /* a control symbol: \\ \% \$ \{ \( \[ ... */
        d->state = (c == '(' || c == '[') ? MATH : TEXT;
        return;
    }
    if (takes_skipped_arg(d)) {
        d->state = WAIT_GROUP;
        sc_delatex_feed(d, c, emit, ctx);
        return;
    }
    d->state = TEXT;
    if (c != ' ') text_char(d, c, emit, ctx); /* "\foo bar": the space ends the name */
}

void sc_delatex_feed(sc_delatex_t *d, int c, sc_word_fn emit, void *ctx)
{
    if (c == EOF) {
        flush_word(d, emit, ctx);
        return;
    }
    switch (d->state) {
    case TEXT:
        text_char(d, c, emit, ctx);
        break;
    case CMD:
        if (letter(c)) {
            if (d->cmd_len < sizeof d->cmd) d->cmd[d->cmd_len++] = (char)c;
        } else {
            end_command(d, c, emit, ctx);
        }
        break;
    case COMMENT:
        if (c == '\n') d->state = TEXT;
        break;
    case MATH:
        if (c == '$') d->state = TEXT;
        else if (c == '\\') d->state = MATH_ESC;
        break;
    case MATH_ESC: /* \) and \] end math; any other escaped character stays in it */
        d->state = (c == ')' || c == ']') ? TEXT : MATH;
        break;
    case WAIT_GROUP:
        if (c == '{') {
            d->state = SKIP_GROUP;
            d->depth = 1;
        } else if (c == '[') {
            d->state = OPTION;
        } else if (c != ' ' && c != '*') {
            d->state = TEXT;
            text_char(d, c, emit, ctx);
        }
        break;
    case OPTION:
        if (c == ']') d->state = WAIT_GROUP;
        break;
    case SKIP_GROUP:
        if (c == '{') d->depth++;
        else if (c == '}' && --d->depth == 0) d->state = TEXT;
        break;
    }
}
