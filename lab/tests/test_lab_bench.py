"""The bench experiment: validation, ratios, targets, report, and a whole run on fake programs."""
import argparse
import os
import stat

import pytest

from ito_lab.context import Context
from ito_lab.experiments import bench
from ito_lab.report import read_csv


def M(b, s, ns, trials=31, prog="p"):
    return bench.Measurement(b, s, float(ns), trials, prog)


def table_of(*ms):
    t, notes = bench.merge(list(ms))
    assert notes == []
    return t


# ---------------------------------------------------------------- validation

def test_measurements_from_valid_results():
    (m,) = bench.measurements_from([{"benchmark": "yield", "system": "go", "median_ns": 80,
                                     "trials": 31, "extra": "ok"}], "bench_go")
    assert (m.benchmark, m.system, m.median_ns, m.trials, m.program) == \
        ("yield", "go", 80.0, 31, "bench_go")
    assert isinstance(m.median_ns, float)


@pytest.mark.parametrize("bad,msg", [
    ({"benchmark": "yield", "system": "go", "median_ns": 1.0}, "without trials"),
    ({"system": "go", "median_ns": 1.0, "trials": 3}, "without benchmark"),
    ({"benchmark": "yield", "system": "go", "median_ns": "nan", "trials": 3}, "positive number"),
    ({"benchmark": "yield", "system": "go", "median_ns": float("inf"), "trials": 3}, "positive"),
    ({"benchmark": "yield", "system": "go", "median_ns": -1.0, "trials": 3}, "positive number"),
    ({"benchmark": "yield", "system": "go", "median_ns": 0, "trials": 3}, "positive number"),
    ({"benchmark": "yield", "system": "go", "median_ns": 1.0, "trials": 2.5}, "trials"),
    ({"benchmark": "yield", "system": "go", "median_ns": 1.0, "trials": 0}, "trials"),
    ({"benchmark": "yield", "system": "go", "median_ns": True, "trials": 3}, "positive number"),
    ({"benchmark": "Yield!", "system": "go", "median_ns": 1.0, "trials": 3}, "benchmark name"),
    ({"benchmark": "yield", "system": 7, "median_ns": 1.0, "trials": 3}, "system name"),
])
def test_measurements_from_rejects_bad_results(bad, msg):
    with pytest.raises(ValueError, match=msg):
        bench.measurements_from([bad])


def test_merge_orders_by_vocabulary_and_keeps_the_first_duplicate():
    t, notes = bench.merge([M("yield", "pthread", 2000, prog="a"), M("switch", "ucontext", 160),
                            M("yield", "ito", 9), M("yield", "pthread", 1, prog="b"),
                            M("zzz", "other", 1), M("switch", "ito-abi", 4)])
    assert list(t) == [("switch", "ito-abi"), ("switch", "ucontext"), ("yield", "ito"),
                       ("yield", "pthread"), ("zzz", "other")]
    assert t[("yield", "pthread")].median_ns == 2000
    assert len(notes) == 1 and "printed again by b" in notes[0]


def test_csv_rows_with_the_fixed_header(tmp_path):
    from ito_lab.report import write_csv
    t = table_of(M("switch", "boost-context", 4.3), M("create_1m", "go", 177.12345, 5))
    p = write_csv(tmp_path / "bench.csv", bench.CSV_HEADER, bench.csv_rows(t))
    assert p.read_text().splitlines() == ["benchmark,system,median_ns,trials",
                                          "switch,boost-context,4.300,31",
                                          "create_1m,go,177.123,5"]


# ---------------------------------------------------------------- ratios and targets

def test_ratio_rows_are_ito_over_peer_and_none_when_missing():
    t = table_of(M("yield", "ito", 10), M("yield", "boost-fiber", 40), M("yield", "pthread", 2000))
    rows = bench.ratio_rows(t, ["yield"])
    assert rows == [["yield", "ito", 10.0, "boost-fiber", 40.0, 0.25],
                    ["yield", "ito", 10.0, "go", None, None],
                    ["yield", "ito", 10.0, "pthread", 2000.0, 0.005],
                    ["yield", "ito", 10.0, "argobots", None, None]]


