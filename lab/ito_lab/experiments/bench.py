"""bench: ito side by side with its peers (Boost.Context, ucontext, Boost.Fiber, goroutines,
pthreads, and Argobots where an installation is found) on four microbenchmarks, one run, one machine.

Every executable named bench_* in <build>/bench/ is a benchmark program (peers from
bench/peers/, ito's own from bench/ito/). Each is run once per benchmark as
`taskset -c CPU <program> --only <benchmark> --trials N [--quick]` and prints lines
`RESULT benchmark=<b> system=<s> median_ns=<x> trials=<n>` for the benchmarks it knows
(nothing for the others). switch, yield and create_join run pinned to one CPU; create_1m is
"on all workers", so it runs on every CPU unless --pin-1m (pinned, the runtimes would all
share one CPU and ito's default worker count, the online CPUs, would oversubscribe it).

Outputs: results/bench.csv (header `benchmark,system,median_ns,trials`, one row per
benchmark and system), results/bench/<benchmark>.png (log-scale bars) and
results/bench/report.md (machine, command, tables, ratios ito/peer, targets, plots).

Invariants: a program that is not built, or a benchmark/system pair nobody printed, is
*missing* (reported, not a failure); a program that exits non-zero, times out or prints a
malformed RESULT line is a *failure* (reported, the others still run, exit code 1); no
number is ever invented: a ratio or a target needs both of its measurements.
"""
from __future__ import annotations

from ..argtypes import positive_int, positive_float, nonneg_int

import math
import os
import platform
import re
import shlex
import subprocess
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from ..parse import parse_results
from ..report import format_number, image, markdown_table, write_csv, write_report

NAME = "bench"
HELP = "side-by-side microbenchmarks: ito vs Boost, Go, pthreads, ucontext (results/bench.csv)"

CSV_HEADER = ("benchmark", "system", "median_ns", "trials")
BENCHMARKS = ("switch", "switch_fp", "switch_pair", "yield", "create_join", "create_1m", "yield_sites")
ITO_SYSTEMS = {"switch": ("ito-abi", "ito-min", "ito-full"),
               "switch_fp": ("ito-abi", "ito-abi-always", "ito-abi-lazy"),
               "switch_pair": ("ito-abi",)}
PEER_SYSTEMS = {"switch": ("boost-context", "ucontext"), "switch_fp": ("boost-context",),
                "switch_pair": ("boost-context",)}
for _b in BENCHMARKS[3:]:
    ITO_SYSTEMS[_b] = ("ito",)
    PEER_SYSTEMS[_b] = ("boost-fiber", "go", "pthread")
# Argobots (issue 15's peer) is built only where an installation is found
# (bench/peers/CMakeLists.txt); where it is not, its pairs are reported missing.
for _b in ("yield", "create_join"):
    PEER_SYSTEMS[_b] += ("argobots",)
# Counter-fired zero-wait threads (issue 3) against oneTBB flow_graph, and the cost of a
# preemption-safe region (issue 6): run as whole programs (they print several benchmarks).
GRAPH_BENCHMARKS = tuple(f"zwt_{g}_{w}" for g in ("chain", "diamond", "dag") for w in ("1w", "all"))
for _b in GRAPH_BENCHMARKS:
    ITO_SYSTEMS[_b] = ("ito",)
    PEER_SYSTEMS[_b] = ("tbb",)
ITO_SYSTEMS["psafe"] = ("ito",)
PEER_SYSTEMS["psafe"] = ()
ITO_SYSTEMS["yield_sites"] = ("ito-4sites", "ito-1site")
PEER_SYSTEMS["yield_sites"] = ()
EXTRA_RUNS = (("bench_zwt", ()), ("bench_tbb_flow", ()), ("bench_ito", ("--only", "psafe")))
EXPECTED_PROGRAMS = ("bench_ito", "bench_boost_context", "bench_ucontext", "bench_boost_fiber",
                     "bench_go", "bench_pthread", "bench_switch_pair")
# Benchmarks only some programs measure (the others would refuse the name), and programs
# of other experiments (bench/sync_report.py, bench_timer) that are not run here.
ONLY_PROGRAMS = {"switch_fp": ("bench_ito", "bench_boost_context"), "switch_pair": ("bench_switch_pair",),
                 "yield_sites": ("bench_ito",)}
