"""The audio case study of compiler-assisted co-operative threading (seed 004, section 4, Table 3).

workloads/player builds one program per variant from the same sources; only decoder.c
(stb_vorbis) differs, compiled by ito-cc. Measured here:

  1. instructions (callgrind, deterministic): each variant without ticks (what the checks and
     any prologue cost alone), and with ticks (the cost of one switch to the player and back,
     per extra player run); Table 3 is composed at the paper's tick density (a tick per 7,700
     instructions of the no-threading run);
  2. code growth: the text of decoder-<variant>.o against the plain build;
  3. intervals between checks: the probe builds (every check calls a TSC probe instead)
     report percentiles and the maximum of the cycles between two checks;
  4. wall time: the decoding phase, min/median/max over interleaved repetitions, without a
     timer, with the helper-thread timer at 1/44100 s, and with it at the paper's density (a
     tick per 7,700 TSC cycles): Table 3 measured, not composed (wall time needs a quiet
     machine: the load average is recorded with the numbers);
  5. the budget check (ito-cc --ito-check=budget, no timer): the same decode where each check
     counts down estimated instructions and the decoder yields when its quantum has run, at
     the paper's density in instructions (a quantum of 7,700) and in cycles (the quantum that
     gives one yield per 7,700 cycles of the plain build, from the yields counted at 7,700).

Inputs (fixed): the variants' build options (workloads/player/CMakeLists.txt), the paper's
numbers below. Results: everything else.
"""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

from ..plot import plt  # matplotlib at the first plot
from ..progress import steps
from ..report import image, markdown_table, write_csv

# Paper Table 3 (cycles on a TTA simulator, MP3 decoder of DENbench, 60 s at 44.1 kHz).
PAPER_TABLE3 = {"nothr": (17_051_815_737, None), "min": (19_194_172_482, 12.6),
                "full": (21_116_286_373, 23.8)}
PAPER_TICK_CYCLES = 7700          # "calling the thread scheduler at about every 7 700 cycles"
SAMPLE_PERIOD_US = 1e6 / 44100    # the player must run once per sample period
CG_PERIOD_US = 200                # timer period under callgrind (few signals get through)
CG_BURST = 64                     # switches per tick under callgrind (see player.c --burst)
BOUND = 5000                      # the bound B of the bounded variants (estimated instr.)
BUDGET_OFF = 1_000_000_000        # a quantum longer than any decode: the checks alone
# name, label, group, kind ("none" | "coop" | "preempt" | "budget": no timer, see player.c)
VARIANTS = [
    ("nothr", "no threading", "-", "none"),
    ("stub-full", "full save (every GPR + XSAVE)", "every block", "coop"),
    ("stub-begin", "optimized: live-set stubs, block beginnings (paper)", "every block", "coop"),
    ("stub", "optimized: live-set stubs, fewer-live end", "every block", "coop"),
    ("full", "full save, C call (earlier design)", "every block", "coop"),
    ("abi", "ABI save, C call (earlier design)", "every block", "coop"),
    ("min", "preserve_none call (earlier design)", "every block", "coop"),
    ("min-begin", "preserve_none call, beginnings (earlier design)", "every block", "coop"),
    ("bound-full", "full save (every GPR + XSAVE)", f"bound B={BOUND}", "coop"),
    ("bound", "optimized: live-set stubs", f"bound B={BOUND}", "coop"),
    ("budget-begin-full", "full save, budget check", "every block", "budget"),
    ("budget-begin", "optimized: live-set stubs, beginnings, budget check", "every block", "budget"),
    ("budget-full", "full save, budget check", f"bound B={BOUND}", "budget"),
    ("budget", "optimized: live-set stubs, budget check", f"bound B={BOUND}", "budget"),
    ("preempt", "timer-signal preemption, no checks", "-", "preempt"),
]
PROBES = [("probe-every", "every block (paper)"), ("probe-bound", f"bound B={BOUND}")]
# icount (compiler/probe) single-steps these on player-tiny.ogg: exact instruction intervals.
ICOUNT = [("probe-every-solo", "every block (paper)"), ("probe-bound-solo", f"bound B={BOUND}")]
# switchcost-<name>: the cycles of a round of yields (see workloads/player/switchcost.c)
SWITCHCOST = [("stub", "live-set stub"), ("stub-full", "full-save stub (every GPR + XSAVE)"),
              ("min", "preserve_none call"), ("abi", "C call, ABI save"),
              ("full", "C call, full save (XSAVE in the switch)")]
# Which switchcost build gives the cycles of a switch of each case-study variant.
SWITCH_OF = {"stub-full": "stub-full", "stub-begin": "stub", "stub": "stub", "full": "full",
             "abi": "abi", "min": "min", "min-begin": "min", "bound-full": "stub-full",
             "bound": "stub", "budget-begin-full": "stub-full", "budget-begin": "stub",
             "budget-full": "stub-full", "budget": "stub"}
