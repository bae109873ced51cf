/* The gang scheduler with scripted processes (no memory traffic): round-robin order and
 * switch costs, the preemption-safe delay and its compensation arithmetic under the three
 * rules (sit out, shorten, ito's skip-whole-turns), the pending switch with the gang stopping
 * or running on, the fixed tick grid, the bounded delay then forced preemption (and the region
 * resuming unpreemptable), signal costs, barriers, the time accounting and the fair share. */
#include "busmp.h"
#include "ito_test.h"

typedef struct script {
    uint64_t ev[4096];
    uint32_t n, pos, chunk;
} script;

static uint32_t script_refill(void *src, const uint64_t **ev)
{
    script *s = src;
    uint32_t k = s->n - s->pos < s->chunk ? s->n - s->pos : s->chunk;
    *ev = s->ev + s->pos;
    s->pos += k;
    return k;
}

static void ev(script *s, uint64_t e)
{
    CHECK(s->n < 4096);
    s->ev[s->n++] = e;
}
static void work(script *s, int cycles) /* in events of 10 cycles */
{
    for (int i = 0; i < cycles / 10; i++)
        ev(s, (10ull << 8) | WL_EV_OPS);
}

static script scr[8][2];

static int add(busmp *m, int idx, const char *name, int blocked)
{
    void *src[2] = {&scr[idx][0], &scr[idx][1]};
    for (int i = 0; i < 2; i++) {
        scr[idx][i].pos = 0;
        scr[idx][i].chunk = 7 + (uint32_t)i; /* odd chunk sizes exercise refills */
    }
    return busmp_add_program(m, name, blocked, script_refill, src);
}

static busmp_params params(int policy)
{
    busmp_params p = busmp_paper_params();
    p.ncpu = 2;
    p.policy = policy;
    p.quantum = 1000;
    p.switch_cost = 100;
    p.signal_cost = 0;
    p.window = 10;
    p.bound_quanta = 3;
    return p;
}

static void reset(void) { memset(scr, 0, sizeof scr); }

/* Process i of gang g: `before` cycles, a region of `len`, `after` cycles, exit (len < 0: no region). */
static void prog_script(int g, int i, int before, int len, int after)
{
    work(&scr[g][i], before);
    if (len >= 0) {
        ev(&scr[g][i], WL_EV_BEGIN);
        work(&scr[g][i], len);
        ev(&scr[g][i], WL_EV_END);
    }
    work(&scr[g][i], after);
    ev(&scr[g][i], WL_EV_EXIT);
}

/* Process 0 works 100 cycles, process 1 300, both meet at a barrier, then 10 each. */
static void build_barrier(void)
{
    reset();
    work(&scr[0][0], 100);
    work(&scr[0][1], 300);
    for (int i = 0; i < 2; i++) {
        ev(&scr[0][i], WL_EV_BARRIER);
        work(&scr[0][i], 10);
        ev(&scr[0][i], WL_EV_EXIT);
    }
}

/* n gangs whose processes each work 2500 cycles. */
static void build_equal(int n)
{
    reset();
    for (int g = 0; g < n; g++)
        for (int i = 0; i < 2; i++) {
            work(&scr[g][i], 2500);
            ev(&scr[g][i], WL_EV_EXIT);
        }
}

/* Runs the scripts of A (blocked, gang 0) and B (gang 1) under p. */
static busmp *run_ab(const busmp_params *p)
{
    busmp *m = busmp_new(p);
    CHECK(m != NULL);
    CHECK_EQ(add(m, 0, "A", 1), 0);
    CHECK_EQ(add(m, 1, "B", 0), 1);
    CHECK_EQ(busmp_run(m), 0);
    return m;
}

static void round_robin(void)
{
    build_equal(3);
    busmp_params p = params(BUSMP_PREEMPT);
    busmp *m = busmp_new(&p);
    CHECK_EQ(add(m, 0, "A", 0), 0);
    CHECK_EQ(add(m, 1, "B", 0), 1);
    CHECK_EQ(add(m, 2, "C", 0), 2);
    CHECK_EQ(busmp_run(m), 0);
    int n;
    const busmp_slice *s = busmp_slices(m, &n);
    CHECK_EQ(n, 9);
    static const uint64_t start[9] = {0, 1100, 2200, 3300, 4400, 5500, 6600, 7200, 7800};
    for (int i = 0; i < 9; i++) {
        CHECK_EQ(s[i].prog, i % 3);
        CHECK_EQ(s[i].start, start[i]);
    }
    CHECK_EQ(s[0].end, 1000);
    CHECK_EQ(s[0].reason, BUSMP_END_QUANTUM);
    CHECK_EQ(s[6].reason, BUSMP_END_FINISHED);
    CHECK_EQ(busmp_stats(m, 0)->finish, 6600 + 500);
    CHECK_EQ(busmp_stats(m, 1)->finish, 7200 + 500);
    CHECK_EQ(busmp_stats(m, 2)->finish, 7800 + 500);
    CHECK_EQ(busmp_stats(m, 0)->run_cycles, 2500);
    busmp_free(m);
}

