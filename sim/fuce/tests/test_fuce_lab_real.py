"""The real half's contract in ito-lab cefos-io: 'not yet built' without the program, parsed when present."""
import os
import stat

import pytest

lab = pytest.importorskip("ito_lab.experiments.cefos_io")
from ito_lab.context import Context  # noqa: E402


def test_real_half_reports_not_yet_built(tmp_path):
    r = lab.run_real(Context(results_dir=tmp_path / "res", build_dir=tmp_path / "build", quick=True))
    assert r["rows"] == [] and r["status"].startswith("not yet built")


def test_real_half_takes_the_max_over_n(tmp_path):
    prog = tmp_path / "build" / lab.REAL_PROGRAM
    prog.parent.mkdir(parents=True)
    # a stand-in program: completed = min(n, 10 * devices + workers) for n = 5, 10, ..., 60
    prog.write_text("#!/bin/sh\nW=$2; D=$4\necho workers,devices,n,completed\n"
                    "for n in 5 10 15 20 25 30 35 40 45 50 55 60; do\n"
                    "  c=$((10 * D + W)); [ $n -lt $c ] && c=$n\n  echo $W,$D,$n,$c\ndone\n")
    prog.chmod(prog.stat().st_mode | stat.S_IXUSR)
    r = lab.run_real(Context(results_dir=tmp_path / "res", build_dir=tmp_path / "build", quick=True))
    rows = {(w, d): (x, n) for w, d, x, n in r["rows"]}
    workers = [w for w in lab.TEUS if w <= (os.cpu_count() or 1)]
    assert set(rows) == {(w, d) for w in workers for d in lab.DEVICES}
    assert rows[(1, 3)] == (31, 35)
