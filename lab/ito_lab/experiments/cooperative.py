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

import subprocess
import sys
import tempfile
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from ..context import REPO  # noqa: E402
from ..progress import steps  # noqa: E402
from ..report import image, markdown_table, write_csv, write_report  # noqa: E402

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
    p.add_argument("--part", choices=["census", "case", "all"], default="all",
                   help="census: Fig. 1 and Table 1; case: the stb_vorbis case study (Table 3)")


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


# ---- the case study (section 4, Table 3) -----------------------------------------------

# Paper Table 3 (cycles on a TTA simulator, MP3 decoder of DENbench, 60 s at 44.1 kHz).
PAPER_TABLE3 = {"nothr": (17_051_815_737, None), "min": (19_194_172_482, 12.6),
                "full": (21_116_286_373, 23.8)}
PAPER_TICK_CYCLES = 7700          # "calling the thread scheduler at about every 7 700 cycles"
SAMPLE_PERIOD_US = 1e6 / 44100    # the player must run once per sample period
CG_PERIOD_US = 200                # timer period under callgrind (few signals get through)
CG_BURST = 64                     # switches per tick under callgrind (see player.c --burst)
VARIANTS = [  # name, label, kind
    ("nothr", "no threading", "none"),
    ("full", "full save (every GPR + XSAVE)", "coop"),
    ("abi", "ABI save (callee-saved GPRs, MXCSR, x87 CW)", "coop"),
    ("min", "optimized (preserve_none, auto place)", "coop"),
    ("min-begin", "optimized, always at block beginnings (paper)", "coop"),
    ("preempt", "timer-signal preemption, no yield points", "preempt"),
]


def parse_kv(text: str) -> dict[str, str]:
    """The player's stdout: one key=value per line."""
    out = {}
    for line in text.splitlines():
        k, sep, v = line.partition("=")
        if sep:
            out[k.strip()] = v.strip()
    return out


def parse_callgrind_ir(stderr: str) -> int:
    """Total instructions from callgrind's summary ("Collected : N")."""
    for line in stderr.splitlines():
        if "Collected :" in line:
            return int(line.split("Collected :")[1].split()[0].replace(",", ""))
    raise ValueError("no 'Collected :' line in callgrind's output")


def per_switch(ir_ticked: int, ir_base: int, runs_ticked: int, runs_base: int) -> float:
    """Instructions one switch to the player and back costs: what the ticked run executed
    beyond the same variant without ticks, per extra player run."""
    n = runs_ticked - runs_base
    if n <= 0:
        raise ValueError("the ticked run switched no more than the quiet one")
    return (ir_ticked - ir_base) / n


def model_total(base: float, ticks: float, cost: float) -> float:
    """Instructions of a run with `ticks` switches: the variant's quiet run plus their cost."""
    return base + ticks * cost


def overhead_pct(x: float, ref: float) -> float:
    return 100.0 * (x - ref) / ref


def _player_dir(ctx) -> Path:
    for d in (ctx.build_dir / "workloads" / "player", ctx.build_dir / "player"):
        if (d / "player-nothr").exists():
            return d
    raise FileNotFoundError(f"workloads/player is not built in {ctx.build_dir} "
                            "(needs the plugin, libstb-dev, sox, vorbis-tools)")


def _run(cmd: list[str], timeout: float = 600) -> subprocess.CompletedProcess:
    cp = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if cp.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {cp.returncode}: {cp.stderr[-1500:]}")
    return cp


def _callgrind(exe: Path, args: list[str]) -> tuple[int, dict[str, str]]:
    cp = _run(["nice", "-n", "10", "valgrind", "--tool=callgrind",
               "--callgrind-out-file=/dev/null", str(exe), *args])
    return parse_callgrind_ir(cp.stderr), parse_kv(cp.stdout)


