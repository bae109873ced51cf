"""ito-lab spawn: parallel creation of multiple threads (Tsunedomi et al. 1991, seed 002).

Two halves, one report (results/spawn/report.md):

* simulated -- the paper's machine (KRPP, a 128-PE crossbar TCMP) as the discrete-event model
  in sim/krpp (package `krpp`).  Reproduces Figs. 4, 10a, 10b, 11, 12a, 12b as speedup
  curves (PNG + CSV), draws the worked examples of Figs. 3, 6, 8, 9 as timelines, puts the
  values the paper states beside ours, and reruns the headline numbers under the
  alternative readings of the paper's open assumptions (sensitivity).
* real -- ito's bulk-creation API measured on this machine.  `run_real` runs the program
  REAL_PROGRAM from the build tree; until it exists the report says "not yet built".
  Contract for that program (any extra key=value pairs are kept in the CSV):
      RESULT benchmark=spawn scheme=<loop|serial|simple|template|chunk|combination>
             workers=<w> n=<threads> median_ns=<ns per created thread> trials=<t>
  one line per (scheme, workers, n); `--quick` is passed through in quick mode.

"""
from __future__ import annotations

from ..argtypes import positive_int

import contextlib
import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from ..report import image, markdown_table, parse_results, write_csv, write_report

NAME = "spawn"
HELP = "bulk thread creation: KRPP simulator (paper Figs. 4, 10-12) and ito's real schemes"
REAL_PROGRAM = "bench/spawn_real"
REAL_SCHEMES = ("loop", "serial", "simple", "template", "chunk", "combination")

# What the paper states in words (section 3.4.3, 4.4, 4.5), for the side-by-side table.
PAPER_FIGURE_TITLES = {
    "fig4": "Fig. 4: simple parallel vs serial",
    "fig10a": "Fig. 10(a): parallel template vs serial",
    "fig10b": "Fig. 10(b): parallel template vs serial template",
    "fig11": "Fig. 11: chunk vs serial",
    "fig12a": "Fig. 12(a): combination vs serial",
    "fig12b": "Fig. 12(b): combination vs serial template",
}
PAPER_REFERENCE_LINES = {          # horizontal guides drawn on our plots: the stated values
    "fig4": (1.0, 1.2), "fig10a": (3.7,), "fig10b": (1.0, 1.2), "fig11": (10.5,),
}


def add_arguments(parser) -> None:
    parser.add_argument("--sim-only", action="store_true", help="skip the real measurements")
    parser.add_argument("--real-only", action="store_true", help="skip the simulator")
    parser.add_argument("--jobs", type=positive_int, default=min(2, os.cpu_count() or 1),
                        help="processes for the simulator sweep (default: up to 2)")


def run(args, ctx) -> int:
    out = ctx.out(NAME)
    sections = []
    jobs = max(1, getattr(args, "jobs", 1) or 1)
    if not getattr(args, "real_only", False):
        sections += run_simulated(ctx, out, jobs)
    if not getattr(args, "sim_only", False):
        sections += run_real(ctx)
    write_report(out / "report.md", "Parallel creation of multiple threads (ito-lab spawn)",
                 sections)
    print(f"spawn: wrote {out / 'report.md'}")
    return 0


def _fmt(x: float, nd: int = 2) -> str:
    return f"{x:.{nd}f}"


# ---------------------------------------------------------------------------------------
# simulated half

def _sim_one(task):
    from krpp import simulate
    scheme, th, p, model = task
    return task, simulate(scheme, p, th, model).time


