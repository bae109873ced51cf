#!/usr/bin/env python3
"""sqlite3 built by ito-cc, its shell run inside a ULT under FLAG-mode preemption.

    sqlite_ults.py --build-dir DIR --itocc ITO-CC --libito LIBITO --include INC
                   [--policies bound,loops,every] [--opt -O2] [--rows N] [--callgrind]

A second, larger outside code base than zlib (issue 12, deliverable 4): Debian's sqlite3
source (`apt-get source --download-only sqlite3`, never committed), made into the
amalgamation by its own build (configure, `make sqlite3.c shell.c`: needs tclsh), 250,000
lines of C. Each policy's build compiles sqlite3.c, the shell (its main renamed) and
sqlharness.c with ito-cc; the harness runs the shell in a ULT beside 4 co-operative spinner
ULTs on 2 workers with the runtime's FLAG timer at 100 us, on workload.sql (200,000 rows by
default: inserts, indexes, joins, aggregates, recursive CTEs, JSON, UPDATE/DELETE, VACUUM,
integrity_check). The output of every build must equal the plain build's, and the
instrumented builds must switch; so must the plain build's under signal preemption (shared
libito: the handler switches wherever the shell and the spinners are in the program's code). --callgrind also counts the instructions of each build with
the timer off and no spinners (--rows 20,000): the cost of the checks alone.

Not in ctest (a build of the amalgamation by ito-cc takes 1.5-4 minutes on 2 vCPUs); see
docs/reproductions/cooperative.md for a run.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import outside  # noqa: E402  (workloads/outside.py, shared with workloads/zlib)

DEFS = ["-DSQLITE_THREADSAFE=0", "-DSQLITE_OMIT_LOAD_EXTENSION", "-DSQLITE_DQS=0"]


def amalgamation(build_dir: Path) -> Path:
    """The folder holding sqlite3.c and shell.c, made once from the Debian source."""
    out = build_dir / "amal"
    if (out / "sqlite3.c").exists() and (out / "shell.c").exists():
        return out
    src = outside.fetch("sqlite3", build_dir / "src", "sqlite3-*/configure")
    if not shutil.which("tclsh"):
        raise outside.FetchError("making the amalgamation needs tclsh (Debian: tcl8.6)")
    out.mkdir(parents=True, exist_ok=True)
    for cmd in ([str(src / "configure"), "--disable-tcl", "--enable-shared=no"],
                ["make", "sqlite3.c", "shell.c"]):
        cp = subprocess.run(cmd, cwd=out, capture_output=True, text=True)
        if cp.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)}: {cp.stderr[-2000:]}")
    return out


def build(amal: Path, out: Path, a, policy: str) -> Path:
    d = out / f"{policy}{a.opt}"
    d.mkdir(parents=True, exist_ok=True)
    opts = outside.POLICIES[policy]
    base = [a.itocc, *opts, a.opt, "-w", "-fPIE", *DEFS, f"-I{amal}", "-c"]
    outside.cc(base + [str(amal / "sqlite3.c"), "-o", str(d / "sqlite3.o")])
    outside.cc(base + ["-Dmain=sqlite_shell_main", str(amal / "shell.c"), "-o", str(d / "shell.o")])
    outside.cc([a.itocc, *opts, a.opt, "-fPIE", f"-I{a.include}", "-c", str(HERE / "sqlharness.c"),
                "-o", str(d / "sqlharness.o")])
    exe = d / "sqlharness"
    outside.cc([a.itocc, "--ito-off", str(d / "sqlharness.o"), str(d / "shell.o"), str(d / "sqlite3.o"),
                a.libito, f"-Wl,-rpath,{Path(a.libito).parent}", "-lm", "-o", str(exe)])
    return exe


def script(rows: int) -> str:
    return re.sub(r"i < 200000", f"i < {rows}", (HERE / "workload.sql").read_text())


def run(exe: Path, sql: str, spinners: int, quantum: int, wrap: list[str] | None = None,
        signal: bool = False):
    env = dict(os.environ, SQLH_SPINNERS=str(spinners), SQLH_QUANTUM_US=str(quantum),
               SQLH_SIGNAL="1" if signal else "0")
    return subprocess.run([*(wrap or []), str(exe), ":memory:"], input=sql, capture_output=True,
                          text=True, env=env, timeout=1800)


def text_size(exe: Path) -> int:
    objs = [str(exe.parent / f) for f in ("sqlite3.o", "shell.o")]
    out = subprocess.run(["size", "-t", *objs], capture_output=True, text=True, check=True).stdout
    return int(out.strip().splitlines()[-1].split()[0])


def instructions(exe: Path, sql: str) -> int:
    cg = exe.parent / "callgrind.out"
    cp = run(exe, sql, 0, 0, ["valgrind", "--tool=callgrind", f"--callgrind-out-file={cg}"])
    m = re.search(r"refs:\s+([\d,]+)", cp.stderr)
    return int(m.group(1).replace(",", "")) if m else -1


def main(argv=None) -> int:
    ap = outside.arguments(__doc__)
    ap.add_argument("--policies", default="bound,loops,every")
    ap.add_argument("--opt", default="-O2", choices=["-O0", "-O1", "-O2", "-O3", "-Os"],
                    help="the optimization level (default -O2)")
    ap.add_argument("--rows", type=int, default=200000)
    ap.add_argument("--callgrind", action="store_true")
    # `--opt -O0` as two words: argparse would read -O0 as an option of its own
    argv = list(sys.argv[1:] if argv is None else argv)
    argv = [f"--opt={argv[i + 1]}" if x == "--opt" and i + 1 < len(argv) else x for i, x in enumerate(argv)
            if not (i > 0 and argv[i - 1] == "--opt")]
    a = ap.parse_args(argv)
    policies = [p for p in a.policies.split(",") if p]
    bad = [p for p in policies if p not in outside.POLICIES or p == "off"]
    if bad:
        ap.error(f"unknown policies {bad}: choose from {', '.join(p for p in outside.POLICIES if p != 'off')}")
    try:
        amal = amalgamation(a.build_dir)
    except outside.FetchError as e:
        print(f"sqlite: SKIP: {e}")
        return 77
    sql, small = script(a.rows), script(20000)
    failures, ref, icount = 0, None, {}
    for policy in ["off"] + policies:
        exe = build(amal, a.build_dir / "builds", a, policy)
        # the plain build's spinners have no checks: it runs alone, as the reference
        cp = run(exe, sql, 0 if policy == "off" else 4, 100)
        sw = outside.switches(cp.stderr)
        if ref is None:
            ref = cp.stdout
            ok = cp.returncode == 0 and "\nok\n" in ref  # integrity_check passed
        else:
            ok = cp.returncode == 0 and cp.stdout == ref and sw > 20
        if a.callgrind:
            icount[policy] = instructions(exe, small)
        over = (f", instructions {icount[policy]:,} ({100 * (icount[policy] / icount['off'] - 1):+.1f} %)"
                if a.callgrind and icount.get("off", -1) > 0 and icount[policy] > 0 else "")
        failures += not outside.report("sqlite", f"{policy} {a.opt}", cp, ref, ok,
                                       f", text {text_size(exe):,}{over}")
        if policy == "off":
            # the plain build under signal preemption: the handler switches the shell and
            # the spinners (no checks in them) wherever they are in the program's own code
            cp = run(exe, sql, 4, 100, signal=True)
            ok = cp.returncode == 0 and cp.stdout == ref and outside.switches(cp.stderr) > 20
            failures += not outside.report("sqlite", f"off {a.opt}, signal preemption", cp, ref, ok)
    print(f"sqlite: {len(policies) + 1} builds, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
