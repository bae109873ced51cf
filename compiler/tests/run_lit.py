#!/usr/bin/env python3
"""A small lit-like runner for the plugin's tests.

Each test file holds `RUN:` lines (in `;` or `//` comments); every RUN line is a shell
pipeline run with bash -o pipefail after these substitutions:
    %s  the test file        %S  its folder          %t  a scratch path for this test
    %plugin  ItoYield.so     %opt  opt-19            %clang  clang-19
    %itocc   the ito-cc wrapper                      %FileCheck  LLVM's FileCheck
A RUN line ending in `\\` continues on the next RUN line. The test passes when every
line exits 0. Usage: run_lit.py --plugin P --itocc W [--opt O --clang C --filecheck F] test...
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path


def run_lines(path: Path) -> list[str]:
    lines, cur = [], ""
    for raw in path.read_text().splitlines():
        m = re.search(r"(?:;|//|#)\s*RUN:\s?(.*)$", raw)
        if not m:
            continue
        part = m.group(1).rstrip()
        if part.endswith("\\"):
            cur += part[:-1] + " "
            continue
        lines.append(cur + part)
        cur = ""
    return lines


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--plugin", required=True)
    ap.add_argument("--itocc", required=True)
    ap.add_argument("--opt", default="opt-19")
    ap.add_argument("--clang", default="clang-19")
    ap.add_argument("--filecheck", default="/usr/lib/llvm-19/bin/FileCheck")
    ap.add_argument("tests", nargs="+")
    a = ap.parse_args()
    fc = shutil.which(a.filecheck)
    if not fc:
        print(f"FAIL: FileCheck not found at {a.filecheck}")
        return 1
    failed = 0
    for t in a.tests:
        path = Path(t).resolve()
        lines = run_lines(path)
        if not lines:
            print(f"FAIL {path.name}: no RUN lines")
            failed += 1
            continue
        with tempfile.TemporaryDirectory(prefix="ito-lit-") as tmp:
            subs = {"%plugin": a.plugin, "%itocc": a.itocc, "%opt": a.opt, "%clang": a.clang,
                    "%FileCheck": fc, "%s": str(path), "%S": str(path.parent),
                    "%t": os.path.join(tmp, "t")}
            pat = re.compile("|".join(re.escape(k) for k in sorted(subs, key=len, reverse=True)))
            ok = True
            for line in lines:
                cmd = pat.sub(lambda m: subs[m.group(0)], line)
                cp = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], capture_output=True,
                                    text=True, cwd=tmp)
                if cp.returncode != 0:
                    print(f"FAIL {path.name}\n  $ {cmd}\n{cp.stdout[-3000:]}{cp.stderr[-3000:]}")
                    ok = False
                    break
        print(f"{'PASS' if ok else 'FAIL'} {path.name}")
        failed += not ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