class SimCache:
    """Simulated completion times, keyed by (scheme, threads, processors, model).  The
    serial warm-pair choice only affects the serial baselines, so parallel schemes share
    entries across it."""

    def __init__(self, jobs: int):
        self.jobs = jobs
        self.times: dict = {}

    @staticmethod
    def key(scheme, th, p, model):
        from krpp import SERIAL_SCHEMES, WARM_L
        if scheme in SERIAL_SCHEMES:
            return (scheme, th, 1, model)
        return (scheme, th, p, model.with_(serial_warm_pair=WARM_L))

    def fill(self, tasks, label: str, ctx=None) -> None:
        """Simulate the missing tasks, biggest first within each scheme; progress is one
        step per scheme (ctx.progress), so logs stay short."""
        order = {s: i for i, s in enumerate(("simple", "template", "chunk", "combination",
                                             "serial", "serial_template"))}
        todo = sorted({self.key(*t) for t in tasks} - set(self.times),
                      key=lambda k: (order[k[0]], -k[1], -k[2]))
        if not todo:
            return
        groups = [s for s in order if any(k[0] == s for k in todo)]
        progress = getattr(ctx, "progress", None)
        bar = progress(len(groups), f"spawn {label}") if progress else contextlib.nullcontext(
            lambda _label: None)
        with bar as step, contextlib.ExitStack() as stack:
            if self.jobs > 1 and len(todo) > 8:
                ex = stack.enter_context(ProcessPoolExecutor(max_workers=self.jobs))
                results = ex.map(_sim_one, todo, chunksize=2)
            else:
                results = map(_sim_one, todo)
            current = None
            for k, t in results:
                if k[0] != current:
                    current = k[0]
                    step(current)
                self.times[k] = t

    def time(self, scheme, th, p, model) -> float:
        return self.times[self.key(scheme, th, p, model)]

    def speedup(self, scheme, baseline, th, p, model) -> float:
        return self.time(baseline, th, 1, model) / self.time(scheme, th, p, model)


def figure_tasks(threads, processors, model):
    from krpp import FIGURES
    tasks = []
    for _, scheme, base in FIGURES:
        for th in threads:
            tasks.append((base, th, 1, model))
            tasks += [(scheme, th, p, model) for p in processors]
    return tasks


def headlines(cache: SimCache, model, threads, processors):
    """The paper's stated values beside ours: rows of (claim, paper, ours, verdict)."""
    rows = []
    P = list(processors)
    pmax = max(P)
    sth = list(threads)

    def band(vals, lo, hi):
        return "inside" if all(lo <= v <= hi for v in vals) else (
            "below" if max(vals) < lo else "above" if min(vals) > hi else "partly inside")

    def about(v, target, tol=0.10):
        return "close (within 10%)" if abs(v - target) <= tol * target else "differs"

    sp = [cache.speedup("simple", "serial", th, pmax, model) for th in sth]
    rows.append(("simple parallel / serial saturates (p = %d; threads %s)" % (pmax, _rng(sth)),
                 "between 1 and 1.2", _span(sp), band(sp, 1.0, 1.2)))
    small = [(p, cache.speedup("simple", "serial", th, p, model)) for th in sth[-1:]
             for p in P if p < 3]
    rows.append(("simple parallel degrades for p < 3 (threads %d)" % sth[-1],
                 "speedup < saturation", ", ".join(f"p={p}: {_fmt(v)}" for p, v in small),
                 "yes" if all(v < sp[-1] for _, v in small) else "no"))
    for th in [t for t in (200, 1000) if t in sth]:
        v = max(cache.speedup("template", "serial", th, p, model) for p in P)
        rows.append((f"parallel template / serial, {th} threads (max over p)", "about 3.7",
                     _fmt(v), about(v, 3.7)))
    tt = [cache.speedup("template", "serial_template", th, pmax, model) for th in sth]
    rows.append(("parallel template / serial template saturates (p = %d; threads %s)"
                 % (pmax, _rng(sth)), "between 1 and 1.2", _span(tt), band(tt, 1.0, 1.2)))
    best = max(((cache.speedup("chunk", "serial", th, p, model), th, p)
                for th in threads for p in P))
    rows.append(("chunk / serial, maximum", "about 10.5",
                 f"{_fmt(best[0])} ({best[1]} threads, p = {best[2]})", about(best[0], 10.5)))
    opt = []
    falls = []
    for th in threads:
        curve = [(cache.speedup("chunk", "serial", th, p, model), p) for p in P]
        v, p_opt = max(curve)
        opt.append(f"{th}: {p_opt}")
        falls.append(curve[-1][0] < v)
    rows.append(("chunk: optimum processors per thread count", "several to some tens",
                 "; ".join(opt), "see list"))
    rows.append(("chunk: speedup falls beyond the optimum", "yes",
                 "yes for %d of %d thread counts" % (sum(falls), len(falls)),
                 "yes" if all(falls) else "no"))
    thb = max(threads)
    lin = cache.speedup("chunk", "serial", thb, 4, model) if 4 in P else float("nan")
    rows.append((f"chunk: almost linear before the optimum ({thb} threads, p = 4)", "about 4",
                 _fmt(lin), about(lin, 4.0)))
    for base, fig in (("serial", "12(a)"), ("serial_template", "12(b)")):
        v, th, p = max(((cache.speedup("combination", base, th, p, model), th, p)
                        for th in threads for p in P))
        rows.append((f"combination / {base.replace('_', ' ')} (Fig. {fig}), maximum",
                     "tendency of both template and chunk", f"{_fmt(v)} ({th} threads, p = {p})",
                     "n/a"))
    return rows


