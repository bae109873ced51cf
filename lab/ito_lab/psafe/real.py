"""The real half of `ito-lab psafe` (issue 6 deliverable 5, issue 16 deliverable 1): the mixes of
Tables 4, 5 and Sect. 5.2 on this machine, on ito.  <build>/workloads/psafe_real/psafe-real runs one
mix with every program an ito group of P ULTs (gang scheduling on) under one policy and prints CSV;
the cache misses come from the same runner under valgrind --tool=cachegrind (no hardware counters).

Runs are interleaved: repetition r runs every mix under both policies (their order alternating with
r), so drift of the shared machine spreads over both policies alike; the default is 10 repetitions
per cell.  Each cell reports the median and the spread (min-max) of both policies' times and of the
paired ratio psafe/preempt within a repetition, and a sign test over the repetitions decides the
direction (two-sided binomial test, p < 0.05: with 10 repetitions, 9 or 10 of them one way).
The host CPU and the load average before every run are recorded: a wall-clock result measured
with a 1-minute load above 0.5 is marked as not quiet and must be re-run.
"""
from __future__ import annotations

import csv
import io
import math
import subprocess
import time
from pathlib import Path

from ..plot import plt  # matplotlib at the first plot
from ..host import QUIET_LOAD, cpu_model, host_line, load1, spread, stamp_figure
from ..progress import steps
from ..report import image, markdown_table, write_csv
from .common import BOUND_QUANTA, LABEL, MIXES, PAPER, median

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


def _real_cmd(binary: Path, progs, policy: str, quantum_us: int, scale: str, bound: int, extra=()):
    return [str(binary), "--policy", policy, "--scale", scale, "--quantum", str(quantum_us),
            "--bound", str(bound), "--workers", "2", *extra, *progs]


def _real_exec(cmd: list[str], cg_out: Path | None = None) -> tuple[dict, list[dict], float]:
    """Run psafe-real (under cachegrind when cg_out is given); wall seconds of the whole run."""
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
        t_nat += median(times)
        t_cg += rows[0]["time_ns"]
        step(f"calibration {prog}")
    rate = ir / (2 * t_nat * 1e-9)        # both ULTs run in parallel: instructions per thread-second
    return {"ir": int(ir), "t_native_ns": int(t_nat), "t_cg_ns": int(t_cg), "rate_ips": rate,
            "slowdown": t_cg / t_nat}


def sign_test(wins: int, n: int) -> float:
    """Two-sided exact binomial test of `wins` out of n against p = 1/2."""
    if n == 0:
        return 1.0
    k = min(wins, n - wins)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n
    return min(1.0, 2 * tail)


def direction(ratios: list[float], alpha: float = 0.05) -> str:
    """'faster' / 'slower' when the sign test over the paired ratios says so, else 'no clear difference'."""
    wins = sum(1 for r in ratios if r < 1)
    losses = sum(1 for r in ratios if r > 1)
    p = sign_test(wins, wins + losses)
    if p >= alpha:
        return "no clear difference"
    return "faster" if wins > losses else "slower"


def summarize_real(runs, bound: int, quantum_us: int) -> dict:
    """Per (mix, program): both policies' times (spread), the paired ratios per repetition, the
    psafe statistics (spread), and which runs broke the delay bound (mean delay > bound)."""
    acc: dict = {}
    for key, rep, meta, r in runs:
        acc.setdefault((key, r["program"]), {}).setdefault(rep, {})[r["policy"]] = (r, meta)
    S = {}
    for (key, p), reps in acc.items():
        pre = [d["preempt"][0] for d in reps.values() if "preempt" in d]
        ps = [d["psafe"][0] for d in reps.values() if "psafe" in d]
        if not pre or not ps:
            raise ValueError(f"{key} {p}: a policy has no runs")
        ratios = [d["psafe"][0]["time_ns"] / d["preempt"][0]["time_ns"] for d in reps.values()
                  if "psafe" in d and "preempt" in d]
        mean_delay_q = [r["delay_ns"] / r["delayed"] / (quantum_us * 1e3) for r in ps if r["delayed"]]
        loads = [m.get("load1", float("nan")) for d in reps.values() for _, m in d.values()]
        S[(key, p)] = {
            "time_preempt": spread([r["time_ns"] for r in pre]), "time_psafe": spread([r["time_ns"] for r in ps]),
            "ratio": spread(ratios), "ratios": ratios, "n": len(ratios), "direction": direction(ratios),
            "wins": sum(1 for x in ratios if x < 1),
            "blocks": ps[0]["blocks"], "delayed": spread([r["delayed"] for r in ps]),
            "forced": spread([r["forced"] for r in ps]),
            "mean_delay_q": spread(mean_delay_q) if mean_delay_q else None,
            "over_bound": sum(1 for x in mean_delay_q if x > bound),
            "preemptions_preempt": median([r["preemptions"] for r in pre]),
            "max_load": max(loads) if loads else float("nan"),
        }
    return S