def _median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if len(xs) % 2 else (xs[len(xs) // 2 - 1] + xs[len(xs) // 2]) / 2


def _overhead_png(path: Path, names, ours_model, ours_rt, ours_wall) -> Path:
    fig, ax = plt.subplots(figsize=(8.4, 4.0))
    xs = range(len(names))
    w = 0.2
    ax.bar([x - 1.5 * w for x in xs], ours_model, w,
           label=f"ours, instructions, a tick per {PAPER_TICK_CYCLES} instr. (paper density)")
    ax.bar([x - 0.5 * w for x in xs], ours_rt, w, label="ours, instructions, a tick per 1/44100 s")
    ax.bar([x + 0.5 * w for x in xs], ours_wall, w,
           label="ours, wall time, helper-thread timer at 1/44100 s")
    paper = [PAPER_TABLE3.get(n, (None, None))[1] for n in names]
    ax.bar([x + 1.5 * w for x in xs], [p if p is not None else 0 for p in paper], w,
           label="paper (cycles, TTA)", hatch="//", fill=False)
    ax.set_xticks(list(xs), names)
    ax.set_ylabel("threading overhead vs no threading (%)")
    ax.set_title("Table 3 analogue: stb_vorbis decoder + 44.1 kHz player", fontsize=10)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def run_case_study(args, ctx, out: Path) -> list[tuple[str, str]]:
    """The stb_vorbis decoder + player case study (paper Table 3)."""
    pdir = _player_dir(ctx)
    ogg = pdir / ("player-short.ogg" if ctx.quick else "player.ogg")
    reps = 3 if ctx.quick else 5
    names = [v[0] for v in VARIANTS]
    exe = {n: pdir / f"player-{n}" for n in names}
    coop = [n for n, _, k in VARIANTS if k == "coop"]
    n_native = reps * (1 + 3 * len(coop) + 2)
    n_cg = len(names) + len(coop)
    cg: dict[str, dict] = {}
    wall: dict[tuple[str, str], list[dict]] = {}
    with steps(n_cg + n_native, "case study") as step:
        # 1. Instruction counts (callgrind): each variant quiet (no tick: deterministic),
        #    then with ticks, to get the cost of one switch to the player and back.
        for n in names:
            step(f"callgrind {n} quiet")
            ir, kv = _callgrind(exe[n], [str(ogg), "--no-ticks"])
            cg[n] = {"base": ir, "base_runs": int(kv.get("player_runs", 0)), "kv": kv}
        # (Not the preemptive variant: callgrind 3.19 aborts when a signal handler switches
        # stacks, threads.c:247 vgCallgrind_post_signal; it is measured natively only.)
        for n in coop:
            step(f"callgrind {n} ticked")
            extra = ["--burst", str(CG_BURST)]
            ir, kv = _callgrind(exe[n], [str(ogg), "--period-us", str(CG_PERIOD_US), *extra])
            cg[n].update(ticked=ir, ticked_runs=int(kv["player_runs"]), served=int(kv["served"]),
                         per_switch=per_switch(ir, cg[n]["base"], int(kv["player_runs"]),
                                               cg[n]["base_runs"]))
            if kv["checksum"] != cg["nothr"]["kv"]["checksum"]:
                raise RuntimeError(f"{n}: checksum {kv['checksum']} differs from no threading")
        # 2. Wall time, natively, the variants interleaved in each repetition.
        modes = {"quiet": ["--no-ticks"], "signal": ["--period-us", f"{SAMPLE_PERIOD_US:.3f}"],
                 "helper": ["--period-us", f"{SAMPLE_PERIOD_US:.3f}", "--helper-timer"]}
        for r in range(reps):
            for n in names:
                ms = (["quiet"] if n == "nothr" else ["quiet", "signal"] if n == "preempt"
                      else ["quiet", "signal", "helper"])
                for m in ms:
                    step(f"rep {r + 1} {n} {m}")
                    kv = parse_kv(_run([str(exe[n]), str(ogg), *modes[m]]).stdout)
                    if kv["checksum"] != cg["nothr"]["kv"]["checksum"]:
                        raise RuntimeError(f"{n} {m}: wrong checksum")
                    wall.setdefault((n, m), []).append(kv)

    frames = int(cg["nothr"]["kv"]["frames"])
    ir0 = cg["nothr"]["base"]
    t0 = _median([int(k["decode_ns"]) for k in wall[("nothr", "quiet")]])
    ticks_paper = ir0 / PAPER_TICK_CYCLES
    ticks_rt = t0 / (SAMPLE_PERIOD_US * 1000)

    cg_h = ["variant", "instructions, no tick", "yield points alone (%)", "player runs (ticked)",
            "ticks served (ticked)", "instructions per switch",
            f"model: ticks at paper density ({ticks_paper:.0f})", "overhead (%)",
            f"model: ticks at 1/44100 s ({ticks_rt:.0f})", "overhead rt (%)"]
    cg_rows = []
    ov_model, ov_rt = {}, {}
    measured = [n for n in names if n == "nothr" or "per_switch" in cg[n]]
    for n in names:
        c = cg[n]
        if n not in measured:
            cg_rows.append([n, c["base"], round(overhead_pct(c["base"], ir0), 2),
                            "", "", "", "", "", "", ""])
            continue
        cost = c.get("per_switch", 0.0)
        m1 = model_total(c["base"], ticks_paper if n != "nothr" else 0, cost)
        m2 = model_total(c["base"], ticks_rt if n != "nothr" else 0, cost)
        ov_model[n], ov_rt[n] = overhead_pct(m1, ir0), overhead_pct(m2, ir0)
        cg_rows.append([n, c["base"], round(overhead_pct(c["base"], ir0), 2),
                        c.get("ticked_runs", ""), c.get("served", ""), round(cost, 1),
                        round(m1), round(ov_model[n], 2), round(m2), round(ov_rt[n], 2)])
    write_csv(out / "case_callgrind.csv", cg_h, cg_rows)

    w_h = ["variant", "timer", "runs", "decode ms (median)", "overhead (%)", "ticks",
           "served", "missed deadlines", "underruns", "mean latency us", "max latency us",
           "deferred (preempt)"]
    w_rows = []
    ov_wall = {}
    for (n, m), kvs in wall.items():
        t = _median([int(k["decode_ns"]) for k in kvs])
        med = lambda key: _median([int(k[key]) for k in kvs])  # noqa: E731
        if m == "helper" or (n == "nothr"):
            ov_wall[n] = overhead_pct(t, t0)
        w_rows.append([n, m, len(kvs), round(t / 1e6, 2), round(overhead_pct(t, t0), 1),
                       med("ticks"), med("served"), med("missed"), med("underruns"),
                       round(med("mean_latency_ns") / 1e3, 2),
                       round(max(int(k["max_latency_ns"]) for k in kvs) / 1e3, 1),
                       med("deferred")])
    write_csv(out / "case_wall.csv", w_h, w_rows)

    pn = [n for n in measured if n != "nothr"]
    png = _overhead_png(out / "table3_overhead.png", pn, [ov_model[n] for n in pn],
                        [ov_rt[n] for n in pn], [ov_wall.get(n, 0.0) for n in pn])
    t3_h = ["method", "paper cycles", "paper overhead (%)", "ours: instructions (model)",
            "ours: overhead (%)", "ours: per switch (instr.)", "ours: yield points alone (%)"]
    t3 = []
    for n, label, _ in VARIANTS:
        if n not in measured:
            continue
        p = PAPER_TABLE3.get(n, (None, None))
        t3.append([label, p[0] if p[0] else "", p[1] if p[1] is not None else "",
                   round(model_total(cg[n]["base"], ticks_paper if n != "nothr" else 0,
                                     cg[n].get("per_switch", 0.0))),
                   round(ov_model[n], 1) if n != "nothr" else "",
                   round(cg[n].get("per_switch", 0.0), 1) if n != "nothr" else "",
                   round(overhead_pct(cg[n]["base"], ir0), 1) if n != "nothr" else ""])
    return [
        ("Case study: what was run", f"""
`workloads/player`: a decoder ULT (stb_vorbis from libstb-dev, the only unit built per variant:
`ito-cc --ito-off | --ito-variant=full | abi | min [--ito-place=begin]`) decodes `{ogg.name}`
({frames} stereo frames, {frames / 44100:.1f} s at 44.1 kHz, made at build time by sox and oggenc,
deterministic) as fast as it can into a buffer; a player ULT on the same worker runs once per tick,
takes one frame and checks its deadline. The checksum over all frames is the same in every variant
and run (checked). Instruction counts: `valgrind --tool=callgrind`, whole program (deterministic:
the quiet runs give the same count every time). Wall time: median of {reps} runs of the decoding
phase. Paper density: the paper's timer fired every {PAPER_TICK_CYCLES} cycles of a simulator where
a cycle is an instruction; we apply one tick per {PAPER_TICK_CYCLES} instructions of the no-threading
run ({ticks_paper:.0f} ticks). Real-time density: one tick per 1/44100 s of this CPU's no-threading
decoding time ({t0 / 1e6:.1f} ms, {ticks_rt:.0f} ticks).
"""),
        ("Table 3: threading overhead", f"""
{image(png, 'Table 3 analogue', out)}

{markdown_table(t3_h, t3)}

Instructions per switch: the ticked callgrind run minus the quiet run of the same variant, per
extra player run (a switch to the player, its run, and the switch back; under callgrind only
about one timer signal per million instructions gets through, so each tick is followed by
{CG_BURST - 1} more switches at the decoder's next yield points: `--burst {CG_BURST}`). The model
adds ticks x that cost to the quiet run. Data: case_callgrind.csv.

{markdown_table(cg_h, cg_rows)}
"""),
        ("Wall time and deadlines (native)", f"""
Timers: `signal` is a POSIX timer sending a signal to the worker every 1/44100 s (its handler
sets the flag, or switches in the preemptive variant); `helper` is a thread on the other core
that polls the clock and stores the flag, the nearest thing to the paper's free hardware timer;
`quiet` has no timer. Missed deadlines: ticks that found the previous tick not yet served, plus
expiries the kernel folded. Data: case_wall.csv.

{markdown_table(w_h, sorted(w_rows, key=lambda r: (names.index(r[0]), r[1])))}
"""),
    ]


def run(args, ctx) -> int:
    out = ctx.out(NAME)
    part = getattr(args, "part", "all")
    sections: list[tuple[str, str]] = []
    if part in ("census", "all"):
        sections += run_census(args, ctx, out)
    if part in ("case", "all"):
        sections += run_case_study(args, ctx, out)
    write_report(out / "report.md", "Compiler-assisted co-operative threading (seed 004)", sections)
    print(f"ito-lab {NAME}: wrote {out / 'report.md'}")
    return 0
