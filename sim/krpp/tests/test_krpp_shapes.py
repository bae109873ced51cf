"""Shape tests: what the reproduced Figs. 4, 10, 11 and 12 must show, so that a regression in the
model fails CI.  Deterministic (the model has no randomness); reduced grids (200 / 1000 threads,
a few processor counts) where the shape is already visible; ~3 s in all.

Tolerances are stated per test.  Most are anchored on the model's own resource bounds (a
serialized resource doing nothing else caps a speedup; the curve must approach its cap), which
follow from the paper's stage times alone, and on the paper's stated values with a band wide
enough for the differences docs/reproductions/spawn.md explains (3-4 % above 3.7 and 10.5)."""
from krpp import PAPER, simulate

T, LAY = PAPER.times, PAPER.layout
SER_THREAD = T.B + LAY.pairs_total * PAPER.warm_pair          # 8748 clocks per serial thread
SERT_THREAD = T.B + LAY.pairs_private * PAPER.warm_pair       # 2798 per serial-template thread
P_GRID = (1, 2, 4, 8, 10, 12, 16, 24, 32, 64, 128)


def speedup(scheme, base, th, p):
    return simulate(base, 1, th, PAPER).time / simulate(scheme, p, th, PAPER).time


def test_fig4_simple_saturates_at_the_memory_module():
    # bound: C serves 114 x T_C per thread -> 8748 / 8892 = 0.984; the paper says 1 to 1.2.
    bound = SER_THREAD / (LAY.pairs_total * T.C)
    sat = [speedup("simple", "serial", 1000, p) for p in (32, 128)]
    # saturated: within 1 % of the bound (the cold first serial thread adds 0.1 %), flat in p
    assert all(abs(s - bound) < 0.01 * bound for s in sat)
    # degrades at p < 3 (the paper: "less than that of the serial scheme" with few processors)
    assert speedup("simple", "serial", 1000, 1) < 0.6 < speedup("simple", "serial", 1000, 2) < sat[0]


def test_fig10_template_about_3_7_over_serial_and_saturates_over_serial_template():
    # Fig. 10(a): max over p near the C bound 8748 / (29 x 78) = 3.87; the paper says about 3.7.
    # Band [3.6, 3.9]: the paper's value minus 3 %, our bound plus rounding.
    best = max(speedup("template", "serial", 200, p) for p in P_GRID)
    assert 3.6 <= best <= 3.9
    # super-linear at small p (the paper's "unfair comparison"): p = 2 already above 2
    assert speedup("template", "serial", 200, 2) > 2.0
    # Fig. 10(b): saturates at the bound 2798 / 2262 = 1.24 (the paper: between 1 and 1.2);
    # within 2 % of it at p = 128 for 200 threads.
    b = SERT_THREAD / (LAY.pairs_private * T.C)
    assert abs(speedup("template", "serial_template", 200, 128) - b) < 0.02 * b


def test_fig11_chunk_rises_linearly_peaks_at_ten_odd_processors_then_falls():
    curve = {p: speedup("chunk", "serial", 1000, p) for p in P_GRID}
    p_opt = max(curve, key=curve.get)
    # the paper: maximum about 10.5 at "several to some tens" of processors; ours 10.08 at 12
    # for these 1000 threads (10.69 at 2000 threads)
    # (docs: spawn.md).  The maximum must lie in [8, 24] and its value in [10, 11.4] (B bound
    # 8748 / 768 = 11.39 caps it).
    assert 8 <= p_opt <= 24
    assert 10.0 <= curve[p_opt] <= SER_THREAD / T.B
    # almost linear below the optimum: at least 95 % of p for p = 2, 4
    assert curve[2] >= 1.9 and curve[4] >= 3.8
    # falls beyond: at 128 processors clearly below the maximum
    assert curve[128] < 0.85 * curve[p_opt]


def test_fig12_combination_has_both_tendencies():
    # template-like: super-linear over serial at p = 1 (the template cuts the data 4x)
    assert speedup("combination", "serial", 1000, 1) > 2.5
    # chunk-like: rises to near the B bound and stays below it.  The exact bound is the
    # baseline's whole time over the N x T_B that B must serve (it includes the baseline's cold
    # first thread, 0.1-0.3 % above the per-thread ratios 11.39 and 3.64).
    def b_bound(base):
        return simulate(base, 1, 1000, PAPER).time / (1000 * T.B)
    best = max(speedup("combination", "serial", 1000, p) for p in P_GRID)
    assert 0.95 * b_bound("serial") <= best <= b_bound("serial")
    # over the serial template, chunk-like rise to its B bound (within 5 %)
    best_t = max(speedup("combination", "serial_template", 1000, p) for p in P_GRID)
    assert 0.95 * b_bound("serial_template") <= best_t <= b_bound("serial_template")