def test_ratio_rows_cover_every_ito_flavour_of_switch():
    t = table_of(M("switch", "ito-abi", 4), M("switch", "ito-full", 30),
                 M("switch", "boost-context", 5))
    rows = bench.ratio_rows(t, ["switch"])
    assert [(r[1], r[3]) for r in rows] == [(i, p) for i in ("ito-abi", "ito-min", "ito-full")
                                            for p in ("boost-context", "ucontext")]
    assert rows[0][5] == pytest.approx(0.8)
    assert rows[2][2] is None and rows[2][5] is None  # ito-min missing
    assert rows[4][5] == pytest.approx(6.0)


def test_target_rows_statuses():
    t = table_of(M("switch", "ito-abi", 4.3), M("switch", "boost-context", 4.3),
                 M("yield", "ito", 10.5), M("create_join", "boost-fiber", 183))
    rows = {(r[0], r[2]): r for r in bench.target_rows(t)}
    assert rows[("switch", "<= boost-context")][3:] == [4.3, 4.3, "met"]  # equal is "no slower"
    assert rows[("yield", "<= 10 ns")][3:] == [10.5, 10.0, "not met"]
    assert rows[("yield", "<= 12 ns (issue 15)")][3:] == [10.5, 12.0, "met"]
    assert rows[("create_join", "<= 20 ns")][3:] == [None, 20.0, "missing"]


def test_switch_target_is_missing_without_the_peer():
    t = table_of(M("switch", "ito-abi", 1.0))
    assert bench.target_rows(t)[0][3:] == [1.0, None, "missing"]


def test_missing_pairs():
    t = table_of(M("yield", "ito", 1), M("yield", "go", 2))
    assert bench.missing_pairs(t, ["yield"]) == [("yield", "boost-fiber"), ("yield", "pthread"),
                                                  ("yield", "argobots")]


def test_argobots_targets_need_the_peer_in_the_same_run():
    t = table_of(M("yield", "ito", 10.0), M("create_join", "ito", 30.0), M("create_join", "argobots", 25.0))
    rows = {(r[0], r[2]): r for r in bench.target_rows(t)}
    assert rows[("yield", "<= argobots, same run (issue 15)")][3:] == [10.0, None, "missing"]
    assert rows[("create_join", "<= argobots, same run (issue 15)")][3:] == [30.0, 25.0, "not met"]


def test_lscpu_model():
    text = "Architecture:   x86_64\nModel name:      AMD EPYC 7B13\nThread(s) per core: 1\n"
    assert bench.lscpu_model(text) == "AMD EPYC 7B13"
    assert bench.lscpu_model("Model name:   \nFoo: bar\n") is None
    assert bench.lscpu_model("") is None


def test_build_sections_shows_missing_failures_and_plots(tmp_path):
    t = table_of(M("yield", "ito", 12.0), M("yield", "go", 80.0))
    runs = [bench.Run("bench_go", "yield", ["bench_go", "--only", "yield"],
                      measurements=[t[("yield", "go")]]),
            bench.Run("bench_x", "yield", ["bench_x", "--only", "yield"], error="exit code 1"),
            bench.Run("bench_go", "switch", ["bench_go", "--only", "switch"])]
    secs = dict(bench.build_sections(
        machine={"kernel": "6.1"}, command="ito-lab bench", pinning="pinned", table=t, runs=runs,
        missing_programs=["bench_ucontext"], notes=["a note"], plots=[tmp_path / "yield.png"],
        report_dir=tmp_path, benchmarks=["yield"]))
    assert "- kernel: 6.1" in secs["Machine"]
    assert "ito-lab bench" in secs["Command"]
    assert "| yield | ito | go | 80.00 | 0.15x |" in \
        secs["Ratio ito / peer (below 1: ito is faster)"].replace("12.00 | ", "")
    assert "`bench_ucontext`" in secs["Missing"] and "yield/boost-fiber" in secs["Missing"]
    assert "exit code 1" in secs["Failures"]
    assert secs["Plots"] == "![yield](yield.png)"
    assert "1 more run(s) printed nothing" in secs["Runs"]
    assert secs["Notes"] == "- a note"


# ---------------------------------------------------------------- a whole run, fake programs

