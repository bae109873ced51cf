/* The cache model: hits, misses from memory, cache-to-cache supplies, invalidations on a
 * write to a Shared line, MESI transitions, direct-mapped conflicts, and the Table 1
 * penalties charged exactly (3 / 7 / 22). */
#include "busmp.h"
#include "ito_test.h"

#define KB 1024u

int main(void)
{
    busmp_mem *m = busmp_mem_new(4, 128 * KB, 16, 3, 7, 22);
    CHECK(m != NULL);
    CHECK(busmp_mem_new(4, 100 * KB, 16, 3, 7, 22) == NULL); /* not a power-of-two set count */
    busmp_mstat s = {0};
    const uint64_t A = 0x10000000, B = 0x20000040;

    CHECK_EQ(busmp_mem_access(m, 0, A, 0, &s), 22); /* cold read: memory, Exclusive */
    CHECK_EQ(busmp_mem_state(m, 0, A), 'E');
    CHECK_EQ(busmp_mem_access(m, 0, A, 0, &s), 0);
    CHECK_EQ(busmp_mem_access(m, 0, A + 8, 0, &s), 0);  /* same 16-byte line */
    CHECK_EQ(busmp_mem_access(m, 0, A + 16, 0, &s), 22); /* next line */
    CHECK_EQ(busmp_mem_access(m, 0, A, 1, &s), 0);      /* E -> M silently */
    CHECK_EQ(busmp_mem_state(m, 0, A), 'M');
    CHECK_EQ(s.inval, 0);

    CHECK_EQ(busmp_mem_access(m, 1, A, 0, &s), 7); /* supplied by cache 0 */
    CHECK_EQ(busmp_mem_state(m, 0, A), 'S');
    CHECK_EQ(busmp_mem_state(m, 1, A), 'S');
    CHECK_EQ(busmp_mem_access(m, 1, A, 1, &s), 3); /* write on a shared line */
    CHECK_EQ(busmp_mem_state(m, 0, A), 'I');
    CHECK_EQ(busmp_mem_state(m, 1, A), 'M');
    CHECK_EQ(busmp_mem_access(m, 1, A, 1, &s), 0); /* now Modified */
    CHECK_EQ(busmp_mem_access(m, 0, A, 1, &s), 7); /* write miss, supplied and invalidated */
    CHECK_EQ(busmp_mem_state(m, 1, A), 'I');
    CHECK_EQ(busmp_mem_state(m, 0, A), 'M');

    /* direct-mapped conflict: A + 128 KB evicts A; nobody else holds A afterwards */
    CHECK_EQ(busmp_mem_access(m, 0, A + 128 * KB, 0, &s), 22);
    CHECK_EQ(busmp_mem_state(m, 0, A), 'I');
    CHECK_EQ(busmp_mem_access(m, 0, A, 0, &s), 22);
    CHECK_EQ(s.evictions, 2);

    /* three sharers, one writer invalidates both others with one 3-cycle signal */
    CHECK_EQ(busmp_mem_access(m, 2, B, 0, &s), 22);
    CHECK_EQ(busmp_mem_access(m, 3, B, 0, &s), 7);
    CHECK_EQ(busmp_mem_access(m, 1, B, 0, &s), 7);
    CHECK_EQ(busmp_mem_state(m, 2, B), 'S');
    CHECK_EQ(busmp_mem_access(m, 2, B, 1, &s), 3);
    CHECK_EQ(busmp_mem_state(m, 3, B), 'I');
    CHECK_EQ(busmp_mem_state(m, 1, B), 'I');
    CHECK_EQ(busmp_mem_state(m, 2, B), 'M');

    /* two programs' address spaces share sets but never lines */
    const uint64_t P1 = (1ull << 40) + 0x100, P2 = (2ull << 40) + 0x100;
    CHECK_EQ(busmp_mem_access(m, 0, P1, 1, &s), 22);
    CHECK_EQ(busmp_mem_access(m, 1, P2, 0, &s), 22); /* not supplied by cache 0 */
    CHECK_EQ(busmp_mem_access(m, 0, P2, 0, &s), 7);  /* supplied by cache 1, evicts P1 */
    CHECK_EQ(busmp_mem_state(m, 0, P1), 'I');

    CHECK_EQ(s.reads, 12);
    CHECK_EQ(s.writes, 6);
    CHECK_EQ(s.misses, 12);
    CHECK_EQ(s.c2c, 5);
    CHECK_EQ(s.mem, 7);
    CHECK_EQ(s.evictions, 3);
    CHECK_EQ(s.inval, 2);
    busmp_mem_free(m);
    TEST_DONE();
}