/* A: 900 work, region of 500, 990 work. B: 3000 work. */
static void build_delay(void)
{
    reset();
    for (int i = 0; i < 2; i++) {
        prog_script(0, i, 900, 500, 990);
        prog_script(1, i, 3000, -1, 0);
    }
}

static void delay_and_compensation(void)
{
    build_delay();
    busmp_params p = params(BUSMP_PSAFE);
    busmp *m = run_ab(&p);
    int n;
    const busmp_slice *s = busmp_slices(m, &n);
    /* A [0,1400] delayed by 400; B [1500,2500]; A (compensated until 1800) [2600,3590] done;
     * B [3690,4690], [4690,5690] done (no switch when B continues alone) */
    CHECK_EQ(s[0].prog, 0);
    CHECK_EQ(s[0].end, 1400);
    CHECK_EQ(s[0].reason, BUSMP_END_DELAYED);
    CHECK_EQ(s[0].delay, 400);
    CHECK_EQ(s[1].prog, 1);
    CHECK_EQ(s[1].start, 1500);
    CHECK_EQ(s[1].end, 2500);
    CHECK_EQ(s[2].prog, 0);
    CHECK_EQ(s[2].start, 2600);
    const busmp_pstats *a = busmp_stats(m, 0), *b = busmp_stats(m, 1);
    CHECK_EQ(a->finish, 3590);
    CHECK_EQ(b->finish, 5690);
    CHECK_EQ(a->delays, 1);
    CHECK_EQ(a->delay_cycles, 400);
    CHECK_EQ(a->delayed_ticks, 1);
    CHECK_EQ(a->forced, 0);
    CHECK_EQ(a->regions, 2);
    CHECK_EQ(b->delays, 0);
    busmp_free(m);

    /* SHORTEN compensation: A's next quantum is 1000 - 400 = 600 */
    build_delay();
    p = params(BUSMP_PSAFE);
    p.comp = BUSMP_COMP_SHORTEN;
    m = run_ab(&p);
    s = busmp_slices(m, &n);
    CHECK_EQ(s[0].end, 1400);
    CHECK_EQ(s[1].start, 1500);
    CHECK_EQ(s[2].prog, 0);
    CHECK_EQ(s[2].start, 2600);
    CHECK_EQ(s[2].end, 3200);
    CHECK_EQ(busmp_stats(m, 0)->finish, 4790);
    CHECK_EQ(busmp_stats(m, 1)->finish, 5890);
    busmp_free(m);

    /* SHORTEN with a debt above one quantum skips whole turns */
    reset();
    for (int i = 0; i < 2; i++) {
        prog_script(0, i, 0, 3500, 500);
        prog_script(1, i, 5000, -1, 0);
    }
    m = run_ab(&p);
    /* A [0,3500] delay 2500: skips two turns (debt 500), B runs [3600,4600],[4600,5600],
     * [5600,6600]; A [6700,7200] with quantum 500 finishes exactly then */
    s = busmp_slices(m, &n);
    CHECK_EQ(s[0].delay, 2500);
    CHECK_EQ(busmp_stats(m, 0)->turns_skipped, 2);
    CHECK_EQ(busmp_stats(m, 0)->finish, 7200);
    CHECK_EQ(busmp_stats(m, 1)->finish, 7300 + 2000);
    busmp_free(m);

    /* the same programs under preemption: the region does not delay anything */
    build_delay();
    p = params(BUSMP_PREEMPT);
    m = run_ab(&p);
    CHECK_EQ(busmp_stats(m, 0)->finish, 4790);
    CHECK_EQ(busmp_stats(m, 1)->finish, 5890);
    CHECK_EQ(busmp_stats(m, 0)->delays, 0);
    busmp_free(m);
}