# The headline pairs: (full save, optimized) with the same checks.
PAIRS = [("stub-full", "stub-begin", "every block"), ("bound-full", "bound", f"bound B={BOUND}")]
BUDGET_PAIRS = [("budget-begin-full", "budget-begin", "every block, budget check"),
                ("budget-full", "budget", f"bound B={BOUND}, budget check")]


def parse_kv(text: str) -> dict[str, str]:
    """The player's (and the probe's) output: one key=value per line."""
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


def cycle_model(nothr_ns: float, variant_ns: float, round_cycles: float, tsc_mhz: float,
                tick_cycles: float = PAPER_TICK_CYCLES) -> tuple[float, float, float]:
    """Threading overhead in cycles (%): the checks (the variant's timer-less decode time over
    the plain build's), plus a tick per `tick_cycles` cycles of the plain build, each costing
    half a switchcost round (one compiler-inserted yield and one ito_yield). Returns
    (checks %, switches %, total %)."""
    base = nothr_ns * tsc_mhz / 1000.0
    checks = (variant_ns - nothr_ns) * tsc_mhz / 1000.0
    switches = base / tick_cycles * round_cycles / 2.0
    return 100.0 * checks / base, 100.0 * switches / base, 100.0 * (checks + switches) / base


def dense_period_us(tsc_mhz: float, tick_cycles: float = PAPER_TICK_CYCLES) -> float:
    """The helper timer's period that gives the paper's tick density: a tick per
    `tick_cycles` cycles, counted at the TSC rate (MHz = cycles per microsecond)."""
    if tsc_mhz <= 0:
        raise ValueError("the TSC rate must be positive")
    return tick_cycles / tsc_mhz


def budget_quantum(yields_at_paper: int, nothr_ns: float, tsc_mhz: float,
                   tick_cycles: float = PAPER_TICK_CYCLES) -> int:
    """The quantum that makes a budget variant yield about once per `tick_cycles` cycles of
    the plain build's decode (`nothr_ns` at the TSC rate), from the yields it made with the
    paper's quantum of `tick_cycles` estimated instructions (the yields scale as 1/quantum)."""
    if yields_at_paper <= 0 or nothr_ns <= 0 or tsc_mhz <= 0:
        raise ValueError("yields, decode time and TSC rate must be positive")
    ticks = nothr_ns * tsc_mhz / 1000.0 / tick_cycles
    return max(1, round(tick_cycles * yields_at_paper / ticks))


def dense_quanta(names, ticked_runs: dict, t_cal: float, tsc_mhz: float,
                 fixed: int | None = None) -> dict:
    """Each budget variant's quantum for the paper's density in cycles: `fixed` for all when
    given (runs in different phases of the host then share it), else calibrated from the
    yields each made at the paper's quantum and the plain build's decode time `t_cal` (ns)."""
    if fixed is not None:
        if fixed < 1:
            raise ValueError(f"--dense-quantum must be at least 1, not {fixed}")
        return {n: fixed for n in names}
    if not tsc_mhz or not t_cal:
        return {}
    return {n: budget_quantum(ticked_runs[n], t_cal, tsc_mhz) for n in names}


def budget_args(mode: str, quantum: int) -> list[str]:
    """A budget variant's player options per mode: the checks alone, the paper's quantum, or
    the one computed for the paper's density in cycles."""
    q = {"quiet": BUDGET_OFF, "paper": PAPER_TICK_CYCLES, "dense": quantum}[mode]
    return ["--budget", str(q)]


def headline_verdict(f: float, o: float) -> list:
    """The paper's headline from two overheads (%), full save `f` and optimized `o`: their
    ratio, whether optimized <= half of full, and whether optimized <= 5 %. A full save
    that came out no dearer than the plain build means the plain build's statistic missed
    this host's fast phase: no result, never a "yes"."""
    if f <= 0:
        return ["", "no result", "no result"]
    return [round(o / f, 2), "yes" if o <= f / 2 else "no", "yes" if o <= 5.0 else "no"]


def wall_headline(t0: float, full: float, opt: float) -> list:
    """The headline from measured decode times (ns) at the paper's density: the overheads
    of full save and optimized over the plain build's `t0` (one statistic each: the
    minimum, or the median), then headline_verdict."""
    f, o = overhead_pct(full, t0), overhead_pct(opt, t0)
    return [round(f, 1), round(o, 1), *headline_verdict(f, o)]


def paired_median_excess(plain: list[float], variant: list[float]) -> float:
    """The median over repetitions of the variant's time minus the plain build's time in
    the same repetition. The runs are interleaved, and this host's slow phase holds for
    several repetitions in a row, so a pair shares its phase: the statistic that a phase
    does not move, where a minimum or a median of each build alone compares one phase with
    another."""
    if len(plain) != len(variant) or not plain:
        raise ValueError("paired statistics need one run of each per repetition")
    return _median([v - p for p, v in zip(plain, variant)])


