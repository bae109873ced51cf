"""The `ito-lab` command: one subcommand per experiment module in ito_lab.experiments."""
from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

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
    if args.cmd == "list":
        for name, m in mods.items():
            print(f"{name:14s} {getattr(m, 'HELP', '')}")
        return 0
    if args.cmd == "all":
        rc = 0
        for name, m in mods.items():
            print(f"== ito-lab {name} ==", flush=True)
            sub_args = ap.parse_args([*([f"--results={args.results}"] if args.results else []),
                                      *([f"--build={args.build}"] if args.build else []),
                                      *(["--quick"] if args.quick else []), name])
            try:
                r = m.run(sub_args, ctx)
            except Exception as e:  # one failing experiment must not hide the others
                print(f"ito-lab {name}: failed: {e}", file=sys.stderr)
                r = 1
            rc = rc or r
        return rc
    return mods[args.cmd].run(args, ctx)


if __name__ == "__main__":
    sys.exit(main())
