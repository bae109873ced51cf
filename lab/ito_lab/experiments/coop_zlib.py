"""zlib under compiler-inserted yields (issue 12, deliverable 4): a real outside code base.

workloads/zlib/zlib_ults.py fetches Debian's zlib source (apt-get source) and builds zlib,
its tests (test/example.c, test/infcover.c) and a round-trip workload by ito-cc for each
policy (off = no plugin; every, loops, bound: per-live-set stubs, flag in local-exec TLS;
budget: bound's checks counting down instructions, no timer) at -O0..-O3. Here, for each
build:

  * correctness: run in 6 ULTs on 2 workers, the FLAG timer at 100 us: output identical to
    the plain build of the same level, exit 0, switches counted;
  * overhead: instructions (callgrind) of a timer-less run against the plain build of the same
    level (deterministic; the run's own ULT switches at joins are in both);
  * code growth: text of zlib's objects against the plain build of the same level;
  * wall time: min/median/max of interleaved timer-less runs (a quiet machine is needed: the
    load average is recorded).
"""
from __future__ import annotations

import importlib.util
import os
import subprocess
import tempfile
from pathlib import Path

from ..context import REPO
from ..progress import steps
from ..report import markdown_table, write_csv
from .coop_case import _median, overhead_pct, parse_callgrind_ir

LEVELS = ("-O0", "-O1", "-O2", "-O3")
POLICIES = ("off", "every", "loops", "bound", "budget")
# The timer-less runs measure the checks alone: the budget build would otherwise yield at its
# default quantum (the other builds ignore the variable).
QUIET_ENV = dict(os.environ, ITO_COOP_BUDGET="1000000000")


def _module():
    spec = importlib.util.spec_from_file_location("zlib_ults", REPO / "workloads" / "zlib" /
                                                  "zlib_ults.py")
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def run_zlib(args, ctx, out: Path) -> list[tuple[str, str]]:
    z = _module()
    bdir = ctx.build_dir / "workloads" / "zlib"
    itocc = ctx.build_dir / "compiler" / "ito-cc"
    lib = ctx.build_dir / "src" / "libito.so"
    include = REPO / "include"
    if not itocc.exists() or not lib.exists():
        return [("zlib", f"Not run: {itocc} or {lib} is not built.")]
    try:
        src = z.fetch(bdir)
    except z.FetchError as e:
        return [("zlib", f"Not run: {e}")]
    levels = ("-O2",) if ctx.quick else LEVELS
    reps = 3 if ctx.quick else 5
    rounds = "1" if ctx.quick else "2"
    exes, rows, wall = {}, [], {}
    work = Path(tempfile.mkdtemp(prefix="ito-zlib-"))
    load0 = "/".join(f"{x:.2f}" for x in os.getloadavg())
    with steps(len(levels) * len(POLICIES) * (3 + reps), "zlib") as step:
        for o in levels:
            for p in POLICIES:
                step(f"build {p} {o}")
                exes[(p, o)] = z.build(src, bdir / "builds", str(itocc), str(lib), str(include),
                                       p, o)
        for o in levels:
            ref = None
            for p in POLICIES:
                step(f"run {p} {o}")
                cp = z.run(exes[(p, o)], ["--rounds", rounds], work)
                if ref is None:
                    ref = cp.stdout
                same = cp.stdout == ref and cp.returncode == 0
                step(f"callgrind {p} {o}")
                cg = subprocess.run(["nice", "-n", "10", "valgrind", "--tool=callgrind",
                                     "--callgrind-out-file=/dev/null", str(exes[(p, o)]),
                                     "--dir", str(work), "--quantum-us", "0", "--rounds", rounds],
                                    capture_output=True, text=True, timeout=3600, env=QUIET_ENV)
                ir = parse_callgrind_ir(cg.stderr)
                rows.append([p, o, "yes" if same else "NO", z.switches(cp.stderr), ir,
                             z.text_size(exes[(p, o)].parent)])
        for r in range(reps):
            for o in levels:
                for p in POLICIES:
                    step(f"wall {r + 1} {p} {o}")
                    cp = subprocess.run(["/usr/bin/time", "-f", "%e", str(exes[(p, o)]), "--dir",
                                         str(work), "--quantum-us", "0", "--rounds", rounds],
                                        capture_output=True, text=True, env=QUIET_ENV)
                    wall.setdefault((p, o), []).append(float(cp.stderr.strip().splitlines()[-1]))
    load1 = "/".join(f"{x:.2f}" for x in os.getloadavg())
    base = {(r[1]): r for r in rows if r[0] == "off"}
    table = []
    for p, o, same, sw, ir, text in rows:
        b = base[o]
        ws = sorted(wall[(p, o)])
        wb = _median(wall[("off", o)])
        table.append([p, o, same, sw, ir, round(overhead_pct(ir, b[4]), 2), text,
                      round(text / b[5], 2), ws[0], _median(ws), ws[-1],
                      round(overhead_pct(_median(ws), wb), 1)])
    hdr = ["policy", "level", "output identical",
           "switches (FLAG at 100 us; budget: its quantum)", "instructions",
           "overhead (%)", "text (bytes)", "growth (x)", "wall s min", "median", "max",
           "wall overhead (%)"]
    write_csv(out / "zlib.csv", hdr, table)
    return [("zlib: a real code base and its own tests in ULTs", f"""
zlib {src.name} (Debian source, fetched by `workloads/zlib/zlib_ults.py`), its tests
`test/example.c` and `test/infcover.c` and a deflate/inflate round trip ({rounds} rounds per
ULT), built by ito-cc per policy (`off`: no plugin; `every`: every block; `loops`: entries and
loop headers; `bound`: checks under B = 5,000) with per-live-set stubs and the flag in
local-exec TLS. Correctness: 6 ULTs on 2 workers, the runtime's timer in FLAG mode every
100 us; stdout must equal the plain build's. Overhead: callgrind, timer off, against `off` at
the same level. Wall time: {reps} interleaved runs, timer off; load average {load0} before,
{load1} after (above ~0.5 these are not results: re-run on a quiet machine).

{markdown_table(hdr, table)}
""")]