def _quartiles(xs: list[float]) -> tuple[float, float, float]:
    """The lower quartile, the median and the upper quartile (the medians of each half)."""
    xs = sorted(xs)
    h = len(xs) // 2
    lo, hi = xs[:h] or xs, xs[len(xs) - h:] or xs
    return _median(lo), _median(xs), _median(hi)


def pair_overheads(plain: list[float], full: list[float], opt: list[float]) -> tuple[list, list]:
    """The overheads (%) of full save and optimized, each over the plain run of its own
    repetition (or triple)."""
    if not (len(plain) == len(full) == len(opt)) or not plain:
        raise ValueError("paired statistics need one run of each per repetition")
    return ([overhead_pct(f, p) for p, f in zip(plain, full)],
            [overhead_pct(o, p) for p, o in zip(plain, opt)])


def fmt_quartiles(q: tuple[float, float, float], digits: int = 1) -> str:
    """p25 / median / p75 as report text."""
    return " / ".join(f"{x:.{digits}f}" for x in q)


def paired_round_stats(plain: list[float], full: list[float], opt: list[float]) -> dict:
    """Each repetition on its own: the overheads of full save and optimized over the plain
    build's run of the same repetition (%), their ratio, and whether that repetition meets
    each bar. Returns the quartiles of each and how many repetitions met each bar, so a
    report can tell a result from a run whose rounds fall on both sides of a bar. A
    repetition whose full save came out no dearer than its plain run has no ratio (it
    counts as not meeting the half bar)."""
    fo, oo = pair_overheads(plain, full, opt)
    ratios = [o / f for f, o in zip(fo, oo) if f > 0]
    return {"rounds": len(plain), "full": _quartiles(fo), "opt": _quartiles(oo),
            "ratio": _quartiles(ratios) if ratios else None,
            "half_met": sum(1 for f, o in zip(fo, oo) if f > 0 and o <= f / 2),
            "five_met": sum(1 for o in oo if o <= 5.0)}


def parse_size_text(out: str) -> int:
    """The text size from `size` (Berkeley format: text data bss dec hex filename)."""
    lines = [ln for ln in out.splitlines() if ln.strip()]
    return int(lines[-1].split()[0])