def _real_plot(path: Path, S: dict, CG: dict, title: str):
    fig_, ax = plt.subplots(1, 2, figsize=(10, 4.3))
    w = 0.38
    for blk, off, color in (("bmm", -w / 2, "#2874a6"), ("blu", w / 2, "#c0392b")):
        keys = [k for k in MIXES if blk in MIXES[k]]
        xs = [k[1] for k in keys]
        med = [S[(k, blk)]["ratio"][1] for k in keys]
        lo = [m - S[(k, blk)]["ratio"][0] for k, m in zip(keys, med)]
        hi = [S[(k, blk)]["ratio"][2] - m for k, m in zip(keys, med)]
        ax[0].bar([x + off for x in xs], med, w, yerr=[lo, hi], capsize=3, label=LABEL[blk], color=color)
        ax[1].bar([x + off for x in xs], [CG[(k, blk)]["norm_misses"] if (k, blk) in CG else 0 for k in keys],
                  w, label=LABEL[blk], color=color)
    for i, t in enumerate(("(a) time psafe / preempt: median of paired runs, bars min-max",
                           "(b) D1 misses, psafe / preempt (cachegrind)")):
        ax[i].axhline(1.0, color="black", lw=0.8)
        ax[i].set_xlabel("programming level")
        ax[i].set_title(t, fontsize=9)
        ax[i].legend(fontsize=8)
    fig_.suptitle(title, fontsize=10)
    stamp_figure(fig_)
    fig_.tight_layout(rect=(0, 0.03, 1, 1))
    fig_.savefig(path, dpi=120)
    plt.close(fig_)


def run_real(args, ctx, out: Path) -> list[tuple[str, str]]:
    """The mixes of Tables 4, 5 and Sect. 5.2 on this machine, on ito, interleaved repetitions."""
    binary = ctx.program(REAL_BIN)
    bound = getattr(args, "bound", BOUND_QUANTA)
    scale = "quick" if ctx.quick else "paper"
    reps = getattr(args, "real_reps", None) or (2 if ctx.quick else 10)
    cache = not getattr(args, "real_no_cache", False)
    pols = ("preempt", "psafe")
    n_steps = 2 + len(MIXES) * len(pols) * (reps + (1 if cache else 0))
    host0 = host_line()
    with steps(n_steps, "psafe: real runs") as step:
        cal = _calibrate(binary, scale, out, step)
        q = getattr(args, "real_quantum", None) or real_quantum(cal["rate_ips"])
        q_cg = min(10_000_000, int(round(q * cal["slowdown"])))
        runs = []       # (mix key, rep, meta, row)
        for rep in range(reps):
            for key, progs in MIXES.items():
                for pol in (pols if rep % 2 == 0 else pols[::-1]):   # alternate the order against drift
                    ld = load1()
                    meta, rows, _ = _real_exec(_real_cmd(binary, progs, pol, q, scale, bound))
                    meta = dict(meta, load1=ld)
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
              ["mix", "level", "rep", "quantum_us", "load1_before", "program", "policy", "time_ns", "blocks",
               "preemptions", "delayed", "delay_ns", "forced", "check"],
              [[k[0], k[1], rep, meta["quantum_us"], f"{meta['load1']:.2f}", r["program"], r["policy"], r["time_ns"],
                r["blocks"], r["preemptions"], r["delayed"], r["delay_ns"], r["forced"], r["check"]]
               for k, rep, meta, r in runs])
    if cache:
        write_csv(out / "real_cache.csv", ["mix", "level", "program", "Ir_preempt", "Ir_psafe", "D1_misses_preempt",
                                           "D1_misses_psafe", "LL_misses_preempt", "LL_misses_psafe"], cg_rows)
    S = summarize_real(runs, bound, q)
    sum_rows = []
    for (key, p), v in S.items():
        sum_rows.append([key[0], key[1], p, v["n"], *v["time_preempt"], *v["time_psafe"],
                         *(round(x, 4) for x in v["ratio"]), v["wins"], v["direction"], v["blocks"],
                         v["delayed"][1], v["forced"][1], "" if v["mean_delay_q"] is None else round(v["mean_delay_q"][2], 2),
                         v["over_bound"], round(v["max_load"], 2)])
    write_csv(out / "real_summary.csv",
              ["mix", "level", "program", "reps", "min_ns_preempt", "median_ns_preempt", "max_ns_preempt",
               "min_ns_psafe", "median_ns_psafe", "max_ns_psafe", "min_ratio", "median_ratio", "max_ratio",
               "reps_psafe_faster", "direction", "blocks", "median_delays", "median_forced",
               "max_mean_delay_quanta", "runs_mean_delay_over_bound", "max_load1"], sum_rows)
    png = out / "real_blocked.png"
    _real_plot(png, S, CG, f"Real run on ito: 2 workers, quantum {q} us, {reps} interleaved repetitions")
    return real_sections(S, CG, cal, q, q_cg, reps, scale, bound, image(png, "real run", out), host0)


