"""The real half's contract in ito-lab cefos-io: 'not yet built' without the program, parsed when present."""
import os
import stat

import pytest

lab = pytest.importorskip("ito_lab.experiments.cefos_io")
from ito_lab.context import Context  # noqa: E402


def test_real_half_reports_not_yet_built(tmp_path):
    r = lab.run_real(Context(results_dir=tmp_path / "res", build_dir=tmp_path / "build", quick=True))
    assert r["rows"] == [] and r["status"].startswith("not yet built")


def test_real_half_parses_the_result_lines(tmp_path):
    prog = tmp_path / "build" / lab.REAL_PROGRAM
    prog.parent.mkdir(parents=True)
    # a stand-in for workloads/cefos_io: one RESULT line, completed = 1000 * devices + workers
    prog.write_text("#!/bin/sh\nW=$2; D=$4\necho noise before\n"
                    "echo RESULT workload=cefos_io workers=$W devices=$D rtt_ns=2000 period_ns=1e7 "
                    "senders=64 completed=$((1000 * D + W)) throughput_per_s=1.0 rtt_measured_ns=16000 "
                    "retries=0 poll=sleep\n")
    prog.chmod(prog.stat().st_mode | stat.S_IXUSR)
    r = lab.run_real(Context(results_dir=tmp_path / "res", build_dir=tmp_path / "build", quick=True))
    rows = {(w, d): (x, n) for w, d, x, n in r["rows"]}
    workers = [w for w in lab.TEUS if w <= (os.cpu_count() or 1)]
    assert set(rows) == {(w, d) for w in workers for d in lab.DEVICES}
    assert rows[(1, 3)] == (3001, 64)


def test_real_half_fails_loudly_without_a_result(tmp_path):
    prog = tmp_path / "build" / lab.REAL_PROGRAM
    prog.parent.mkdir(parents=True)
    prog.write_text("#!/bin/sh\necho nothing\n")
    prog.chmod(prog.stat().st_mode | stat.S_IXUSR)
    with pytest.raises(RuntimeError):
        lab.run_real(Context(results_dir=tmp_path / "res", build_dir=tmp_path / "build", quick=True))
