"""ito-lab regwin: multiple threads in cyclic register windows (Hidaka, Koike, Tanaka; seed 000).

Runs the seven-thread LaTeX spell checker (workloads/spellcheck) on one ito worker (FIFO,
non-preemptive) with the register-window emulation live in every run: each ULT switch goes
through the window manager, each instrumented call is a save/restore. It reproduces

* Table 1  -- context switches per thread for the six M/N buffer settings, and saves;
* Table 2  -- cycles per switch by scheme and windows moved (the cost model), beside how
              often each row occurred in our runs;
* Figs. 11-15 -- execution cycles, average switch time, trap probability against 4..32
              windows (high and low concurrency, three granularities, working set on/off).

Execution cycles (stated in the report): W + sum over switches of Table 2's mid-range for the
windows that switch moved + traps x the stated trap costs. W, the ordinary work, is the count
of x86 user-mode instructions of the same run with the emulation detached (valgrind callgrind,
minus a run that loads everything and runs nothing), at one cycle per instruction; it is the
same for every scheme and window count of a setting. Without valgrind W is 0 and the report
says so. Nothing is fitted.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from ..report import image, markdown_table, parse_results, write_csv, write_report

NAME = "regwin"
HELP = "register windows shared among threads: spell checker, Tables 1-2, Figs. 11-15"
PROGRAM = "workloads/spellcheck/spellcheck-regwin"

SCHEMES = ("NS", "SNP", "SP")
SETTINGS = {  # Table 1: name -> (M, N)
    "high-fine": (1, 1), "high-medium": (4, 4), "high-coarse": (16, 16),
    "low-fine": (1024, 1), "low-medium": (1024, 4), "low-coarse": (1024, 16),
}
HIGH = ("high-fine", "high-medium", "high-coarse")
LOW = ("low-fine", "low-medium", "low-coarse")
THREADS = ("t1", "t2", "t3", "t4", "t5", "t6", "t7")
THREAD_NAMES = ("T1 (delatex)", "T2 (spell1)", "T3 (spell2)", "T4 (input)", "T5 (output)",
                "T6 (dict1)", "T7 (dict2)")
FULL_WINDOWS = tuple(range(4, 33))
QUICK_WINDOWS = (4, 5, 6, 7, 8, 10, 12, 16, 20, 24, 32)

# The paper's Table 1 (context switches, FIFO) and its dynamic count of saves.
PAPER_TABLE1 = {
    "t1": (60566, 12680, 2653, 29838, 8925, 2001, 113015),
    "t2": (102447, 23497, 5400, 49952, 9983, 2049, 110740),
    "t3": (80578, 21327, 5400, 29887, 8791, 2049, 75526),
    "t4": (40501, 11548, 2653, 4817, 4612, 1974, 10127),
    "t5": (1005, 314, 146, 197, 196, 135, 262),
    "t6": (50001, 12501, 3126, 49, 49, 49, 12502),
    "t7": (50001, 12501, 3126, 49, 49, 49, 12502),
    "total": (385099, 94368, 22504, 114789, 32605, 8306, 334674),
}
# The paper's Table 2 (cycles per switch on the S-20).
PAPER_TABLE2 = {
    ("NS", 1, 1): "145-149", ("NS", 2, 1): "181-185", ("NS", 3, 1): "217-221",
    ("NS", 4, 1): "253-257", ("NS", 5, 1): "289-293", ("NS", 6, 1): "325-329",
    ("SNP", 0, 0): "113-118", ("SNP", 0, 1): "142-147", ("SNP", 1, 0): "162-171",
    ("SNP", 1, 1): "187-196",
    ("SP", 0, 0): "93-98", ("SP", 0, 1): "136-141", ("SP", 1, 1): "180-197", ("SP", 2, 1): "220-237",
}
SATURATION_TOLERANCE = 0.05  # "saturated": within 5% of the cycles at the largest window count


def add_arguments(parser) -> None:
    parser.add_argument("--windows", default=None, type=windows_arg,
                        help="window counts, e.g. 4-32 or 4,8,16 (default: 4-32; --quick: 11 counts)")
    parser.add_argument("--no-valgrind", action="store_true",
                        help="skip the instruction count of the ordinary work (W = 0)")


# ---------------------------------------------------------------- derived quantities

def cycles_switches(r: dict) -> float:
    """Sum over the run's switches of Table 2's mid-range."""
    return (r["switch_cycles_lo"] + r["switch_cycles_hi"]) / 2.0


def total_cycles(r: dict, work: float) -> float:
    return work + cycles_switches(r) + r["trap_cycles"]


def avg_switch(r: dict) -> float:
    return cycles_switches(r) / r["switches"] if r["switches"] else float("nan")


def trap_probability(r: dict) -> float:
    ev = r["saves"] + r["restores"]
    return (r["overflow_traps"] + r["underflow_traps"]) / ev if ev else float("nan")


def saturation_point(points: dict[int, float], tol: float = SATURATION_TOLERANCE) -> int | None:
    """Smallest window count from which every value stays within tol of the value at the
    largest window count (where "the effect of more windows is saturated")."""
    if not points:
        return None
    ws = sorted(points)
    ref = points[ws[-1]]
    sat = ws[-1]
    for w in reversed(ws):
        if points[w] <= ref * (1 + tol):
            sat = w
        else:
            break
    return sat


def best_scheme(values: dict[str, float]) -> str:
    return min(values, key=values.get)


def parse_windows(text: str | None, quick: bool) -> tuple[int, ...]:
    if not text:
        return QUICK_WINDOWS if quick else FULL_WINDOWS
    m = re.fullmatch(r"(\d+)-(\d+)", text)
    if m:
        return tuple(range(int(m.group(1)), int(m.group(2)) + 1))
    return tuple(int(x) for x in text.split(","))


def windows_arg(text: str) -> str:
    """argparse type of --windows: a range or list of window counts, each 4 to 32 (the
    emulation's range, include/ito/regwin.h); returned unchanged."""
    import argparse
    try:
        ws = parse_windows(text, False)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected e.g. 4-32 or 4,8,16") from None
    if not ws or any(not 4 <= w <= 32 for w in ws):
        raise argparse.ArgumentTypeError(f"{text!r}: window counts must lie in 4..32")
    return text


def parse_collected(stderr: str) -> int | None:
    """The instruction count callgrind prints ("Collected : N")."""
    m = re.search(r"Collected\s*:\s*([0-9]+)", stderr)
    return int(m.group(1)) if m else None


# ---------------------------------------------------------------- running

def _run(ctx, *args: str) -> list[dict]:
    return parse_results(ctx.run_program(PROGRAM, *args))


def measure_work(ctx, tables: Path, settings, use_valgrind: bool) -> tuple[dict[str, float], str]:
    """Ordinary work per setting in instructions (see the module docstring)."""
    vg = shutil.which("valgrind") if use_valgrind else None
    if not vg:
        return {s: 0.0 for s in settings}, "not measured (valgrind unavailable or disabled): W = 0"
    prog = str(ctx.program(PROGRAM))

    def count(*extra: str) -> int:
        cp = subprocess.run([vg, "--tool=callgrind", "--callgrind-out-file=/dev/null", prog,
                             "--tables", str(tables), *extra], capture_output=True, text=True,
                            timeout=900)
        n = parse_collected(cp.stderr)
        if cp.returncode != 0 or n is None:
            raise RuntimeError(f"callgrind run failed: {cp.stderr[-800:]}")
        return n

    base = count("--null")
    work = {s: float(count("--settings", s, "--schemes", "off") - base) for s in settings}
    return work, (f"x86 user instructions counted by valgrind callgrind with the emulation detached, "
                  f"minus a load-only run ({base} instructions), at 1 cycle per instruction")


def run(args, ctx) -> int:
    out = ctx.out(NAME)
    windows = parse_windows(getattr(args, "windows", None), ctx.quick)
    with tempfile.TemporaryDirectory(prefix="ito-regwin-") as tmp:
        return _run_all(args, ctx, out, windows, Path(tmp) / "dictionaries.bin")


def _run_all(args, ctx, out: Path, windows, tables: Path) -> int:
    wlist = ",".join(str(w) for w in windows)
    # one table build, shared by every run (also the valgrind runs)
    ctx.run_program(PROGRAM, "--save-tables", str(tables), "--null")

    jobs = [("table1", ["--settings", "all", "--schemes", "SP", "--windows", "8", "--ws", "0,1"])]
    for s in SETTINGS:
        jobs.append((f"fifo {s}", ["--settings", s, "--schemes", ",".join(SCHEMES), "--windows", wlist,
                                   "--ws", "0"]))
    for s in HIGH:
        jobs.append((f"working set {s}", ["--settings", s, "--schemes", ",".join(SCHEMES),
                                          "--windows", wlist, "--ws", "1"]))
    rows: list[dict] = []
    with ctx.progress(len(jobs) + 2, "regwin") as step:
        step("cost model (Table 2)")
        t2 = _run(ctx, "--table2")
        for label, a in jobs:
            step(label)
            rows += [r for r in _run(ctx, "--tables", str(tables), *a) if r.get("experiment") == "regwin"]
        step("ordinary work (instruction count)")
        work, work_note = measure_work(ctx, tables, list(SETTINGS), not getattr(args, "no_valgrind", False))

    sections = build_report(out, rows, t2, work, work_note, windows, ctx.quick)
    write_report(out / "report.md", "Register windows shared among threads (seed 000)", sections)
    return 0


# ---------------------------------------------------------------- the report

def _select(rows, **kw):
    return [r for r in rows if all(r.get(k) == v for k, v in kw.items())]


def table1(rows) -> tuple[list[str], list[list], list[list]]:
    fifo = {r["setting"]: r for r in _select(rows, scheme="SP", windows=8, ws=0)}
    ws = {r["setting"]: r for r in _select(rows, scheme="SP", windows=8, ws=1)}
    header = ["thread"] + [f"{s} ours" for s in SETTINGS] + [f"{s} paper" for s in SETTINGS] + \
             ["saves ours", "saves paper"]
    body = []
    for t, name in zip(THREADS, THREAD_NAMES):
        ours = [fifo[s][f"{t}_resumes"] if s in fifo else "" for s in SETTINGS]
        saves = fifo[next(iter(SETTINGS))][f"{t}_saves"] if fifo else ""
        body.append([name, *ours, *PAPER_TABLE1[t][:6], saves, PAPER_TABLE1[t][6]])
    tot = [sum(fifo[s][f"{t}_resumes"] for t in THREADS) if s in fifo else "" for s in SETTINGS]
    tot_saves = sum(fifo[next(iter(SETTINGS))][f"{t}_saves"] for t in THREADS) if fifo else ""
    body.append(["Total", *tot, *PAPER_TABLE1["total"][:6], tot_saves, PAPER_TABLE1["total"][6]])
    wsrows = []
    for s in SETTINGS:
        if s in fifo and s in ws:
            a, b = fifo[s]["switches"], ws[s]["switches"]
            wsrows.append([s, a, b, f"{100.0 * (b - a) / a:+.1f}%"])
    return header, body, wsrows


def table2_rows(t2, rows):
    hist: dict[tuple[str, int, int], int] = {}
    for r in _select(rows, ws=0):
        if r["setting"] not in SETTINGS:
            continue
        for k, v in r.items():
            m = re.fullmatch(r"hist_(\d+)_(\d+)", k)
            if m:
                key = (r["scheme"], int(m.group(1)), int(m.group(2)))
                hist[key] = hist.get(key, 0) + v
    total = {s: sum(v for (sc, _, _), v in hist.items() if sc == s) for s in SCHEMES}
    out = []
    for c in (x for x in t2 if "table2" in x):
        key = (c["scheme"], c["saves"], c["restores"])
        paper = PAPER_TABLE2.get(key, "")
        n = hist.get(key, 0)
        if not paper and n == 0:
            continue
        share = f"{100.0 * n / total[c['scheme']]:.2f}%" if total.get(c["scheme"]) else ""
        out.append([c["scheme"], c["saves"], c["restores"], f"{c['lo']}-{c['hi']}", paper,
                    "table" if c["exact"] else "extrapolated", n, share])
    return out


def curves(rows, setting, ws, metric, work):
    """scheme -> {windows: value} for one setting."""
    res: dict[str, dict[int, float]] = {s: {} for s in SCHEMES}
    for r in _select(rows, setting=setting, ws=ws):
        if r["scheme"] not in res:
            continue
        if metric == "cycles":
            v = total_cycles(r, work.get(setting, 0.0))
        elif metric == "switch":
            v = avg_switch(r)
        else:
            v = trap_probability(r)
        res[r["scheme"]][r["windows"]] = v
    return res


def plot_figure(path: Path, rows, settings, ws, metric, work, title, ylabel, ref_lines=None):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(settings), figsize=(5 * len(settings), 4), squeeze=False)
    for ax, s in zip(axes[0], settings):
        c = curves(rows, s, ws, metric, work)
        for scheme, style in zip(SCHEMES, ("o-", "s--", "^-")):
            pts = sorted(c[scheme].items())
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], style, label=scheme, markersize=3)
        for y, lab in (ref_lines or []):
            ax.axhline(y, color="grey", linestyle=":", linewidth=1)
            ax.text(ax.get_xlim()[0], y, lab, fontsize=7, va="bottom")
        m, n = SETTINGS[s]
        ax.set_title(f"{s} (M={m}, N={n})", fontsize=10)
        ax.set_xlabel("windows")
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def curve_csv(path: Path, rows, settings, ws, work):
    header = ["setting", "M", "N", "working_set", "scheme", "windows", "cycles", "work_cycles",
              "switch_cycles", "trap_cycles", "switches", "avg_switch_cycles", "trap_probability",
              "overflow_traps", "underflow_traps", "saves", "restores", "switches_resident",
              "switch_window_saves", "switch_window_restores"]
    out = []
    for r in rows:
        if r["setting"] in settings and r["ws"] == ws and r["scheme"] in SCHEMES:
            w = work.get(r["setting"], 0.0)
            out.append([r["setting"], r["m"], r["n"], ws, r["scheme"], r["windows"],
                        f"{total_cycles(r, w):.0f}", f"{w:.0f}", f"{cycles_switches(r):.0f}",
                        r["trap_cycles"], r["switches"], f"{avg_switch(r):.2f}",
                        f"{trap_probability(r):.5f}", r["overflow_traps"], r["underflow_traps"],
                        r["saves"], r["restores"], r["switches_resident"], r["switch_window_saves"],
                        r["switch_window_restores"]])
    out.sort(key=lambda x: (x[0], x[4], x[5]))
    write_csv(path, header, out)