/* A: one region of 6000 cycles; bound 3 quanta. B: 4000 work. */
static void bounded_then_forced(void)
{
    reset();
    for (int i = 0; i < 2; i++) {
        ev(&scr[0][i], WL_EV_BEGIN);
        work(&scr[0][i], 6000);
        ev(&scr[0][i], WL_EV_END);
        ev(&scr[0][i], WL_EV_EXIT);
        work(&scr[1][i], 4000);
        ev(&scr[1][i], WL_EV_EXIT);
    }
    busmp_params p = params(BUSMP_PSAFE);
    busmp *m = run_ab(&p);
    int n;
    const busmp_slice *s = busmp_slices(m, &n);
    /* A [0,4000] forced (delay 3000, compensated until 7000); B [4100,7100] in three quanta;
     * A [7200,9200] still unpreemptable: delayed again at 8200 by 1000 (until 10200);
     * B [9300,10300] done; A [10400,10400] exits. */
    CHECK_EQ(s[0].end, 4000);
    CHECK_EQ(s[0].reason, BUSMP_END_FORCED);
    CHECK_EQ(s[0].delay, 3000);
    CHECK_EQ(s[1].prog, 1);
    CHECK_EQ(s[1].start, 4100);
    CHECK_EQ(s[3].end, 7100);
    CHECK_EQ(s[4].prog, 0);
    CHECK_EQ(s[4].start, 7200);
    CHECK_EQ(s[4].end, 9200);
    CHECK_EQ(s[4].reason, BUSMP_END_DELAYED);
    CHECK_EQ(s[4].delay, 1000);
    const busmp_pstats *a = busmp_stats(m, 0), *b = busmp_stats(m, 1);
    CHECK_EQ(a->forced, 1);
    CHECK_EQ(a->delays, 2);
    CHECK_EQ(a->delay_cycles, 4000);
    CHECK_EQ(a->delayed_ticks, 3 + 1);
    CHECK_EQ(b->finish, 10300);
    CHECK_EQ(a->finish, 10400);
    CHECK_EQ(a->comp_waived, 0);
    busmp_free(m);
}

/* Compensation is waived when nobody else can run; signals cost under PSAFE only. */
static void waiver_and_signals(void)
{
    for (int pol = 0; pol < 2; pol++) {
        reset();
        for (int i = 0; i < 2; i++) {
            work(&scr[0][i], 900);
            ev(&scr[0][i], WL_EV_BEGIN);
            work(&scr[0][i], 500);
            ev(&scr[0][i], WL_EV_END);
            work(&scr[0][i], 200);
            ev(&scr[0][i], WL_EV_EXIT);
        }
        busmp_params p = params(pol);
        p.signal_cost = 10;
        busmp *m = busmp_new(&p);
        add(m, 0, "A", 1);
        CHECK_EQ(busmp_run(m), 0);
        const busmp_pstats *a = busmp_stats(m, 0);
        if (pol == BUSMP_PSAFE) {
            /* BEGIN at 900 (+10), END at 1410 (+10) = 1420, delay 420, waived 420 */
            CHECK_EQ(a->signals, 4);
            CHECK_EQ(a->delay_cycles, 420);
            CHECK_EQ(a->comp_waived, 420);
            CHECK_EQ(a->finish, 1620);
        } else {
            CHECK_EQ(a->signals, 0);
            CHECK_EQ(a->finish, 1600);
        }
        busmp_free(m);
    }
}

static void barrier(void)
{
    build_barrier();
    busmp_params p = params(BUSMP_PREEMPT);
    busmp *m = busmp_new(&p);
    add(m, 0, "A", 0);
    CHECK_EQ(busmp_run(m), 0);
    CHECK_EQ(busmp_stats(m, 0)->finish, 310);
    busmp_free(m);

    /* a process that runs out of events is an error, not a hang */
    reset();
    work(&scr[0][0], 10);
    work(&scr[0][1], 10);
    m = busmp_new(&p);
    add(m, 0, "A", 0);
    CHECK_EQ(busmp_run(m), -1);
    busmp_free(m);
}

