/* sc_lookup.c: membership in a hashed bit table (a Bloom filter of SC_HASHES bits per
 * word over SC_TABLE_BITS bits), as UNIX spell kept its word lists. A word not in the
 * list is found with the probability of all its bits being set (the builder reports the
 * table's fill so that the false-positive rate can be stated). */
#include "sc.h"

uint32_t sc_hash(const char *w, size_t n, unsigned k)
{
    /* FNV-1a, seeded per hash index, then a final avalanche */
    uint32_t h = 2166136261u ^ (k * 0x9e3779b9u);
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)w[i];
        h *= 16777619u;
    }
    h ^= h >> 15;
    h *= 0x2c1b3c6du;
    h ^= h >> 12;
    return h % SC_TABLE_BITS;
}

int sc_table_has(const unsigned char *table, const char *w, size_t n)
{
    for (unsigned k = 0; k < SC_HASHES; k++) {
        uint32_t b = sc_hash(w, n, k);
        if (!(table[b >> 3] & (1u << (b & 7)))) return 0;
    }
    return 1;
}

int sc_accepts(const unsigned char *main_table, const char *w, size_t n)
{
    if (sc_table_has(main_table, w, n)) return 1;
    char stems[SC_MAX_STEMS][SC_MAX_WORD];
    int c = sc_stems(w, n, stems);
    for (int i = 0; i < c; i++) {
        size_t len = 0;
        while (stems[i][len]) len++;
        if (sc_table_has(main_table, stems[i], len)) return 1;
    }
    return 0;
}