def claims(rows, work, windows) -> list[list[str]]:
    """The paper's statements beside what our runs show (computed, never assumed)."""
    lo, hi = min(windows), max(windows)
    res = []

    def cyc(setting, ws):
        return curves(rows, setting, ws, "cycles", work)

    # Fig. 11
    best_hi = {s: best_scheme({k: cyc(s, 0)[k][hi] for k in SCHEMES}) for s in HIGH}
    best_lo = {s: best_scheme({k: cyc(s, 0)[k][lo] for k in SCHEMES}) for s in HIGH}
    res.append(["Fig. 11", "With sufficient windows the best scheme is SP",
                f"best at {hi} windows: " + ", ".join(f"{s}: {b}" for s, b in best_hi.items())])
    res.append(["Fig. 11", "With few windows NS is best",
                f"best at {lo} windows: " + ", ".join(f"{s}: {b}" for s, b in best_lo.items())])
    snp_wins = []
    for s in HIGH:
        c = cyc(s, 0)
        snp_wins += [f"{s}@{w}" for w in windows if c["SNP"][w] < min(c["SP"][w], c["NS"][w])]
    res.append(["Fig. 11", "No region where SNP beats both SP and NS",
                "none" if not snp_wins else "SNP best at: " + ", ".join(snp_wins)])
    adv = {s: cyc(s, 0)["NS"][hi] / cyc(s, 0)["SP"][hi] for s in HIGH}
    res.append(["Fig. 11", "The finer the granularity, the larger the advantage of sharing",
                f"NS/SP cycles at {hi} windows: " + ", ".join(f"{s} {v:.3f}" for s, v in adv.items())])
    sat = {s: saturation_point(cyc(s, 0)["SP"]) for s in HIGH}
    res.append(["Fig. 11", "Saturation point (∝ total window activity) falls as granularity gets finer",
                "SP within 5% of its best from: " + ", ".join(f"{s} {v} windows" for s, v in sat.items())])
    # Fig. 12
    sw = {s: curves(rows, s, 0, "switch", work)["SP"][hi] for s in HIGH}
    swn = {s: curves(rows, s, 0, "switch", work)["SNP"][hi] for s in HIGH}
    res.append(["Fig. 12", "With enough windows SP and SNP switches are close to the best case "
                "(SP 93-98, SNP 113-118 cycles)",
                f"at {hi} windows SP: " + ", ".join(f"{s} {v:.1f}" for s, v in sw.items()) +
                "; SNP: " + ", ".join(f"{s} {v:.1f}" for s, v in swn.items())])
    # Fig. 13
    tp = {k: curves(rows, "high-fine", 0, "traps", work)[k][hi] for k in SCHEMES}
    res.append(["Fig. 13", "With enough windows sharing also keeps procedure calls fast (few traps)",
                f"trap probability at {hi} windows, high-fine: " +
                ", ".join(f"{k} {v:.4f}" for k, v in tp.items())])
    # Fig. 14
    satl = {s: saturation_point(cyc(s, 0)["SP"]) for s in LOW}
    res.append(["Fig. 14", "Low concurrency: window activity varies more; SP needs 20+ windows at "
                "coarse granularity",
                "SP within 5% of its best from: " + ", ".join(f"{s} {v} windows" for s, v in satl.items())])
    # Fig. 15
    for w in (7, 8, 4, 5):
        if w not in windows:
            continue
        row = []
        for s in HIGH:
            c1, c0 = cyc(s, 1), cyc(s, 0)
            row.append(f"{s}: SP+WS {c1['SP'][w] / c0['NS'][w]:.3f}x NS, "
                       f"SP+WS/SP FIFO {c1['SP'][w] / c0['SP'][w]:.3f}")
        res.append(["Fig. 15", f"Working set: sharing works with 7-8 windows, not with 4-5 ({w} windows)",
                    "; ".join(row)])
    loss = {s: cyc(s, 1)["SP"][hi] / cyc(s, 0)["SP"][hi] for s in HIGH}
    res.append(["Fig. 15", "No significant loss from the working set at many windows",
                f"SP cycles WS/FIFO at {hi} windows: " + ", ".join(f"{s} {v:.3f}" for s, v in loss.items())])
    return res


