/* regwin_alloc.c: directed tests of the mechanics -- where each scheme places a thread
 * without windows, the traps of one thread (how many, which window is spilled), the
 * in-place underflow of SNP/SP against NS's conventional one, the ping-pong case of
 * sec. 4.2, both kinds of switch, exit, and migration between two files. */
#include "regwin_testlib.h"

static const int schemes[] = {ITO_REGWIN_NS, ITO_REGWIN_SNP, ITO_REGWIN_SP};

static void counters(itoi_regwin_file_t *f, ito_regwin_counters_t *c) { itoi_regwin_file_counters(f, c); }

/* One thread alone: n-1 frames fit (one window is reserved); each further call spills the
 * oldest resident frame; each return past the resident ones fills exactly one. */
static void single_thread_traps(int scheme, int n)
{
    itoi_regwin_file_t *f = tl_file(scheme, n);
    itoi_regwin_thread_t a;
    tl_thread(&a);
    TL_SWITCH_EXPECT(f, NULL, &a, ITOI_REGWIN_LEAVE, 0, 1);
    int extra = 2 * n + 3;
    ito_regwin_counters_t c;
    tl_saves(f, n - 2); /* n-1 frames */
    counters(f, &c);
    CHECK_EQ(c.overflow_traps, 0);
    CHECK_EQ(a.nres, (uint32_t)(n - 1));
    for (int i = 1; i <= extra; i++) {
        int bottom = a.bottom;
        tl_saves(f, 1);
        counters(f, &c);
        CHECK_EQ(c.overflow_traps, (uint64_t)i);
        CHECK_EQ(a.nmem, (uint32_t)i);      /* the oldest resident frame went to memory */
        CHECK_EQ(a.nres, (uint32_t)(n - 1));
        CHECK(a.bottom != bottom);
    }
    /* returns: n-2 without trap, then one underflow per frame */
    uint32_t depth = itoi_regwin_thread_depth(&a);
    tl_restores(f, n - 2);
    counters(f, &c);
    CHECK_EQ(c.underflow_traps, 0);
    for (uint32_t i = 1; i < depth - (uint32_t)(n - 2); i++) {
        itoi_regwin_state_t st0, st1;
        itoi_regwin_state(f, &st0);
        tl_restores(f, 1);
        itoi_regwin_state(f, &st1);
        counters(f, &c);
        CHECK_EQ(c.underflow_traps, i);
        CHECK_EQ(a.nres, 1);
        if (scheme == ITO_REGWIN_NS) { /* conventional: CWP moves down, into the reserved window */
            CHECK_EQ(st1.cwp, (st0.cwp + 1) % n);
            CHECK_EQ(st1.cwp, st0.reserved);
        } else { /* in place of the callee */
            CHECK_EQ(st1.cwp, st0.cwp);
            CHECK_EQ(st1.reserved, st0.reserved);
            CHECK_EQ(st1.wim, st0.wim);
        }
    }
    CHECK_EQ(itoi_regwin_thread_depth(&a), 1);
    CHECK_EQ(itoi_regwin_restore(f), ITO_ERANGE);
    CHECK_EQ(c.trap_cycles, (uint64_t)extra * 55 + (uint64_t)extra * (scheme == ITO_REGWIN_NS ? 49 : 61));
    CHECK_OK(itoi_regwin_switch(f, &a, NULL, ITOI_REGWIN_EXIT));
    CHECK_OK(itoi_regwin_thread_fini(&a));
    CHECK_OK(itoi_regwin_file_free(f));
}

/* The underflow gives the caller the callee's ins as its outs, and its own frame back. */
static void underflow_values(int scheme)
{
    itoi_regwin_file_t *f = tl_file(scheme, 4);
    itoi_regwin_thread_t a, b;
    tl_thread(&a);
    tl_thread(&b);
    TL_SWITCH_EXPECT(f, NULL, &a, ITOI_REGWIN_LEAVE, 0, 1);
    for (int r = ITOI_REGWIN_L0; r < ITOI_REGWIN_NREGS; r++) itoi_regwin_set(f, r, 1000u + (unsigned)r);
    for (int r = ITOI_REGWIN_O0; r < ITOI_REGWIN_L0; r++) itoi_regwin_set(f, r, 2000u + (unsigned)r);
    tl_saves(f, 1);
    for (int r = ITOI_REGWIN_I0; r < ITOI_REGWIN_NREGS; r++) CHECK_EQ(itoi_regwin_get(f, r), 2000u + (unsigned)r - 16);
    for (int r = ITOI_REGWIN_I0; r < ITOI_REGWIN_NREGS; r++) itoi_regwin_set(f, r, 3000u + (unsigned)r);
    TL_SWITCH_EXPECT(f, &a, &b, ITOI_REGWIN_FLUSH, 2, 1);
    TL_SWITCH_EXPECT(f, &b, &a, ITOI_REGWIN_FLUSH, 1, 1); /* a's top frame only */
    CHECK_EQ(a.nres, 1);
    ito_regwin_counters_t c;
    tl_restores(f, 1);
    counters(f, &c);
    CHECK_EQ(c.underflow_traps, 1);
    for (int r = ITOI_REGWIN_O0; r < ITOI_REGWIN_L0; r++) CHECK_EQ(itoi_regwin_get(f, r), 3000u + (unsigned)r + 16);
    for (int r = ITOI_REGWIN_L0; r < ITOI_REGWIN_NREGS; r++) CHECK_EQ(itoi_regwin_get(f, r), 1000u + (unsigned)r);
    CHECK_OK(itoi_regwin_switch(f, &a, NULL, ITOI_REGWIN_LEAVE));
    CHECK_OK(itoi_regwin_thread_fini(&a));
    CHECK_OK(itoi_regwin_thread_fini(&b));
    CHECK_OK(itoi_regwin_file_free(f));
}

