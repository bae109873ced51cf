"""The `ito-lab` command: one subcommand per experiment module in ito_lab.experiments."""
from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import subprocess
import sys
import time
from pathlib import Path

from . import experiments
from .context import default_context


def discover():
    mods = {}
    for info in sorted(pkgutil.iter_modules(experiments.__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        m = importlib.import_module(f"{experiments.__name__}.{info.name}")
        if hasattr(m, "NAME") and hasattr(m, "run"):
            mods[m.NAME] = m
    return mods


def fmt_duration(seconds: float) -> str:
    m, s = divmod(int(round(seconds)), 60)
    h, m = divmod(m, 60)
    return f"{h}h{m:02d}m{s:02d}s" if h else f"{m}m{s:02d}s"


def write_times(results, times, quick) -> None:
    """How long each experiment of `ito-lab all` took: printed, and kept as
    <results>/all_times.csv beside the reports (the README quotes it for `make demo`)."""
    total = sum(t for _, t, _ in times)
    print("== ito-lab all: " + ", ".join(f"{n} {fmt_duration(t)}" for n, t, _ in times)
          + f"; total {fmt_duration(total)} ==", flush=True)
    out = Path(results) / "all_times.csv"
    out.parent.mkdir(parents=True, exist_ok=True)
    rows = ["experiment,seconds,status,quick"]
    rows += [f"{n},{t:.1f},{'ok' if not r else 'failed'},{int(bool(quick))}" for n, t, r in times]
    rows.append(f"total,{total:.1f},,{int(bool(quick))}")
    out.write_text("\n".join(rows) + "\n")


def main(argv=None) -> int:
    mods = discover()
    ap = argparse.ArgumentParser(prog="ito-lab", description=__doc__)
    ap.add_argument("--results", help="output folder (default: results/)")
    ap.add_argument("--build", help="CMake release tree (default: build/release)")
    ap.add_argument("--quick", action="store_true", help="smaller sizes, for a fast look")
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("all", help="run every experiment in turn")
    sub.add_parser("list", help="list the experiments")
    for name, m in mods.items():
        p = sub.add_parser(name, help=getattr(m, "HELP", ""))
        if hasattr(m, "add_arguments"):
            m.add_arguments(p)
    args = ap.parse_args(argv)
    ctx = default_context(args.results, args.build, args.quick)
    if args.cmd != "list":
        try:
            ctx.results_dir.mkdir(parents=True, exist_ok=True)
            probe = ctx.results_dir / ".ito-lab-write-test"
            probe.write_text("")
            probe.unlink()
        except OSError as e:
            print(f"ito-lab: error: cannot write to --results {ctx.results_dir}: {e.strerror or e}",
                  file=sys.stderr)
            return 2
    if args.cmd == "list":
        for name, m in mods.items():
            print(f"{name:14s} {getattr(m, 'HELP', '')}")
        return 0
    if args.cmd == "all":
        rc = 0
        times = []
        for name, m in mods.items():
            print(f"== ito-lab {name} ==", flush=True)
            sub_args = ap.parse_args([*([f"--results={args.results}"] if args.results else []),
                                      *([f"--build={args.build}"] if args.build else []),
                                      *(["--quick"] if args.quick else []), name])
            t0 = time.monotonic()
            try:
                r = m.run(sub_args, ctx)
            except Exception as e:  # one failing experiment must not hide the others
                print(f"ito-lab {name}: failed: {e}", file=sys.stderr)
                r = 1
            times.append((name, time.monotonic() - t0, r))
            print(f"== ito-lab {name}: {'ok' if not r else 'FAILED'} in {fmt_duration(times[-1][1])} ==", flush=True)
            rc = rc or r
        write_times(ctx.results_dir, times, args.quick)
        return rc
    try:
        return mods[args.cmd].run(args, ctx)
    except (OSError, RuntimeError, subprocess.SubprocessError) as e:
        # a program not built, a program that failed, an unwritable file: one line, not a
        # traceback (ITO_LAB_TRACEBACK=1 re-raises for debugging); a bug in the lab itself
        # (KeyError, ValueError, ...) keeps its traceback
        if os.environ.get("ITO_LAB_TRACEBACK"):
            raise
        print(f"ito-lab {args.cmd}: error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