/* ito's runtime rule (SKIP): whole turns only, the remainder carried, no waiver when alone. */
static void skip_rule(void)
{
    reset();
    for (int i = 0; i < 2; i++) {
        prog_script(0, i, 0, 3500, 900);
        prog_script(1, i, 5000, -1, 0);
    }
    busmp_params p = params(BUSMP_PSAFE);
    p.comp = BUSMP_COMP_SKIP;
    busmp *m = run_ab(&p);
    /* A [0,3500] delay 2500 (debt 2500); B [3600,4600]; A skips (1500); B [4600,5600]; A skips
     * (500); B [5600,6600]; A [6700,7600] a whole quantum (SHORTEN would give 500) and done;
     * B [7700,8700], [8700,9700] done. */
    int n;
    const busmp_slice *s = busmp_slices(m, &n);
    CHECK_EQ(s[0].delay, 2500);
    CHECK_EQ(busmp_stats(m, 0)->turns_skipped, 2);
    CHECK_EQ(busmp_stats(m, 0)->finish, 7600);
    CHECK_EQ(busmp_stats(m, 1)->finish, 9700);
    CHECK_EQ(busmp_idle_cycles(m), 0);
    busmp_free(m);

    /* alone: the debt is not waived, the machine idles a quantum per quantum of debt */
    reset();
    for (int i = 0; i < 2; i++)
        prog_script(0, i, 0, 3500, 1500);
    m = busmp_new(&p);
    add(m, 0, "A", 1);
    CHECK_EQ(busmp_run(m), 0);
    /* [0,3500] debt 2500; idle to 4500 and 5500 (debt 500); [5500,6500]; [6500,7000] done */
    CHECK_EQ(busmp_idle_cycles(m), 2000);
    CHECK_EQ(busmp_stats(m, 0)->finish, 7000);
    CHECK_EQ(busmp_stats(m, 0)->comp_waived, 0);
    busmp_free(m);
}

/* pending = GANG: a process outside any region runs on while the switch is pending. */
static void gang_pending(void)
{
    for (int mode = BUSMP_PEND_STOP; mode <= BUSMP_PEND_GANG; mode++) {
        reset();
        prog_script(0, 0, 900, 500, 990);
        prog_script(0, 1, 2400, -1, 0);
        prog_script(1, 0, 3000, -1, 0);
        prog_script(1, 1, 3000, -1, 0);
        busmp_params p = params(BUSMP_PSAFE);
        p.pending = mode;
        busmp *m = run_ab(&p);
        int n;
        const busmp_slice *s = busmp_slices(m, &n);
        CHECK_EQ(s[0].end, 1400);
        CHECK_EQ(s[0].delay, 400);
        /* STOP: process 1 stopped at 1000, so A needs [2600,3600] and [4800,5200];
         * GANG: process 1 ran to 1400 too, and A is done at the end of [2600,3600]. */
        CHECK_EQ(busmp_stats(m, 0)->finish, mode == BUSMP_PEND_STOP ? 5200u : 3600u);
        busmp_free(m);
    }
}

/* tick_grid: turns end on multiples of the quantum, so the switch cost comes out of a turn. */
static void tick_grid(void)
{
    build_equal(2);
    busmp_params p = params(BUSMP_PREEMPT);
    p.tick_grid = 1;
    busmp *m = busmp_new(&p);
    add(m, 0, "A", 0);
    add(m, 1, "B", 0);
    CHECK_EQ(busmp_run(m), 0);
    int n;
    const busmp_slice *s = busmp_slices(m, &n);
    CHECK_EQ(s[0].end, 1000);
    CHECK_EQ(s[1].start, 1100);
    CHECK_EQ(s[1].end, 2000);
    CHECK_EQ(s[2].start, 2100);
    CHECK_EQ(s[2].end, 3000);
    /* A: 1000 + 900 + 600 of its last turn [4100,5000] */
    CHECK_EQ(busmp_stats(m, 0)->finish, 4700);
    busmp_free(m);

    /* with the grid, the turn after a delayed switch is short: A delayed to 1400, B [1500,2000] */
    build_delay();
    p = params(BUSMP_PSAFE);
    p.tick_grid = 1;
    m = run_ab(&p);
    s = busmp_slices(m, &n);
    CHECK_EQ(s[0].end, 1400);
    CHECK_EQ(s[1].start, 1500);
    CHECK_EQ(s[1].end, 2000);
    busmp_free(m);
}

