"""The `ito-lab spawn` experiment module (lab/ito_lab/experiments/spawn.py) around this simulator:
its real-measurement half (parsing, tables, "not yet built") and one quick end-to-end run."""
import argparse
import os
import stat

import pytest

spawn = pytest.importorskip("ito_lab.experiments.spawn")
context = pytest.importorskip("ito_lab.context")

FAKE_OUTPUT = """some banner
RESULT benchmark=spawn scheme=loop workers=2 n=1000 median_ns=100.0 trials=5
RESULT benchmark=spawn scheme=serial workers=2 n=1000 median_ns=50.0 trials=5
RESULT benchmark=spawn scheme=chunk workers=2 n=1000 median_ns=20.0 trials=5
RESULT benchmark=other system=x median_ns=1 trials=1
"""


def test_parse_and_table():
    res = spawn.parse_results(FAKE_OUTPUT)
    assert len(res) == 4 and res[2]["scheme"] == "chunk"
    rows = spawn.real_table(res)
    assert rows == [(1000, 2, "loop", "100.0", "0.50", "1.00"),
                    (1000, 2, "serial", "50.0", "1.00", "2.00"),
                    (1000, 2, "chunk", "20.0", "2.50", "5.00")]


def test_run_real_not_yet_built(tmp_path):
    ctx = context.Context(results_dir=tmp_path / "r", build_dir=tmp_path / "nobuild")
    [(heading, body)] = spawn.run_real(ctx)
    assert "Not yet built" in body and spawn.REAL_PROGRAM in body


def test_run_real_with_a_program(tmp_path):
    prog = tmp_path / "b" / spawn.REAL_PROGRAM
    prog.parent.mkdir(parents=True)
    prog.write_text("#!/bin/sh\ncat <<'X'\n" + FAKE_OUTPUT + "X\n")
    prog.chmod(prog.stat().st_mode | stat.S_IXUSR)
    ctx = context.Context(results_dir=tmp_path / "r", build_dir=tmp_path / "b")
    [(heading, body)] = spawn.run_real(ctx)
    assert "| 1000 | 2 | chunk | 20.0 | 2.50 | 5.00 |" in body
    assert (tmp_path / "r" / "spawn" / "real.csv").exists()


def test_quick_run_writes_everything(tmp_path):
    ctx = context.Context(results_dir=tmp_path / "r", build_dir=tmp_path / "nobuild", quick=True)
    args = argparse.Namespace(sim_only=False, real_only=False, jobs=1)
    assert spawn.run(args, ctx) == 0
    out = tmp_path / "r" / "spawn"
    for f in ("report.md", "sim_speedup.csv", "sim_examples.png", "sim_fig4.png",
              "sim_fig10a.png", "sim_fig10b.png", "sim_fig11.png", "sim_fig12a.png",
              "sim_fig12b.png"):
        assert (out / f).stat().st_size > 0, f
    text = (out / "report.md").read_text()
    assert "| Fig. 8 | chunk | 1 | 14 |" in text
    assert "Not yet built" in text
    assert os.path.getsize(out / "sim_speedup.csv") > 1000


def test_real_spread_and_speedups():
    run1 = spawn.parse_results(
        "RESULT benchmark=spawn_run scheme=serial workers=1 n=1000 median_ns=20.0 trials=5\n"
        "RESULT benchmark=spawn_run scheme=chunk workers=1 n=1000 median_ns=22.0 trials=5\n"
        "RESULT benchmark=spawn_run scheme=chunk workers=2 n=1000 median_ns=10.0 trials=5\n")
    run2 = spawn.parse_results(
        "RESULT benchmark=spawn_run scheme=serial workers=1 n=1000 median_ns=30.0 trials=5\n"
        "RESULT benchmark=spawn_run scheme=chunk workers=2 n=1000 median_ns=12.0 trials=5\n")
    run3 = spawn.parse_results(
        "RESULT benchmark=spawn_run scheme=serial workers=1 n=1000 median_ns=40.0 trials=5\n"
        "RESULT benchmark=spawn_run scheme=chunk workers=2 n=1000 median_ns=14.0 trials=5\n")
    by = spawn.real_medians([run1, run2, run3])
    assert by[(1000, 2, "chunk", "spawn_run")] == [10.0, 12.0, 14.0]
    rows = spawn.real_spread_rows(by)
    assert ("spawn_run", 1000, 2, "chunk", "12.0", "10.0", "14.0", 3) in rows
    sp = spawn.real_speedups(by)  # over the median serial on 1 worker: 30 ns
    assert sp["serial"] == [(1, 1.0)]
    assert sp["chunk"] == [(1, 30.0 / 22.0), (2, 30.0 / 12.0)]


def test_plot_real(tmp_path):
    by = {(1000, 1, "serial", "spawn_run"): [20.0], (1000, 2, "chunk", "spawn_run"): [10.0]}
    assert spawn.plot_real(by, tmp_path) == "real_speedup.png"
    assert (tmp_path / "real_speedup.png").stat().st_size > 0
    assert spawn.plot_real({}, tmp_path) is None
