"""ito-lab psafe: the preemption-safe policy for blocked programs (Jung, Hyun, Lee; seed 003).

Two halves write into results/psafe/:

  * simulated (this module's run_sim): the paper's 8-processor bus machine, simulated by
    <build>/sim/busmp/busmp, runs the program mixes of Tables 4 and 5 (levels 2-5) and of
    Sect. 5.2 (level 6) under the preemption policy and the preemption-safe policy, and
    reproduces Figs. 5-9 (execution time and cache misses; normalized values for all
    programs) beside the paper's stated numbers;
  * real (run_real): the same mixes on this machine with ito's timer preemption, gangs and
    psafe regions (deliverable 5 of issue 6): <build>/workloads/psafe_real/psafe-real, timed
    natively (medians of repetitions) and run again under cachegrind for the cache misses;
    outputs real_runs.csv, real_summary.csv, real_cache.csv, real_blocked.png and its sections
    of report.md.

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
HELP = "preemption-safe policy for blocked programs: Figs. 5-9 on the simulated bus machine, and the real run on ito"

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
                   help="sim: the simulated machine; real: this machine, on ito")
    p.add_argument("--jobs", type=int, default=2, help="simulator runs in parallel (default 2)")
    p.add_argument("--bound", type=int, default=BOUND_QUANTA,
                   help="delay bound in quanta (default 10 = 100 ms)")
    p.add_argument("--real-reps", type=int, default=None,
                   help="real run: repetitions per mix and policy (default 5; 2 with --quick)")
    p.add_argument("--real-quantum", type=int, default=None,
                   help="real run: quantum in microseconds (default: the paper's 2.5 M instructions "
                        "at this machine's measured rate)")
    p.add_argument("--real-no-cache", action="store_true",
                   help="real run: skip the cachegrind runs (no cache misses)")


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


# ---------------------------------------------------------------------------------------------
# The real run (issue 6, deliverable 5): the same mixes on this machine, on ito.
# <build>/workloads/psafe_real/psafe-real runs one mix with every program an ito group of P ULTs
# (gang scheduling on) under one policy and prints CSV; the cache misses come from the same
# runner under valgrind --tool=cachegrind (no hardware counters here).

REAL_BIN = "workloads/psafe_real/psafe-real"
REAL_PAPER_QUANTUM = 2_500_000      # Table 2: the quantum, in (one-CPI) instructions of the paper's machine
REAL_CG_CACHE = ["--I1=32768,8,64", "--D1=131072,1,32", "--LL=4194304,16,64"]
# Kernel functions of each program (static helpers without the program's prefix); anything else
# in the program's own source file counts too, except its setup, size and check functions.
REAL_FILES = {"bmm.c": "bmm", "blu.c": "blu", "bitonic.c": "bs", "fft.c": "fft", "ocean.c": "ocean",
              "mp3d.c": "mp3d"}
REAL_HELPERS = {"update": "blu", "solve_right": "blu", "factor_panel": "blu", "bitrev": "fft",
                "relax": "ocean", "reflect": "mp3d"}
REAL_PREFIX = {"bmm_": "bmm", "blu_": "blu", "bs_": "bs", "fft_": "fft", "ocean_": "ocean", "mp3d_": "mp3d"}
REAL_NOT_KERNEL = ("_setup", "_bytes", "_check")


def parse_real_csv(text: str) -> tuple[dict, list[dict]]:
    """psafe-real's output: one '# key=value ...' line of totals, then a CSV table."""
    meta: dict = {}
    lines = []
    for ln in text.splitlines():
        if ln.startswith("#"):
            for kv in ln[1:].split():
                k, _, v = kv.partition("=")
                if not _:
                    raise ValueError(f"bad totals field {kv!r}")
                meta[k] = int(v)
        elif ln.strip():
            lines.append(ln)
    rows = list(csv.DictReader(io.StringIO("\n".join(lines))))
    need = {"program", "policy", "time_ns", "blocks", "preemptions", "delayed", "delay_ns", "forced", "check"}
    if not rows or not need <= set(rows[0]):
        raise ValueError("psafe-real printed no program rows")
    for r in rows:
        for k in ("time_ns", "blocks", "preemptions", "delayed", "delay_ns", "forced", "n", "b", "iters"):
            r[k] = int(r[k])
    return meta, rows


def _real_owner(fl: str, fn: str) -> str | None:
    """The program a cachegrind cost line belongs to (None: runtime, libc, setup, ...)."""
    base = fn.split(".")[0]                       # strip .constprop.0, .isra.0, .part.0
    if base.endswith(REAL_NOT_KERNEL):
        return None
    if base in REAL_HELPERS:
        return REAL_HELPERS[base]
    for pre, prog in REAL_PREFIX.items():
        if base.startswith(pre):
            return prog
    return REAL_FILES.get(fl.rsplit("/", 1)[-1])


