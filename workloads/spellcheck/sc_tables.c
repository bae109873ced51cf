/* sc_tables.c: building the two dictionaries from a word list (not instrumented: it
 * runs before any thread, as the "disk" contents of T6 and T7).
 *
 * W = the words of the list, lowercased, without possessives ('s) and without words
 * holding anything but a-z (accented entries). Taken in order of length:
 *   main list  = the words of W none of whose stems (sc_stems) is already in the main
 *                list -- the list compressed the way spell's is, so that "cats" is
 *                accepted through "cat" (every word of W is accepted: its stem was kept
 *                first, or it was kept itself);
 *   stop list  = for every main-list stem s that W shows to inflect (at least one of
 *                its forms s+s, s+ed, s+ing, s+Ced, s+Cing -- sc_forms -- is in W), the
 *                forms that W does NOT hold: "runned", "catting", "goed" -- the wrong
 *                derivatives T3's rules
 *                would accept. A stem none of whose forms is in W (an adjective, an
 *                irregular noun) adds nothing: the list would otherwise be mostly noise.
 * Both are hashed into SC_TABLE_BYTES-byte bit tables (sc_lookup.c).
 *
 * No word of W may be flagged.  A bit table has false positives: about 0.3 % of W's words
 * (244 of 74,585 with wamerican, "adding" among them) hit all their bits in the stop table
 * although no stop form is theirs, and T2 would report them.  So after hashing, each such
 * word gets one of its bits freed: the bit set by the fewest stop forms is forbidden, the
 * forms that set a forbidden bit are left out, and the table is hashed again, until no word
 * of W hits it (two or three rounds).  The forms left out (stop_dropped, a few hundred of
 * ~28,000) are wrong derivatives the checker then accepts: for a spell checker a missed
 * rare wrong form is the lesser error than a correct word reported. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sc.h"

typedef struct wset {
    char **slot;
    size_t cap, n;
} wset_t;

static uint64_t str_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static int wset_init(wset_t *s, size_t cap)
{
    s->cap = cap;
    s->n = 0;
    s->slot = calloc(cap, sizeof *s->slot);
    return s->slot ? 0 : -1;
}

static char **wset_find(const wset_t *s, const char *w)
{
    size_t i = str_hash(w) & (s->cap - 1);
    while (s->slot[i] && strcmp(s->slot[i], w) != 0) i = (i + 1) & (s->cap - 1);
    return &s->slot[i];
}

static int wset_has(const wset_t *s, const char *w) { return *wset_find(s, w) != NULL; }

/* Adds w (kept by pointer); 1 if new. The capacity is sized by the caller. */
static int wset_add(wset_t *s, char *w)
{
    char **p = wset_find(s, w);
    if (*p) return 0;
    *p = w;
    s->n++;
    return 1;
}

static void set_bits(unsigned char *table, const char *w)
{
    size_t n = strlen(w);
    for (unsigned k = 0; k < SC_HASHES; k++) {
        uint32_t b = sc_hash(w, n, k);
        table[b >> 3] |= (unsigned char)(1u << (b & 7));
    }
}

/* Hashes the stop forms that set no forbidden bit into t->stop; then frees a bit of every
 * word of W that hits the table (module comment). Returns the number of rounds, -1 on ENOMEM. */
static int build_stop(sc_tables_t *t, char **forms, size_t nforms, char **words, size_t nwords)
{
    unsigned char *forbidden = calloc(SC_TABLE_BITS / 8, 1);
    uint16_t *setters = calloc(SC_TABLE_BITS, sizeof *setters);
    if (!forbidden || !setters) {
        free(forbidden);
        free(setters);
        errno = ENOMEM;
        return -1;
    }
    int rounds = 0;
    for (;;) {
        rounds++;
        memset(t->stop, 0, sizeof t->stop);
        memset(setters, 0, SC_TABLE_BITS * sizeof *setters);
        t->stop_words = t->stop_dropped = 0;
        for (size_t i = 0; i < nforms; i++) {
            uint32_t b[SC_HASHES];
            int ok = 1;
            for (unsigned k = 0; k < SC_HASHES; k++) {
                b[k] = sc_hash(forms[i], strlen(forms[i]), k);
                if (forbidden[b[k] >> 3] & (1u << (b[k] & 7))) ok = 0;
            }
            if (!ok) {
                t->stop_dropped++;
                continue;
            }
            for (unsigned k = 0; k < SC_HASHES; k++) {
                t->stop[b[k] >> 3] |= (unsigned char)(1u << (b[k] & 7));
                if (setters[b[k]] < UINT16_MAX) setters[b[k]]++;
            }
            t->stop_words++;
        }
        size_t hits = 0;
        for (size_t i = 0; i < nwords; i++) {
            size_t n = strlen(words[i]);
            if (!sc_table_has(t->stop, words[i], n)) continue;
            hits++;
            uint32_t best = sc_hash(words[i], n, 0);
            for (unsigned k = 1; k < SC_HASHES; k++) {
                uint32_t b = sc_hash(words[i], n, k);
                if (setters[b] < setters[best]) best = b;
            }
            forbidden[best >> 3] |= (unsigned char)(1u << (best & 7));
        }
        if (!hits) break;
    }
    free(forbidden);
    free(setters);
    return rounds;
}

