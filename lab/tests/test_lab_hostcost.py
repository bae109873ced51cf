"""The host helpers: lat_host's output parsed, the table beside the paper's Table 1, the
crossing / per-request model of Fig. 11 and its break-even, min / median / max."""
import pytest

from ito_lab import host, hostcost

OUT = """noise
RESULT bench=lat_host what=null_call ns=100.00 cycles=200 tsc_ghz=2.000 trials=3
RESULT bench=lat_host what=ctx_0k ns=1000.00 cycles=2000 tsc_ghz=2.000 trials=3
RESULT bench=lat_host what=mem_l1 ns=2.00 cycles=4 tsc_ghz=2.000 trials=3
"""


def test_parse_and_table():
    r = hostcost.parse(OUT)
    assert r["null_call"] == (100.0, 200.0, 2.0) and r["ctx_0k"][1] == 2000.0
    with pytest.raises(ValueError):
        hostcost.parse("RESULT bench=lat_host what=ctx_0k ns=1 cycles=2 tsc_ghz=2 trials=1")
    r2 = hostcost.parse(OUT.replace("cycles=200 ", "cycles=300 "))
    heading, text = hostcost.table_section([r, r2, r], [0.2, 0.3, 0.1])
    assert "Table 1" in heading and "(quiet)" in text
    assert "| null call | 200 (200–300) |" in text          # median (min–max) over the runs
    assert "1090" in text                                    # the paper's Pentium 4 beside it
    _, noisy = hostcost.table_section([r], [2.5])
    assert "NOT quiet" in noisy


def test_crossing_model_and_break_even():
    # ns per call = 400 / K + 50: recovered from the smallest and the largest K
    curve = {k: 400 / k + 50 for k in (1, 2, 4, 8, 16, 32, 64)}
    c, r = hostcost.crossing_model(curve)
    assert c == pytest.approx(400) and r == pytest.approx(50)
    assert hostcost.break_even(c, r, 150) == pytest.approx(4.0)     # 400 / (150 - 50)
    assert hostcost.break_even(c, r, 50) is None                     # per request >= plain: never
    assert hostcost.crossing_model({1: 10.0}) is None


def test_spread_and_host_line():
    assert host.spread([3, 1, 2]) == (1, 2, 3)
    assert host.spread_text([1.0, 2.0, 4.0], "{:.1f}") == "2.0 (1.0–4.0)"
    with pytest.raises(ValueError):
        host.spread([])
    line = host.host_line()
    assert line.startswith("host: ") and "load" in line and host.cpu_model() in line