def real_sections(S, CG, cal, q, q_cg, reps, scale, bound, img, host0) -> list[tuple[str, str]]:
    loads = [v["max_load"] for v in S.values()]
    noisy = max(loads) >= QUIET_LOAD if loads else True
    what = (f"{host0} (at the start); CPU {cpu_model()}. ito on this machine: every program one ito group "
            f"of 2 ULTs (one per worker, bound), gang scheduling, signal preemption; sizes: {scale}; {reps} "
            f"interleaved repetitions per mix and policy (the order of the two policies alternates). Quantum {q} us = "
            f"the paper's 2.5 M instructions at the measured per-thread rate of the blocked kernels "
            f"({cal['rate_ips'] / 1e9:.2f} G instructions/s: {cal['ir']:,} kernel instructions of B-MM + B-LU "
            f"alone in {cal['t_native_ns'] / 1e6:.1f} ms on 2 workers). Delay bound {bound} quanta. Cache misses: "
            f"the same runner under cachegrind (D1 = 128 KB direct-mapped, 32-byte lines; quantum scaled by "
            f"cachegrind's measured slowdown {cal['slowdown']:.0f}x to {q_cg} us). Highest 1-minute load before a run: "
            f"{max(loads):.2f}" + (" -- NOT a quiet machine: these wall-clock results need a quiet re-run." if noisy
                                    else " (quiet)."))
    rows = []
    for blk in ("bmm", "blu"):
        for key in MIXES:
            if blk not in MIXES[key]:
                continue
            v = S[(key, blk)]
            c = CG.get((key, blk))
            pt, pm = PAPER.get((blk, key[1], "time")), PAPER.get((blk, key[1], "misses"))
            tp, ts, rr = v["time_preempt"], v["time_psafe"], v["ratio"]
            md = v["mean_delay_q"]
            rows.append([LABEL[blk], key[1], f"{tp[1] / 1e6:.1f} ({tp[0] / 1e6:.1f}–{tp[2] / 1e6:.1f})",
                         f"{ts[1] / 1e6:.1f} ({ts[0] / 1e6:.1f}–{ts[2] / 1e6:.1f})",
                         f"{100 * (rr[1] - 1):+.1f} ({100 * (rr[0] - 1):+.1f} to {100 * (rr[2] - 1):+.1f})",
                         f"{v['wins']}/{v['n']}", v["direction"], "" if pt is None else pt,
                         "" if c is None else round(100 * (c["norm_misses"] - 1), 1), "" if pm is None else pm,
                         v["blocks"], v["delayed"][1], "" if md is None else f"{md[1]:.2f} ({md[0]:.2f}–{md[2]:.2f})",
                         v["over_bound"], v["forced"][1]])
    t1 = markdown_table(["program", "level", "time preempt ms, median (min–max)", "time psafe ms",
                         "time %, paired median (min to max)", "reps psafe faster", "sign test", "paper time %",
                         "D1 misses % (cachegrind)", "paper misses %", "blocks", "delays (median)",
                         "mean delay, quanta (median, min–max)", "runs with mean delay > bound", "forced (median)"], rows)
    rows2 = []
    for key, progs in MIXES.items():
        if key[1] < 4:
            continue
        for p in progs:
            v = S[(key, p)]
            c = CG.get((key, p))
            rows2.append([f"{key[0]} L{key[1]}", LABEL[p], round(v["ratio"][1], 3), round(v["ratio"][0], 3),
                          round(v["ratio"][2], 3), v["direction"], "" if c is None else round(c["norm_misses"], 3),
                          round(v["time_preempt"][1] / 1e6, 1), v["preemptions_preempt"]])
    t2 = markdown_table(["mix", "program", "time psafe/preempt (median)", "min", "max", "sign test",
                         "D1 misses psafe/preempt", "time preempt (ms)", "preemptions (preempt)"], rows2)
    blocked = [S[(k, b)] for b in ("bmm", "blu") for k in MIXES if b in MIXES[k]]
    n_f = sum(1 for v in blocked if v["direction"] == "faster")
    n_s = sum(1 for v in blocked if v["direction"] == "slower")
    over = sum(v["over_bound"] for v in blocked)
    concl = (f"Blocked programs, {len(blocked)} cells: psafe faster (sign test, p < 0.05) in {n_f}, slower in {n_s}, "
             f"no clear difference in {len(blocked) - n_f - n_s}. Runs whose mean delay per delayed turn exceeded "
             f"the {bound}-quantum bound: {over}" +
             (" (the bound is enforced at worker 0's timer ticks; a tick that arrives late -- worker 0 not "
              "scheduled by the host's kernel -- ends a turn late, so only a quiet machine can show whether the "
              "runtime keeps it)." if over else "."))
    return [("Real run on this machine: what ran", what),
            ("Real run: blocked programs by level", img + "\n\n" + t1 + "\n" + concl),
            ("Real run: all programs at levels 4 to 6 (normalized)", t2)]
