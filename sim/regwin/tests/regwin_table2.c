/* regwin_table2.c: every row of the paper's Table 2, produced by the situation that the
 * paper describes for it, must move exactly that many windows and be charged exactly
 * that row's cycles; the cost model's extrapolation follows the table's own slopes. */
#include "regwin_testlib.h"

/* the cycles charged to the last switch must be the table row [lo, hi] */
static void expect_cycles(itoi_regwin_file_t *f, const ito_regwin_counters_t *before,
                          uint64_t lo, uint64_t hi)
{
    ito_regwin_counters_t c;
    itoi_regwin_file_counters(f, &c);
    CHECK_EQ(c.switch_cycles_lo - before->switch_cycles_lo, lo);
    CHECK_EQ(c.switch_cycles_hi - before->switch_cycles_hi, hi);
}

/* NS: A with k windows switches to B without windows: (k, 1), 145-149 + 36 (k-1). */
static void ns_rows(int windows)
{
    for (int k = 1; k <= windows - 1; k++) {
        itoi_regwin_file_t *f = tl_file(ITO_REGWIN_NS, windows);
        itoi_regwin_thread_t a, b;
        tl_thread(&a);
        tl_thread(&b);
        TL_SWITCH_EXPECT(f, NULL, &a, ITOI_REGWIN_LEAVE, 0, 1);
        tl_saves(f, k - 1); /* k frames, all resident: no overflow below n-1 windows */
        ito_regwin_counters_t c0;
        itoi_regwin_file_counters(f, &c0);
        CHECK_EQ(c0.overflow_traps, 0);
        TL_SWITCH_EXPECT(f, &a, &b, ITOI_REGWIN_LEAVE, (unsigned)k, 1);
        expect_cycles(f, &c0, 109 + 36 * (uint64_t)k, 113 + 36 * (uint64_t)k);
        ito_regwin_counters_t c1;
        itoi_regwin_file_counters(f, &c1);
        CHECK_EQ(c1.switches_extrapolated - c0.switches_extrapolated, k > 6 ? 1 : 0);
        CHECK_EQ(c1.switches_flush - c0.switches_flush, 1);
        CHECK(!itoi_regwin_resident(&a)); /* NS leaves nothing behind */
        CHECK_OK(itoi_regwin_switch(f, &b, NULL, ITOI_REGWIN_LEAVE));
        CHECK_OK(itoi_regwin_thread_fini(&a));
        CHECK_OK(itoi_regwin_thread_fini(&b));
        CHECK_OK(itoi_regwin_file_free(f));
    }
}

static void snp_rows(void)
{
    itoi_regwin_file_t *f = tl_file(ITO_REGWIN_SNP, 8);
    itoi_regwin_thread_t a, b, c;
    tl_thread(&a);
    tl_thread(&b);
    tl_thread(&c);
    ito_regwin_counters_t c0;
    TL_SWITCH_EXPECT(f, NULL, &b, ITOI_REGWIN_LEAVE, 0, 1); /* b in window 0 */
    CHECK_EQ(b.top, 0);
    /* (0,1): a has no windows, the window above b's is free; a goes right above b */
    itoi_regwin_file_counters(f, &c0);
    TL_SWITCH_EXPECT(f, &b, &a, ITOI_REGWIN_LEAVE, 0, 1);
    expect_cycles(f, &c0, 142, 147);
    CHECK_EQ(a.top, 7);
    /* (1,0): b has its window, but a's sits above it: a's bottom is spilled (sec. 4.2) */
    itoi_regwin_file_counters(f, &c0);
    TL_SWITCH_EXPECT(f, &a, &b, ITOI_REGWIN_LEAVE, 1, 0);
    expect_cycles(f, &c0, 162, 171);
    CHECK(!itoi_regwin_resident(&a));
    /* (0,0): c goes above b (window 7, freed), then b runs, then c again: the window
     * above c's top was never given to anyone */
    TL_SWITCH_EXPECT(f, &b, &c, ITOI_REGWIN_LEAVE, 0, 1);
    CHECK_EQ(c.top, 7);
    TL_SWITCH_EXPECT(f, &c, &a, ITOI_REGWIN_LEAVE, 0, 1); /* a above c: window 6 */
    CHECK_EQ(a.top, 6);
    TL_SWITCH_EXPECT(f, &a, &b, ITOI_REGWIN_LEAVE, 1, 0); /* b: spills c (above b) */
    TL_SWITCH_EXPECT(f, &b, &a, ITOI_REGWIN_LEAVE, 0, 0); /* a: window 5 above it is free */
    itoi_regwin_file_counters(f, &c0);
    /* (1,1): a has no windows, the window above its new place is b's bottom */
    tl_saves(f, 4);                                       /* a: windows 6..2, rsv 1 */
    TL_SWITCH_EXPECT(f, &a, &c, ITOI_REGWIN_LEAVE, 1, 1); /* c at 1, b (window 0) spilled */
    CHECK_EQ(c.top, 1);
    CHECK(!itoi_regwin_resident(&b));
    expect_cycles(f, &c0, 187, 196);
    CHECK_OK(itoi_regwin_switch(f, &c, NULL, ITOI_REGWIN_LEAVE));
    CHECK_OK(itoi_regwin_thread_fini(&a));
    CHECK_OK(itoi_regwin_thread_fini(&b));
    CHECK_OK(itoi_regwin_thread_fini(&c));
    CHECK_OK(itoi_regwin_file_free(f));
}

