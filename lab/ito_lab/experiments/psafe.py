"""ito-lab psafe: the preemption-safe policy for blocked programs (Jung, Hyun, Lee; seed 003).

Two halves write into results/psafe/:

  * simulated (this module's run_sim): the paper's 8-processor bus machine, simulated by
    <build>/sim/busmp/busmp, runs the program mixes of Tables 4 and 5 (levels 2-5) and of
    Sect. 5.2 (level 6) under the preemption policy and the preemption-safe policy, and
    reproduces Figs. 5-9 (execution time and cache misses; normalized values for all
    programs) beside the paper's stated numbers;
  * real (run_real): the same mixes on this machine with ito's timer preemption, gangs and
    psafe regions (deliverable 5 of issue 6).  It is not written yet: run_real is the place
    for it, and it should add its rows to the same report through the `sections` list.

Every simulator run checks the computed results of its programs (column `check`); a wrong
result fails the experiment.  Outputs: runs.csv (one row per program, mix and policy),
figures.csv (the values plotted), fig5..fig9 PNGs and report.md.
"""
from __future__ import annotations

import concurrent.futures as cf
import csv
import io
import subprocess
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from ..progress import steps  # noqa: E402
from ..report import image, markdown_table, write_csv, write_report  # noqa: E402

NAME = "psafe"
HELP = "preemption-safe policy for blocked programs: Figs. 5-9 on the simulated bus machine"

LABEL = {"bmm": "B-MM", "blu": "B-LU", "bs": "BS", "fft": "FFT", "ocean": "OCEAN", "mp3d": "MP3D"}
OTHERS = ["fft", "bs", "ocean", "mp3d"]            # Tables 4 and 5, in order of joining
MIXES = {("bmm", lv): ["bmm"] + OTHERS[: lv - 1] for lv in range(2, 6)}
MIXES.update({("blu", lv): ["blu"] + OTHERS[: lv - 1] for lv in range(2, 6)})
MIXES[("both", 6)] = ["bmm", "blu"] + OTHERS        # Sect. 5.2: two blocked programs

# What the paper states in its text (the figures themselves are not legible in our copy).
PAPER = {
    ("bmm", 2, "time"): -25.5, ("bmm", 5, "time"): -12.5,
    ("bmm", 2, "misses"): -32.0, ("bmm", 5, "misses"): -10.7,
    ("blu", 5, "time"): -13.3, ("blu", 5, "misses"): -9.5,
}
PAPER_DELAYED = {"bmm": "3 to 4", "blu": "4 to 5"}

# Paper scale: Tables 1-2 as they are.  Quick scale halves every matrix / grid side (1/8 of
# the blocked programs' work) and scales the three time constants by the same 1/8.
QUICK_TIME_SCALE = 8
PAPER_TIMES = {"quantum": 2_500_000, "signal": 2_700, "switch": 26_425}
BOUND_QUANTA = 10   # the delay bound: 10 quanta = the paper's "100 milliseconds" example


def add_arguments(p):
    p.add_argument("--part", choices=["sim", "real", "all"], default="all",
                   help="sim: the simulated machine; real: this machine (not written yet)")
    p.add_argument("--jobs", type=int, default=2, help="simulator runs in parallel (default 2)")
    p.add_argument("--bound", type=int, default=BOUND_QUANTA,
                   help="delay bound in quanta (default 10 = 100 ms)")


def _times(quick: bool) -> dict:
    if not quick:
        return dict(PAPER_TIMES)
    return {k: v // QUICK_TIME_SCALE for k, v in PAPER_TIMES.items()}


def _command(binary: Path, progs, policy: str, comp: str, quick: bool, bound: int) -> list[str]:
    t = _times(quick)
    return [str(binary), "--policy", policy, "--comp", comp, "--scale", "quick" if quick else "paper",
            "--quantum", str(t["quantum"]), "--signal", str(t["signal"]), "--switch", str(t["switch"]),
            "--bound", str(bound), *progs]


def _run_one(cmd: list[str]) -> list[dict]:
    cp = subprocess.run(["nice", "-n", "10", *cmd], capture_output=True, text=True, timeout=1800)
    if cp.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {cp.returncode}: {cp.stderr.strip()[-1500:]}"
                           f"{cp.stdout.strip()[-1500:]}")
    return list(csv.DictReader(io.StringIO(cp.stdout)))


def _pct(new: float, old: float) -> float:
    return 100.0 * (new - old) / old if old else float("nan")


