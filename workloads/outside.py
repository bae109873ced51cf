"""What the outside-code workloads (workloads/zlib, workloads/sqlite) share: Debian source
packages (the Debian archive is the registry; sources are fetched at run time and never
committed), the ito-cc options of each yield policy, and running a compiler.

    fetch(pkg, dl, marker) -> the unpacked tree holding `marker` (fetched and unpacked once)
    POLICIES                  policy name -> ito-cc options ("off": the plain build)
    cc(cmd)                   run one compile or link, raise with its stderr if it fails
    switches(stderr)          the harness's "switches N" line (-1: none)
    report(...)               print one build's verdict against the plain build's output
    arguments(doc)            the command line both workload scripts share
"""
from __future__ import annotations

import argparse
import functools
import glob
import re
import subprocess
import sys
import tarfile
from pathlib import Path


STUB = ["--ito-variant=stub", "--ito-tls=local-exec"]
POLICIES = {
    "off": ["--ito-off"],
    "every": STUB,
    "loops": STUB + ["--ito-policy=loops"],
    "bound": STUB + ["--ito-policy=bound", "--ito-bound=5000"],
    # the bound's checks counting down estimated instructions (no timer: the runtime's
    # quantum, ITO_COOP_BUDGET, default 50,000, decides when a ULT yields)
    "budget": STUB + ["--ito-policy=bound", "--ito-bound=5000", "--ito-check=budget"],
}


class FetchError(RuntimeError):
    pass


def cc(cmd: list[str]) -> None:
    cp = subprocess.run(cmd, capture_output=True, text=True)
    if cp.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}\n{cp.stderr[-3000:]}")


def source_versions(pkg: str) -> list[str]:
    """The versions of source package `pkg` that apt knows, newest first."""
    cp = subprocess.run(["apt-cache", "showsrc", pkg], capture_output=True, text=True)
    vs = []
    for line in cp.stdout.splitlines():
        if line.startswith("Version: ") and line[9:].strip() not in vs:
            vs.append(line[9:].strip())
    key = functools.cmp_to_key(lambda a, b: 0 if a == b else (1 if subprocess.run(
        ["dpkg", "--compare-versions", a, "gt", b]).returncode == 0 else -1))
    return sorted(vs, key=key, reverse=True)


def fetch(pkg: str, dl: Path, marker: str) -> Path:
    """The folder of `dl` whose `marker` file exists (e.g. "zlib-*/zlib.h"), after
    `apt-get source --download-only pkg` and unpacking the orig tarball if needed."""
    found = sorted(glob.glob(str(dl / marker)))
    if found:
        return Path(found[-1]).parent
    dl.mkdir(parents=True, exist_ok=True)
    cp = subprocess.run(["apt-get", "source", "--download-only", pkg], cwd=dl,
                        capture_output=True, text=True)
    tars = sorted(glob.glob(str(dl / f"{pkg}_*.orig.tar.*")))
    if cp.returncode != 0 or not tars:
        # The newest version may be on a pool the mirror does not serve (a machine here
        # got 404 for bookworm-security's zlib while bookworm's own was there): try the
        # other versions the source index lists, newest first.
        for v in source_versions(pkg)[1:]:
            cp = subprocess.run(["apt-get", "source", "--download-only", f"{pkg}={v}"], cwd=dl,
                                capture_output=True, text=True)
            tars = sorted(glob.glob(str(dl / f"{pkg}_*.orig.tar.*")))
            if cp.returncode == 0 and tars:
                break
    if cp.returncode != 0 or not tars:
        raise FetchError(f"apt-get source {pkg} failed (needs a deb-src entry, see "
                         f"tools/setup-deps.sh): {cp.stderr.strip()[-400:]}")
    with tarfile.open(tars[-1]) as t:
        if hasattr(tarfile, "data_filter"):  # Python >= 3.11.4: refuse unsafe members
            t.extractall(dl, filter="data")
        else:
            t.extractall(dl)
    found = sorted(glob.glob(str(dl / marker)))
    if not found:
        raise FetchError(f"the {pkg} tarball has no {marker}")
    return Path(found[-1]).parent


def switches(stderr: str) -> int:
    m = re.search(r"^switches (\d+)", stderr, re.M)
    return int(m.group(1)) if m else -1


def report(name: str, label: str, cp: subprocess.CompletedProcess, ref: str, ok: bool,
           extra: str = "") -> bool:
    """Print one run's line (output identical to the reference or not, its switches) and,
    if it failed, the tail of its stderr; returns ok."""
    print(f"{name} {label}: exit {cp.returncode}, {len(cp.stdout)} bytes of output "
          f"{'identical' if cp.stdout == ref else 'DIFFERENT'}, switches {switches(cp.stderr)}"
          f"{extra}: {'ok' if ok else 'FAIL'}", flush=True)
    if not ok:
        sys.stdout.write(cp.stderr[-2000:])
    return ok


def arguments(doc: str) -> argparse.ArgumentParser:
    """--build-dir (sources, builds), --itocc, --libito, --include (ito's headers)."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    # absolute: the scripts run configure and compilers in folders of their own (a relative
    # --build-dir made sqlite_ults.py look for configure in the wrong place)
    ap.add_argument("--build-dir", required=True, type=lambda p: Path(p).resolve())
    ap.add_argument("--itocc", required=True, type=lambda p: str(Path(p).resolve()))
    ap.add_argument("--libito", required=True, type=lambda p: str(Path(p).resolve()))
    ap.add_argument("--include", required=True, type=lambda p: str(Path(p).resolve()))
    return ap