/* Where a thread without windows goes: SNP right above the suspended thread's top, SP
 * above its PRW, NS on the suspended thread's old top (everything was flushed). */
static void placement(void)
{
    for (int i = 0; i < 3; i++) {
        itoi_regwin_file_t *f = tl_file(schemes[i], 16);
        itoi_regwin_thread_t a, b;
        tl_thread(&a);
        tl_thread(&b);
        TL_SWITCH_EXPECT(f, NULL, &a, ITOI_REGWIN_LEAVE, 0, 1);
        tl_saves(f, 3);
        int atop = a.top;
        TL_SWITCH_EXPECT(f, &a, &b, ITOI_REGWIN_LEAVE, schemes[i] == ITO_REGWIN_NS ? 4u : 0u, 1);
        int expect = schemes[i] == ITO_REGWIN_NS ? atop : schemes[i] == ITO_REGWIN_SNP ? (atop + 15) % 16 : (atop + 14) % 16;
        CHECK_EQ(b.top, expect);
        if (schemes[i] == ITO_REGWIN_SP) CHECK_EQ(a.prw, (atop + 15) % 16);
        itoi_regwin_state_t st;
        itoi_regwin_state(f, &st);
        CHECK_EQ(st.cwp, expect);
        CHECK(itoi_regwin_resident(&a) == (schemes[i] != ITO_REGWIN_NS));
        CHECK_OK(itoi_regwin_switch(f, &b, NULL, ITOI_REGWIN_LEAVE));
        CHECK_OK(itoi_regwin_thread_fini(&a));
        CHECK_OK(itoi_regwin_thread_fini(&b));
        CHECK_OK(itoi_regwin_file_free(f));
    }
}

/* Sec. 4.2: A and B ping-pong, B never calls. SNP spills B at every switch back to A and
 * restores it at every switch to B; SP keeps both resident after the first switch. */
static void ping_pong(void)
{
    for (int i = 1; i < 3; i++) {
        itoi_regwin_file_t *f = tl_file(schemes[i], 8);
        itoi_regwin_thread_t a, b;
        tl_thread(&a);
        tl_thread(&b);
        TL_SWITCH_EXPECT(f, NULL, &a, ITOI_REGWIN_LEAVE, 0, 1);
        TL_SWITCH_EXPECT(f, &a, &b, ITOI_REGWIN_LEAVE, 0, 1);
        for (int k = 0; k < 10; k++) {
            if (schemes[i] == ITO_REGWIN_SNP) {
                TL_SWITCH_EXPECT(f, &b, &a, ITOI_REGWIN_LEAVE, 1, 0);
                TL_SWITCH_EXPECT(f, &a, &b, ITOI_REGWIN_LEAVE, 0, 1);
            } else {
                TL_SWITCH_EXPECT(f, &b, &a, ITOI_REGWIN_LEAVE, 0, 0);
                TL_SWITCH_EXPECT(f, &a, &b, ITOI_REGWIN_LEAVE, 0, 0);
            }
        }
        CHECK_OK(itoi_regwin_switch(f, &b, NULL, ITOI_REGWIN_LEAVE));
        CHECK_OK(itoi_regwin_thread_fini(&a));
        CHECK_OK(itoi_regwin_thread_fini(&b));
        CHECK_OK(itoi_regwin_file_free(f));
    }
}