static void sp_rows(void)
{
    itoi_regwin_file_t *f = tl_file(ITO_REGWIN_SP, 8);
    itoi_regwin_thread_t a, b, c, d;
    tl_thread(&a);
    tl_thread(&b);
    tl_thread(&c);
    tl_thread(&d);
    ito_regwin_counters_t c0;
    TL_SWITCH_EXPECT(f, NULL, &b, ITOI_REGWIN_LEAVE, 0, 1); /* b in 0 */
    tl_saves(f, 1);                                         /* b: 0, 7 */
    /* (0,1): b's PRW is 6; a goes above it, into 5 (its PRW 4) */
    itoi_regwin_file_counters(f, &c0);
    TL_SWITCH_EXPECT(f, &b, &a, ITOI_REGWIN_LEAVE, 0, 1);
    expect_cycles(f, &c0, 136, 141);
    CHECK_EQ(b.prw, 6);
    CHECK_EQ(a.top, 5);
    /* (0,0): switching to a resident thread never moves a window */
    itoi_regwin_file_counters(f, &c0);
    TL_SWITCH_EXPECT(f, &a, &b, ITOI_REGWIN_LEAVE, 0, 0);
    expect_cycles(f, &c0, 93, 98);
    TL_SWITCH_EXPECT(f, &b, &a, ITOI_REGWIN_LEAVE, 0, 0);
    /* (2,1): a grows to the window under b's bottom; c's place (above a's PRW) is b's
     * bottom, and the window above it (its PRW) is b's next window */
    tl_saves(f, 3); /* a: 5..2, rsv 1 */
    itoi_regwin_file_counters(f, &c0);
    TL_SWITCH_EXPECT(f, &a, &c, ITOI_REGWIN_LEAVE, 2, 1);
    expect_cycles(f, &c0, 220, 237);
    CHECK(!itoi_regwin_resident(&b));
    CHECK_EQ(a.prw, 1);
    CHECK_EQ(c.top, 0);
    CHECK_EQ(c.bottom, 0);
    /* (1,1): c at 0 (PRW 7); d's place is 6 (free, b's old PRW), its PRW would be 5 =
     * a's bottom */
    itoi_regwin_file_counters(f, &c0);
    TL_SWITCH_EXPECT(f, &c, &d, ITOI_REGWIN_LEAVE, 1, 1);
    expect_cycles(f, &c0, 180, 197);
    CHECK_EQ(d.top, 6);
    CHECK_EQ(a.bottom, 4);
    CHECK_OK(itoi_regwin_switch(f, &d, NULL, ITOI_REGWIN_LEAVE));
    itoi_regwin_thread_t *all[] = {&a, &b, &c, &d};
    for (int i = 0; i < 4; i++) CHECK_OK(itoi_regwin_thread_fini(all[i]));
    CHECK_OK(itoi_regwin_file_free(f));
}

/* The cost model itself: rows exact, other pairs along the table's slopes. */
static void cost_model(void)
{
    uint32_t lo, hi;
    int exact;
    CHECK_OK(ito_regwin_switch_cost(ITO_REGWIN_SP, 2, 1, &lo, &hi, &exact));
    CHECK(exact && lo == 220 && hi == 237);
    CHECK_OK(ito_regwin_switch_cost(ITO_REGWIN_NS, 10, 1, &lo, &hi, &exact));
    CHECK(!exact && lo == 109 + 360 && hi == 113 + 360);
    CHECK_OK(ito_regwin_switch_cost(ITO_REGWIN_SP, 3, 1, &lo, &hi, &exact));
    CHECK(!exact && lo == 260 && hi == 277);
    CHECK_OK(ito_regwin_switch_cost(ITO_REGWIN_SNP, 2, 1, &lo, &hi, &exact));
    CHECK(!exact && lo == 187 + 45 && hi == 196 + 49);
    CHECK_OK(ito_regwin_switch_cost(ITO_REGWIN_SP, 1, 0, &lo, &hi, &exact));
    CHECK(!exact && lo == 93 + 40 && hi == 98 + 40); /* from (0,0), same restores */
    CHECK_OK(ito_regwin_switch_cost(ITO_REGWIN_NS, 3, 0, &lo, &hi, &exact));
    CHECK(!exact && lo == 217 - 29 && hi == 221 - 29);
    CHECK_EQ(ito_regwin_switch_cost(ITO_REGWIN_OFF, 0, 0, &lo, &hi, &exact), ITO_EINVAL);
    CHECK_OK(ito_regwin_switch_cost(ITO_REGWIN_SNP, 0, 0, NULL, NULL, NULL));
    /* Counts beyond a file are refused, not extrapolated (2^32 - 1 saves once wrapped to a
     * cost below that of no save at all); up to a whole file the cost grows with them. */
    uint32_t prev = 0;
    for (unsigned s = 0; s <= ITO_REGWIN_MAX_WINDOWS; s++) {
        CHECK_OK(ito_regwin_switch_cost(ITO_REGWIN_SNP, s, s, &lo, &hi, &exact));
        CHECK(lo >= prev && hi >= lo);
        prev = lo;
    }
    const unsigned big[] = {ITO_REGWIN_MAX_WINDOWS + 1, 1u << 20, 1u << 31, 0xffffffffu};
    for (int i = 0; i < 4; i++)
        for (int sch = ITO_REGWIN_NS; sch <= ITO_REGWIN_SP; sch++) {
            CHECK_EQ(ito_regwin_switch_cost(sch, big[i], 0, &lo, &hi, &exact), ITO_ERANGE);
            CHECK_EQ(ito_regwin_switch_cost(sch, 0, big[i], &lo, &hi, &exact), ITO_ERANGE);
        }
}

int main(void)
{
    for (int w = ITO_REGWIN_MIN_WINDOWS; w <= ITO_REGWIN_MAX_WINDOWS; w++) ns_rows(w);
    snp_rows();
    sp_rows();
    cost_model();
    TEST_DONE();
}
