/* regwin_cost.c: the cycle cost model of the window manager.
 *
 * Switches: Table 2 of the paper, cycles per context switch on Fujitsu's S-20 (measured
 * there with a logic analyzer), by scheme and by the windows saved and restored. Each
 * row is a range [lo, hi]; we keep both ends and never pick a point inside.
 * A (saves, restores) pair that is not a row is extrapolated from the table's own
 * slopes, never from a fitted constant:
 *   per extra window saved: the difference of the scheme's last two rows with one
 *     restore (NS (6,1)-(5,1) = 36/36, SNP (1,1)-(0,1) = 45/49, SP (2,1)-(1,1) = 40/40);
 *   per window restored: the scheme's (0,1)-(0,0) (SNP 29/29, SP 43/43); NS has no
 *     (0,0) row, so it takes SNP's (both keep one reserved window and save the outs).
 * The base is the row with the same number of restores and the nearest number of saves
 * (below first), else the row with the nearest saves. Only exits, idle workers,
 * migrations and flushing switches under SNP/SP reach the extrapolation; the counters
 * say how many switches did (switches_extrapolated).
 *
 * NS rows beyond 6 saves follow the "..." of the table: lo = 109 + 36 s, hi = 113 + 36 s,
 * which is exactly the line through all six printed rows.
 *
 * Traps: the paper gives no figure. The defaults count the instructions of the canonical
 * SPARC V8 window trap handlers (as in Magnusson's "Understanding stacks and registers
 * in the SPARC architecture"): overflow = WIM rotate 5, WIM write + 3 delay slots 4,
 * save 1, 8 std, restore 1, WIM write + 3 delay slots 4, jmp + rett 2 (17 besides the
 * stores); underflow = 5 + 4 + 2 restores + 8 ldd + 2 saves + 4 + 2 (19 besides the
 * loads). Add ~4 cycles of trap entry (pipeline flush) and the trap-table branch with
 * its delay slot (2), count 1 cycle per other instruction, and take Cypress CY7C601
 * memory timings (std 4 cycles, ldd 3 cycles; the CPU family of the paper's ref. [12]):
 * overflow 4+2+17+32 = 55, underflow 4+2+19+24 = 49. The in-place underflow of SNP/SP
 * adds 8 moves of the ins plus ~4 instructions decoding the trapped restore (sec. 4.3):
 * 12. Table 2's NS rows grow by 36 cycles per flushed window, = 8 x 4 + 4, which
 * is consistent with std = 4. They are parameters (ito_regwin_costs_t), not measurements. */
#include <stddef.h>

#include "regwin.h"

typedef struct row {
    int scheme;
    unsigned saves, restores;
    uint32_t lo, hi;
} row_t;

static const row_t table2[] = {
    {ITO_REGWIN_NS, 1, 1, 145, 149},  {ITO_REGWIN_NS, 2, 1, 181, 185},
    {ITO_REGWIN_NS, 3, 1, 217, 221},  {ITO_REGWIN_NS, 4, 1, 253, 257},
    {ITO_REGWIN_NS, 5, 1, 289, 293},  {ITO_REGWIN_NS, 6, 1, 325, 329},
    {ITO_REGWIN_SNP, 0, 0, 113, 118}, {ITO_REGWIN_SNP, 0, 1, 142, 147},
    {ITO_REGWIN_SNP, 1, 0, 162, 171}, {ITO_REGWIN_SNP, 1, 1, 187, 196},
    {ITO_REGWIN_SP, 0, 0, 93, 98},    {ITO_REGWIN_SP, 0, 1, 136, 141},
    {ITO_REGWIN_SP, 1, 1, 180, 197},  {ITO_REGWIN_SP, 2, 1, 220, 237},
};
#define NROWS (sizeof table2 / sizeof table2[0])

static const row_t *find(int scheme, unsigned s, unsigned r)
{
    for (size_t i = 0; i < NROWS; i++)
        if (table2[i].scheme == scheme && table2[i].saves == s && table2[i].restores == r)
            return &table2[i];
    return NULL;
}

