/* cache.c: private direct-mapped caches kept coherent by write-invalidate snooping (MESI).
 *
 * Each cache entry packs (line address << 2) | state, state 0 = Invalid, so a lookup is one
 * load and one compare.  Rules (Table 1 of the paper gives the three penalties):
 *   read hit (S/E/M), write hit on E or M .................... 0 (E silently becomes M)
 *   write hit on S ........................................... pen_inval; other copies invalid
 *   miss, another cache holds the line ....................... pen_c2c  (that cache supplies it;
 *                                                              on a read, M/E holders drop to S,
 *                                                              on a write all copies are invalidated)
 *   miss, no other copy ...................................... pen_mem  (read: E, write: M)
 * A write miss is one read-exclusive bus transaction: its invalidation is part of the miss
 * and is not charged again.  Write-backs of evicted Modified lines are not charged (the
 * paper's table has no such cost; a write buffer is assumed to hide them). */
#include "busmp.h"

#include <stdlib.h>

enum { ST_I = 0, ST_S = 1, ST_E = 2, ST_M = 3 };

struct busmp_mem {
    int ncpu;
    uint32_t line_shift, set_mask;
    uint32_t pen_inval, pen_c2c, pen_mem;
    uint64_t *lines[BUSMP_MAXCPU];
};

busmp_mem *busmp_mem_new(int ncpu, uint32_t cache_bytes, uint32_t line_bytes, uint32_t pen_inval,
                         uint32_t pen_c2c, uint32_t pen_mem)
{
    if (ncpu < 1 || ncpu > BUSMP_MAXCPU || !line_bytes || (line_bytes & (line_bytes - 1)) ||
        cache_bytes < line_bytes || ((cache_bytes / line_bytes) & (cache_bytes / line_bytes - 1)))
        return NULL;
    busmp_mem *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->ncpu = ncpu;
    while ((1u << m->line_shift) < line_bytes)
        m->line_shift++;
    m->set_mask = cache_bytes / line_bytes - 1;
    m->pen_inval = pen_inval;
    m->pen_c2c = pen_c2c;
    m->pen_mem = pen_mem;
    for (int i = 0; i < ncpu; i++) {
        m->lines[i] = calloc((size_t)m->set_mask + 1, sizeof(uint64_t));
        if (!m->lines[i]) {
            busmp_mem_free(m);
            return NULL;
        }
    }
    return m;
}

void busmp_mem_free(busmp_mem *m)
{
    if (!m)
        return;
    for (int i = 0; i < m->ncpu; i++)
        free(m->lines[i]);
    free(m);
}

uint32_t busmp_mem_access(busmp_mem *m, int cpu, uint64_t addr, int write, busmp_mstat *st)
{
    const uint64_t line = addr >> m->line_shift;
    const uint32_t set = (uint32_t)line & m->set_mask;
    uint64_t *e = &m->lines[cpu][set];
    const uint64_t v = *e;
    if (write)
        st->writes++;
    else
        st->reads++;
    if ((v >> 2) == line && (v & 3) != ST_I) {
        const unsigned s = (unsigned)(v & 3);
        if (!write || s == ST_M)
            return 0;
        if (s == ST_E) {
            *e = (line << 2) | ST_M;
            return 0;
        }
        for (int o = 0; o < m->ncpu; o++) /* write on a Shared line: invalidate the others */
            if (o != cpu && (m->lines[o][set] >> 2) == line)
                m->lines[o][set] = 0;
        *e = (line << 2) | ST_M;
        st->inval++;
        return m->pen_inval;
    }
    st->misses++;
    if (v & 3)
        st->evictions++;
    int found = 0;
    for (int o = 0; o < m->ncpu; o++) {
        if (o == cpu)
            continue;
        uint64_t *x = &m->lines[o][set];
        if ((*x >> 2) != line || (*x & 3) == ST_I)
            continue;
        found = 1;
        *x = write ? 0 : (line << 2) | ST_S;
    }
    *e = (line << 2) | (write ? ST_M : found ? ST_S : ST_E);
    if (found) {
        st->c2c++;
        return m->pen_c2c;
    }
    st->mem++;
    return m->pen_mem;
}

char busmp_mem_state(const busmp_mem *m, int cpu, uint64_t addr)
{
    const uint64_t line = addr >> m->line_shift;
    const uint64_t v = m->lines[cpu][(uint32_t)line & m->set_mask];
    if ((v >> 2) != line)
        return 'I';
    return "ISEM"[v & 3];
}