def run_sim(args, ctx, out: Path) -> list[tuple[str, str]]:
    binary = ctx.program("sim/busmp/busmp")
    bound = getattr(args, "bound", BOUND_QUANTA)
    variants = [("preempt", "sitout"), ("psafe", "sitout"), ("psafe", "shorten")]
    jobs = {}
    for key, progs in MIXES.items():
        for pol, comp in variants:
            jobs[(key, pol, comp)] = _command(binary, progs, pol, comp, ctx.quick, bound)
    results: dict = {}
    with steps(len(jobs), "psafe: simulated runs") as step, \
            cf.ThreadPoolExecutor(max_workers=max(1, getattr(args, "jobs", 2))) as ex:
        futs = {ex.submit(_run_one, cmd): k for k, cmd in jobs.items()}
        for f in cf.as_completed(futs):
            k = futs[f]
            results[k] = f.result()
            step(f"{k[0][0]} level {k[0][1]} {k[1]}/{k[2]}")

    # runs.csv: every row of every run
    header = ["mix", "level", "comp"] + list(next(iter(results.values()))[0].keys())
    rows, bad = [], []
    for (key, pol, comp), rs in sorted(results.items()):
        for r in rs:
            rows.append([key[0], key[1], comp] + list(r.values()))
            if r["check"] != "ok":
                bad.append(f"{key} {pol}: {r['program']}: {r['check']}")
    write_csv(out / "runs.csv", header, rows)
    if bad:
        raise RuntimeError("wrong program results in the simulator: " + "; ".join(bad))

    def get(key, pol, comp, prog):
        for r in results[(key, pol, comp)]:
            if r["program"] == prog:
                return r
        raise KeyError(prog)

    # figures.csv: the plotted values
    fig_rows = []
    for key, progs in MIXES.items():
        for prog in progs:
            pre = get(key, "preempt", "sitout", prog)
            ps = get(key, "psafe", "sitout", prog)
            sh = get(key, "psafe", "shorten", prog)
            fig_rows.append([key[0], key[1], prog, int(pre["finish"]), int(ps["finish"]), int(sh["finish"]),
                             int(pre["misses"]), int(ps["misses"]), int(sh["misses"]),
                             int(ps["finish"]) / int(pre["finish"]), int(ps["misses"]) / int(pre["misses"]),
                             int(ps["regions"]), int(ps["delays"]), int(ps["delayed_ticks"]),
                             int(ps["forced"]), int(ps["delay_cycles"])])
    fig_header = ["mix", "level", "program", "time_preempt", "time_psafe", "time_psafe_shorten",
                  "misses_preempt", "misses_psafe", "misses_psafe_shorten", "norm_time", "norm_misses",
                  "regions", "delays", "delayed_ticks", "forced", "delay_cycles"]
    write_csv(out / "figures.csv", fig_header, fig_rows)
    F = {(r[0], r[1], r[2]): dict(zip(fig_header, r)) for r in fig_rows}

    sections = []
    q = _times(ctx.quick)["quantum"]
    # Figs. 5 and 7: the blocked program by level
    for blk, fig in (("bmm", 5), ("blu", 7)):
        levels = list(range(2, 6))
        vals = [F[(blk, lv, blk)] for lv in levels]
        path = out / f"fig{fig}_{blk}.png"
        fig_, ax = plt.subplots(1, 2, figsize=(10, 4))
        w = 0.38
        xs = range(len(levels))
        for i, (col, what) in enumerate((("time", "execution time (M cycles)"), ("misses", "cache misses (K)"))):
            scale = 1e6 if col == "time" else 1e3
            a = [v[f"{col}_preempt"] / scale for v in vals]
            b = [v[f"{col}_psafe"] / scale for v in vals]
            ax[i].bar([x - w / 2 for x in xs], a, w, label="preemption", color="#5d6d7e")
            ax[i].bar([x + w / 2 for x in xs], b, w, label="preemption-safe", color="#c0392b")
            ax[i].set_xticks(list(xs), [f"level {lv}" for lv in levels])
            ax[i].set_ylabel(what)
            ax[i].set_title(f"({'ab'[i]}) {LABEL[blk]} {col}")
            ax[i].legend(fontsize=8)
        fig_.suptitle(f"Fig. {fig}: {LABEL[blk]} under both policies (simulated)")
        fig_.tight_layout()
        fig_.savefig(path, dpi=120)
        plt.close(fig_)
        rows_ = []
        for lv, v in zip(levels, vals):
            dt, dm = _pct(v["time_psafe"], v["time_preempt"]), _pct(v["misses_psafe"], v["misses_preempt"])
            pt, pm = PAPER.get((blk, lv, "time")), PAPER.get((blk, lv, "misses"))
            rows_.append([lv, v["time_preempt"], v["time_psafe"], round(dt, 1),
                          "" if pt is None else pt, v["misses_preempt"], v["misses_psafe"], round(dm, 1),
                          "" if pm is None else pm,
                          round(_pct(v["time_psafe_shorten"], v["time_preempt"]), 1),
                          round(_pct(v["misses_psafe_shorten"], v["misses_preempt"]), 1)])
        txt = (image(path, f"Fig. {fig}", out) + "\n\n" + markdown_table(
            ["level", "time preempt", "time psafe", "time %", "paper time %", "misses preempt",
             "misses psafe", "misses %", "paper misses %", "time % (shorten)", "misses % (shorten)"], rows_))
        sections.append((f"Fig. {fig}: {LABEL[blk]} by programming level", txt))
    # Figs. 6, 8, 9: normalized values of all programs
    for key, fig in ((("bmm", (4, 5)), 6), (("blu", (4, 5)), 8), (("both", (6,)), 9)):
        mix, lvls = key
        path = out / f"fig{fig}_{mix}_all.png"
        fig_, ax = plt.subplots(1, 2, figsize=(11, 4))
        rows_ = []
        w = 0.8 / len(lvls)
        for j, lv in enumerate(lvls):
            progs = MIXES[(mix, lv)]
            for i, col in enumerate(("norm_time", "norm_misses")):
                ax[i].bar([x + (j - (len(lvls) - 1) / 2) * w for x in range(len(progs))],
                          [F[(mix, lv, p)][col] for p in progs], w, label=f"level {lv}")
                ax[i].set_xticks(range(len(progs)), [LABEL[p] for p in progs])
            for p in progs:
                v = F[(mix, lv, p)]
                rows_.append([lv, LABEL[p], round(v["norm_time"], 3), round(v["norm_misses"], 3)])
        for i, t in enumerate(("(a) execution time, psafe / preempt", "(b) cache misses, psafe / preempt")):
            ax[i].axhline(1.0, color="black", lw=0.8)
            ax[i].set_title(t)
            ax[i].set_ylim(0, 1.2)
            ax[i].legend(fontsize=8)
        fig_.suptitle(f"Fig. {fig}: all programs, normalized to the preemption policy (simulated)")
        fig_.tight_layout()
        fig_.savefig(path, dpi=120)
        plt.close(fig_)
        sections.append((f"Fig. {fig}: all programs at level{'s' if len(lvls) > 1 else ''} "
                         f"{', '.join(map(str, lvls))} (normalized)",
                         image(path, f"Fig. {fig}", out) + "\n\n" +
                         markdown_table(["level", "program", "time psafe/preempt", "misses psafe/preempt"], rows_)))
    # delayed switches
    rows_ = []
    for key in MIXES:
        for blk in ("bmm", "blu"):
            if blk not in MIXES[key]:
                continue
            v = F[(key[0], key[1], blk)]
            blocks = v["regions"] / 8
            rows_.append([f"{key[0]} L{key[1]}", LABEL[blk], round(blocks, 1), v["delays"], v["delayed_ticks"],
                          round(v["delayed_ticks"] / blocks, 2) if blocks else "",
                          round(v["delay_cycles"] / v["delays"] / q, 2) if v["delays"] else "",
                          v["forced"], PAPER_DELAYED[blk]])
    sections.append(("Delayed context switches", markdown_table(
        ["mix", "program", "blocks per process", "delays", "delayed switches", "delayed switches per block",
         "mean delay (quanta)", "forced", "paper: per block"], rows_)))
    return sections