/* The scheme's slope per extra window saved: its last two rows with one restore. */
static void save_slope(int scheme, int64_t *dlo, int64_t *dhi)
{
    const row_t *last = NULL, *prev = NULL;
    for (size_t i = 0; i < NROWS; i++) {
        const row_t *x = &table2[i];
        if (x->scheme != scheme || x->restores != 1) continue;
        if (!last || x->saves > last->saves) {
            prev = last;
            last = x;
        } else if (!prev || x->saves > prev->saves) {
            prev = x;
        }
    }
    *dlo = (int64_t)last->lo - prev->lo;
    *dhi = (int64_t)last->hi - prev->hi;
    *dlo /= (int64_t)(last->saves - prev->saves);
    *dhi /= (int64_t)(last->saves - prev->saves);
}

static void restore_slope(int scheme, int64_t *dlo, int64_t *dhi)
{
    const row_t *a = find(scheme, 0, 0), *b = find(scheme, 0, 1);
    if (!a || !b) { /* NS: no (0,0) row */
        a = find(ITO_REGWIN_SNP, 0, 0);
        b = find(ITO_REGWIN_SNP, 0, 1);
    }
    *dlo = (int64_t)b->lo - a->lo;
    *dhi = (int64_t)b->hi - a->hi;
}

static unsigned udist(unsigned a, unsigned b) { return a > b ? a - b : b - a; }

/* The base row: same restores and nearest saves (ties: fewer saves), else nearest saves. */
static const row_t *base_row(int scheme, unsigned s, unsigned r)
{
    const row_t *best = NULL;
    for (int pass = 0; pass < 2 && !best; pass++) {
        for (size_t i = 0; i < NROWS; i++) {
            const row_t *x = &table2[i];
            if (x->scheme != scheme || (pass == 0 && x->restores != r)) continue;
            if (!best || udist(x->saves, s) < udist(best->saves, s) ||
                (udist(x->saves, s) == udist(best->saves, s) && x->saves < best->saves))
                best = x;
        }
    }
    return best;
}

int itoi_regwin_cost_switch(int scheme, unsigned saves, unsigned restores, uint32_t *lo,
                            uint32_t *hi)
{
    const row_t *x = find(scheme, saves, restores);
    if (x) {
        *lo = x->lo;
        *hi = x->hi;
        return 1;
    }
    x = base_row(scheme, saves, restores);
    if (!x) {
        *lo = *hi = 0;
        return 0;
    }
    int64_t sl, sh, rl, rh;
    save_slope(scheme, &sl, &sh);
    restore_slope(scheme, &rl, &rh);
    int64_t ds = (int64_t)saves - x->saves, dr = (int64_t)restores - x->restores;
    int64_t l = x->lo + ds * sl + dr * rl, h = x->hi + ds * sh + dr * rh;
    *lo = l <= 0 ? 0 : l >= UINT32_MAX ? UINT32_MAX : (uint32_t)l; /* no wrap: saturate */
    *hi = h <= 0 ? 0 : h >= UINT32_MAX ? UINT32_MAX : (uint32_t)h;
    return 0;
}

void itoi_regwin_cost_defaults(ito_regwin_costs_t *c)
{
    c->overflow_trap = 55;           /* 4 + 2 + 17 + 8 x 4 */
    c->underflow_trap = 49;          /* 4 + 2 + 19 + 8 x 3 */
    c->underflow_inplace_extra = 12; /* 8 moves of the ins + decoding the trapped restore */
}

int ito_regwin_switch_cost(int scheme, unsigned saves, unsigned restores, uint32_t *lo,
                           uint32_t *hi, int *exact)
{
    if (scheme != ITO_REGWIN_NS && scheme != ITO_REGWIN_SNP && scheme != ITO_REGWIN_SP)
        return ITO_EINVAL;
    /* A switch moves at most a whole file each way (found by random misuse: 2^32 - 1
     * saves wrapped the extrapolated cycles around to 15, cheaper than none). */
    if (saves > ITO_REGWIN_MAX_WINDOWS || restores > ITO_REGWIN_MAX_WINDOWS) return ITO_ERANGE;
    uint32_t l, h;
    int e = itoi_regwin_cost_switch(scheme, saves, restores, &l, &h);
    if (lo) *lo = l;
    if (hi) *hi = h;
    if (exact) *exact = e;
    return ITO_OK;
}
