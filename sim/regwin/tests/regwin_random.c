/* regwin_random.c: random call/return/register/switch sequences for many threads on two
 * window files (two workers, so threads migrate), checked against a reference model in
 * which every thread is a plain stack of frames, for every scheme and every window count
 * 4..32, for many seeds.
 *
 * The model knows which registers hold defined values (a new frame's locals and outs do
 * not) and compares exactly those: registers read by the "program", every frame of every
 * thread through itoi_regwin_peek, and finally every thread unwound to its root through
 * real restores. After every event the file's invariants are checked, and the window
 * traffic is checked for conservation: every trap and every switch transfer moves exactly
 * the windows it reports.
 *
 * Usage: regwin_random [seeds-per-case [events-per-seed]] (defaults 60 and 600). */
#include <stdint.h>
#include <stdlib.h>

#include "ito_test.h"
#include "regwin.h"

#define MAXT 8
#define NFILES 2

typedef struct mframe {
    uint64_t in[8], local[8];
    uint8_t kin, kloc; /* known-value masks */
} mframe_t;

typedef struct mthread {
    itoi_regwin_thread_t t;
    mframe_t *fr;
    int depth, cap;
    uint64_t outs[8];
    uint8_t kouts;
    int on; /* file index where it is current, or -1 */
} mthread_t;

static uint64_t rng_state;
static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static unsigned rndn(unsigned n) { return (unsigned)(rnd() % n); }

static mthread_t th[MAXT];
static int nth;
static itoi_regwin_file_t *files[NFILES];
static mthread_t *cur[NFILES];
/* conservation: frames in memory, by the model's accounting */
static long long created_frames, exited_mem_frames;

static void push(mthread_t *m)
{
    if (m->depth == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 16;
        m->fr = realloc(m->fr, (size_t)m->cap * sizeof *m->fr);
        CHECK(m->fr != NULL);
    }
    mframe_t *f = &m->fr[m->depth++];
    for (int i = 0; i < 8; i++) f->in[i] = m->outs[i];
    f->kin = m->kouts;
    f->kloc = 0;
    m->kouts = 0;
}

static void new_thread(mthread_t *m)
{
    uint64_t root[8];
    for (int i = 0; i < 8; i++) root[i] = rnd();
    CHECK_OK(itoi_regwin_thread_init(&m->t, root));
    m->depth = 0;
    for (int i = 0; i < 8; i++) m->outs[i] = root[i];
    m->kouts = 0xff;
    push(m);                         /* the root frame: ins = root, locals and outs zero */
    for (int i = 0; i < 8; i++) m->fr[0].local[i] = 0, m->outs[i] = 0;
    m->fr[0].kloc = 0xff;
    m->kouts = 0xff;
    m->on = -1;
    created_frames++;
}

static void check_frames(mthread_t *m)
{
    for (int k = 0; k < m->depth; k++) {
        itoi_regwin_frame_t f;
        CHECK_OK(itoi_regwin_peek(&m->t, (uint32_t)k, &f));
        for (int i = 0; i < 8; i++) {
            if ((m->fr[k].kin >> i) & 1) CHECK_EQ(f.in[i], m->fr[k].in[i]);
            if ((m->fr[k].kloc >> i) & 1) CHECK_EQ(f.local[i], m->fr[k].local[i]);
        }
    }
    uint64_t o[8];
    CHECK_OK(itoi_regwin_peek_outs(&m->t, o));
    for (int i = 0; i < 8; i++)
        if ((m->kouts >> i) & 1) CHECK_EQ(o[i], m->outs[i]);
    CHECK_EQ(itoi_regwin_thread_depth(&m->t), m->depth);
}

static void check_files(void)
{
    for (int i = 0; i < NFILES; i++) {
        const char *msg = itoi_regwin_check(files[i]);
        if (msg) fprintf(stderr, "invariant: %s\n", msg);
        CHECK(msg == NULL);
        CHECK(itoi_regwin_current(files[i]) == (cur[i] ? &cur[i]->t : NULL));
    }
}

/* Frames in memory should equal created - filled + spilled - exited. */
static void check_conservation(void)
{
    long long mem = 0, moved = 0;
    for (int i = 0; i < nth; i++) mem += th[i].t.nmem;
    for (int i = 0; i < NFILES; i++) {
        ito_regwin_counters_t c;
        itoi_regwin_file_counters(files[i], &c);
        moved += (long long)c.overflow_traps + (long long)c.switch_window_saves -
                 (long long)c.underflow_traps - (long long)c.switch_window_restores;
    }
    CHECK_EQ(mem, created_frames + moved - exited_mem_frames);
}