static int by_length(const void *a, const void *b)
{
    const char *x = *(char *const *)a, *y = *(char *const *)b;
    size_t lx = strlen(x), ly = strlen(y);
    if (lx != ly) return lx < ly ? -1 : 1;
    return strcmp(x, y);
}

/* Reads the list into lowercase a-z words; returns them (each malloc'd) and the count. */
static char **read_words(const char *path, size_t *count)
{
    FILE *fp = fopen(path, "r");
    if (!fp) return NULL;
    size_t cap = 1 << 17, n = 0;
    char **v = malloc(cap * sizeof *v);
    char line[256];
    while (v && fgets(line, sizeof line, fp)) {
        size_t len = strcspn(line, "\r\n");
        line[len] = 0;
        if (len == 0 || len >= SC_MAX_WORD) continue;
        int ok = 1;
        for (size_t i = 0; i < len && ok; i++) {
            char c = line[i];
            if (c >= 'A' && c <= 'Z') line[i] = (char)(c - 'A' + 'a');
            else if (!(c >= 'a' && c <= 'z')) ok = 0; /* possessives, accents, digits */
        }
        if (!ok) continue;
        if (n == cap) {
            char **nv = realloc(v, (cap *= 2) * sizeof *v);
            if (!nv) break;
            v = nv;
        }
        v[n++] = strdup(line);
    }
    fclose(fp);
    *count = n;
    return v;
}

int sc_tables_build(sc_tables_t *t, const char *wordlist_path)
{
    memset(t, 0, sizeof *t);
    size_t n = 0;
    char **words = read_words(wordlist_path, &n);
    if (!words) return -1;
    wset_t all, kept;
    size_t cap = 1;
    while (cap < 4 * n + 16) cap <<= 1;
    if (wset_init(&all, cap) || wset_init(&kept, cap)) {
        errno = ENOMEM;
        return -1;
    }
    qsort(words, n, sizeof *words, by_length);
    for (size_t i = 0; i < n; i++) wset_add(&all, words[i]);
    t->words_in = all.n;
    char stems[SC_MAX_STEMS][SC_MAX_WORD];
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && strcmp(words[i], words[i - 1]) == 0) continue;
        int c = sc_stems(words[i], strlen(words[i]), stems), derived = 0;
        for (int k = 0; k < c && !derived; k++) derived = wset_has(&kept, stems[k]);
        if (derived) continue;
        wset_add(&kept, words[i]);
        set_bits(t->main, words[i]);
        t->stems++;
    }
    size_t nforms = 0, fcap = 1 << 15;
    char **forms = malloc(fcap * sizeof *forms);
    int rc = forms ? 0 : -1;
    for (size_t i = 0; i < kept.cap && rc == 0; i++) {
        if (!kept.slot[i]) continue;
        char f[SC_NFORMS][SC_MAX_WORD + 4];
        int nf = sc_forms(kept.slot[i], f);
        int in[SC_NFORMS], any = 0;
        for (int k = 0; k < nf; k++) any += in[k] = wset_has(&all, f[k]);
        if (!any) continue;
        for (int k = 0; k < nf && rc == 0; k++) {
            if (in[k]) continue;
            if (nforms == fcap) {
                char **nfp = realloc(forms, (fcap *= 2) * sizeof *forms);
                if (!nfp) {
                    rc = -1;
                    break;
                }
                forms = nfp;
            }
            if (!(forms[nforms++] = strdup(f[k]))) rc = -1;
        }
    }
    if (rc == 0 && build_stop(t, forms, nforms, words, n) < 0) rc = -1;
    for (size_t i = 0; forms && i < nforms; i++) free(forms[i]);
    free(forms);
    for (size_t i = 0; i < n; i++) free(words[i]);
    free(words);
    free(all.slot);
    free(kept.slot);
    if (rc) errno = ENOMEM;
    return rc;
}