def _median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if len(xs) % 2 else (xs[len(xs) // 2 - 1] + xs[len(xs) // 2]) / 2


def _player_dir(ctx) -> Path:
    for d in (ctx.build_dir / "workloads" / "player", ctx.build_dir / "player"):
        if (d / "player-nothr").exists():
            return d
    raise FileNotFoundError(f"workloads/player is not built in {ctx.build_dir} "
                            "(needs the plugin, libstb-dev, sox, vorbis-tools)")


def _run(cmd: list[str], timeout: float = 1200, env=None) -> subprocess.CompletedProcess:
    cp = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    if cp.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {cp.returncode}: {cp.stderr[-1500:]}")
    return cp


def _callgrind(exe: Path, args: list[str]) -> tuple[int, dict[str, str]]:
    cp = _run(["nice", "-n", "10", "valgrind", "--tool=callgrind",
               "--callgrind-out-file=/dev/null", str(exe), *args])
    return parse_callgrind_ir(cp.stderr), parse_kv(cp.stdout)


def _where(exe: Path, offset: str) -> str:
    """The function holding a return address into `exe` (addr2line), for the report."""
    cp = subprocess.run(["addr2line", "-f", "-s", "-e", str(exe), offset], capture_output=True,
                        text=True)
    lines = cp.stdout.split()
    return lines[0] if cp.returncode == 0 and lines else offset


def _longest(exe: Path, kv: dict[str, str]) -> list[str]:
    """The longest intervals icount reported, as 'N: from -> to' with function names."""
    out = []
    for k in range(1, 6):
        v = kv.get(f"icount_top{k}")
        if v:
            n, a, b = v.split()
            out.append(f"{n}: {_where(exe, a)} -> {_where(exe, b)}")
    return out


def _load() -> str:
    return "/".join(f"{x:.2f}" for x in os.getloadavg())


def _overhead_png(path: Path, rows: list[tuple[str, float, float | None, tuple | None]],
                  switch_rows: list[list]) -> Path:
    """Left: the instruction model (a tick per 7,700 instructions) beside the paper; middle:
    the cycles of a round of yields by what a yield saves (switchcost minima); right: wall
    time with the helper-thread timer at the paper's density (a tick per 7,700 cycles), the
    variant's minimum over the plain build's minimum and median over median (this host runs
    whole processes in a fast or a slow phase: a minimum against a median mixes the two)."""
    fig, (a1, a3, a2) = plt.subplots(1, 3, figsize=(15, 4.4))
    if switch_rows:
        sx = list(range(len(switch_rows)))
        a3.bar(sx, [r[3] for r in switch_rows], 0.5, color="#2980b9")
        a3.set_xticks(sx, [r[0] for r in switch_rows], rotation=35, ha="right", fontsize=8)
    a3.set_ylabel("cycles per round (min)")
    a3.set_title("cycles of a yield by what it saves", fontsize=10)
    a3.grid(axis="y", alpha=0.3)
    names = [r[0] for r in rows]
    xs = list(range(len(rows)))
    a1.bar([x - 0.2 for x in xs], [r[1] for r in rows], 0.4,
           label=f"ours: instructions, a tick per {PAPER_TICK_CYCLES}")
    a1.bar([x + 0.2 for x in xs], [r[2] if r[2] is not None else 0 for r in rows], 0.4,
           label="paper: cycles (TTA)", hatch="//", fill=False)
    a1.set_xticks(xs, names, rotation=35, ha="right", fontsize=8)
    a1.set_ylabel("threading overhead vs no threading (%)")
    a1.set_title("callgrind model (deterministic)", fontsize=10)
    a1.grid(axis="y", alpha=0.3)
    a1.legend(fontsize=7)
    wall = [(r[0], r[3]) for r in rows if r[3] is not None]
    if wall:
        wx = list(range(len(wall)))
        a2.bar([x - 0.2 for x in wx], [w[1][0] for w in wall], 0.4, color="#2c3e50",
               label="minimum / minimum")
        a2.bar([x + 0.2 for x in wx], [w[1][1] for w in wall], 0.4, color="#95a5a6",
               label="median / median")
        a2.set_xticks(wx, [w[0] for w in wall], rotation=35, ha="right", fontsize=8)
        a2.legend(fontsize=7)
    a2.axhline(0, color="black", linewidth=0.6)
    a2.set_title(f"wall clock, a tick per {PAPER_TICK_CYCLES} cycles (load {_load()})",
                 fontsize=10)
    a2.set_ylabel("decode time vs no threading (%)")
    a2.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def player_inputs(args, ctx, option: str, default: int, quick: int, least: int) -> tuple[Path, Path, int]:
    """The player's folder, its input (shorter with --quick) and a count option's value."""
    pdir = _player_dir(ctx)
    ogg = pdir / ("player-short.ogg" if ctx.quick else "player.ogg")
    n = getattr(args, option, None) or (quick if ctx.quick else default)
    if n < least:
        raise SystemExit(f"ito-lab cooperative: --{option} must be at least {least} (got {n})")
    return pdir, ogg, n


def run_case_study(args, ctx, out: Path) -> list[tuple[str, str]]:
    pdir, ogg, reps = player_inputs(args, ctx, "runs", 5, 3, 1)
    names = [v[0] for v in VARIANTS if (pdir / f"player-{v[0]}").exists()]
    kind = {v[0]: v[3] for v in VARIANTS}
    exe = {n: pdir / f"player-{n}" for n in names}
    coop = [n for n in names if kind[n] == "coop"]
    budget = [n for n in names if kind[n] == "budget"]
    wall_names = [n for n in names if n != "preempt"]
    cg: dict[str, dict] = {}
    wall: dict[tuple[str, str], list[dict]] = {}
    probes: dict[str, dict] = {}
    load_before = _load()
    sc_names = [s for s, _ in SWITCHCOST if (pdir / f"switchcost-{s}").exists()]
    n_steps = (len(names) + len(coop) + len(budget) + len(PROBES) + 1
               + reps * (len(wall_names) + 2 * len(coop) + 2 * len(budget)) + reps * len(sc_names))
    sc: dict[str, list[dict]] = {}
    icount = ctx.build_dir / "compiler" / "icount"
    # Single-stepping takes 20-40 minutes on the same tiny input whatever the size: not part
    # of a fast look (--quick) nor of --skip-icount; the report says which.
    ic_skip = ("--skip-icount" if getattr(args, "skip_icount", False)
               else "--quick" if ctx.quick else None)
    ic_names = [(p, lab) for p, lab in ICOUNT
                if icount.exists() and (pdir / f"player-{p}").exists() and not ic_skip]
    n_steps += len(ic_names)
    ic: dict[str, dict] = {}
    with steps(n_steps, "case study") as step:
        for n in names:
            step(f"callgrind {n} quiet")
            ir, kv = _callgrind(exe[n], [str(ogg), *(budget_args("quiet", 0) if n in budget
                                                      else ["--no-ticks"])])
            cg[n] = {"base": ir, "base_runs": int(kv.get("player_runs", 0)), "kv": kv}
        ref_sum = cg["nothr"]["kv"]["checksum"]
        for n in coop + budget:
            step(f"callgrind {n} ticked")
            ir, kv = _callgrind(exe[n], [str(ogg), *(budget_args("paper", 0) if n in budget else
                                                     ["--period-us", str(CG_PERIOD_US),
                                                      "--burst", str(CG_BURST)])])
            if kv["checksum"] != ref_sum:
                raise RuntimeError(f"{n}: checksum {kv['checksum']} differs from no threading")
            cg[n].update(ticked=ir, ticked_runs=int(kv["player_runs"]),
                         per_switch=per_switch(ir, cg[n]["base"], int(kv["player_runs"]),
                                               cg[n]["base_runs"]))
        for p, _ in PROBES:
            step(f"probe {p}")
            pexe = pdir / f"player-{p}"
            if not pexe.exists():
                continue
            env = dict(os.environ, ITO_PROBE_OUT=str(out / f"{p}.probe"))
            out.mkdir(parents=True, exist_ok=True)
            kv = parse_kv(_run([str(pexe), str(ogg), "--no-ticks"], env=env).stdout)
            if kv["checksum"] != ref_sum:
                raise RuntimeError(f"{p}: wrong checksum")
            probes[p] = parse_kv((out / f"{p}.probe").read_text())
        for p, _ in ic_names:  # slow (ptrace, a few us per instruction): the 0.5 s input
            step(f"icount {p}")
            f = out / f"{p}.icount"
            out.mkdir(parents=True, exist_ok=True)
            _run([str(icount), str(f), "--", str(pdir / f"player-{p}"),
                  str(pdir / "player-tiny.ogg"), "--no-ticks"], timeout=7200)
            ic[p] = parse_kv(f.read_text())
            ic[p]["where"] = "; ".join(_longest(pdir / f"player-{p}", ic[p]))
        tsc = float(next(iter(probes.values()))["probe_tsc_per_us"]) if probes else 0.0
        dense_us = dense_period_us(tsc) if tsc else 0.0
        # The budget variants' quantum for the paper's density in cycles: the yields they made
        # with the paper's quantum (deterministic: callgrind's ticked run above) against the
        # plain build's fastest of five timer-less decodes.
        step("budget quantum")
        fixed_q = getattr(args, "dense_quantum", None)
        n_cal = max(1, getattr(args, "calibrate", 5))
        t_cal = 0.0
        if budget and tsc and fixed_q is None:
            t_cal = min(int(parse_kv(_run([str(exe["nothr"]), str(ogg)],
                                          env=dict(os.environ, ITO_AFFINITY="on")).stdout)
                            ["decode_ns"]) for _ in range(n_cal))
        quantum = dense_quanta(budget, {n: cg[n]["ticked_runs"] for n in budget}, t_cal, tsc,
                               fixed_q) if budget else {}
        q_source = (f"fixed by `--dense-quantum {fixed_q}`" if fixed_q is not None else
                    f"calibrated on the fastest of {n_cal} plain decodes, {t_cal / 1e6:.2f} ms"
                    if t_cal else "not computed")
        for r in range(reps):  # interleaved: every variant once per repetition
            for s in sc_names:
                step(f"switchcost {s} rep {r + 1}")
                sc.setdefault(s, []).append(parse_kv(_run([str(pdir / f"switchcost-{s}")]).stdout))
            for n in wall_names:
                modes = ["quiet"] + (["helper"] + (["dense"] if dense_us else [])
                                     if n in coop else
                                     ["paper"] + (["dense"] if n in quantum else [])
                                     if n in budget else [])
                for m in modes:
                    step(f"rep {r + 1} {n} {m}")
                    period = dense_us if m == "dense" else SAMPLE_PERIOD_US
                    extra = (budget_args(m, quantum.get(n, 0)) if n in budget else
                             ["--no-ticks"] if m == "quiet" else
                             ["--period-us", f"{period:.3f}", "--helper-timer"])
                    # the worker pinned (the helper timer takes the other CPU)
                    kv = parse_kv(_run([str(exe[n]), str(ogg), *extra],
                                       env=dict(os.environ, ITO_AFFINITY="on")).stdout)
                    if kv["checksum"] != ref_sum:
                        raise RuntimeError(f"{n} {m}: wrong checksum")
                    wall.setdefault((n, m), []).append(kv)
    load_after = _load()

    sizes = {n: parse_size_text(_run(["size", str(pdir / f"decoder-{n}.o")]).stdout)
             for n in names if (pdir / f"decoder-{n}.o").exists()}
    ir0 = cg["nothr"]["base"]
    frames = int(cg["nothr"]["kv"]["frames"])
    ticks = ir0 / PAPER_TICK_CYCLES
    t0 = _median([int(k["decode_ns"]) for k in wall[("nothr", "quiet")]])
    t_plain = {"min": min(int(k["decode_ns"]) for k in wall[("nothr", "quiet")]), "median": t0}
    t_plain_runs = [int(k["decode_ns"]) for k in wall[("nothr", "quiet")]]  # per repetition

    label = {v[0]: v[1] for v in VARIANTS}
    group = {v[0]: v[2] for v in VARIANTS}
    ov = {"nothr": 0.0}
    rows = []
    for n in names:
        c = cg[n]
        cost = c.get("per_switch", 0.0)
        total = model_total(c["base"], ticks if n != "nothr" else 0, cost)
        if n == "nothr" or "per_switch" in c:
            ov[n] = overhead_pct(total, ir0)
        rows.append([n, group[n], label[n], c["base"], round(overhead_pct(c["base"], ir0), 2),
                     round(cost, 1) if cost else "", round(total) if n in ov else "",
                     round(ov[n], 2) if n in ov else "", sizes.get(n, ""),
                     round(sizes[n] / sizes["nothr"], 2) if n in sizes and "nothr" in sizes else ""])
    hdr = ["variant", "placement", "method", "instructions, no tick", "checks alone (%)",
           "instr. per switch", f"model at {ticks:.0f} ticks", "overhead (%)",
           "decoder text (bytes)", "growth (x)"]
    write_csv(out / "case_callgrind.csv", hdr, rows)

    ratio_rows = []
    for full, opt, place in PAIRS + BUDGET_PAIRS:
        if full in ov and opt in ov:
            ratio_rows.append([place, round(ov[full], 2), round(ov[opt], 2),
                               round(ov[opt] / ov[full], 3) if ov[full] else "",
                               "yes" if ov[opt] <= ov[full] / 2 else "no",
                               "yes" if ov[opt] <= 5.0 else "no"])
    ratio_hdr = ["placement", "full save (%)", "optimized (%)", "optimized / full",
                 "<= half (paper: 12.6/23.8 = 0.53)", "total <= 5 %"]

    pr_rows = []
    for p, place in PROBES:
        kv = probes.get(p)
        if not kv:
            continue
        mhz = float(kv["probe_tsc_per_us"])
        cyc = {k: int(kv[f"probe_{k}_cycles"]) for k in ("min", "p50", "p90", "p99", "p999",
                                                         "p9999", "max")}
        pr_rows.append([place, int(kv["probe_intervals"]), *[cyc[k] for k in cyc],
                        round(cyc["p99"] / mhz * 1000, 1), round(cyc["max"] / mhz, 1), round(mhz)])
    pr_hdr = ["placement", "checks executed", "min", "p50", "p90", "p99", "p99.9", "p99.99",
              "max (cycles)", "p99 (ns)", "max (us)", "TSC MHz"]
    write_csv(out / "case_intervals.csv", pr_hdr, pr_rows)

    sc_rows = []
    sc_label = dict(SWITCHCOST)
    for s in sc_names:
        mins = [float(k["min_cycles_per_round"]) for k in sc[s]]
        meds = [float(k["median_cycles_per_round"]) for k in sc[s]]
        sc_rows.append([s, sc_label[s], len(mins), round(min(mins), 1), round(_median(meds), 1)])
    sc_hdr = ["variant", "what a yield saves", "runs", "cycles per round, min",
              "cycles per round, median of medians"]
    write_csv(out / "case_switchcost.csv", sc_hdr, sc_rows)
    sc_min = {r[0]: r[3] for r in sc_rows}
    sc_ratio = (f"live-set stub / full-save stub, minimum cycles per round: "
                f"{sc_min['stub'] / sc_min['stub-full']:.2f}"
                if "stub" in sc_min and "stub-full" in sc_min else "")

    # The cycle model: wall-clock minima (timer-less decode) and switchcost minima.
    dmin = {n: min(int(k["decode_ns"]) for k in wall[(n, "quiet")]) for (n, m) in wall
            if m == "quiet"}
    cm_rows, cm = [], {}
    for n in names:
        s = SWITCH_OF.get(n)
        if not tsc or s not in sc_min or n not in dmin:
            continue
        cm[n] = cycle_model(dmin["nothr"], dmin[n], sc_min[s], tsc)
        cm_rows.append([n, group[n], s, round(cm[n][0], 1), round(cm[n][1], 1), round(cm[n][2], 1)])
    cm_hdr = ["variant", "placement", "switch (switchcost build)", "checks (%)",
              "switches (%)", "total (%)"]
    cm_pairs = [[place, round(cm[f][2], 1), round(cm[o][2], 1), *headline_verdict(cm[f][2], cm[o][2])]
                for f, o, place in PAIRS + BUDGET_PAIRS if f in cm and o in cm]
    write_csv(out / "case_cycle_model.csv", cm_hdr, cm_rows)

    ic_rows = [[lab, int(ic[p]["icount_instructions"]), int(ic[p]["icount_checks"]),
                *[int(ic[p][f"icount_{k}"]) for k in ("min", "p50", "p90", "p99", "p999",
                                                       "p9999", "max")],
                ic[p]["where"]]
               for p, lab in ic_names if p in ic]
    ic_hdr = ["placement", "instructions", "checks", "min", "p50", "p90", "p99", "p99.9",
              "p99.99", "max", "longest intervals: length: from -> to (functions of the sites)"]
    write_csv(out / "case_icount.csv", ic_hdr, ic_rows)

    w_rows, wall_plot = [], {}
    for (n, m), kvs in sorted(wall.items(), key=lambda x: (names.index(x[0][0]), x[0][1])):
        ts = sorted(int(k["decode_ns"]) for k in kvs)
        med = _median(ts)
        mean_lat = _median([int(k["mean_latency_ns"]) for k in kvs]) / 1e3
        w_rows.append([n, m, len(ts), round(ts[0] / 1e6, 2), round(med / 1e6, 2),
                       round(ts[-1] / 1e6, 2), round(overhead_pct(med, t0), 1),
                       _median([int(k["served"]) for k in kvs]),
                       _median([int(k["missed"]) for k in kvs]), round(mean_lat, 2),
                       round(max(int(k["max_latency_ns"]) for k in kvs) / 1e3, 1)])
        if m == "dense" and n not in budget:
            wall_plot[n] = (overhead_pct(ts[0], t_plain["min"]), overhead_pct(med, t0))
    # Table 3 measured: decode time with ticks at the paper's density over the plain build's,
    # by the minimum (this host's fast mode) and by the median.
    def _at(n, mode, stat):
        ts = [int(k["decode_ns"]) for k in wall.get((n, mode), [])]
        return stat(ts) if ts else None
    wh_rows, pr_rounds = [], []
    density = {"dense": f"a tick per {PAPER_TICK_CYCLES} cycles",
               "paper": f"a yield per {PAPER_TICK_CYCLES} estimated instructions"}
    for pairs, modes in ((PAIRS, ("dense",)), (BUDGET_PAIRS, ("dense", "paper"))):
        for full, opt, place in pairs:
            for m in modes:
                yields = _median([int(k["player_runs"]) for k in wall.get((opt, m), [])] or [0])
                for sname, stat in (("min", min), ("median", _median)):
                    f, o = _at(full, m, stat), _at(opt, m, stat)
                    if f is not None and o is not None:
                        wh_rows.append([place, density[m], yields, sname,
                                        *wall_headline(t_plain[sname], f, o)])
                fs, os_ = _at(full, m, list), _at(opt, m, list)
                if fs and os_:
                    wh_rows.append([place, density[m], yields, "paired median",
                                    *wall_headline(t0, t0 + paired_median_excess(t_plain_runs, fs),
                                                   t0 + paired_median_excess(t_plain_runs, os_))])
                    ps = paired_round_stats(t_plain_runs, fs, os_)
                    pr_rounds.append([place, density[m], ps["rounds"], fmt_quartiles(ps["full"]),
                                      fmt_quartiles(ps["opt"]),
                                      fmt_quartiles(ps["ratio"], 2) if ps["ratio"] else "no result",
                                      ps["half_met"], ps["five_met"]])
    wh_hdr = ["placement", "density", "switches (optimized)", "statistic", "full save (%)",
              "optimized (%)", "optimized / full", "<= half (paper 0.53)", "optimized <= 5 %"]
    write_csv(out / "case_wall_headline.csv", wh_hdr, wh_rows)
    pr_hdr2 = ["placement", "density", "repetitions", "full save (%) p25 / median / p75",
               "optimized (%) p25 / median / p75", "optimized / full p25 / median / p75",
               "repetitions optimized <= half", "repetitions optimized <= 5 %"]
    write_csv(out / "case_wall_rounds.csv", pr_hdr2, pr_rounds)
    # every run, for a re-analysis (repetition order: the runs were interleaved)
    runs_rows = [[n, m, i, int(k["decode_ns"]), int(k.get("player_runs", 0) or 0)]
                 for (n, m), kvs in sorted(wall.items()) for i, k in enumerate(kvs)]
    write_csv(out / "case_wall_runs.csv", ["variant", "timer", "repetition", "decode_ns", "player runs"],
              runs_rows)

    w_hdr = ["variant", "timer", "runs", "decode ms min", "median", "max", "overhead (%)",
             "ticks served", "missed deadlines", "mean latency us", "max latency us"]
    write_csv(out / "case_wall.csv", w_hdr, w_rows)

    plot_rows = [(n, ov[n], PAPER_TABLE3.get({"stub-full": "full", "stub-begin": "min"}.get(n, ""),
                                               (None, None))[1], wall_plot.get(n))
                 for n in names if n in ov and n != "nothr"]
    png = _overhead_png(out / "table3_overhead.png", plot_rows, sc_rows)
    return [
        ("Case study: what was run", f"""
`workloads/player`: a decoder ULT (stb_vorbis from libstb-dev; decoder.c is the only unit built
per variant, by ito-cc) decodes `{ogg.name}` ({frames} stereo frames, {frames / 44100:.1f} s) as
fast as it can; a player ULT on the same worker runs once per tick and takes one frame. Every
variant and run gives the same checksum over all frames (checked). Instructions:
`valgrind --tool=callgrind`, whole program. Table 3 is composed at the paper's density: a tick
per {PAPER_TICK_CYCLES} instructions of the no-threading run ({ticks:.0f} ticks), each costing the
variant's measured instructions per switch (ticked run minus quiet run, per extra player run,
`--burst {CG_BURST}` under callgrind). Host: {os.uname().machine}, load average {load_before}
before and {load_after} after.
"""),
        ("Table 3: threading overhead and code growth", f"""
{image(png, 'Table 3 analogue', out)}

{markdown_table(hdr, rows)}

The headline (the paper: optimized 12.6 % against full save 23.8 %, ratio 0.53):

{markdown_table(ratio_hdr, ratio_rows)}
"""),
        ("Intervals between checks (probe builds)", f"""
Each check of a probe build calls a TSC probe instead of testing the flag (no yields, no
timer); cycles between two consecutive checks of the decoder, 16-cycle buckets, the probe's
own cost (about the min) included. The maximum includes any time the OS took the CPU away,
so it is only meaningful on a quiet machine.

{markdown_table(pr_hdr, pr_rows)}
"""),
        ("Intervals in instructions (icount, exact)", f"""
`compiler/probe/icount` runs the probe builds with the decoder in the main thread (PLY_MODE 0)
on `player-tiny.ogg` (0.5 s) under ptrace, single-stepping every instruction, and records the
machine instructions between consecutive checks (the probe's own ~20 included). Exact and
independent of the machine's load. The longest interval's sites are named by addr2line.

{markdown_table(ic_hdr, ic_rows) if not ic_skip else
 f"Not run ({ic_skip}: single-stepping takes 20-40 minutes); "
 "`ito-lab cooperative --part case` runs it."}
"""),
        ("Cycles of a yield by what it saves", f"""
`switchcost-<variant>` (workloads/player/switchcost.c, built like decoder.c): two ULTs run a loop
keeping 6 integer and 4 floating-point values live across its check, with two rearmer ULTs
between them that set the flag, so every check takes a yield. A round = two compiler-inserted
yields and two `ito_yield()`s; cycles by the TSC per batch of 200 rounds, 500 batches per run,
{reps} runs interleaved. The minimum survives a loaded machine (an interrupted batch only gets
slower); the median needs a quiet one. {sc_ratio}.

{markdown_table(sc_hdr, sc_rows)}
"""),
        ("Table 3 in cycles (a model from measured minima)", f"""
The paper counted cycles. Here: the checks cost the variant's timer-less decode time over the
plain build's (minimum of {reps} runs each), and the paper's tick (one per {PAPER_TICK_CYCLES}
cycles of the plain build, at the TSC rate {tsc:.0f} MHz) costs half a switchcost round (one
compiler-inserted yield and one `ito_yield`, minimum). All inputs are wall-clock minima: on a
loaded machine (load {load_before} / {load_after}) they are estimates to re-run quietly.

{markdown_table(cm_hdr, cm_rows)}

{markdown_table(ratio_hdr, cm_pairs)}
"""),
        ("Table 3 measured: wall clock at the paper's tick density", f"""
Each co-operative variant decodes with the helper timer storing the flag every
{dense_us:.3f} us ({PAPER_TICK_CYCLES} cycles at the TSC rate {tsc:.0f} MHz, the paper's "every
7 700 cycles"), so every overhead below is measured, checks and switches and the player's run
together, against the plain build's timer-less decode ({reps} interleaved repetitions; the
minimum is what survives load and this host's slow phases, the median needs a quiet machine;
"paired median" is the median over repetitions of each build's time minus the plain build's
in the same repetition, over the plain build's median: a pair shares the host's phase).

{markdown_table(wh_hdr, wh_rows)}

The same pairs taken one repetition at a time (each build over the plain build's run of its
own repetition): the quartiles of each overhead and of their ratio, and in how many
repetitions each bar held. A bar whose quartiles lie on both sides of it is not a result of
this run, whatever its median says (every run: `case_wall_runs.csv`).

{markdown_table(pr_hdr2, pr_rounds)}

The budget rows have no timer at all: the decoder built with `--ito-check=budget` counts its
estimated instructions down in a register and yields when its quantum has run (a yield per
{PAPER_TICK_CYCLES} estimated instructions, the paper's simulator density, or the quantum
{", ".join(f"{n} {q}" for n, q in quantum.items()) or "(not computed: no TSC rate)"} for one
yield per {PAPER_TICK_CYCLES} cycles of the plain build: {q_source}), so nothing moves a cache
line between cores per tick. A calibration that meets the host's slow phase gives a smaller
quantum and more yields; `--dense-quantum` fixes it across runs.
"""),
        ("Wall time (native)", f"""
Decoding phase, {reps} interleaved repetitions; `helper` is a thread on the other core that
polls the clock and stores the flag every 1/44100 s (the nearest thing to the paper's free
hardware timer), `dense` the same at the paper's density ({dense_us:.3f} us). Load average {load_before} / {load_after}: wall-clock numbers taken under a load
above ~0.5 are not results; re-run on a quiet machine.

{markdown_table(w_hdr, w_rows)}
"""),
    ]