GOOD = """#!/bin/sh
# a fake peer: answers --only switch and --only yield
only=""; trials=""
while [ $# -gt 0 ]; do
  case "$1" in
    --only) only="$2"; shift 2;;
    --trials) trials="$2"; shift 2;;
    --quick) shift;;
    *) echo "usage" >&2; exit 2;;
  esac
done
echo "some chatter"
case "$only" in
  switch) echo "RESULT benchmark=switch system=ito-abi median_ns=4.000 trials=$trials"
          echo "RESULT benchmark=switch system=boost-context median_ns=5.000 trials=$trials";;
  yield)  echo "RESULT benchmark=yield system=ito median_ns=12.500 trials=$trials";;
esac
"""
CRASH = "#!/bin/sh\necho 'boom' >&2\nexit 3\n"
MALFORMED = "#!/bin/sh\necho 'RESULT benchmark=yield system=go median_ns=fast trials=3'\n"
FOREIGN = "#!/bin/sh\necho 'usage: bench_other [--workers W]' >&2\nexit 2\n"


def _script(path, text, mode=0o755):
    path.write_text(text)
    os.chmod(path, mode)


def _setup(tmp_path, programs):
    bdir = tmp_path / "build" / "bench"
    bdir.mkdir(parents=True)
    for name, text in programs.items():
        _script(bdir / name, text)
    _script(bdir / "bench_not_executable", GOOD, 0o644)
    _script(bdir / "helper_not_a_bench", CRASH)
    return Context(results_dir=tmp_path / "results", build_dir=tmp_path / "build", quick=True)


def _args(*argv):
    p = argparse.ArgumentParser()
    bench.add_arguments(p)
    return p.parse_args(list(argv))


def test_discover_programs(tmp_path):
    ctx = _setup(tmp_path, {"bench_ito": GOOD, "bench_go": GOOD})
    assert [p.name for p in bench.discover_programs(ctx.build_dir / "bench")] == \
        ["bench_go", "bench_ito"]
    assert bench.discover_programs(tmp_path / "nowhere") == []


def test_run_writes_csv_report_and_plots(tmp_path):
    ctx = _setup(tmp_path, {"bench_ito": GOOD, "bench_other": FOREIGN})
    rc = bench.run(_args("--no-pin", "--trials", "3"), ctx)
    assert rc == 0  # missing programs and a foreign bench_* program are not failures
    header, rows = read_csv(ctx.results_dir / "bench.csv")
    assert header == ["benchmark", "system", "median_ns", "trials"]
    assert rows == [["switch", "ito-abi", "4.000", "3"], ["switch", "boost-context", "5.000", "3"],
                    ["yield", "ito", "12.500", "3"]]
    out = ctx.results_dir / "bench"
    assert (out / "switch.png").exists() and (out / "yield.png").exists()
    assert not (out / "create_join.png").exists()
    rep = (out / "report.md").read_text()
    assert rep.startswith("# ito side by side: microbenchmarks\n")
    assert "| switch | ito-abi | 4.00 | boost-context | 5.00 | 0.8x |" in rep
    assert "| switch | ito-abi | <= boost-context | 4.00 | 5.00 | met |" in rep
    assert "| yield | ito | <= 10 ns | 12.50 | 10.00 | not met |" in rep
    assert "`bench_pthread`" in rep and "bench_not_executable" not in rep
    assert "`bench_other` rejected `--only`" in rep
    assert "--no-pin" in rep and "![switch](switch.png)" in rep


def test_run_reports_failures_and_still_writes_everything(tmp_path):
    ctx = _setup(tmp_path, {"bench_ito": GOOD, "bench_go": MALFORMED, "bench_pthread": CRASH})
    rc = bench.run(_args("--no-pin", "--only", "yield"), ctx)
    assert rc == 1
    header, rows = read_csv(ctx.results_dir / "bench.csv")
    assert rows == [["yield", "ito", "12.500", "11"]]  # --quick: 11 trials by default
    rep = (ctx.results_dir / "bench" / "report.md").read_text()
    assert "exit code 3: boom" in rep
    assert "malformed output" in rep and "median_ns must be a positive number" in rep
    assert "<= boost-context" not in rep  # only the targets of the benchmarks that ran
    assert "| yield | ito | <= 10 ns |" in rep


def test_run_falls_back_to_unpinned_when_taskset_fails(tmp_path, capsys):
    ctx = _setup(tmp_path, {"bench_ito": GOOD})
    rc = bench.run(_args("--cpu", "4095", "--only", "switch"), ctx)
    assert rc == 0
    assert "running unpinned" in capsys.readouterr().err
    rep = (ctx.results_dir / "bench" / "report.md").read_text()
    assert "All benchmarks ran unpinned (taskset failed)." in rep
    assert read_csv(ctx.results_dir / "bench.csv")[1][0] == ["switch", "ito-abi", "4.000", "11"]


