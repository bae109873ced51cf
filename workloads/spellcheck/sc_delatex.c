/* sc_delatex.c: T1's scanner -- LaTeX in, words out (like `detex -w` or the lex program
 * of the paper's T1). One character per call, so that it can sit behind a stream.
 * Dropped: comments (% to end of line), inline math ($...$, \(...\), \[...\]), command
 * names, the arguments of the commands that name things rather than say them (\begin,
 * \end, \label, \ref, \cite, ...), their optional [..] arguments, control symbols (\%,
 * \\), the bodies of display-math and verbatim environments (\begin{equation} ...
 * \end{equation}, align, gather, multline, eqnarray, displaymath, verbatim, each also
 * starred) and a tabular's column specification. Kept: letters; an apostrophe between
 * letters. Words are lowercased; words of one letter are dropped; longer than
 * SC_MAX_WORD-1 letters are cut. */
#include <stdio.h>
#include <string.h>

#include "sc.h"

enum { TEXT, CMD, COMMENT, MATH, MATH_ESC, WAIT_GROUP, OPTION, SKIP_GROUP, ENV_SKIP };

static const char *const skip_env[] = {
    "equation", "equation*", "align", "align*", "gather", "gather*", "multline", "multline*",
    "eqnarray", "eqnarray*", "displaymath", "verbatim", "verbatim*",
};

static const char *const skip_arg[] = {
    "begin", "end", "label", "ref", "eqref", "pageref", "cite", "citep", "citet", "usepackage",
    "documentclass", "includegraphics", "bibliography", "bibliographystyle", "input", "url",
    "newcommand", "renewcommand", "setlength", "vspace", "hspace", "pagestyle", "thispagestyle",
};

void sc_delatex_init(sc_delatex_t *d) { memset(d, 0, sizeof *d); }

/* The \begin{...} group just closed: skip the environment's body, or a tabular's column
 * specification, or go on with the text. */
static void begin_done(sc_delatex_t *d)
{
    d->state = TEXT;
    if (d->env_len == 7 && memcmp(d->env, "tabular", 7) == 0) {
        d->state = WAIT_GROUP; /* {lcr}: the column specification */
        d->cmd_len = 0;
        return;
    }
    for (size_t i = 0; i < sizeof skip_env / sizeof skip_env[0]; i++)
        if (strlen(skip_env[i]) == d->env_len && memcmp(skip_env[i], d->env, d->env_len) == 0) {
            d->state = ENV_SKIP;
            d->tail_len = 0;
            return;
        }
}

/* ENV_SKIP saw '}': does the text read so far end with \end{<env>}? */
static int env_ended(const sc_delatex_t *d)
{
    size_t n = 5 + d->env_len + 1; /* \end{ name } */
    if (d->tail_len < n) return 0;
    const char *t = d->tail + d->tail_len - n;
    return memcmp(t, "\\end{", 5) == 0 && memcmp(t + 5, d->env, d->env_len) == 0 && t[n - 1] == '}';
}

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
        d->env_len = 0;
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
        else if (c == '}' && --d->depth == 0) {
            if (d->cmd_len == 5 && memcmp(d->cmd, "begin", 5) == 0) begin_done(d);
            else d->state = TEXT;
        } else if (d->depth == 1 && d->env_len < sizeof d->env) {
            d->env[d->env_len++] = (char)c;
        }
        break;
    case ENV_SKIP:
        if (d->tail_len == sizeof d->tail) { /* keep the last half */
            memmove(d->tail, d->tail + sizeof d->tail / 2, sizeof d->tail / 2);
            d->tail_len = sizeof d->tail / 2;
        }
        d->tail[d->tail_len++] = (char)c;
        if (c == '}' && env_ended(d)) d->state = TEXT;
        break;
    }
}