OTHER_PROGRAMS = ("bench_timer", "bench_sync", "bench_sync_pthread", "bench_sync_boost_fiber")


def runs_program(benchmark: str, program: str) -> bool:
    """Whether `program` is asked for `benchmark` (see ONLY_PROGRAMS, OTHER_PROGRAMS)."""
    if program in OTHER_PROGRAMS:
        return False
    if benchmark in ONLY_PROGRAMS:
        return program in ONLY_PROGRAMS[benchmark]
    return program != "bench_switch_pair"
DESCRIPTION = {
    "switch": "raw context switch, one direction",
    "switch_fp": "raw switch between contexts whose MXCSR sticky flags differ (FP work done)",
    "switch_pair": "ito's and Boost.Context's raw switch in one program, trial by trial",
    "yield": "yield through the scheduler, 2 threads on 1 worker, per yield",
    "create_join": "create + run + join one empty thread",
    "create_1m": "create and join 1,000,000 threads on all workers, per thread",
    "psafe": "one ito_psafe_begin or ito_psafe_end (the paper: a 10.8 us signal)",
    "yield_sites": "yield in a round robin of 4 threads from 4 call sites or from 1, per yield",
}
for _b in GRAPH_BENCHMARKS:
    DESCRIPTION[_b] = (f"counter-fired {_b.split('_')[1]} graph on "
                       f"{'one worker' if _b.endswith('1w') else 'all workers'}, per fired node")
_NAME_RE = re.compile(r"[a-z0-9][a-z0-9_-]*\Z")


@dataclass(frozen=True)
class Target:
    """A bar of the brief: `system` on `benchmark` at most `ns`, or at most `peer`'s time."""
    benchmark: str
    system: str
    text: str
    ns: float | None = None
    peer: str | None = None


TARGETS = (
    Target("switch", "ito-abi", "<= boost-context", peer="boost-context"),
    Target("yield", "ito", "<= 10 ns", ns=10.0),
    Target("create_join", "ito", "<= 20 ns", ns=20.0),
    Target("yield", "ito", "<= 12 ns (issue 15)", ns=12.0),
    Target("create_join", "ito", "<= 40 ns (issue 15)", ns=40.0),
    Target("yield", "ito", "<= argobots, same run (issue 15)", peer="argobots"),
    Target("create_join", "ito", "<= argobots, same run (issue 15)", peer="argobots"),
    Target("switch_pair", "ito-abi", "<= boost-context, same program", peer="boost-context"),
    Target("zwt_chain_1w", "ito", "<= 10 ns", ns=10.0),
    Target("psafe", "ito", "<= 2 ns", ns=2.0),
)


@dataclass
class Measurement:
    benchmark: str
    system: str
    median_ns: float
    trials: int
    program: str = ""


@dataclass
class Run:
    """One invocation of one program for one benchmark."""
    program: str
    benchmark: str
    command: list[str]
    seconds: float = 0.0
    returncode: int | None = None
    error: str | None = None
    skipped: bool = False  # the program does not speak this protocol (see run())
    measurements: list[Measurement] = field(default_factory=list)


# ---------------------------------------------------------------- pure functions (tested)

def measurements_from(results: list[dict], program: str = "") -> list[Measurement]:
    """Validates parsed RESULT dicts as benchmark measurements; ValueError on a bad one."""
    out = []
    for r in results:
        missing = [k for k in CSV_HEADER if k not in r]
        if missing:
            raise ValueError(f"RESULT without {', '.join(missing)}: {r!r}")
        b, s, med, n = r["benchmark"], r["system"], r["median_ns"], r["trials"]
        if not (isinstance(b, str) and _NAME_RE.match(b)):
            raise ValueError(f"bad benchmark name {b!r}")
        if not (isinstance(s, str) and _NAME_RE.match(s)):
            raise ValueError(f"bad system name {s!r}")
        if isinstance(med, bool) or not isinstance(med, (int, float)) \
                or not math.isfinite(med) or med <= 0:
            raise ValueError(f"{b}/{s}: median_ns must be a positive number, got {med!r}")
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"{b}/{s}: trials must be a positive integer, got {n!r}")
        out.append(Measurement(b, s, float(med), n, program))
    return out