def _span(vals) -> str:
    lo, hi = min(vals), max(vals)
    return _fmt(lo) if _fmt(lo) == _fmt(hi) else f"{_fmt(lo)} to {_fmt(hi)}"


def _rng(ths) -> str:
    ths = list(ths)
    return str(ths[0]) if len(ths) == 1 else f"{ths[0]} to {ths[-1]}"


def resource_bounds(model, threads):
    """Upper bounds on the speedups implied by one serialized resource doing all its work
    back to back (asymptotic in the number of threads)."""
    t, lay = model.times, model.layout
    ser_thread = t.B + lay.pairs_total * model.warm_pair
    sert_thread = t.B + lay.pairs_private * model.warm_pair
    return [
        ("simple", "serial", "C: 114 x T_C per thread", ser_thread / (lay.pairs_total * t.C)),
        ("template", "serial", "C: 29 x T_C per thread", ser_thread / (lay.pairs_private * t.C)),
        ("template", "serial template", "C: 29 x T_C per thread",
         sert_thread / (lay.pairs_private * t.C)),
        ("chunk", "serial", "B: T_B per thread", ser_thread / t.B),
        ("combination", "serial", "B: T_B per thread", ser_thread / t.B),
        ("combination", "serial template", "B: T_B per thread", sert_thread / t.B),
    ]