def parse_cachegrind(text: str) -> dict[str, dict[str, int]]:
    """Per-program totals of a cachegrind.out file: {program or 'other': {event: count}}.
    A cost line is 'line count count ...' in the order of the 'events:' header (trailing
    zero counts may be left out)."""
    events: list[str] = []
    out: dict[str, dict[str, int]] = {}
    fl = fn = ""
    owner = None
    for ln in text.splitlines():
        if ln.startswith("events:"):
            events = ln.split()[1:]
        elif ln.startswith("fl="):
            fl, fn = ln[3:], ""
        elif ln.startswith("fn="):
            fn = ln[3:]
            owner = _real_owner(fl, fn) or "other"
        elif ln and ln[0].isdigit():
            if not events or not fn:
                raise ValueError("cachegrind cost line before its events/fn header")
            vals = ln.split()[1:]
            acc = out.setdefault(owner, dict.fromkeys(events, 0))
            for e, v in zip(events, vals):
                acc[e] += int(v)
    if not events:
        raise ValueError("not a cachegrind output file (no events line)")
    return out


def _median(xs):
    s = sorted(xs)
    m = len(s) // 2
    return s[m] if len(s) % 2 else (s[m - 1] + s[m]) / 2


def _real_cmd(binary: Path, progs, policy: str, quantum_us: int, scale: str, bound: int, extra=()):
    return [str(binary), "--policy", policy, "--scale", scale, "--quantum", str(quantum_us),
            "--bound", str(bound), "--workers", "2", *extra, *progs]


def _real_exec(cmd: list[str], cg_out: Path | None = None) -> tuple[dict, list[dict], float]:
    """Run psafe-real (under cachegrind when cg_out is given); wall seconds of the whole run."""
    import time
    full = ["nice", "-n", "10"]
    if cg_out is not None:
        full += ["valgrind", "--tool=cachegrind", "--cache-sim=yes", *REAL_CG_CACHE,
                 f"--cachegrind-out-file={cg_out}"]
    t0 = time.monotonic()
    cp = subprocess.run(full + cmd, capture_output=True, text=True, timeout=1800)
    wall = time.monotonic() - t0
    if cp.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {cp.returncode}: {cp.stderr.strip()[-1500:]}")
    meta, rows = parse_real_csv(cp.stdout)
    bad = [f"{r['program']}: {r['check']}" for r in rows if r["check"] not in ("ok", "unchecked")]
    if bad:
        raise RuntimeError("wrong program results in the real run: " + "; ".join(bad))
    return meta, rows, wall


def real_quantum(rate_ips: float, min_us: int = 100) -> int:
    """The paper's quantum as work: 2.5 M instructions at this machine's measured per-thread
    instruction rate of the blocked kernels, in microseconds (ito's minimum is 100 us)."""
    return max(min_us, int(round(REAL_PAPER_QUANTUM / rate_ips * 1e6)))


def _calibrate(binary: Path, scale: str, out: Path, step) -> dict:
    """Per-thread instruction rate of B-MM and B-LU run alone (native time, cachegrind's
    instruction count of their kernels), and cachegrind's slowdown of the same runs."""
    ir = t_nat = t_cg = 0.0
    for prog in ("bmm", "blu"):
        times = []
        for _ in range(3):
            _, rows, _ = _real_exec(_real_cmd(binary, [prog], "preempt", 10_000, scale, 10))
            times.append(rows[0]["time_ns"])
        cg = out / f"cg_calib_{prog}.out"
        _, rows, _ = _real_exec(_real_cmd(binary, [prog], "preempt", 10_000, scale, 10, ["--no-check"]), cg)
        ir += parse_cachegrind(cg.read_text()).get(prog, {}).get("Ir", 0)
        t_nat += _median(times)
        t_cg += rows[0]["time_ns"]
        step(f"calibration {prog}")
    rate = ir / (2 * t_nat * 1e-9)        # both ULTs run in parallel: instructions per thread-second
    return {"ir": int(ir), "t_native_ns": int(t_nat), "t_cg_ns": int(t_cg), "rate_ips": rate,
            "slowdown": t_cg / t_nat}


