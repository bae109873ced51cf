"""plot.py writes PNGs; progress.py reports steps and prints tables."""
import io

import pytest
from rich.console import Console

from ito_lab.plot import bar_chart, line_chart
from ito_lab.progress import print_table, steps

PNG = b"\x89PNG\r\n\x1a\n"


def test_bar_chart_writes_a_png_and_skips_undrawable_values(tmp_path):
    p = bar_chart(tmp_path / "d" / "b.png", ["ito", "go", "none", "zero"], [3.5, 80.0, None, 0.0],
                  title="t", ylabel="ns", log=True, highlight=["ito"], hlines={"target": 10.0})
    assert p.read_bytes().startswith(PNG)


def test_bar_chart_with_no_data_still_draws(tmp_path):
    p = bar_chart(tmp_path / "e.png", [], [], title="t", ylabel="ns", log=True)
    assert p.read_bytes().startswith(PNG)


def test_bar_chart_rejects_mismatched_lengths(tmp_path):
    with pytest.raises(ValueError):
        bar_chart(tmp_path / "x.png", ["a"], [1.0, 2.0], title="t", ylabel="y")


def test_line_chart_with_reference(tmp_path):
    p = line_chart(tmp_path / "l.png", {"ito": ([1, 2, 4], [1.0, 1.8, 3.5])}, title="t",
                   xlabel="p", ylabel="speed-up", logx=True,
                   reference={"paper": ([1, 2, 4], [1.0, 1.9, float("nan")])})
    assert p.read_bytes().startswith(PNG)
    with pytest.raises(ValueError):
        line_chart(tmp_path / "m.png", {"x": ([1, 2], [1.0])}, title="t", xlabel="x", ylabel="y")


def _console():
    buf = io.StringIO()
    return Console(file=buf, force_terminal=False, width=100), buf


def test_steps_prints_one_line_per_step_off_a_terminal():
    con, buf = _console()
    with steps(2, "bench", out=con) as step:
        step("a switch")
        step("b yield")
    assert buf.getvalue().splitlines() == ["[1/2] bench: a switch", "[2/2] bench: b yield"]


def test_steps_on_a_terminal_runs_without_error():
    con = Console(file=io.StringIO(), force_terminal=True, width=100)
    with steps(2, "bench", out=con) as step:
        step("one")
        step("two")


def test_print_table():
    con, buf = _console()
    print_table("T", ["system", "ns"], [["go", 80.5], ["pthread", 22385.2]], out=con)
    out = buf.getvalue()
    assert "80.50" in out and "22,385" in out and "pthread" in out
    with pytest.raises(ValueError):
        print_table("T", ["a", "b"], [[1]], out=con)