def build_report(out: Path, rows, t2, work, work_note, windows, quick) -> list[tuple[str, str]]:
    write_csv(out / "runs.csv", sorted({k for r in rows for k in r}),
              [[r.get(k, "") for k in sorted({k for r in rows for k in r})] for r in rows])
    h1, b1, wsrows = table1(rows)
    write_csv(out / "table1.csv", h1, b1)
    t2rows = table2_rows(t2, rows)
    h2 = ["scheme", "saves", "restores", "cycles (model)", "cycles (paper)", "source",
          "switches in our runs", "share"]
    write_csv(out / "table2.csv", h2, t2rows)
    traps = next((r for r in t2 if r.get("traps") == 1), {})
    figs = [
        ("fig11", HIGH, 0, "cycles", "Fig. 11: execution cycles, high concurrency (FIFO)", "cycles"),
        ("fig12", HIGH, 0, "switch", "Fig. 12: average switch time, high concurrency", "cycles / switch"),
        ("fig13", HIGH, 0, "traps", "Fig. 13: window-trap probability, high concurrency",
         "traps / (saves + restores)"),
        ("fig14", LOW, 0, "cycles", "Fig. 14: execution cycles, low concurrency (FIFO)", "cycles"),
        ("fig15", HIGH, 1, "cycles", "Fig. 15: execution cycles, high concurrency, working set",
         "cycles"),
    ]
    imgs = []
    for name, settings, ws, metric, title, ylabel in figs:
        ref = [(95.5, "SP best 93-98"), (115.5, "SNP best 113-118")] if metric == "switch" else None
        plot_figure(out / f"{name}.png", rows, settings, ws, metric, work, title, ylabel, ref)
        curve_csv(out / f"{name}.csv", rows, settings, ws, work)
        imgs.append(f"### {title}\n\n" + image(out / f"{name}.png", title, out) + f"\n\n(data: `{name}.csv`)")
    cl = claims(rows, work, windows)
    write_csv(out / "claims.csv", ["figure", "paper", "ours"], cl)
    model = (
        "Cycles of a run = W + Σ over switches of the mid-point of Table 2's range for the scheme "
        "and the windows that switch saved/restored (rows outside Table 2 extrapolated from its own "
        "slopes, src/regwin/regwin_cost.c) + overflow traps × {o} + underflow traps × {u} "
        "(+ {x} per in-place underflow of SNP/SP). Trap costs are parameters (estimates from the SPARC "
        "V8 trap-handler instruction counts, not measurements). W, the ordinary work: {w}. "
        "Per setting W = {ws}."
    ).format(o=traps.get("overflow_trap", "?"), u=traps.get("underflow_trap", "?"),
             x=traps.get("underflow_inplace_extra", "?"), w=work_note,
             ws=", ".join(f"{s} {v:,.0f}" for s, v in work.items()))
    run_note = (f"{len(rows)} runs of the seven-thread spell checker on one ito worker (FIFO, "
                f"non-preemptive), window emulation live; windows {min(windows)}..{max(windows)} "
                f"({len(windows)} counts){' — quick mode' if quick else ''}. "
                "Command: `ito-lab regwin" + (" --quick" if quick else "") + "`.")
    return [
        ("What was run", run_note),
        ("Cost model", model),
        ("Table 1: context switches per thread (SP, 8 windows, FIFO) and saves",
         markdown_table(h1, b1) + "\n\nSwitches with the working-set policy (SP, 8 windows) vs FIFO "
         "(paper: within ±10%):\n\n" + markdown_table(["setting", "FIFO", "working set", "change"], wsrows)),
        ("Table 2: cycles per switch (cost model) and how often each case occurred",
         markdown_table(h2, t2rows)),
        ("The paper's statements beside ours", markdown_table(["figure", "paper", "ours"], cl)),
        ("Figures", "\n\n".join(imgs)),
    ]
