/* regwin_testlib.h: small helpers shared by the directed window-manager tests. */
#ifndef ITO_REGWIN_TESTLIB_H
#define ITO_REGWIN_TESTLIB_H

#include "ito_test.h"
#include "regwin.h"

static inline itoi_regwin_file_t *tl_file(int scheme, int windows)
{
    ito_regwin_config_t cfg;
    CHECK_OK(ito_regwin_config_init(&cfg));
    cfg.scheme = scheme;
    cfg.windows = windows;
    int err = -100;
    itoi_regwin_file_t *f = itoi_regwin_file_new(0, &cfg, &err);
    CHECK(f != NULL);
    CHECK_EQ(err, ITO_OK);
    return f;
}

static inline void tl_check(itoi_regwin_file_t *f)
{
    const char *m = itoi_regwin_check(f);
    if (m) fprintf(stderr, "invariant broken: %s\n", m);
    CHECK(m == NULL);
}

/* A switch that must complete exactly one switch; returns its windows saved/restored. */
static inline void tl_switch(itoi_regwin_file_t *f, itoi_regwin_thread_t *from,
                             itoi_regwin_thread_t *to, int kind, unsigned *s, unsigned *r)
{
    ito_regwin_counters_t a, b;
    itoi_regwin_file_counters(f, &a);
    CHECK_OK(itoi_regwin_switch(f, from, to, kind));
    itoi_regwin_file_counters(f, &b);
    CHECK_EQ(b.switches, a.switches + 1);
    *s = *r = 0; /* gcc -O3 cannot see that CHECK_EQ(found, 1) below exits otherwise */
    int found = 0;
    for (unsigned i = 0; i < ITO_REGWIN_HIST_SAVES; i++)
        for (unsigned j = 0; j < ITO_REGWIN_HIST_RESTORES; j++)
            if (b.switch_hist[i][j] != a.switch_hist[i][j]) {
                CHECK_EQ(b.switch_hist[i][j], a.switch_hist[i][j] + 1);
                *s = i;
                *r = j;
                found++;
            }
    CHECK_EQ(found, 1);
    CHECK_EQ(b.switch_window_saves - a.switch_window_saves, *s);
    CHECK_EQ(b.switch_window_restores - a.switch_window_restores, *r);
    tl_check(f);
}

/* tl_switch that must move exactly (es, er) windows. */
#define TL_SWITCH_EXPECT(f, from, to, kind, es, er)                                      \
    do {                                                                                 \
        unsigned tl_s_, tl_r_;                                                           \
        tl_switch((f), (from), (to), (kind), &tl_s_, &tl_r_);                            \
        CHECK_EQ(tl_s_, (es));                                                           \
        CHECK_EQ(tl_r_, (er));                                                           \
    } while (0)

static inline void tl_saves(itoi_regwin_file_t *f, int k)
{
    for (int i = 0; i < k; i++) {
        CHECK_OK(itoi_regwin_save(f));
        tl_check(f);
    }
}

static inline void tl_restores(itoi_regwin_file_t *f, int k)
{
    for (int i = 0; i < k; i++) {
        CHECK_OK(itoi_regwin_restore(f));
        tl_check(f);
    }
}

static inline void tl_thread(itoi_regwin_thread_t *t) { CHECK_OK(itoi_regwin_thread_init(t, NULL)); }

#endif
