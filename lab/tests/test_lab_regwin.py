"""Tests of ito-lab regwin: the derived quantities, the claims table and (when the program
is built) a tiny end-to-end run of the experiment's parsing and report."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from ito_lab.experiments import regwin


def run_row(setting="high-fine", scheme="SP", windows=8, ws=0, **kw):
    r = {"experiment": "regwin", "setting": setting, "m": 1, "n": 1, "scheme": scheme,
         "windows": windows, "ws": ws, "saves": 100, "restores": 100, "overflow_traps": 5,
         "underflow_traps": 5, "switches": 10, "switch_cycles_lo": 900, "switch_cycles_hi": 1100,
         "trap_cycles": 500, "switches_resident": 3, "switch_window_saves": 4,
         "switch_window_restores": 4}
    r.update(kw)
    return r


def test_cycles_and_rates():
    r = run_row()
    assert regwin.cycles_switches(r) == 1000
    assert regwin.total_cycles(r, 2000) == 2000 + 1000 + 500
    assert regwin.avg_switch(r) == 100
    assert regwin.trap_probability(r) == pytest.approx(10 / 200)


def test_saturation_point():
    assert regwin.saturation_point({4: 200.0, 8: 120.0, 16: 103.0, 32: 100.0}) == 16
    assert regwin.saturation_point({4: 100.0, 32: 100.0}) == 4
    # a dip and a rise again: saturation starts after the last point outside the band
    assert regwin.saturation_point({4: 100.0, 8: 150.0, 16: 100.0, 32: 100.0}) == 16
    assert regwin.saturation_point({}) is None


def test_parse_windows_and_collected():
    assert regwin.parse_windows("4-6", False) == (4, 5, 6)
    assert regwin.parse_windows("4,8", False) == (4, 8)
    assert regwin.parse_windows(None, True) == regwin.QUICK_WINDOWS
    assert regwin.parse_windows(None, False) == tuple(range(4, 33))
    assert regwin.parse_collected("==1== Events : Ir\n==1== Collected : 12345\n") == 12345
    assert regwin.parse_collected("nothing") is None


def synthetic_rows():
    """A world where NS is flat, SP falls below it with more windows (as the paper says)."""
    rows = []
    for s in regwin.SETTINGS:
        for ws in (0, 1):
            for w in (4, 8, 32):
                for scheme, lo in (("NS", 1000), ("SNP", {4: 1500, 8: 1100, 32: 900}[w]),
                                   ("SP", {4: 1400, 8: 1000, 32: 800}[w])):
                    rows.append(run_row(s, scheme, w, ws, switch_cycles_lo=lo, switch_cycles_hi=lo))
    return rows


def test_claims_follow_the_data():
    rows = synthetic_rows()
    cl = {(f, p): o for f, p, o in regwin.claims(rows, {s: 0.0 for s in regwin.SETTINGS}, (4, 8, 32))}
    best_many = cl[("Fig. 11", "With sufficient windows the best scheme is SP")]
    assert "high-fine: SP" in best_many
    assert "high-fine: NS" in cl[("Fig. 11", "With few windows NS is best")]
    assert cl[("Fig. 11", "No region where SNP beats both SP and NS")] == "none"
    # make SNP the best at 8 windows in one setting: the claim must say so
    for r in rows:
        if r["setting"] == "high-coarse" and r["windows"] == 8 and r["scheme"] == "SNP" and r["ws"] == 0:
            r["switch_cycles_lo"] = r["switch_cycles_hi"] = 10
    cl = {(f, p): o for f, p, o in regwin.claims(rows, {s: 0.0 for s in regwin.SETTINGS}, (4, 8, 32))}
    assert "high-coarse@8" in cl[("Fig. 11", "No region where SNP beats both SP and NS")]


def test_table1_layout():
    rows = []
    for s in regwin.SETTINGS:
        extra = {f"{t}_resumes": i + 1 for i, t in enumerate(regwin.THREADS)}
        extra.update({f"{t}_saves": 10 * (i + 1) for i, t in enumerate(regwin.THREADS)})
        rows.append(run_row(s, "SP", 8, 0, **extra))
        rows.append(run_row(s, "SP", 8, 1, switches=11, **extra))
    header, body, wsrows = regwin.table1(rows)
    assert len(body) == 8 and body[-1][0] == "Total"
    assert body[-1][1] == sum(range(1, 8))          # our total for high-fine
    assert body[-1][7] == 385099                    # the paper's total beside it
    assert wsrows[0][3] == "+10.0%"


def _built_program() -> Path | None:
    b = os.environ.get("ITO_BUILD_DIR")
    if not b:
        return None
    p = Path(b) / regwin.PROGRAM
    return p if p.exists() else None


@pytest.mark.skipif(_built_program() is None or not Path("/usr/share/dict/american-english").exists(),
                    reason="spellcheck-regwin not built (ITO_BUILD_DIR) or no word list")
def test_end_to_end_small(tmp_path):
    from ito_lab.context import Context

    ctx = Context(results_dir=tmp_path, build_dir=Path(os.environ["ITO_BUILD_DIR"]), quick=True)

    class A:
        windows = "4,32"
        no_valgrind = True

    assert regwin.run(A(), ctx) == 0
    out = tmp_path / "regwin"
    text = (out / "report.md").read_text()
    assert "Table 1" in text and "Fig. 15" in text
    for f in ("fig11.png", "fig15.png", "table1.csv", "table2.csv", "claims.csv"):
        assert (out / f).stat().st_size > 0
    # the switch counts do not depend on the scheme under FIFO (paper sec. 5.2)
    import csv
    with open(out / "fig11.csv") as fh:
        rows = list(csv.DictReader(fh))
    per_setting = {}
    for r in rows:
        per_setting.setdefault(r["setting"], set()).add(r["switches"])
    assert all(len(v) == 1 for v in per_setting.values())