def _real_plot(path: Path, S: dict, CG: dict, title: str):
    fig_, ax = plt.subplots(1, 2, figsize=(10, 4))
    w = 0.38
    for blk, off, color in (("bmm", -w / 2, "#2874a6"), ("blu", w / 2, "#c0392b")):
        keys = [k for k in MIXES if blk in MIXES[k]]
        xs = [k[1] for k in keys]
        ax[0].bar([x + off for x in xs], [S[(k, blk)]["norm_time"] for k in keys], w, label=LABEL[blk], color=color)
        ax[1].bar([x + off for x in xs], [CG[(k, blk)]["norm_misses"] if (k, blk) in CG else 0 for k in keys],
                  w, label=LABEL[blk], color=color)
    for i, t in enumerate(("(a) execution time, psafe / preempt (median)", "(b) D1 misses, psafe / preempt (cachegrind)")):
        ax[i].axhline(1.0, color="black", lw=0.8)
        ax[i].set_xlabel("programming level")
        ax[i].set_title(t, fontsize=10)
        ax[i].legend(fontsize=8)
    fig_.suptitle(title)
    fig_.tight_layout()
    fig_.savefig(path, dpi=120)
    plt.close(fig_)


def run_real(args, ctx, out: Path) -> list[tuple[str, str]]:
    """Deliverable 5: the mixes of Tables 4, 5 and Sect. 5.2 on this machine, on ito."""
    binary = ctx.program(REAL_BIN)
    bound = getattr(args, "bound", BOUND_QUANTA)
    scale = "quick" if ctx.quick else "paper"
    reps = getattr(args, "real_reps", None) or (2 if ctx.quick else 5)
    cache = not getattr(args, "real_no_cache", False)
    pols = ("preempt", "psafe")
    n_steps = 2 + len(MIXES) * len(pols) * (reps + (1 if cache else 0))
    with steps(n_steps, "psafe: real runs") as step:
        cal = _calibrate(binary, scale, out, step)
        q = getattr(args, "real_quantum", None) or real_quantum(cal["rate_ips"])
        q_cg = min(10_000_000, int(round(q * cal["slowdown"])))
        runs = []       # (mix, level, rep, row)
        for rep in range(reps):
            for key, progs in MIXES.items():
                for pol in (pols if rep % 2 == 0 else pols[::-1]):   # alternate the order against drift
                    meta, rows, _ = _real_exec(_real_cmd(binary, progs, pol, q, scale, bound))
                    for r in rows:
                        runs.append((key, rep, meta, r))
                    step(f"{key[0]} level {key[1]} {pol} rep {rep + 1}")
        CG: dict = {}
        cg_rows = []
        if cache:
            for key, progs in MIXES.items():
                per = {}
                for pol in pols:
                    cgf = out / f"cg_{key[0]}_L{key[1]}_{pol}.out"
                    _real_exec(_real_cmd(binary, progs, pol, q_cg, scale, bound, ["--no-check"]), cgf)
                    per[pol] = parse_cachegrind(cgf.read_text())
                    cgf.unlink()            # tens of KB each; the counts go to real_cache.csv
                    step(f"{key[0]} level {key[1]} {pol} cachegrind")
                for p in progs + ["other"]:
                    a, b = per["preempt"].get(p, {}), per["psafe"].get(p, {})
                    row = [key[0], key[1], p, a.get("Ir", 0), b.get("Ir", 0), a.get("D1mr", 0) + a.get("D1mw", 0),
                           b.get("D1mr", 0) + b.get("D1mw", 0), a.get("DLmr", 0) + a.get("DLmw", 0),
                           b.get("DLmr", 0) + b.get("DLmw", 0)]
                    cg_rows.append(row)
                    if p != "other" and row[5]:
                        CG[(key, p)] = {"d1_pre": row[5], "d1_ps": row[6], "norm_misses": row[6] / row[5],
                                        "ll_pre": row[7], "ll_ps": row[8]}
    write_csv(out / "real_runs.csv",
              ["mix", "level", "rep", "quantum_us", "program", "policy", "time_ns", "blocks", "preemptions",
               "delayed", "delay_ns", "forced", "check"],
              [[k[0], k[1], rep, meta["quantum_us"], r["program"], r["policy"], r["time_ns"], r["blocks"],
                r["preemptions"], r["delayed"], r["delay_ns"], r["forced"], r["check"]]
               for k, rep, meta, r in runs])
    if cache:
        write_csv(out / "real_cache.csv", ["mix", "level", "program", "Ir_preempt", "Ir_psafe", "D1_misses_preempt",
                                           "D1_misses_psafe", "LL_misses_preempt", "LL_misses_psafe"], cg_rows)
    S = summarize_real(runs)
    sum_rows = []
    for (key, p), v in S.items():
        sum_rows.append([key[0], key[1], p, v["time_preempt"], v["time_psafe"], round(v["norm_time"], 4),
                         v["blocks"], v["delayed"], v["forced"], v["delay_ns"], v["preemptions_preempt"]])
    write_csv(out / "real_summary.csv", ["mix", "level", "program", "median_time_ns_preempt", "median_time_ns_psafe",
                                         "norm_time", "blocks", "median_delays", "median_forced",
                                         "median_delay_ns", "median_preemptions_preempt"], sum_rows)
    png = out / "real_blocked.png"
    _real_plot(png, S, CG, f"Real run on this machine (ito, 2 workers, quantum {q} us)")
    return real_sections(S, CG, cal, q, q_cg, reps, scale, bound, image(png, "real run", out))


