"""ito-lab cooperative: compiler-assisted co-operative threading (Jääskeläinen et al.; seed 004).

Two halves write into results/cooperative/:

  * census (run_census): the live-register census of section 3.1 at machine level. Each C
    unit (the Ogg Vorbis decoder and image codecs of Debian's libstb-dev, and ito's own
    src/**/*.c) is compiled by clang-19 and stopped after register allocation; the census
    (compiler/census/ito_census) counts the live GPRs before every instruction and finds,
    per basic block, where the minimum lies. It reproduces Fig. 1 (distribution of live
    registers per instruction) and Table 1 (location and size of the minimum by the block's
    maximum), and, when the plugin is built, judges the plugin's IR-level begin/end choice
    against the machine truth.
  * case study (run_case_study): the MP3-player case of section 4 (Table 3) on stb_vorbis
    with ito's runtime (workloads/player): no threading / full save / ABI / optimized /
    timer preemption; instruction counts by callgrind, wall time, deadlines.

Outputs: census_summary.csv, census_hist.csv (Fig. 1 data), census_table1.csv,
census_estimate.csv, fig1_live_registers.png, table1_location.png, case_callgrind.csv,
case_wall.csv, table3_overhead.png, report.md.
"""
from __future__ import annotations

from ..argtypes import positive_int

import subprocess
import sys
import tempfile
from pathlib import Path

from ..plot import plt  # matplotlib at the first plot
from ..context import REPO
from ..progress import steps
from ..report import image, markdown_table, write_csv, write_report
from .coop_case import run_case_study  # noqa: E402,F401
from .coop_headline import run_headline  # noqa: E402,F401
from .coop_zlib import run_zlib  # noqa: E402,F401

NAME = "cooperative"
HELP = ("compiler-assisted co-operative threading: live-register census (Fig. 1, Table 1) "
        "and the audio case study (Table 3)")

CENSUS_DIR = REPO / "compiler" / "census"
PAPER_MEAN_LIVE = 3.0          # "the average being around three live registers"
PAPER_RANGE = (0, 14)          # "varies from zero to fourteen"
MAIN_OPT = "-O2"


def _census_modules():
    """compiler/census is not an installed package: import it from the source tree."""
    if str(CENSUS_DIR) not in sys.path:
        sys.path.insert(0, str(CENSUS_DIR))
    from ito_census import compile as comp
    from ito_census import stats
    return comp, stats


def add_arguments(p):
    p.add_argument("--part", choices=["census", "case", "headline", "zlib", "all"], default="all",
                   help="census: Fig. 1 and Table 1; case: the stb_vorbis case study (Table 3); "
                        "headline: Table 3's headline in wall clock, adjacent triples of the plain, "
                        "full-save and optimized builds; "
                        "zlib: zlib and its tests built by ito-cc, run in ULTs")
    p.add_argument("--triples", type=positive_int, default=None, metavar="N",
                   help="triples of the headline part (default 301; 30 with --quick)")
    p.add_argument("--runs", type=positive_int, default=None,
                   help="interleaved wall-clock rounds of the case study's variants (default 5; "
                        "3 with --quick)")
    p.add_argument("--floor", action="store_true",
                   help="headline part: also run the budget builds linked with the floor runtime "
                        "(workloads/player/floorrt.c, no scheduler) in every round (always with "
                        "--part all)")
    p.add_argument("--matched-player", action="store_true",
                   help="headline part: also run the budget pair whose player yields with its variant's "
                        "saves (full / minimal) instead of ito_yield, in every round (always with --part all)")
    p.add_argument("--dense-quantum", type=positive_int, default=None, metavar="Q",
                   help="the budget variants' quantum for a yield per 7,700 cycles, fixed "
                        "(e.g. 30100, what an earlier run calibrated) instead of calibrated on "
                        "this run's plain decodes: runs in different phases of the host then "
                        "compare")
    p.add_argument("--host-quantum", action="store_true",
                   help="headline part: calibrate the quantum on this host to a yield per 7,700 TSC cycles of "
                        "the plain build's fastest decode (at least 15 after 3 warm-up ones) instead of the fixed 30100 "
                        "(a yield per 7,700 cycles on the first AMD EPYC host); --part all does this "
                        "unless --dense-quantum is given")
    p.add_argument("--calibrate", type=positive_int, default=5, metavar="N",
                   help="plain decodes whose fastest calibrates the dense quantum (default 5)")
    p.add_argument("--skip-icount", action="store_true",
                   help="skip the exact instruction intervals (icount single-steps the probe "
                        "builds under ptrace: 20-40 minutes; --quick skips them too)")


