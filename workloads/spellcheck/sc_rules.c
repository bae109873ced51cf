/* sc_rules.c: derivative rules of the spell checker (T3 accepts a word whose stem is in
 * the main list; the stop list holds the wrong forms these rules would accept).
 * Rules, as UNIX spell's suffix stripping in spirit: plural and third person -s, -es,
 * -ies -> y; past -ed, -d, -ied -> y; -ing, with a dropped e restored; comparatives -er,
 * -est; adverbs -ly, -ily -> y; possessive 's; a doubled final consonant before -ed,
 * -ing, -er, -est is undoubled (stopped -> stop). Stems shorter than 2 letters are not
 * produced. */
#include <stdio.h>
#include <string.h>

#include "sc.h"

static int ends(const char *w, size_t n, const char *suf)
{
    size_t k = strlen(suf);
    return n > k && memcmp(w + n - k, suf, k) == 0;
}

static int push(char out[SC_MAX_STEMS][SC_MAX_WORD], int c, const char *w, size_t n, const char *add)
{
    size_t a = strlen(add);
    if (n < 2 || n + a >= SC_MAX_WORD || c >= SC_MAX_STEMS) return c;
    memcpy(out[c], w, n);
    memcpy(out[c] + n, add, a + 1);
    return c + 1;
}

static int vowel(char c) { return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u'; }

/* Stems of w without the suffix of length k: plain, with e restored, undoubled. */
static int strip(const char *w, size_t n, size_t k, int restore_e, int undouble,
                 char out[SC_MAX_STEMS][SC_MAX_WORD], int c)
{
    size_t b = n - k;
    c = push(out, c, w, b, "");
    if (restore_e) c = push(out, c, w, b, "e");
    if (undouble && b >= 3 && w[b - 1] == w[b - 2] && !vowel(w[b - 1])) c = push(out, c, w, b - 1, "");
    return c;
}

int sc_stems(const char *w, size_t n, char out[SC_MAX_STEMS][SC_MAX_WORD])
{
    int c = 0;
    if (ends(w, n, "'s")) { /* possessive: the word without it, then its own stems */
        c = push(out, c, w, n - 2, "");
        n -= 2;
    }
    if (ends(w, n, "ies")) c = push(out, c, w, n - 3, "y");
    if (ends(w, n, "es")) c = strip(w, n, 2, 0, 0, out, c);
    if (ends(w, n, "s") && !ends(w, n, "ss")) c = strip(w, n, 1, 0, 0, out, c);
    if (ends(w, n, "ied")) c = push(out, c, w, n - 3, "y");
    if (ends(w, n, "ed")) c = strip(w, n, 2, 1, 1, out, c);
    if (ends(w, n, "ing")) c = strip(w, n, 3, 1, 1, out, c);
    if (ends(w, n, "ily")) c = push(out, c, w, n - 3, "y");
    if (ends(w, n, "ly")) c = strip(w, n, 2, 0, 0, out, c);
    if (ends(w, n, "est")) c = strip(w, n, 3, 1, 1, out, c);
    else if (ends(w, n, "er")) c = strip(w, n, 2, 1, 1, out, c);
    return c;
}

int sc_forms(const char *s, char out[SC_NFORMS][SC_MAX_WORD + 4])
{
    size_t n = strlen(s);
    if (n >= SC_MAX_WORD) n = SC_MAX_WORD - 1;
    int e = n > 0 && s[n - 1] == 'e', c = 0;
    snprintf(out[c++], SC_MAX_WORD + 4, "%.*ss", (int)n, s);
    snprintf(out[c++], SC_MAX_WORD + 4, "%.*s%s", (int)n, s, e ? "d" : "ed");
    snprintf(out[c++], SC_MAX_WORD + 4, "%.*sing", (int)(n - (size_t)e), s);
    /* consonant-vowel-consonant: the doubled forms (stop -> stopped, stopping) */
    if (n >= 3 && !vowel(s[n - 1]) && s[n - 1] != 'w' && s[n - 1] != 'x' && s[n - 1] != 'y' &&
        vowel(s[n - 2]) && !vowel(s[n - 3])) {
        snprintf(out[c++], SC_MAX_WORD + 4, "%.*s%ced", (int)n, s, s[n - 1]);
        snprintf(out[c++], SC_MAX_WORD + 4, "%.*s%cing", (int)n, s, s[n - 1]);
    }
    return c;
}
