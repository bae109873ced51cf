"""ito-lab net's verdict on the issue's goals: a median is not enough when rounds disagree."""
import os

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


def _table(ito_cpu, ito_sys, client, ito_mps, go_mps):
    row = {"placement": "shared", "conns": 1000, "msgs_per_s_min": 0, "msgs_per_s_max": 0, "syscalls_per_msg": None}
    ito = dict(row, server="ito", msgs_per_s_median=ito_mps, cpu_ns_per_msg_median=ito_cpu,
               server_sys_ns_per_msg_median=ito_sys, client_cpu_ns_per_msg_median=client, ito_over_go=ito_mps / go_mps)
    go = dict(row, server="go", msgs_per_s_median=go_mps, cpu_ns_per_msg_median=2500,
              server_sys_ns_per_msg_median=2000, client_cpu_ns_per_msg_median=client)
    return [ito, go]


def _report_text(tmp_path, table):
    from ito_lab.experiments.net import _report
    _report(tmp_path, table, ["shared"], (1000,), ["ito", "go"], {}, 5, 400000, (0.0, 0.0, 0.0),
            {("shared", 1000, "go"): [1.1, 1.2]})
    return (tmp_path / "report.md").read_text()


def test_the_cpu_bound_is_stated_when_the_model_fits(tmp_path):
    n = len(os.sched_getaffinity(0))
    # server 2,200 + client 2,100 ns per message: CPUs / 4,300 ns, measured to match
    text = _report_text(tmp_path, _table(2200, 1800, 2100, round(n * 1e9 / 4300), 400000))
    bound = n * 1e9 / (1800 + 2100)
    assert f"would reach {bound:.0f}" in text
    assert f"{bound / 400000:.2f}x Go's median" in text


def test_no_bound_when_the_cpu_times_do_not_explain_the_rate(tmp_path):
    text = _report_text(tmp_path, _table(4300, 3300, 3400, 365000, 320000))
    assert "no bound from this run" in text
    assert "would reach" not in text