def _plugin(ctx) -> Path | None:
    p = ctx.build_dir / "compiler" / "ItoYield.so"
    return p if p.exists() else None


def _r(v):
    return round(v, 1) if isinstance(v, float) else v


def _histogram_png(path: Path, hists: dict[str, dict[int, int]]) -> Path:
    """Fig. 1 analogue: share of instructions (%) by number of live GPRs, one bar per group."""
    fig, ax = plt.subplots(figsize=(7.2, 4.0))
    names = list(hists)
    width = 0.8 / max(1, len(names))
    for k, name in enumerate(names):
        h = hists[name]
        total = sum(h.values()) or 1
        xs = list(range(0, 16))
        ax.bar([x - 0.4 + width * (k + 0.5) for x in xs], [100.0 * h.get(x, 0) / total for x in xs],
               width=width, label=name)
    ax.axvspan(PAPER_RANGE[0] - 0.5, PAPER_RANGE[1] + 0.5, color="#27ae60", alpha=0.06,
               label="paper: range 0-14")
    ax.axvline(PAPER_MEAN_LIVE, color="#27ae60", linestyle="--", label="paper: mean ~3")
    ax.set_xticks(range(0, 16))
    ax.set_xlabel("live GPRs before the instruction (of 15: rsp not counted)")
    ax.set_ylabel("instructions (%)")
    ax.set_title(f"Distribution of register context size (clang-19 {MAIN_OPT}, x86-64)",
                 fontsize=10)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def _table1_png(path: Path, rows: list[list], paper: list[list]) -> Path:
    """Table 1 as curves: % of blocks with the minimum at the beginning / only in the
    middle / at the end, by the block's maximum, ours (solid) beside the paper (dashed)."""
    fig, axes = plt.subplots(1, 3, figsize=(11, 3.6), sharey=True)
    for ax, col, pcol, title in zip(axes, (2, 3, 4), (1, 2, 3),
                                    ("minimum at the beginning", "minimum only in the middle",
                                     "minimum at the end")):
        ax.plot([r[0] for r in rows], [r[col] for r in rows], "-o", markersize=4,
                label=f"ours (clang-19 {MAIN_OPT}, x86-64)")
        ax.plot([r[0] for r in paper], [r[pcol] for r in paper], "--s", markersize=4,
                markerfacecolor="none", label="paper (LLVM 2.2, TTA)")
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("max live registers in the block")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("blocks (%)")
    axes[0].legend(fontsize=8)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def run_census(args, ctx, out: Path) -> list[tuple[str, str]]:
    comp, stats = _census_modules()
    plugin = _plugin(ctx)
    opts = [MAIN_OPT] if ctx.quick else ["-O0", MAIN_OPT, "-O3"]
    with tempfile.TemporaryDirectory(prefix="ito-census-") as tmp:
        stb = comp.stb_units(Path(tmp), ["stb_vorbis", "stb_image"] if ctx.quick else None)
        units = stb + comp.ito_units(REPO)
        results: dict[str, dict[str, object]] = {}   # opt -> group -> Census
        failed: dict[str, dict[str, str]] = {}
        with steps(len(units) * len(opts), "census") as step:
            for opt in opts:
                done, bad = comp.run(units, opt, plugin=plugin if opt == MAIN_OPT else None,
                                     on_done=lambda u, e, o=opt: step(f"{o} {u.name}"))
                failed[opt] = bad
                groups = {"stb": stats.Census(), "ito": stats.Census()}
                for u in units:
                    if u.name in done:
                        groups[u.group].merge(done[u.name])
                total = stats.Census()
                for c in groups.values():
                    total.merge(c)
                groups["all"] = total
                results[opt] = groups
    if not stb:
        raise RuntimeError("no libstb-dev sources in /usr/include/stb: install libstb-dev")

    # CSV: per level and group, the summary; the histogram; Table 1; the estimate check.
    summary_h = ["opt", "group", "units", "functions", "blocks", "instructions",
                 "points per block", "middle only % (blocks of >= 5 points)", "mean live GPRs", "max live GPRs", "EFLAGS live (%)", "mean live vector regs",
                 "liveins checked", "liveins differing"]
    summary = []
    hist_rows, t1_rows, est_rows = [], [], []
    for opt, groups in results.items():
        for g, c in groups.items():
            nunits = sum(1 for u in units if (g == "all" or u.group == g)
                         and u.name not in failed[opt])
            nv = sum(c.vec_hist.values()) or 1
            big = [b for b in c.blocks if b.npoints >= 5]
            summary.append([opt, g, nunits, c.functions, len(c.blocks), c.instructions,
                            round(sum(b.npoints for b in c.blocks) / max(1, len(c.blocks)), 2),
                            round(100.0 * sum(b.middle_only for b in big) / max(1, len(big)), 1),
                            round(c.mean_live(), 3), max(c.gpr_hist) if c.gpr_hist else 0,
                            round(100.0 * c.flags_live / max(1, c.instructions), 1),
                            round(sum(k * v for k, v in c.vec_hist.items()) / nv, 3),
                            c.livein_checked, c.livein_mismatch])
            for k in range(16):
                hist_rows.append([opt, g, k, c.gpr_hist.get(k, 0),
                                  round(100.0 * c.gpr_hist.get(k, 0) / max(1, c.instructions), 3)])
            for r in stats.table1(c.blocks) + [stats.table1_total(c.blocks)]:
                t1_rows.append([opt, g, *[round(x, 2) if isinstance(x, float) else x for x in r]])
            if c.estimate is not None:
                m = c.estimate.means()
                est_rows.append([opt, g, m["matched"], round(m["agree_pct"], 1),
                                 *[round(m[k], 3) for k in ("begin", "end", "plugin",
                                                             "best_end", "min")]])
    write_csv(out / "census_summary.csv", summary_h, summary)
    write_csv(out / "census_hist.csv", ["opt", "group", "live GPRs", "instructions", "percent"],
              hist_rows)
    write_csv(out / "census_table1.csv", ["opt", "group", *stats.TABLE1_HEADER], t1_rows)
    est_h = ["opt", "group", "blocks matched", "plugin picks a better end (%)",
             "always begin", "always end", "plugin (IR estimate)", "better end (machine)",
             "block minimum"]
    if est_rows:
        write_csv(out / "census_estimate.csv", est_h, est_rows)

    main = results[MAIN_OPT]
    fig1 = _histogram_png(out / "fig1_live_registers.png",
                          {f"{g} ({main[g].instructions} instr.)": dict(main[g].gpr_hist)
                           for g in ("stb", "ito")})
    ours = stats.table1(main["all"].blocks)
    tab1 = _table1_png(out / "table1_location.png", ours, stats.PAPER_TABLE1)

    # Markdown.
    paper = {r[0]: r for r in stats.PAPER_TABLE1}
    side = []
    for r in ours:
        p = paper.get(r[0])
        side.append([r[0], r[1], *[x for k in range(5)
                                   for x in (_r(r[2 + k]), p[1 + k] if p else None)]])
    tot = stats.table1_total(main["all"].blocks)
    side.append(["all", tot[1], *[x for v in tot[2:] for x in (_r(v), None)]])
    side_h = ["max live", "blocks", "begin % (ours)", "begin % (paper)", "middle only % (ours)",
              "middle only % (paper)", "end % (ours)", "end % (paper)", "avg min (ours)",
              "avg min (paper)", "min(ends) - opt (ours)", "min(ends) - opt (paper)"]
    skipped = {o: b for o, b in failed.items() if b}
    skipped_text = ("none: every unit compiled." if not skipped else "\n".join(
        f"- {o} {name}: {err}" for o, b in skipped.items() for name, err in b.items()))
    mean_main = {g: main[g].mean_live() for g in main}
    sections = [
        ("What was run", f"""
Every unit is compiled by `clang-19 <opt> -S -mllvm -stop-after=<pass>` (pass: `virtregrewriter`,
or `regallocfast` at -O0), i.e. clang's own code generation stopped once every value sits in a
physical register; the census (`compiler/census`, `python -m ito_census`) parses that MIR and
computes, from scratch, which of the 16 GPRs are live before each instruction (rsp never counted;
rbp counted when it holds a value; EFLAGS and vector registers counted apart). Its block live-ins
are compared with LLVM's own `liveins:` lists as a check of the parser: see the last two columns
of the summary (a difference would be a census bug).

Units: {', '.join(u.name for u in stb)} from Debian's libstb-dev (multimedia decoders, the nearest
thing to the paper's DENbench), and ito's own sources ({len(units) - len(stb)} files under src/).
Levels: {', '.join(opts)} ({MAIN_OPT} is the main one). Units that did not compile: {skipped_text}
"""),
        ("Summary", markdown_table(summary_h, summary)),
        ("Fig. 1: distribution of register context size", f"""
{image(fig1, 'Fig. 1 analogue', out)}

Paper (DENbench, whole executables, LLVM 2.2 linear scan, 16 registers): 0 to 14 live
registers, mean about 3. Ours at {MAIN_OPT}: mean {mean_main['stb']:.2f} (stb),
{mean_main['ito']:.2f} (ito), {mean_main['all']:.2f} (all); range 0 to
{max(main['all'].gpr_hist)}. Data: census_hist.csv.
"""),
        ("Table 1: location and size of the minimum context", f"""
{image(tab1, 'Table 1 analogue', out)}

All units at {MAIN_OPT}, ours beside the paper's Table 1 (the paper has no rows above 14 nor
block counts). A block counts for both "begin" and "end" when both reach its minimum.

{markdown_table(side_h, side)}
"""),
    ]
    if est_rows:
        sections.append(("The plugin's IR estimate against the machine", f"""
The plugin chooses the beginning or the end of a block by IR liveness (an estimate made before
instruction selection). Compiled once more with the plugin in dry-run mode, each IR block is
matched by name to the machine block that starts it, and the choice is judged by the census:
live GPRs at the point chosen, averaged over matched blocks, beside always-beginning (the paper's
case study), always-end, the better end by machine liveness and the block's true minimum.

{markdown_table(est_h, est_rows)}
"""))
    elif plugin is None:
        sections.append(("The plugin's IR estimate against the machine",
                         f"Not measured: the plugin is not built ({ctx.build_dir}/compiler/ItoYield.so)."))
    return sections