/* Both kinds of switch under the sharing schemes, and exit. */
static void kinds(void)
{
    for (int i = 1; i < 3; i++) {
        itoi_regwin_file_t *f = tl_file(schemes[i], 8);
        itoi_regwin_thread_t a, b;
        tl_thread(&a);
        tl_thread(&b);
        TL_SWITCH_EXPECT(f, NULL, &a, ITOI_REGWIN_LEAVE, 0, 1);
        tl_saves(f, 2);
        TL_SWITCH_EXPECT(f, &a, &b, ITOI_REGWIN_FLUSH, 3, 1); /* flush: a's 3 windows */
        CHECK(!itoi_regwin_resident(&a));
        CHECK_EQ(a.nmem, 3);
        tl_saves(f, 2);
        ito_regwin_counters_t c0, c1;
        counters(f, &c0);
        TL_SWITCH_EXPECT(f, &b, &a, ITOI_REGWIN_EXIT, 0, 1); /* b's windows are dropped */
        counters(f, &c1);
        CHECK(b.dead);
        CHECK_EQ(c1.thread_exits - c0.thread_exits, 1);
        CHECK_EQ(itoi_regwin_switch(f, &a, &b, ITOI_REGWIN_LEAVE), ITO_EINVAL); /* dead */
        CHECK_EQ(itoi_regwin_switch(f, &b, &a, ITOI_REGWIN_LEAVE), ITO_EINVAL); /* not current */
        CHECK_EQ(itoi_regwin_switch(f, &a, NULL, 7), ITO_EINVAL);
        CHECK_EQ(itoi_regwin_thread_fini(&a), ITO_ESTATE); /* still current */
        CHECK_EQ(itoi_regwin_file_free(f), ITO_ESTATE);
        CHECK_OK(itoi_regwin_switch(f, &a, NULL, ITOI_REGWIN_LEAVE));
        CHECK_EQ(itoi_regwin_save(f), ITO_ESTATE);
        CHECK_EQ(itoi_regwin_restore(f), ITO_ESTATE);
        CHECK(itoi_regwin_reg(f, ITOI_REGWIN_L0) == NULL);
        CHECK(itoi_regwin_resident(&a) == (schemes[i] == ITO_REGWIN_SP || schemes[i] == ITO_REGWIN_SNP));
        CHECK_OK(itoi_regwin_thread_fini(&a)); /* drops its resident windows */
        tl_check(f);
        CHECK_OK(itoi_regwin_thread_fini(&b));
        CHECK_OK(itoi_regwin_file_free(f));
    }
}

/* A thread resumed on another worker's file is evicted from the first one. */
static void migration(void)
{
    for (int i = 0; i < 3; i++) {
        itoi_regwin_file_t *f = tl_file(schemes[i], 8), *g = tl_file(schemes[i], 8);
        itoi_regwin_thread_t a, b;
        tl_thread(&a);
        tl_thread(&b);
        TL_SWITCH_EXPECT(f, NULL, &a, ITOI_REGWIN_LEAVE, 0, 1);
        tl_saves(f, 3);
        itoi_regwin_set(f, ITOI_REGWIN_L0 + 3, 77);
        TL_SWITCH_EXPECT(f, &a, &b, ITOI_REGWIN_LEAVE, schemes[i] == ITO_REGWIN_NS ? 4u : 0u, 1);
        unsigned moved = schemes[i] == ITO_REGWIN_NS ? 0u : 4u;
        TL_SWITCH_EXPECT(g, NULL, &a, ITOI_REGWIN_LEAVE, moved, 1);
        tl_check(f);
        ito_regwin_counters_t c;
        counters(g, &c);
        CHECK_EQ(c.migrations, moved ? 1 : 0);
        CHECK_EQ(itoi_regwin_get(g, ITOI_REGWIN_L0 + 3), 77);
        CHECK_EQ(itoi_regwin_thread_depth(&a), 4);
        CHECK_EQ(itoi_regwin_switch(f, &b, &a, ITOI_REGWIN_LEAVE), ITO_EBUSY); /* a runs on g */
        CHECK_OK(itoi_regwin_switch(g, &a, NULL, ITOI_REGWIN_LEAVE));
        CHECK_OK(itoi_regwin_switch(f, &b, NULL, ITOI_REGWIN_LEAVE));
        CHECK_OK(itoi_regwin_file_free(g)); /* a's windows go to its memory */
        CHECK(!itoi_regwin_resident(&a));
        CHECK_EQ(itoi_regwin_thread_depth(&a), 4);
        itoi_regwin_frame_t fr;
        CHECK_OK(itoi_regwin_peek(&a, 3, &fr));
        CHECK_EQ(fr.local[3], 77);
        CHECK_OK(itoi_regwin_thread_fini(&a));
        CHECK_OK(itoi_regwin_thread_fini(&b));
        CHECK_OK(itoi_regwin_file_free(f));
    }
}

int main(void)
{
    for (int i = 0; i < 3; i++) {
        for (int n = ITO_REGWIN_MIN_WINDOWS; n <= ITO_REGWIN_MAX_WINDOWS; n++) single_thread_traps(schemes[i], n);
        underflow_values(schemes[i]);
    }
    placement();
    ping_pong();
    kinds();
    migration();
    TEST_DONE();
}