/* Register r of file fi's current thread, in the model. */
static uint64_t *model_reg(mthread_t *m, int r, uint8_t **known, int *bit)
{
    mframe_t *top = &m->fr[m->depth - 1];
    if (r < ITOI_REGWIN_L0) { *known = &m->kouts; *bit = r - ITOI_REGWIN_O0; return &m->outs[r - ITOI_REGWIN_O0]; }
    if (r < ITOI_REGWIN_I0) { *known = &top->kloc; *bit = r - ITOI_REGWIN_L0; return &top->local[r - ITOI_REGWIN_L0]; }
    *known = &top->kin;
    *bit = r - ITOI_REGWIN_I0;
    return &top->in[r - ITOI_REGWIN_I0];
}

static void do_save(int fi)
{
    mthread_t *m = cur[fi];
    CHECK_OK(itoi_regwin_save(files[fi]));
    push(m);
}

static void do_restore(int fi)
{
    mthread_t *m = cur[fi];
    if (m->depth == 1) {
        CHECK_EQ(itoi_regwin_restore(files[fi]), ITO_ERANGE);
        return;
    }
    CHECK_OK(itoi_regwin_restore(files[fi]));
    mframe_t *callee = &m->fr[--m->depth];
    for (int i = 0; i < 8; i++) m->outs[i] = callee->in[i];
    m->kouts = callee->kin;
}

static void do_write(int fi)
{
    int r = ITOI_REGWIN_O0 + (int)rndn(24);
    uint8_t *known;
    int bit;
    uint64_t v = rnd();
    *model_reg(cur[fi], r, &known, &bit) = v;
    *known |= (uint8_t)(1u << bit);
    itoi_regwin_set(files[fi], r, v);
}

static void do_read(int fi)
{
    int r = ITOI_REGWIN_O0 + (int)rndn(24);
    uint8_t *known;
    int bit;
    uint64_t v = *model_reg(cur[fi], r, &known, &bit);
    if ((*known >> bit) & 1) CHECK_EQ(itoi_regwin_get(files[fi], r), v);
}

static void do_switch(int fi)
{
    mthread_t *from = cur[fi];
    /* candidates: threads current nowhere; sometimes nobody (the worker idles) */
    mthread_t *cand[MAXT];
    int nc = 0;
    for (int i = 0; i < nth; i++)
        if (th[i].on < 0) cand[nc++] = &th[i];
    mthread_t *to = (nc == 0 || rndn(12) == 0) ? NULL : cand[rndn((unsigned)nc)];
    unsigned k = rndn(20);
    int kind = k < 14 ? ITOI_REGWIN_LEAVE : k < 18 ? ITOI_REGWIN_FLUSH : ITOI_REGWIN_EXIT;
    if (!from && kind == ITOI_REGWIN_EXIT) kind = ITOI_REGWIN_LEAVE;
    if (from == to) return;
    if (kind == ITOI_REGWIN_EXIT) exited_mem_frames += from->t.nmem;
    CHECK_OK(itoi_regwin_switch(files[fi], from ? &from->t : NULL, to ? &to->t : NULL, kind));
    if (from) from->on = -1;
    if (to) to->on = fi;
    cur[fi] = to;
    if (kind == ITOI_REGWIN_EXIT) { /* a new thread takes its slot */
        CHECK(from->t.dead);
        CHECK_OK(itoi_regwin_thread_fini(&from->t));
        new_thread(from);
    }
}

/* Runs every thread back to its root on file 0, reading its registers at every level. */
static void unwind_all(void)
{
    for (int fi = 0; fi < NFILES; fi++)
        if (cur[fi]) {
            CHECK_OK(itoi_regwin_switch(files[fi], &cur[fi]->t, NULL, ITOI_REGWIN_LEAVE));
            cur[fi]->on = -1;
            cur[fi] = NULL;
        }
    for (int i = 0; i < nth; i++) {
        mthread_t *m = &th[i];
        CHECK_OK(itoi_regwin_switch(files[0], cur[0] ? &cur[0]->t : NULL, &m->t, ITOI_REGWIN_LEAVE));
        if (cur[0]) cur[0]->on = -1;
        cur[0] = m;
        m->on = 0;
        for (;;) {
            for (int r = ITOI_REGWIN_O0; r < ITOI_REGWIN_NREGS; r++) {
                uint8_t *known;
                int bit;
                uint64_t v = *model_reg(m, r, &known, &bit);
                if ((*known >> bit) & 1) CHECK_EQ(itoi_regwin_get(files[0], r), v);
            }
            if (m->depth == 1) break;
            do_restore(0);
            check_files();
        }
    }
}