def test_run_of_a_benchmark_without_target(tmp_path):
    ctx = _setup(tmp_path, {"bench_ito": GOOD})
    assert bench.run(_args("--no-pin", "--only", "create_1m"), ctx) == 0
    rep = (ctx.results_dir / "bench" / "report.md").read_text()
    assert "No target for the benchmarks that ran." in rep
    assert "Not measured: create_1m/ito, create_1m/boost-fiber" in rep


def test_run_with_nothing_built(tmp_path):
    ctx = Context(results_dir=tmp_path / "r", build_dir=tmp_path / "b", quick=False)
    assert bench.run(_args("--no-pin"), ctx) == 0
    assert (tmp_path / "r" / "bench.csv").read_text() == "benchmark,system,median_ns,trials\n"
    rep = (tmp_path / "r" / "bench" / "report.md").read_text()
    assert "Programs not built: `bench_ito`" in rep


def test_pinned_commands_leave_create_1m_unpinned(tmp_path, monkeypatch):
    ctx = _setup(tmp_path, {"bench_ito": GOOD})
    seen = []
    monkeypatch.setattr(bench, "pin_prefix", lambda cpu, warn: ["taskset", "-c", str(cpu)])
    monkeypatch.setattr(bench, "run_one", lambda r, timeout: seen.append(r.command) or r)
    assert bench.run(_args("--cpu", "0"), ctx) == 0
    by_bench = {c[c.index("--only") + 1]: c for c in seen}
    assert by_bench["switch"][:3] == ["taskset", "-c", "0"]
    assert by_bench["create_1m"][0].endswith("bench_ito")
    assert by_bench["yield"][-1] == "--quick"
    seen.clear()
    bench.run(_args("--cpu", "0", "--pin-1m", "--only", "create_1m"), ctx)
    assert seen[0][:3] == ["taskset", "-c", "0"]


def test_executable_bit_matters(tmp_path):
    p = tmp_path / "bench_x"
    _script(p, GOOD, 0o644)
    assert not (p.stat().st_mode & stat.S_IXUSR)
    assert bench.discover_programs(tmp_path) == []


def test_zwt_graphs_are_compared_with_tbb_and_psafe_has_a_target():
    table, _ = bench.merge([M("zwt_chain_1w", "ito", 8.0), M("zwt_chain_1w", "tbb", 32.0),
                            M("psafe", "ito", 1.5)])
    rows = bench.ratio_rows(table, bench.GRAPH_BENCHMARKS + ("psafe",))
    chain = [r for r in rows if r[0] == "zwt_chain_1w"]
    assert chain and chain[0][3] == "tbb" and chain[0][5] == pytest.approx(0.25)
    assert not [r for r in rows if r[0] == "psafe"]  # no peer: the paper's signal is in the text
    assert [t for t in bench.TARGETS if t.benchmark == "psafe" and t.ns == 2.0]


def test_combine_rounds_gives_median_and_spread():
    from ito_lab.experiments import bench as B
    rounds = []
    for v in (12.0, 10.0, 30.0):
        t, _ = B.merge([B.Measurement("yield", "ito", v, 11, "bench_ito"),
                        B.Measurement("yield", "go", 3 * v, 11, "bench_go")])
        rounds.append(t)
    rounds.append(B.merge([B.Measurement("yield", "ito", 11.0, 11, "bench_ito")])[0])  # go missing once
    table, spread = B.combine_rounds(rounds)
    assert table[("yield", "ito")].median_ns == 11.5  # even count: mean of the middle two
    assert spread[("yield", "ito")] == (10.0, 11.5, 30.0, 4)
    assert spread[("yield", "go")] == (30.0, 36.0, 90.0, 3)
    rows = B.ratio_rows(table, ("yield",))
    assert any(r[3] == "go" and abs(r[5] - 11.5 / 36.0) < 1e-12 for r in rows)


def test_which_programs_run_which_benchmarks():
    assert bench.runs_program("switch_fp", "bench_boost_context")
    assert not bench.runs_program("switch_fp", "bench_go")
    assert bench.runs_program("switch_pair", "bench_switch_pair")
    assert not bench.runs_program("yield", "bench_switch_pair")
    assert not bench.runs_program("yield", "bench_timer")
    assert bench.runs_program("yield", "bench_go")
    assert bench.runs_program("yield_sites", "bench_ito")
    assert not bench.runs_program("yield_sites", "bench_go")