def run_real(args, ctx, out: Path) -> list[tuple[str, str]]:
    """Deliverable 5 (the same mixes on this machine with ito's preemption) goes here.

    Not implemented in this module yet; it returns a section saying so, so that the report
    never presents simulated numbers as measured ones."""
    return [("Real run on this machine",
             "Not part of this run: the real-run half (ito's timer preemption, gangs and psafe "
             "regions, deliverable 5 of issue 6) is not written yet.")]


def run(args, ctx) -> int:
    out = ctx.out(NAME)
    part = getattr(args, "part", "all")
    sections = [("What ran", (
        f"Scale: {'quick (matrix and grid sides halved, time constants / 8)' if ctx.quick else 'paper'}; "
        f"quantum {_times(ctx.quick)['quantum']:,} cycles, signal {_times(ctx.quick)['signal']:,}, "
        f"context switch {_times(ctx.quick)['switch']:,}, delay bound "
        f"{getattr(args, 'bound', BOUND_QUANTA)} quanta, compensation by sitting out (Fig. 4) unless "
        "a column says 'shorten'.  Percentages are psafe relative to preempt (negative = better).  "
        "Assumptions and the comparison with the paper: docs/reproductions/psafe.md."))]
    if part in ("sim", "all"):
        sections += run_sim(args, ctx, out)
    if part in ("real", "all"):
        sections += run_real(args, ctx, out)
    write_report(out / "report.md", "Preemption-safe policy for blocked programs (seed 003)", sections)
    print(f"psafe: wrote {out / 'report.md'}")
    return 0

