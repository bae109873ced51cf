"""The psafe reproduction's small statistics (psafe/common.py, psafe/sim.py breakdown), on
hand-made numbers: none of them was reached by another test, so a wrong median, a percent
change taken against the wrong base, or a breakdown not divided per processor passed CI."""
import pytest

from ito_lab.psafe import common, sim


def test_median_of_odd_and_even_counts():
    assert common.median([5, 1, 3]) == 3
    assert common.median([4, 1, 3, 2]) == 2.5


def test_pct_is_the_change_over_the_old_value():
    assert common.pct(150.0, 100.0) == 50.0
    assert common.pct(50.0, 100.0) == -50.0
    assert common.pct(1.0, 0.0) != common.pct(1.0, 0.0)      # nan: no base


def test_bound_is_the_papers_example():
    assert common.BOUND_QUANTA == 10      # "100 milliseconds" at the paper's 10 ms quantum


def test_breakdown_is_per_processor_and_credit_is_beyond_the_fair_share():
    n = sim.NCPU
    r = {"finish": 1000, "run_cycles": 700, "fair_cycles": 600.0, "cyc_instr": 400 * n,
         "cyc_penalty": 200 * n, "cyc_signal": 10 * n, "cyc_barrier": 40 * n, "cyc_idle": 50 * n}
    b = sim.breakdown(r)
    assert b == {"finish": 1000, "own": 700, "instr": 400, "penalty": 200, "signal": 10,
                 "barrier": 40, "idle": 50, "waiting": 300, "credit": pytest.approx(100.0)}
    assert b["instr"] + b["penalty"] + b["signal"] + b["barrier"] + b["idle"] == b["own"]