def _order(b: str, s: str) -> tuple:
    bi = BENCHMARKS.index(b) if b in BENCHMARKS else len(BENCHMARKS)
    known = ITO_SYSTEMS.get(b, ()) + PEER_SYSTEMS.get(b, ())
    si = known.index(s) if s in known else len(known)
    return (bi, b, si, s)


def merge(measurements: list[Measurement]) -> tuple[dict, list[str]]:
    """{(benchmark, system): Measurement}; a pair printed twice keeps the first, with a note."""
    table: dict = {}
    notes = []
    for m in measurements:
        key = (m.benchmark, m.system)
        if key in table:
            notes.append(f"{m.benchmark}/{m.system} printed again by {m.program or '?'}; "
                         f"kept the value of {table[key].program or '?'}")
            continue
        table[key] = m
    return dict(sorted(table.items(), key=lambda kv: _order(*kv[0]))), notes


def combine_rounds(tables: list[dict]) -> tuple[dict, dict]:
    """Interleaved rounds -> ({(b, s): Measurement with the median of the rounds' medians},
    {(b, s): (min, median, max, rounds)}). A pair missing from some rounds is combined
    over the rounds that have it."""
    vals: dict = {}
    first: dict = {}
    for t in tables:
        for key, m in t.items():
            vals.setdefault(key, []).append(m.median_ns)
            first.setdefault(key, m)
    table, spread = {}, {}
    for key, v in vals.items():
        v = sorted(v)
        med = v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] + v[len(v) // 2]) / 2
        m = first[key]
        table[key] = Measurement(m.benchmark, m.system, med, m.trials, m.program)
        spread[key] = (v[0], med, v[-1], len(v))
    return dict(sorted(table.items(), key=lambda kv: _order(*kv[0]))), spread


def csv_rows(table: dict) -> list[list]:
    return [[m.benchmark, m.system, f"{m.median_ns:.3f}", m.trials] for m in table.values()]


def ratio_rows(table: dict, benchmarks=BENCHMARKS) -> list[list]:
    """[benchmark, ito system, ito ns, peer, peer ns, ito/peer] for every ito system and
    peer of each benchmark; None where a measurement is missing."""
    rows = []
    for b in benchmarks:
        for its in ITO_SYSTEMS.get(b, ()):
            mi = table.get((b, its))
            for peer in PEER_SYSTEMS.get(b, ()):
                mp = table.get((b, peer))
                ratio = mi.median_ns / mp.median_ns if mi and mp else None
                rows.append([b, its, mi.median_ns if mi else None, peer,
                             mp.median_ns if mp else None, ratio])
    return rows


def target_rows(table: dict, targets=TARGETS) -> list[list]:
    """[benchmark, system, target, measured ns, bound ns, status]; status is met,
    not met, or missing (when the system or the peer defining the bound is missing)."""
    rows = []
    for t in targets:
        m = table.get((t.benchmark, t.system))
        bound = t.ns
        if t.peer is not None:
            p = table.get((t.benchmark, t.peer))
            bound = p.median_ns if p else None
        if m is None or bound is None:
            status = "missing"
        else:
            status = "met" if m.median_ns <= bound else "not met"
        rows.append([t.benchmark, t.system, t.text, m.median_ns if m else None, bound, status])
    return rows


def missing_pairs(table: dict, benchmarks=BENCHMARKS) -> list[tuple[str, str]]:
    return [(b, s) for b in benchmarks for s in ITO_SYSTEMS[b] + PEER_SYSTEMS[b]
            if (b, s) not in table]


def discover_programs(bench_dir: Path) -> list[Path]:
    """The executables bench_* directly in bench_dir, sorted by name."""
    if not bench_dir.is_dir():
        return []
    return sorted(p for p in bench_dir.iterdir()
                  if p.name.startswith("bench_") and p.is_file() and os.access(p, os.X_OK))


def lscpu_model(text: str) -> str | None:
    """The 'Model name:' of lscpu's output, or None."""
    for line in text.splitlines():
        key, sep, val = line.partition(":")
        if sep and key.strip() == "Model name" and val.strip():
            return val.strip()
    return None


def _fmt(v) -> str:
    return "missing" if v is None else format_number(float(v))


def _ratio_text(v) -> str:
    return "missing" if v is None else f"{v:.3g}x"


RATIO_HEADER = ["benchmark", "ito", "ito ns", "peer", "peer ns", "ito/peer"]
TARGET_HEADER = ["benchmark", "system", "target", "measured ns", "bound ns", "status"]


def ratio_display(table: dict, benchmarks=BENCHMARKS) -> list[list[str]]:
    """ratio_rows as text, for the terminal and the report."""
    return [[b, s, _fmt(i), p, _fmt(q), _ratio_text(r)]
            for b, s, i, p, q, r in ratio_rows(table, benchmarks)]


def target_display(table: dict, benchmarks=BENCHMARKS) -> list[list[str]]:
    """target_rows of the benchmarks that ran, as text."""
    return [[b, s, t, _fmt(m), _fmt(n), st] for b, s, t, m, n, st in
            target_rows(table, [t for t in TARGETS if t.benchmark in benchmarks])]


# ---------------------------------------------------------------- running the programs

def machine_info() -> dict:
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, timeout=10).stdout
        model = lscpu_model(out)
    except (OSError, subprocess.SubprocessError):
        model = None
    try:
        load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        load = "?"
    return {"CPU model (lscpu)": model or "unknown", "online CPUs (nproc --all)": os.cpu_count(),
            "kernel": platform.release(), "load average at start (1, 5, 15 min)": load,
            "date (UTC)": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M")}


def pin_prefix(cpu: int, warn) -> list[str]:
    """['taskset', '-c', cpu] when taskset can pin to that CPU here, else [] with a warning."""
    cmd = ["taskset", "-c", str(cpu)]
    try:
        cp = subprocess.run([*cmd, "true"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError) as e:
        warn(f"taskset unavailable ({e}): running unpinned")
        return []
    if cp.returncode != 0:
        warn(f"`taskset -c {cpu}` failed ({cp.stderr.strip() or cp.returncode}): running unpinned")
        return []
    return cmd


def run_one(run: Run, timeout: float) -> Run:
    t0 = time.monotonic()
    try:
        cp = subprocess.run(run.command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        run.error = f"timed out after {timeout:.0f} s"
        return run
    except OSError as e:
        run.error = f"could not start: {e}"
        return run
    finally:
        run.seconds = time.monotonic() - t0
    run.returncode = cp.returncode
    if cp.returncode != 0:
        tail = cp.stderr.strip().splitlines()[-3:]
        run.error = f"exit code {cp.returncode}" + (f": {' / '.join(tail)}" if tail else "")
        return run
    try:
        run.measurements = measurements_from(parse_results(cp.stdout), run.program)
    except ValueError as e:  # ResultParseError is a ValueError
        run.error = f"malformed output: {e}"
    return run


# ---------------------------------------------------------------- the experiment

def add_arguments(p) -> None:
    p.add_argument("--trials", type=positive_int, default=None,
                   help="timed trials per benchmark (default 31; 11 with --quick)")
    p.add_argument("--cpu", type=nonneg_int, default=1, help="the CPU to pin to (default 1)")
    p.add_argument("--no-pin", action="store_true", help="do not pin with taskset")
    p.add_argument("--pin-1m", action="store_true",
                   help="pin create_1m too (default: it runs on every CPU)")
    p.add_argument("--only", choices=BENCHMARKS, help="run one benchmark")
    p.add_argument("--runs", type=positive_int, default=None,
                   help="interleaved rounds of every program and benchmark (default 5; 2 with --quick)")
    p.add_argument("--timeout", type=positive_float, default=900.0,
                   help="seconds before one program run is stopped (default 900)")


def _command_line(args, ctx, trials: int) -> str:
    parts = ["ito-lab", "--build", str(ctx.build_dir), "--results", str(ctx.results_dir)]
    parts += ["--quick"] if ctx.quick else []
    parts += ["bench", "--trials", str(trials), "--cpu", str(args.cpu)]
    parts += ["--no-pin"] if args.no_pin else []
    parts += ["--pin-1m"] if args.pin_1m else []
    parts += ["--only", args.only] if args.only else []
    parts += ["--runs", str(getattr(args, "runs", None) or 0)] if getattr(args, "runs", None) else []
    return shlex.join(parts)


def _plots(table: dict, out: Path, benchmarks) -> list[Path]:
    from ..plot import bar_chart  # matplotlib only when plotting

    paths = []
    for b in benchmarks:
        ms = [m for (bb, _), m in table.items() if bb == b]
        if not ms:
            continue
        hl = {f"target {t.text}": t.ns for t in TARGETS if t.benchmark == b and t.ns}
        paths.append(bar_chart(out / f"{b}.png", [m.system for m in ms],
                               [m.median_ns for m in ms], title=f"{b}: {DESCRIPTION.get(b, b)}",
                               ylabel="median ns per operation (log)", log=True,
                               highlight=ITO_SYSTEMS.get(b, ()), hlines=hl))
    return paths


def build_sections(*, machine: dict, command: str, pinning: str, table: dict, runs: list[Run],
                   missing_programs: list[str], notes: list[str], plots: list[Path],
                   report_dir: Path, benchmarks=BENCHMARKS, spread: dict | None = None) -> list[tuple[str, str]]:
    """The sections of report.md (pure: everything it shows is passed in)."""
    mach = "\n".join(f"- {k}: {v}" for k, v in machine.items())
    cmd = f"```\n{command}\n```\n\n{pinning}"
    results = markdown_table(["benchmark", "system", "median ns", "trials", "program"],
                             [[m.benchmark, m.system, m.median_ns, m.trials, m.program]
                              for m in table.values()]) if table else "No measurement."
    ratios = markdown_table(RATIO_HEADER, ratio_display(table, benchmarks))
    tdisp = target_display(table, benchmarks)
    targets = (markdown_table(TARGET_HEADER, tdisp) + "\nA target is *missing* when its "
               "measurement or the peer it is compared with was not measured."
               if tdisp else "No target for the benchmarks that ran.")
    miss = []
    if missing_programs:
        miss.append("Programs not built: " + ", ".join(f"`{p}`" for p in missing_programs) + ".")
    pairs = missing_pairs(table, benchmarks)
    if pairs:
        miss.append("Not measured: " + ", ".join(f"{b}/{s}" for b, s in pairs) + ".")
    failures = [r for r in runs if r.error]
    fail = "\n".join(f"- `{shlex.join(r.command)}`: {r.error}" for r in failures) or "None."
    shown = [r for r in runs if r.error or r.measurements]
    runs_md = markdown_table(["program", "benchmark", "seconds", "rows", "status"],
                             [[r.program, r.benchmark, round(r.seconds, 2), len(r.measurements),
                               "failed" if r.error else "ok"] for r in shown]) if shown else "No run."
    quiet = [r for r in runs if not (r.error or r.measurements or r.skipped)]
    if quiet:
        runs_md += (f"\n{len(quiet)} more run(s) printed nothing: the program does not "
                    "implement that benchmark.")
    sections = [
        ("Machine", mach),
        ("Command", cmd),
        ("Results (median of the trials, ns per operation)", results),
        ("Spread over the interleaved rounds (ns per operation)",
         markdown_table(["benchmark", "system", "min", "median", "max", "rounds"],
                        [[b, sy, *spread[(b, sy)]] for (b, sy) in table if (b, sy) in spread])
         if spread else "One round: no spread."),
        ("Ratio ito / peer (below 1: ito is faster)", ratios),
        ("Targets of the brief", targets),
        ("Missing", "\n\n".join(miss) or "Nothing: every program and pair was measured."),
        ("Failures", fail),
    ]
    if notes:
        sections.append(("Notes", "\n".join(f"- {n}" for n in notes)))
    if plots:
        sections.append(("Plots", "\n\n".join(image(p, p.stem, report_dir) for p in plots)))
    sections.append(("Runs", runs_md))
    return sections


def run(args, ctx) -> int:
    from ..progress import print_table, warn

    trials = args.trials if args.trials is not None else (11 if ctx.quick else 31)
    if trials < 1:
        warn("--trials must be at least 1")
        return 2
    benchmarks = (args.only,) if args.only else BENCHMARKS
    bench_dir = ctx.build_dir / "bench"
    programs = discover_programs(bench_dir)
    names = [p.name for p in programs]
    missing_programs = [p for p in EXPECTED_PROGRAMS if p not in names]
    if not programs:
        warn(f"no bench_* program in {bench_dir}: build first (make build)")
    for p in missing_programs:
        warn(f"{p} is not built: its systems are reported as missing")

    machine = machine_info()
    pin = [] if args.no_pin else pin_prefix(args.cpu, warn)
    if not pin:
        pinning = "All benchmarks ran unpinned" + (" (--no-pin)." if args.no_pin
                                                   else " (taskset failed).")
    elif args.pin_1m:
        pinning = f"Every benchmark ran pinned to CPU {args.cpu} (`taskset -c {args.cpu}`)."
    else:
        pinning = (f"switch, yield and create_join ran pinned to CPU {args.cpu} "
                   f"(`taskset -c {args.cpu}`); create_1m ran on every CPU (\"on all workers\").")

    rounds = args.runs if getattr(args, "runs", None) is not None else (2 if ctx.quick else 5)
    if rounds < 1:
        warn("--runs must be at least 1")
        return 2
    plan: list[tuple[str, str, list[str]]] = []
    for prog in programs:
        for b in benchmarks:
            if not runs_program(b, prog.name):
                continue
            prefix = pin if (b != "create_1m" or args.pin_1m) else []
            cmd = [*prefix, str(prog), "--only", b, "--trials", str(trials)]
            plan.append((prog.name, b, cmd + (["--quick"] if ctx.quick else [])))
    if not args.only:  # the ZWT graphs against oneTBB, and the psafe cost (unpinned: "all")
        by_name = {p.name: p for p in programs}
        plan += [(name, "graphs" if not opts else opts[-1],
                  [str(by_name[name]), *opts, "--trials", str(trials), *(["--quick"] if ctx.quick else [])])
                 for name, opts in EXTRA_RUNS if name in by_name]
    runs: list[Run] = []
    round_tables: list[dict] = []
    notes: list[str] = []
    skipped: dict[str, str] = {}
    load_before = round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None
    with ctx.progress(len(plan) * rounds, "bench") as step:
        for rnd in range(rounds):  # interleaved: every program and benchmark once per round
            this_round: list[Run] = []
            for name, b, cmd in plan:
                step(f"round {rnd + 1}/{rounds}: {name} {b}")
                r = Run(name, b, cmd)
                this_round.append(r)
                if name in skipped:
                    r.skipped = True
                    continue
                run_one(r, args.timeout)
                if r.returncode == 2 and name not in EXPECTED_PROGRAMS:
                    # exit code 2 is a usage error: a bench_* program of another experiment
                    # that does not take --only is not one of ours
                    r.skipped, r.error = True, None
                    skipped[name] = (f"`{name}` rejected `--only` (exit code 2): not a "
                                     "side-by-side benchmark program, skipped")
                elif r.error:
                    warn(f"{name} {b}: {r.error}")
            t, n = merge([m for r in this_round for m in r.measurements])
            round_tables.append(t)
            notes += n if rnd == 0 else []
            runs += this_round
    load_after = round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None
    if not args.only:
        benchmarks = tuple(benchmarks) + GRAPH_BENCHMARKS + ("psafe",)
    table, spread = combine_rounds(round_tables)
    notes = list(skipped.values()) + notes
    notes.append(f"{rounds} interleaved round(s); every value is the median over the rounds of "
                 f"each round's median; 1-minute load {load_before} before, {load_after} after")
    out = ctx.out(NAME)
    csv_path = write_csv(ctx.results_dir / "bench.csv", CSV_HEADER, csv_rows(table))
    plots = _plots(table, out, benchmarks)

    print_table("bench: median ns per operation", ["benchmark", "system", "median ns", "trials"],
                [[m.benchmark, m.system, m.median_ns, m.trials] for m in table.values()])
    print_table("ratio ito / peer", RATIO_HEADER, ratio_display(table, benchmarks))
    if target_display(table, benchmarks):
        print_table("targets", TARGET_HEADER, target_display(table, benchmarks))

    command = _command_line(args, ctx, trials)
    report = write_report(out / "report.md", "ito side by side: microbenchmarks",
                          build_sections(machine=machine, command=command, pinning=pinning,
                                         table=table, runs=runs, missing_programs=missing_programs,
                                         notes=notes, plots=plots, report_dir=out,
                                         benchmarks=benchmarks, spread=spread))
    write_csv(ctx.results_dir / "bench_spread.csv", ["benchmark", "system", "min_ns", "median_ns", "max_ns", "rounds"],
              [[b, sy, *spread[(b, sy)]] for (b, sy) in table])
    print(f"wrote {csv_path}, {report} and {len(plots)} plot(s)")
    return 1 if any(r.error for r in runs) else 0
