"""`ito-lab all` times each experiment and writes results/all_times.csv (what the README
quotes for `make demo`); a failing experiment is timed and marked, and the others still run."""
import sys
from types import SimpleNamespace

from ito_lab import cli


def test_all_times_each_experiment(tmp_path, monkeypatch, capsys):
    ran = []

    def mod(name, rc=0, boom=False):
        def run(args, ctx):
            ran.append(name)
            if boom:
                raise RuntimeError("boom")
            return rc
        return SimpleNamespace(NAME=name, HELP="", run=run)

    mods = {"alpha": mod("alpha"), "beta": mod("beta", boom=True), "gamma": mod("gamma", rc=3)}
    monkeypatch.setattr(cli, "discover", lambda: mods)
    rc = cli.main(["--results", str(tmp_path), "all"])
    assert rc == 1  # the first failure's code
    assert ran == ["alpha", "beta", "gamma"]
    out = capsys.readouterr().out
    assert "== ito-lab alpha: ok in 0m00s ==" in out
    assert "== ito-lab beta: FAILED in" in out
    assert "total" in out.splitlines()[-1]
    rows = (tmp_path / "all_times.csv").read_text().splitlines()
    assert rows[0] == "experiment,seconds,status,quick"
    assert [r.split(",")[0] for r in rows[1:]] == ["alpha", "beta", "gamma", "total"]
    assert [r.split(",")[2] for r in rows[1:4]] == ["ok", "failed", "failed"]
    assert all(float(r.split(",")[1]) >= 0 for r in rows[1:])


def test_fmt_duration():
    assert cli.fmt_duration(59.6) == "1m00s"
    assert cli.fmt_duration(3725) == "1h02m05s"