static void run_case(int scheme, int windows, uint64_t seed, int events)
{
    rng_state = seed * 0x2545f4914f6cdd1dull + (uint64_t)scheme * 977 + (uint64_t)windows;
    ito_regwin_config_t cfg;
    CHECK_OK(ito_regwin_config_init(&cfg));
    cfg.scheme = scheme;
    cfg.windows = windows;
    for (int i = 0; i < NFILES; i++) {
        int err;
        files[i] = itoi_regwin_file_new(i, &cfg, &err);
        CHECK(files[i] != NULL);
        cur[i] = NULL;
    }
    created_frames = exited_mem_frames = 0;
    nth = 2 + (int)rndn(MAXT - 1);
    for (int i = 0; i < nth; i++) new_thread(&th[i]);
    uint64_t saves = 0, restores = 0;
    int target = 1;
    for (int e = 0; e < events; e++) {
        int fi = (int)rndn(NFILES);
        if (!cur[fi]) {
            do_switch(fi);
            check_files();
            continue;
        }
        if (rndn(40) == 0) target = 1 + (int)rndn((unsigned)(2 * windows + 4));
        unsigned op = rndn(100);
        mthread_t *m = cur[fi];
        int deeper = m->depth < target ? 80 : 20; /* drift toward the target depth */
        if (op < 60) {
            if ((int)rndn(100) < deeper) {
                do_save(fi);
                saves++;
            } else if (m->depth > 1) {
                do_restore(fi);
                restores++;
            }
        } else if (op < 75) {
            do_write(fi);
        } else if (op < 88) {
            do_read(fi);
        } else {
            do_switch(fi);
        }
        check_files();
        if (e % 16 == 0) {
            for (int i = 0; i < nth; i++) check_frames(&th[i]);
            check_conservation();
        }
    }
    for (int i = 0; i < nth; i++) check_frames(&th[i]);
    check_conservation();
    ito_regwin_counters_t a, b;
    itoi_regwin_file_counters(files[0], &a);
    itoi_regwin_file_counters(files[1], &b);
    CHECK_EQ(a.saves + b.saves, saves);
    CHECK_EQ(a.restores + b.restores, restores);
    uint64_t hsum = 0;
    for (int s = 0; s < ITO_REGWIN_HIST_SAVES; s++)
        for (int r = 0; r < ITO_REGWIN_HIST_RESTORES; r++) hsum += a.switch_hist[s][r];
    CHECK_EQ(hsum, a.switches);
    if (scheme == ITO_REGWIN_NS) CHECK_EQ(a.switches_resident + b.switches_resident, 0);
    unwind_all();
    CHECK_OK(itoi_regwin_switch(files[0], &cur[0]->t, NULL, ITOI_REGWIN_LEAVE));
    for (int i = 0; i < nth; i++) {
        CHECK_OK(itoi_regwin_thread_fini(&th[i].t));
        free(th[i].fr);
        th[i].fr = NULL;
        th[i].cap = 0;
    }
    for (int i = 0; i < NFILES; i++) CHECK_OK(itoi_regwin_file_free(files[i]));
}

int main(int argc, char **argv)
{
    int seeds = argc > 1 ? atoi(argv[1]) : 60;
    int events = argc > 2 ? atoi(argv[2]) : 600;
    const int schemes[] = {ITO_REGWIN_NS, ITO_REGWIN_SNP, ITO_REGWIN_SP};
    long cases = 0;
    for (int s = 0; s < 3; s++)
        for (int w = ITO_REGWIN_MIN_WINDOWS; w <= ITO_REGWIN_MAX_WINDOWS; w++)
            for (int seed = 1; seed <= seeds; seed++, cases++) run_case(schemes[s], w, (uint64_t)seed, events);
    printf("%ld random cases of %d events\n", cases, events);
    TEST_DONE();
}
