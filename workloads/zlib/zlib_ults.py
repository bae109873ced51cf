#!/usr/bin/env python3
"""zlib built by ito-cc, its own tests run inside ULTs under FLAG-mode preemption.

    zlib_ults.py --build-dir DIR --itocc ITO-CC --libito LIBITO --include INC [--full]

Fetches Debian's zlib source (`apt-get source --download-only zlib`: the Debian archive is
the registry; nothing is committed) into DIR/src once, then builds programs of zlib's
library sources, its tests test/example.c and test/infcover.c (their output redirected into
per-ULT buffers) and zharness.c, and runs each: the plugin builds must print exactly what the
plain build prints, exit 0, and really switch (the FLAG timer at 100 us on 2 workers; the
`budget` build ignores it and yields at the runtime's default quantum).

Builds (name: ito-cc options): `off` (no plugin) and, per policy, the stub variant with the
flag in local-exec TLS (`budget`: the bound's checks counting down instructions). The reduced
matrix (ctest): off at -O2, `bound` at -O0..-O3, `every` and `budget` at -O2. --full: every
policy (every, loops, bound, budget) at -O0..-O3.

Round count or time budget: on a loaded machine a build of zlib by ito-cc takes minutes, so
the reduced matrix starts no more builds once --budget seconds (default 300, a third of
ctest's 900 s limit) are spent, provided its first MIN_BUILDS have run: the plain build and
each policy at -O2; the other levels of `bound` come last.
"""
from __future__ import annotations

import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import outside  # noqa: E402  (workloads/outside.py, shared with workloads/sqlite)
from outside import POLICIES, FetchError, switches  # noqa: E402,F401  (the lab uses z.FetchError, z.switches)
LIB_SOURCES = ["adler32", "compress", "crc32", "deflate", "gzclose", "gzlib", "gzread",
               "gzwrite", "infback", "inffast", "inflate", "inftrees", "trees", "uncompr",
               "zutil"]
REDIRECT = ["-Dprintf=zh_printf", "-Dfprintf=zh_fprintf", "-Dfputs=zh_fputs"]
TESTS = {"example": ["-Dmain=zlib_example_main"], "infcover": ["-Dmain=zlib_infcover_main"]}
REDUCED = [("off", "-O2"), ("bound", "-O2"), ("every", "-O2"), ("budget", "-O2"),
           ("bound", "-O0"), ("bound", "-O1"), ("bound", "-O3")]
MIN_BUILDS = 4  # of REDUCED, whatever the time budget says
FULL = [(p, o) for p in POLICIES for o in ("-O0", "-O1", "-O2", "-O3")]


def fetch(build_dir: Path) -> Path:
    """The unpacked zlib source tree (fetched and unpacked once)."""
    return outside.fetch("zlib", build_dir / "src", "zlib-*/zlib.h")


def build(src: Path, out: Path, itocc: str, libito: str, include: str, policy: str,
          opt: str, jobs: int = 2) -> Path:
    """One program: zlib and its tests by ito-cc <policy> <opt>, the harness plain."""
    d = out / f"{policy}{opt}"
    exe = d / "zharness"
    d.mkdir(parents=True, exist_ok=True)
    ito = POLICIES[policy]
    # as zlib's configure does on Linux (DWARF 4: valgrind 3.19 cannot read clang-19's 5)
    base = [itocc, *ito, opt, "-gdwarf-4", "-w", "-fPIE", "-DHAVE_UNISTD_H",
            "-D_LARGEFILE64_SOURCE=1", f"-I{src}", "-c"]
    jobs_list = [base + [str(src / f"{s}.c"), "-o", str(d / f"{s}.o")] for s in LIB_SOURCES]
    for t, defs in TESTS.items():
        jobs_list.append(base + defs + REDIRECT + [str(src / "test" / f"{t}.c"),
                                                   "-o", str(d / f"{t}.o")])
    jobs_list.append([itocc, "--ito-off", "-O2", "-gdwarf-4", "-std=c17", "-Wall", "-Wextra",
                      "-Werror", "-fPIE", f"-I{src}", f"-I{include}", "-c",
                      str(HERE / "zharness.c"), "-o", str(d / "zharness.o")])
    with ThreadPoolExecutor(jobs) as ex:
        list(ex.map(outside.cc, jobs_list))
    objs = [str(d / f"{s}.o") for s in LIB_SOURCES + list(TESTS) + ["zharness"]]
    outside.cc([itocc, "--ito-off", *objs, libito, f"-Wl,-rpath,{Path(libito).parent}", "-o", str(exe)])
    return exe


def text_size(d: Path) -> int:
    """Bytes of text of zlib's own objects (library and tests) in a build folder."""
    objs = [str(d / f"{s}.o") for s in LIB_SOURCES + list(TESTS)]
    out = subprocess.run(["size", "-t", *objs], capture_output=True, text=True, check=True).stdout
    return int(out.strip().splitlines()[-1].split()[0])


def run(exe: Path, args: list[str], workdir: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(exe), "--dir", str(workdir), *args], capture_output=True,
                          text=True, timeout=900)


def main(argv=None) -> int:
    ap = outside.arguments(__doc__)
    ap.add_argument("--full", action="store_true")
    ap.add_argument("--rounds", default="1")
    ap.add_argument("--budget", type=float, default=300,
                    help="seconds after which the reduced matrix starts no more builds (0: none)")
    a = ap.parse_args(argv)
    start = time.monotonic()
    try:
        src = fetch(a.build_dir)
    except FetchError as e:
        print(f"zlib: SKIP: {e}")
        return 77
    matrix = FULL if a.full else REDUCED
    ref = None
    failures = 0
    order = [("off", "-O2")] + [m for m in matrix if m != ("off", "-O2")]
    ran = 0
    for policy, opt in order:
        spent = time.monotonic() - start
        if not a.full and a.budget and ran >= MIN_BUILDS and spent > a.budget:
            print(f"zlib: time budget spent ({spent:.0f} s of {a.budget:.0f}): {ran} of {len(order)} "
                  f"builds (the minimum is {MIN_BUILDS})")
            break
        ran += 1
        exe = build(src, a.build_dir / "builds", a.itocc, a.libito, a.include, policy, opt)
        cp = run(exe, ["--rounds", a.rounds], a.build_dir)
        sw = outside.switches(cp.stderr)
        if ref is None:
            ref = cp.stdout
            ok = cp.returncode == 0 and "rt level" in ref and "== ULT 1" in ref
        else:
            ok = cp.returncode == 0 and cp.stdout == ref and (policy == "off" or sw > 20)
        failures += not outside.report("zlib", f"{policy} {opt}", cp, ref, ok)
    print(f"zlib: {ran} of {len(order)} builds in {time.monotonic() - start:.0f} s, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
