#!/usr/bin/env python3
"""sync_report: ito's synchronization objects against pthreads and Boost.Fiber.

Runs bench_sync (ito), bench_sync_pthread and bench_sync_boost_fiber from <build>/bench,
interleaved: run 1 of each program, then run 2 of each, ... (--runs, at least 5), every
program pinned to one CPU with taskset. Each run prints, per benchmark, the median of its
trials; this script reports per benchmark and system the min / median / max of those
run medians, and the ratio ito / peer of the medians (both measured in the same
interleaved session). It prints the host CPU (lscpu's Model name) and the load average
before and after: wall-clock numbers mean something only on a quiet machine (1-minute
load well below 1).

Usage: bench/sync_report.py [--build build/release] [--runs 5] [--trials 11] [--cpu 1]
                            [--quick] [--out FILE.md]
"""
from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

PROGRAMS = ("bench_sync", "bench_sync_pthread", "bench_sync_boost_fiber")
LINE = re.compile(r"^RESULT benchmark=(\S+) system=(\S+) median_ns=([0-9.]+) trials=(\d+)\s*$")


def cpu_model() -> str:
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=False).stdout
    except OSError:
        return "unknown"
    for line in out.splitlines():
        key, _, val = line.partition(":")
        if key.strip() == "Model name":
            return val.strip()
    return "unknown"


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def parse(text: str) -> list[tuple[str, str, float]]:
    out = []
    for line in text.splitlines():
        m = LINE.match(line)
        if m:
            out.append((m.group(1), m.group(2), float(m.group(3))))
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default="build/release")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--trials", type=int, default=11)
    ap.add_argument("--cpu", type=int, default=1)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--out")
    a = ap.parse_args(argv)
    if a.runs < 5:
        ap.error("--runs must be at least 5")
    bench = Path(a.build) / "bench"
    progs = [bench / p for p in PROGRAMS if (bench / p).exists()]
    missing = [p for p in PROGRAMS if not (bench / p).exists()]
    if not progs:
        print(f"no bench_sync programs in {bench}: build first", file=sys.stderr)
        return 1
    load_before = load()
    runs: dict[tuple[str, str], list[float]] = {}
    for r in range(a.runs):
        for p in progs:
            cmd = ["taskset", "-c", str(a.cpu), str(p), "--trials", str(a.trials)] + (["--quick"] if a.quick else [])
            cp = subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=1800)
            if cp.returncode != 0:
                print(f"{' '.join(cmd)} failed ({cp.returncode}): {cp.stderr.strip()}", file=sys.stderr)
                return 1
            for b, s, ns in parse(cp.stdout):
                runs.setdefault((b, s), []).append(ns)
        print(f"run {r + 1}/{a.runs} done", file=sys.stderr)
    lines = [
        "# ito synchronization objects vs pthreads and Boost.Fiber",
        "",
        f"- host CPU: {cpu_model()}",
        f"- load average (1, 5, 15 min) before: {load_before}; after: {load()}",
        f"- command: `{' '.join(['bench/sync_report.py'] + argv)}`; every program pinned to CPU {a.cpu};"
        f" {a.runs} interleaved runs of {a.trials} trials each" + (" (--quick)" if a.quick else ""),
        "- inputs: the operation counts and thread counts in bench/ito/bench_sync.c and bench/peers/bench_sync_*;"
        " results: the ns per operation below (each run's median over its trials; min/median/max over runs)",
    ]
    if missing:
        lines.append(f"- not built (their systems are missing): {', '.join(missing)}")
    lines += ["", "| benchmark | system | min ns | median ns | max ns | ito / system (medians) |", "|---|---|---|---|---|---|"]
    benches = sorted({b for b, _ in runs}, key=lambda b: b)
    for b in benches:
        ito = runs.get((b, "ito"))
        for s in ("ito", "pthread", "boost-fiber"):
            v = runs.get((b, s))
            if not v:
                continue
            med = statistics.median(v)
            ratio = "" if s == "ito" or not ito else f"{statistics.median(ito) / med:.3g}x"
            lines.append(f"| {b} | {s} | {min(v):.1f} | {med:.1f} | {max(v):.1f} | {ratio} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if a.out:
        Path(a.out).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