def run(args, ctx) -> int:
    out = ctx.out(NAME)
    part = getattr(args, "part", "all")
    sections: list[tuple[str, str]] = []
    if part in ("census", "all"):
        sections += run_census(args, ctx, out)
    if part in ("case", "all"):
        sections += run_case_study(args, ctx, out)
    if part in ("headline", "all"):  # the whole experiment measures the floor beside libito too
        every = part == "all"
        # the whole experiment at the paper's density on this host, unless a quantum is given
        sections += run_headline(args, ctx, out, floor=every or bool(getattr(args, "floor", False)),
                                 matched=every or bool(getattr(args, "matched_player", False)),
                                 host_quantum=(every and not getattr(args, "dense_quantum", None))
                                 or bool(getattr(args, "host_quantum", False)))
    if part in ("zlib", "all"):
        sections += run_zlib(args, ctx, out)
    # the census checks itself against LLVM's liveins: lists; a difference is a census bug
    # (the report says so), so it fails the experiment instead of passing unnoticed
    bad = 0
    if (out / "census_summary.csv").exists() and part in ("census", "all"):
        import csv
        with open(out / "census_summary.csv") as fh:
            bad = sum(int(r["liveins differing"] or 0) for r in csv.DictReader(fh) if r["group"] == "all")
        if bad:
            sections.insert(0, ("Census check FAILED", f"{bad} blocks' computed live-ins differ from "
                                "LLVM's `liveins:` lists (census_summary.csv): the census has a bug."))
    write_report(out / "report.md", "Compiler-assisted co-operative threading (seed 004)", sections)
    print(f"ito-lab {NAME}: wrote {out / 'report.md'}")
    if bad:
        print(f"ito-lab {NAME}: census check failed: {bad} blocks differ from LLVM's liveins", file=sys.stderr)
        return 1
    return 0
