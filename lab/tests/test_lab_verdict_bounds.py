"""The boundaries of the lab's verdicts and of its quiet-machine rule (found by mutation
testing: the other tests never put a value exactly on a bar)."""
import pytest

from ito_lab import host
from ito_lab.experiments import coop_case as co
from ito_lab.experiments import coop_headline as hl
from ito_lab.experiments.net import goal_verdict


def test_a_round_exactly_at_the_goal_meets_it():
    assert goal_verdict([1.3, 1.3, 1.3], 1.3) == "met in every round"
    v = goal_verdict([1.2, 1.3, 1.3], 1.3)
    assert v.startswith("met at the median; 1 of 3 rounds below")


def test_an_interval_that_starts_on_the_bar_cannot_tell():
    assert hl.bar_verdict((0.50, 0.70), 0.5).startswith("cannot tell")
    assert hl.bar_verdict((0.5000001, 0.70), 0.5) == "not met"


def test_a_repetition_without_overhead_never_meets_the_half_bar():
    # full save no dearer than plain (f <= 0): no ratio, and it does not meet the half bar,
    # even when the optimized build came out faster than plain (o < 0 <= f / 2).
    ps = co.paired_round_stats([100.0, 100.0], [100.0, 99.0], [98.0, 97.0])
    assert ps["ratio"] is None and ps["half_met"] == 0


def test_quiet_means_a_load_strictly_below_half_a_cpu(monkeypatch):
    assert host.QUIET_LOAD == 0.5        # the project's rule (docs: "quiet machine: uptime < 0.5")
    monkeypatch.setattr(host, "load1", lambda: 0.5)
    assert not host.quiet()
    monkeypatch.setattr(host, "load1", lambda: 0.49)
    assert host.quiet()
