"""ito-lab net's verdict on the issue's goals: a median is not enough when rounds disagree."""
from ito_lab.experiments.net import goal_verdict


def test_every_round_above_is_met():
    assert goal_verdict([1.31, 1.4, 1.35], 1.3) == "met in every round"


def test_a_median_above_with_rounds_below_says_so():
    v = goal_verdict([1.03, 1.36, 1.43, 1.18, 1.45], 1.3)
    assert v.startswith("met at the median; 2 of 5 rounds below")
    assert "1.03-1.45" in v


def test_below_the_goal():
    assert goal_verdict([0.9, 1.0, 1.1], 1.3) == "not met in any round"
    assert goal_verdict([1.1, 1.2, 1.35], 1.3).startswith("not met at the median; 1 of 3 rounds at or above")


def test_no_rounds():
    assert goal_verdict([], 1.3) == "no data"