def summarize_real(runs) -> dict:
    """Medians over repetitions per (mix, program): times by policy, psafe statistics."""
    acc: dict = {}
    for key, _rep, _meta, r in runs:
        acc.setdefault((key, r["program"]), {"preempt": [], "psafe": []})[r["policy"]].append(r)
    S = {}
    for (key, p), d in acc.items():
        if not d["preempt"] or not d["psafe"]:
            raise ValueError(f"{key} {p}: a policy has no runs")
        tp = _median([r["time_ns"] for r in d["preempt"]])
        ts = _median([r["time_ns"] for r in d["psafe"]])
        S[(key, p)] = {"time_preempt": tp, "time_psafe": ts, "norm_time": ts / tp,
                       "blocks": d["psafe"][0]["blocks"],
                       "delayed": _median([r["delayed"] for r in d["psafe"]]),
                       "forced": _median([r["forced"] for r in d["psafe"]]),
                       "delay_ns": _median([r["delay_ns"] for r in d["psafe"]]),
                       "preemptions_preempt": _median([r["preemptions"] for r in d["preempt"]]),
                       "time_psafe_all": sorted(r["time_ns"] for r in d["psafe"]),
                       "time_preempt_all": sorted(r["time_ns"] for r in d["preempt"])}
    return S


def real_sections(S, CG, cal, q, q_cg, reps, scale, bound, img) -> list[tuple[str, str]]:
    what = (f"ito on this machine: every program one ito group of 2 ULTs (one per worker, bound), gang "
            f"scheduling, signal preemption; sizes: {scale}; {reps} repetitions per mix and policy "
            f"(median; the order of the two policies alternates). Quantum {q} us = the paper's 2.5 M "
            f"instructions at the measured per-thread rate of the blocked kernels "
            f"({cal['rate_ips'] / 1e9:.2f} G instructions/s: {cal['ir']:,} kernel instructions of B-MM + B-LU "
            f"alone in {cal['t_native_ns'] / 1e6:.1f} ms on 2 workers). Delay bound {bound} quanta. Cache misses: "
            f"the same runner under cachegrind (D1 = 128 KB direct-mapped, 32-byte lines; quantum scaled by "
            f"cachegrind's measured slowdown {cal['slowdown']:.0f}x to {q_cg} us).")
    rows = []
    for blk in ("bmm", "blu"):
        for key in MIXES:
            if blk not in MIXES[key]:
                continue
            v = S[(key, blk)]
            c = CG.get((key, blk))
            pt, pm = PAPER.get((blk, key[1], "time")), PAPER.get((blk, key[1], "misses"))
            blocks = v["blocks"]
            rows.append([LABEL[blk], key[1], round(v["time_preempt"] / 1e6, 1), round(v["time_psafe"] / 1e6, 1),
                         round(100 * (v["norm_time"] - 1), 1), "" if pt is None else pt,
                         "" if c is None else c["d1_pre"], "" if c is None else c["d1_ps"],
                         "" if c is None else round(100 * (c["norm_misses"] - 1), 1), "" if pm is None else pm,
                         blocks, v["delayed"], round(v["delayed"] / blocks, 2) if blocks else "",
                         round(v["delay_ns"] / v["delayed"] / (q * 1e3), 2) if v["delayed"] else "",
                         v["forced"]])
    t1 = markdown_table(["program", "level", "time preempt (ms)", "time psafe (ms)", "time %", "paper time %",
                         "D1 misses preempt", "D1 misses psafe", "misses %", "paper misses %", "blocks",
                         "delays", "delays per block", "mean delay (quanta)", "forced"], rows)
    rows2 = []
    for key, progs in MIXES.items():
        if key[1] < 4:
            continue
        for p in progs:
            v = S[(key, p)]
            c = CG.get((key, p))
            rows2.append([f"{key[0]} L{key[1]}", LABEL[p], round(v["norm_time"], 3),
                          "" if c is None else round(c["norm_misses"], 3),
                          round(v["time_preempt"] / 1e6, 1), v["preemptions_preempt"]])
    t2 = markdown_table(["mix", "program", "time psafe/preempt", "D1 misses psafe/preempt",
                         "time preempt (ms)", "preemptions (preempt)"], rows2)
    return [("Real run on this machine: what ran", what),
            ("Real run: blocked programs by level", img + "\n\n" + t1),
            ("Real run: all programs at levels 4 to 6 (normalized)", t2)]


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