def plot_figures(cache, model, threads, processors, out: Path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from krpp import FIGURES
    files = []
    for fig, scheme, base in FIGURES:
        f, ax = plt.subplots(figsize=(6.4, 4.4))
        for th in threads:
            ys = [cache.speedup(scheme, base, th, p, model) for p in processors]
            ax.plot(processors, ys, marker="o", ms=3, label=f"{th} threads")
        for y in PAPER_REFERENCE_LINES.get(fig, ()):
            ax.axhline(y, color="grey", ls="--", lw=0.8)
        ax.set_xscale("log", base=2)
        ax.set_xticks([1, 2, 4, 8, 16, 32, 64, 128])
        ax.get_xaxis().set_major_formatter(matplotlib.ticker.ScalarFormatter())
        ax.set_xlabel("number of processors")
        ax.set_ylabel(f"speedup over {base.replace('_', ' ')}")
        ax.set_title(PAPER_FIGURE_TITLES[fig] + " (simulated)", fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
        f.tight_layout()
        p = out / f"sim_{fig}.png"
        f.savefig(p, dpi=120)
        plt.close(f)
        files.append(p.name)
    return files


EXAMPLES = (  # (figure, scheme, T_B) -- N = 3, th = 7, unit stage times, D = 8 bytes
    ("Fig. 3", "simple", 2), ("Fig. 6", "template", 2),
    ("Fig. 8", "chunk", 1), ("Fig. 9", "combination", 2),
)
STAGE_COLOURS = {"M": "#7f7f7f", "A": "#1f77b4", "B": "#d62728", "C": "#ff7f0e",
                 "S": "#2ca02c", "L": "#9467bd", "W": "#8c564b"}


def plot_examples(out: Path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from krpp import simulate, unit_model
    f, axes = plt.subplots(len(EXAMPLES), 1, figsize=(8, 7.5))
    rows = []
    for ax, (fig, scheme, tb) in zip(axes, EXAMPLES):
        r = simulate(scheme, 3, 7, unit_model(B=tb), trace=True)
        for e in r.trace:
            ax.broken_barh([(e.start, e.end - e.start)], (e.pid - 0.4, 0.8),
                           facecolors=STAGE_COLOURS.get(e.stage, "white"), edgecolor="black",
                           lw=0.5)
            label = e.stage if e.thread is None else f"{e.stage}{e.thread}"
            ax.text((e.start + e.end) / 2, e.pid, label, ha="center", va="center", fontsize=6)
        ax.set_yticks(range(4))
        ax.set_yticklabels(["issuer", "P1", "P2", "P3"], fontsize=7)
        ax.invert_yaxis()
        ax.set_xlim(0, r.end + 1)
        ax.set_xticks(range(0, int(r.end) + 2))
        ax.tick_params(axis="x", labelsize=6)
        ax.set_title(f"{fig} ({scheme}, T_B={tb}): all 7 threads created at t = {r.time}",
                     fontsize=8)
        ax.grid(axis="x", alpha=0.3)
        rows.append((fig, scheme, tb, r.time,
                     ", ".join(str(r.created[t][0]) for t in range(7))))
    axes[-1].set_xlabel("clock")
    f.tight_layout()
    f.savefig(out / "sim_examples.png", dpi=120)
    plt.close(f)
    return rows


def run_simulated(ctx, out: Path, jobs: int):
    from krpp import (FIGURES, PAPER, PROCESSORS, PROCESSORS_QUICK, THREADS, THREADS_QUICK,
                      WARM_RATIO)
    threads = THREADS_QUICK if ctx.quick else THREADS
    processors = PROCESSORS_QUICK if ctx.quick else PROCESSORS
    cache = SimCache(jobs)
    cache.fill(figure_tasks(threads, processors, PAPER), "figures", ctx)

    rows = []
    for fig, scheme, base in FIGURES:
        for th in threads:
            for p in processors:
                rows.append((fig, scheme, base, th, p, cache.time(scheme, th, p, PAPER),
                             cache.time(base, th, 1, PAPER),
                             round(cache.speedup(scheme, base, th, p, PAPER), 4)))
    write_csv(out / "sim_speedup.csv", ["figure", "scheme", "baseline", "threads", "processors",
                                        "clocks", "baseline_clocks", "speedup"], rows)
    pngs = plot_figures(cache, PAPER, threads, processors, out)
    ex_rows = plot_examples(out)

    sections = []
    t = PAPER.times
    lay = PAPER.layout
    sections.append(("Simulated: what was run", (
        f"`ito-lab spawn{' --quick' if ctx.quick else ''}`: the discrete-event model of "
        f"sim/krpp with the paper's stage times T_M={t.M:g}, T_A={t.A:g} (serialized), "
        f"T_B={t.B:g} (mutually exclusive), T_C={t.C:g} (serialized, one memory module), "
        f"T_S={t.S:g}, T_L={t.L:g} (parallel); {lay.pairs_total} C/S pairs per thread "
        f"({lay.common_bytes}+{lay.private_bytes} bytes), template {lay.pairs_common} pairs, "
        f"private {lay.pairs_private} pairs.  Threads {list(threads)}, processors "
        f"{list(processors)}.  Serial baselines: warm pair = T_L = {PAPER.warm_pair:g} "
        f"clocks, first thread (and template) cold.  The issuer does not create threads.  "
        f"Speedup = T(baseline) / T(scheme).  Files: sim_speedup.csv, "
        + ", ".join(pngs) + ", sim_examples.png.")))
    sections.append(("Simulated: the paper's stated values beside ours", markdown_table(
        ["claim", "paper", "ours", "verdict"], headlines(cache, PAPER, threads, processors))))
    sections.append(("Simulated: figures", "\n\n".join(
        image(out / f, f, out) for f in pngs + ["sim_examples.png"])))
    sections.append(("Simulated: speedup tables", _speedup_tables(cache, PAPER, threads,
                                                                  processors)))
    sections.append(("Simulated: resource bounds (why the curves saturate)", markdown_table(
        ["scheme", "over", "bottleneck", "bound"],
        [(a, b, c, _fmt(v)) for a, b, c, v in resource_bounds(PAPER, threads)])))
    sections.append(("Simulated: the worked examples (Figs. 3, 6, 8, 9; N=3, th=7)",
                     markdown_table(["figure", "scheme", "T_B", "completion", "thread i done at"],
                                    ex_rows) + "\n\nTimelines: sim_examples.png."))
    sections.append(("Simulated: sensitivity to the open assumptions",
                     _sensitivity(cache, ctx, processors, WARM_RATIO)))
    sections.append(("Simulated: three modelling choices (Figs. 4, 10-12)", _choices(cache, ctx, processors, out)))
    return sections


def _speedup_tables(cache, model, threads, processors) -> str:
    from krpp import FIGURES
    parts = []
    for fig, scheme, base in FIGURES:
        hdr = ["threads \\ p"] + [str(p) for p in processors]
        rows = [[str(th)] + [_fmt(cache.speedup(scheme, base, th, p, model)) for p in processors]
                for th in threads]
        parts.append(f"**{PAPER_FIGURE_TITLES[fig]}**\n\n" + markdown_table(hdr, rows))
    return "\n\n".join(parts)


def _sensitivity(cache, ctx, processors, warm_ratio) -> str:
    from krpp import PAPER
    variants = [("as reproduced (issuer only posts; warm pair = T_L)", PAPER),
                ("issuer also creates threads after M / template",
                 PAPER.with_(issuer_creates=True)),
                ("warm pair = T_C/27 + T_S (cache:remote 1:27 applied to C)",
                 PAPER.with_(serial_warm_pair=warm_ratio))]
    th_chunk = (200, 1000) if ctx.quick else (200, 1000, 2000)
    th_simple = (200,) if ctx.quick else (1000,)
    p_simple = [p for p in processors if p in (1, 2, 3, 4, 16, 128)]
    rows = []
    for label, m in variants:
        tasks = [(s, th, p, m) for s in ("chunk", "combination") for th in th_chunk
                 for p in processors]
        tasks += [(s, th, p, m) for s in ("simple", "template") for th in th_simple
                  for p in p_simple]
        tasks += [(b, th, 1, m) for b in ("serial", "serial_template")
                  for th in set(th_chunk) | set(th_simple)]
        cache.fill(tasks, "sensitivity", ctx)
        th1, pm = th_simple[0], max(p_simple)
        sp = lambda sch, base, th, p: cache.speedup(sch, base, th, p, m)
        best = lambda sch: max((sp(sch, "serial", th, p), th, p)
                               for th in th_chunk for p in processors)
        ck, cb = best("chunk"), best("combination")
        rows.append((label, _fmt(sp("simple", "serial", th1, pm)),
                     _fmt(max(sp("template", "serial", th1, p) for p in p_simple)),
                     _fmt(sp("template", "serial_template", th1, pm)),
                     f"{_fmt(ck[0])} ({ck[1]} thr, p={ck[2]})",
                     f"{_fmt(cb[0])} ({cb[1]} thr, p={cb[2]})"))
    return ("Headline values recomputed under the other reading of each open assumption "
            f"(simple/template at {th_simple[0]} threads, chunk/combination at "
            f"{list(th_chunk)} threads).\n\n" + markdown_table(
                ["variant", "simple/serial at max p", "template/serial (max)", "template/serial tmpl at max p",
                 "chunk/serial max", "combination/serial max"], rows))


def choice_variants():
    """The three readings that matter at small thread counts (krpp.Model's docstring quotes the
    paper for each), one at a time and all together."""
    from krpp import PAPER, START_AFTER_TEMPLATE
    return [("as reproduced (start after M; futile accesses not counted; serial template cold 1st thread)", PAPER),
            ("creators start only after the template", PAPER.with_(creators_start=START_AFTER_TEMPLATE)),
            ("the last, empty message accesses count", PAPER.with_(count_futile=True)),
            ("serial template: first thread warm", PAPER.with_(serial_template_cold_first=False)),
            ("all three", PAPER.with_(creators_start=START_AFTER_TEMPLATE, count_futile=True,
                                      serial_template_cold_first=False))]


def _choices(cache, ctx, processors, out: Path) -> str:
    from krpp import FIGURES
    ths = (10, 1000) if ctx.quick else (10, 50, 1000)
    pmax = max(processors)
    variants = choice_variants()
    for _, m in variants:
        cache.fill(figure_tasks(ths, processors, m), "modelling choices", ctx)
    rows, csv_rows = [], []
    base = {}
    for vi, (label, m) in enumerate(variants):
        for th in ths:
            row = [label, th]
            for fig, scheme, bl in FIGURES:
                if fig in ("fig4", "fig10b"):
                    v = cache.speedup(scheme, bl, th, pmax, m)
                else:
                    v = max(cache.speedup(scheme, bl, th, p, m) for p in processors)
                if vi == 0:
                    base[(fig, th)] = v
                row.append(f"{v:.2f}" if vi == 0 else f"{v:.2f} ({100 * (v / base[(fig, th)] - 1):+.0f}%)")
                csv_rows.append([label, th, fig, round(v, 4)])
            rows.append(row)
    write_csv(out / "sim_choices.csv", ["variant", "threads", "figure", "speedup"], csv_rows)
    hdr = ["variant", "threads"] + [f"{PAPER_FIGURE_TITLES[f].split(':')[0]} {'at p=%d' % pmax if f in ('fig4', 'fig10b') else 'max'}"
                                    for f, _, _ in FIGURES]
    return ("Each reading alone, then all three; speedups (change against the reproduced value). "
            "The paper's words for each reading are in sim/krpp/krpp/params.py (Model) and "
            "docs/reproductions/spawn.md.\n\n" + markdown_table(hdr, rows))


# ---------------------------------------------------------------------------------------
# real half

def real_table(results):
    """Rows (n, workers, scheme, ns/thread, speedup over serial, speedup over loop)."""
    by = {}
    for r in results:
        if r.get("benchmark") != "spawn":
            continue
        by[(int(r["n"]), int(r["workers"]), r["scheme"])] = float(r["median_ns"])
    rows = []
    order = {s: i for i, s in enumerate(REAL_SCHEMES)}
    for (n, w, s) in sorted(by, key=lambda k: (k[0], k[1], order.get(k[2], 99), k[2])):
        ns = by[(n, w, s)]
        ser = by.get((n, w, "serial"))
        loop = by.get((n, w, "loop"))
        rows.append((n, w, s, _fmt(ns, 1),
                     _fmt(ser / ns) if ser else "-", _fmt(loop / ns) if loop else "-"))
    return rows


REAL_WORKERS = (1, 2)
LINE_PROGRAM = "bench/line_transfer"


def real_medians(runs):
    """{(n, workers, scheme, benchmark): [median of each run]} from the RESULT dicts of several
    runs (one list per run)."""
    by = {}
    for results in runs:
        for r in results:
            if r.get("benchmark") not in ("spawn", "spawn_run"):
                continue
            key = (int(r["n"]), int(r["workers"]), r["scheme"], r["benchmark"])
            by.setdefault(key, []).append(float(r["median_ns"]))
    return by


def real_spread_rows(by):
    """Rows (benchmark, n, workers, scheme, median, min, max, runs) over the runs."""
    order = {s: i for i, s in enumerate(REAL_SCHEMES)}
    rows = []
    for (n, w, s, b) in sorted(by, key=lambda k: (k[3], k[0], k[1], order.get(k[2], 99))):
        v = sorted(by[(n, w, s, b)])
        rows.append((b, n, w, s, _fmt(v[len(v) // 2], 1), _fmt(v[0], 1), _fmt(v[-1], 1), len(v)))
    return rows


def real_speedups(by, benchmark="spawn_run"):
    """{scheme: [(workers, speedup over serial on 1 worker)]} at the largest n measured."""
    ns = [k[0] for k in by if k[3] == benchmark]
    if not ns:
        return {}
    n = max(ns)
    med = {k: sorted(v)[len(v) // 2] for k, v in by.items() if k[0] == n and k[3] == benchmark}
    base = med.get((n, 1, "serial", benchmark))
    if not base:
        return {}
    out = {}
    for (_, w, s, _b), ns_per in sorted(med.items(), key=lambda kv: kv[0][1]):
        if s != "loop":
            out.setdefault(s, []).append((w, base / ns_per))
    return out


def plot_real(by, out: Path):
    """The real schemes on the simulator's axes (speedup against the number of processors,
    log 2): speedup of create-and-run over the serial scheme on one worker, largest n."""
    sp = real_speedups(by)
    if not sp:
        return None
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    f, ax = plt.subplots(figsize=(6.4, 4.4))
    for s, pts in sp.items():
        ax.plot([w for w, _ in pts], [y for _, y in pts], marker="o", ms=4, label=s)
    ax.axhline(1.0, color="grey", ls="--", lw=0.8)
    ax.set_xscale("log", base=2)
    ax.set_xticks([1, 2, 4, 8, 16, 32, 64, 128])
    ax.get_xaxis().set_major_formatter(matplotlib.ticker.ScalarFormatter())
    ax.set_xlabel("number of processors (workers)")
    ax.set_ylabel("speedup over serial on 1 worker")
    n = max(k[0] for k in by if k[3] == "spawn_run")
    ax.set_title(f"ito_create_many, create and run {n} threads (real, this host)", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    f.tight_layout()
    p = out / "real_speedup.png"
    f.savefig(p, dpi=120)
    plt.close(f)
    return p.name


def run_real(ctx):
    """The measured half: ito's bulk-creation schemes on this machine, 1 and 2 workers,
    interleaved runs (3; 1 with --quick), beside the simulator's figures."""
    try:
        ctx.program(REAL_PROGRAM)
    except FileNotFoundError:
        return [("Real measurements", f"Not yet built: `{REAL_PROGRAM}` is missing from "
                 f"`{ctx.build_dir}`.  The bulk-creation API and its benchmark are added "
                 "later; this section will then list ns per created thread and the speedups "
                 "over serial and over a loop of single creates.")]
    from ..host import host_line
    quick = ["--quick"] if ctx.quick else []
    nruns = 1 if ctx.quick else 3
    runs = []
    for _ in range(nruns):  # interleaved: every worker count once per run
        for w in REAL_WORKERS:
            runs.append(parse_results(ctx.run_program(REAL_PROGRAM, "--workers", str(w), *quick),
                                      strict=False))
    results = [r for run in runs for r in run]
    out = ctx.out(NAME)
    keys = sorted({k for r in results for k in r})
    write_csv(out / "real.csv", keys, [[r.get(k, "") for k in keys] for r in results])
    by = real_medians(runs)
    medians = [{"benchmark": b, "n": n, "workers": w, "scheme": s,
                "median_ns": sorted(v)[len(v) // 2]} for (n, w, s, b), v in by.items()]
    rows = real_table(medians)
    if not rows:
        return [("Real measurements", f"`{REAL_PROGRAM}` printed no `RESULT benchmark=spawn` "
                 "lines; raw output in real.csv.")]
    text = (f"{host_line()}. `{REAL_PROGRAM} --workers W` for W = "
            f"{', '.join(map(str, REAL_WORKERS))}, {nruns} interleaved run(s); raw output in "
            "real.csv.\n\nCreation only (`spawn`), ns per created thread (median over the runs) "
            "and speedups:\n\n" + markdown_table(
                ["threads", "workers", "scheme", "ns/thread", "x serial", "x loop"], rows))
    text += ("\n\nEvery cell, both measures (`spawn_run` = create and run detached threads), "
             "median (min, max) over the runs:\n\n" + markdown_table(
                 ["benchmark", "threads", "workers", "scheme", "median ns", "min", "max", "runs"],
                 real_spread_rows(by)))
    png = plot_real(by, out)
    if png:
        text += (f"\n\n![real speedups]({png})\n\nThe real schemes on the simulator's axes "
                 "(sim_fig*.png): speedup of create-and-run over the serial scheme on one worker, "
                 "against the number of processors; this host has 2.")
    try:
        ctx.program(LINE_PROGRAM)
        lt = parse_results(ctx.run_program(LINE_PROGRAM, "--trials", "5"), strict=False)
        if lt:
            text += (f"\n\nOne cache line moved between the two CPUs (`{LINE_PROGRAM}`): "
                     f"{lt[0].get('median_ns')} ns one way; a thread made on one worker and run "
                     "on the other pays at least two such moves.")
    except (FileNotFoundError, RuntimeError):
        pass
    return [("Real measurements", text)]


__all__ = ["NAME", "HELP", "add_arguments", "run", "run_simulated", "run_real", "real_table",
           "real_medians", "real_spread_rows", "real_speedups", "plot_real",
           "headlines", "resource_bounds"]