/* Where the time goes: instructions (ops_scale included), barrier waits, idle; fair share. */
static void accounting(void)
{
    build_barrier();
    busmp_params p = params(BUSMP_PREEMPT);
    p.ops_scale = 3;
    busmp *m = busmp_new(&p);
    add(m, 0, "A", 0);
    CHECK_EQ(busmp_run(m), 0);
    const busmp_pstats *a = busmp_stats(m, 0);
    CHECK_EQ(a->finish, 930);
    CHECK_EQ(a->cyc_instr, 3 * (100 + 300 + 20));
    CHECK_EQ(a->cyc_barrier, 600);
    CHECK_EQ(a->cyc_penalty, 0);
    CHECK_EQ(a->cyc_idle, 0);
    CHECK(a->fair_cycles > 929.99 && a->fair_cycles < 930.01); /* alone: all of it is fair */
    busmp_free(m);

    /* round robin of three: A's fair share is a third of every slice before it finished */
    build_equal(3);
    p = params(BUSMP_PREEMPT);
    m = busmp_new(&p);
    for (int g = 0; g < 3; g++)
        add(m, g, g == 0 ? "A" : g == 1 ? "B" : "C", 0);
    CHECK_EQ(busmp_run(m), 0);
    a = busmp_stats(m, 0);
    CHECK(a->fair_cycles > 6500.0 / 3 - 0.01 && a->fair_cycles < 6500.0 / 3 + 0.01);
    CHECK_EQ(a->cyc_idle, 0);
    busmp_free(m);

    /* bad parameters are refused */
    p = params(BUSMP_PSAFE);
    p.ops_scale = 0;
    CHECK(busmp_new(&p) == NULL);
    p = params(BUSMP_PSAFE);
    p.comp = 3;
    CHECK(busmp_new(&p) == NULL);
    p = params(BUSMP_PSAFE);
    p.pending = 2;
    CHECK(busmp_new(&p) == NULL);
}

/* Fair share when a program finishes early: slices after it count among fewer programs
 * (busmp.h: slice length / number of UNFINISHED programs). A works 500 cycles, B and C 2500:
 * A [0,500] finished; B [600,1600], C [1700,2700], B [2800,3800], C [3900,4900],
 * B [5000,5500] finished; C [5600,6100]. B's share: 500/3 + (4 x 1000 + 500)/2;
 * C's adds its last slice, alone: + 500/1. */
static void fair_share_after_a_finish(void)
{
    reset();
    for (int i = 0; i < 2; i++) {
        work(&scr[0][i], 500);
        ev(&scr[0][i], WL_EV_EXIT);
    }
    for (int g = 1; g < 3; g++)
        for (int i = 0; i < 2; i++) {
            work(&scr[g][i], 2500);
            ev(&scr[g][i], WL_EV_EXIT);
        }
    busmp_params p = params(BUSMP_PREEMPT);
    busmp *m = busmp_new(&p);
    for (int g = 0; g < 3; g++)
        add(m, g, g == 0 ? "A" : g == 1 ? "B" : "C", 0);
    CHECK_EQ(busmp_run(m), 0);
    CHECK_EQ(busmp_stats(m, 0)->finish, 500);
    CHECK_EQ(busmp_stats(m, 1)->finish, 5500);
    CHECK_EQ(busmp_stats(m, 2)->finish, 6100);
    const double b = 500.0 / 3 + 4500.0 / 2, c = 500.0 / 3 + 4500.0 / 2 + 500.0 / 1;
    CHECK(busmp_stats(m, 1)->fair_cycles > b - 0.01 && busmp_stats(m, 1)->fair_cycles < b + 0.01);
    CHECK(busmp_stats(m, 2)->fair_cycles > c - 0.01 && busmp_stats(m, 2)->fair_cycles < c + 0.01);
    busmp_free(m);
}

/* tick_grid: a turn that starts exactly on a tick (the switch after a finish at 900 ends at
 * 1000) lasts a whole quantum, to the next tick, not zero cycles. */
static void tick_grid_start_on_a_tick(void)
{
    reset();
    for (int i = 0; i < 2; i++) {
        work(&scr[0][i], 900);
        ev(&scr[0][i], WL_EV_EXIT);
        work(&scr[1][i], 2500);
        ev(&scr[1][i], WL_EV_EXIT);
    }
    busmp_params p = params(BUSMP_PREEMPT);
    p.tick_grid = 1;
    busmp *m = busmp_new(&p);
    add(m, 0, "A", 0);
    add(m, 1, "B", 0);
    CHECK_EQ(busmp_run(m), 0);
    int n;
    const busmp_slice *s = busmp_slices(m, &n);
    CHECK(n >= 2);
    CHECK_EQ(s[0].end, 900);
    CHECK_EQ(s[0].reason, BUSMP_END_FINISHED);
    CHECK_EQ(s[1].prog, 1);
    CHECK_EQ(s[1].start, 1000);
    CHECK_EQ(s[1].end, 2000);
    busmp_free(m);
}

int main(void)
{
    round_robin();
    delay_and_compensation();
    bounded_then_forced();
    waiver_and_signals();
    barrier();
    skip_rule();
    gang_pending();
    tick_grid();
    accounting();
    fair_share_after_a_finish();
    tick_grid_start_on_a_tick();
    TEST_DONE();
}
