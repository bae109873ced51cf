"""Fig. 11's break-even threshold, its min-max spread over runs, and the spawn experiment's
speed-ups at the largest n (found by mutation testing: each rule below could change with
every other lab test still passing)."""
from ito_lab.experiments import spawn, wsc


def test_break_even_is_the_smallest_k_strictly_below_one():
    curve = {1: (3.0, 0, 0), 4: (1.0, 0, 0), 8: (0.9, 0, 0), 32: (0.5, 0, 0)}
    assert wsc.break_even(curve) == 8           # a ratio of exactly 1 is no win; 32 wins later
    assert wsc.break_even({1: (1.0, 0, 0)}) is None


def test_fig11_spread_is_min_and_max_of_the_runs():
    row = dict(kind="raw", backend="uring", op="nop", issuer="none", k=32)
    runs = [[dict(row, ratio=r)] for r in (0.7, 0.5, 0.9)]
    assert wsc.fig11_spread(runs) == {("raw", "uring", "nop", "none"): {32: (0.5, 0.9)}}


def test_real_speedups_use_the_largest_n():
    by = {(100, 1, "serial", "spawn_run"): [5.0], (100, 2, "chunk", "spawn_run"): [5.0],
          (1000, 1, "serial", "spawn_run"): [30.0], (1000, 2, "chunk", "spawn_run"): [10.0]}
    assert spawn.real_speedups(by) == {"serial": [(1, 1.0)], "chunk": [(2, 3.0)]}
