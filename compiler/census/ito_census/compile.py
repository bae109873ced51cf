"""Building MIR after register allocation from C sources, and the census's inputs.

clang-19 -O<n> -S -mllvm -stop-after=virtregrewriter writes the MIR of clang's own code
generation pipeline (the same target options as a normal compile) at the point where
every virtual register has been replaced by a physical one and the allocator's spills,
reloads and copies are in place. Later passes still run in a real compile (prologue and
epilogue insertion, copy propagation, block placement, branch folding); the census sees
the code just before them.

Inputs: C from Debian's libstb-dev (/usr/include/stb: the Ogg Vorbis decoder and image
codecs, the nearest thing to the paper's DENbench multimedia suite), and ito's own
sources (src/**/*.c). A source that fails to compile is reported and skipped.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from . import mir, stats

STB_DIR = Path("/usr/include/stb")
# name -> (header, implementation macro or None when the file is the implementation)
STB_UNITS = {
    "stb_vorbis": ("stb_vorbis.h", None),
    "stb_image": ("stb_image.h", "STB_IMAGE_IMPLEMENTATION"),
    "stb_image_write": ("stb_image_write.h", "STB_IMAGE_WRITE_IMPLEMENTATION"),
    "stb_image_resize": ("stb_image_resize.h", "STB_IMAGE_RESIZE_IMPLEMENTATION"),
    "stb_truetype": ("stb_truetype.h", "STB_TRUETYPE_IMPLEMENTATION"),
}


@dataclass
class Unit:
    name: str            # e.g. stb/stb_vorbis, ito/src/core/worker.c
    group: str           # stb | ito | other
    source: Path
    cflags: list[str] = field(default_factory=list)


def clang() -> str:
    for c in ("clang-19", "/usr/lib/llvm-19/bin/clang"):
        if shutil.which(c):
            return c
    raise FileNotFoundError("clang-19 is not installed")


def stb_units(workdir: Path, names=None) -> list[Unit]:
    units = []
    for name, (hdr, macro) in STB_UNITS.items():
        if names and name not in names:
            continue
        if not (STB_DIR / hdr).exists():
            continue
        src = workdir / f"{name}_unit.c"
        src.write_text((f"#define {macro}\n" if macro else "") + f"#include <stb/{hdr}>\n")
        units.append(Unit(f"stb/{name}", "stb", src, ["-w"]))
    return units


def ito_units(repo: Path) -> list[Unit]:
    inc = ["-I", str(repo / "include"), "-I", str(repo / "src")]
    for d in sorted((repo / "src").glob("*/")):
        inc += ["-I", str(d)]
        for sub in sorted(d.glob("*/")):
            inc += ["-I", str(sub)]
    return [Unit(f"ito/{p.relative_to(repo)}", "ito", p, ["-std=c17", "-D_GNU_SOURCE", *inc])
            for p in sorted((repo / "src").rglob("*.c"))]


def stop_pass(opt: str) -> str:
    """The register allocator's last pass: -O0 uses the fast allocator, which rewrites as
    it goes; the others use greedy, then the virtual register rewriter. (Naming a pass that
    is not in the pipeline would silently run code generation to the end.)"""
    return "regallocfast" if opt == "-O0" else "virtregrewriter"


def _compile(unit: Unit, opt: str, extra: list[str], stop_after: str | None = None):
    """(MIR text, clang's stderr)."""
    stop_after = stop_after or stop_pass(opt)
    with tempfile.TemporaryDirectory(prefix="ito-census-") as tmp:
        out = Path(tmp) / "out.mir"
        cmd = [clang(), opt, "-S", *unit.cflags, *extra, "-mllvm",
               f"-stop-after={stop_after}", str(unit.source), "-o", str(out)]
        cp = subprocess.run(cmd, capture_output=True, text=True)
        if cp.returncode != 0:
            raise RuntimeError(cp.stderr.strip().splitlines()[-1] if cp.stderr.strip() else
                               f"clang exited {cp.returncode}")
        text = out.read_text()
        if " frame-setup " in text:  # prologue insertion ran: not the point we asked for
            raise RuntimeError(f"MIR after {stop_after} already has a prologue")
        return text, cp.stderr


def mir_text(unit: Unit, opt: str = "-O2", stop_after: str | None = None) -> str:
    return _compile(unit, opt, [], stop_after)[0]


def mir_with_estimate(unit: Unit, plugin: Path, opt: str = "-O2"):
    """MIR and the plugin's choices (begin or end, from IR liveness) for the same code:
    one compile with the plugin in dry-run mode (it decides and reports, changes nothing)
    and value names kept, so that machine blocks carry their IR block's name.
    Returns (MIR text, {(function, block): (side, live_begin, live_end)})."""
    extra = ["-fno-discard-value-names", "-Xclang", "-load", "-Xclang", str(plugin),
             f"-fpass-plugin={plugin}", "-mllvm", "-ito-yield-dry-run",
             "-mllvm", "-ito-yield-report"]
    text, err = _compile(unit, opt, extra)
    choices = {}
    for line in err.splitlines():
        m = re.match(r"ito-yield: (\S+): (\S+) (begin|end) live_begin=(\d+) live_end=(\d+)$", line)
        if m:
            choices[(m.group(1), m.group(2))] = (m.group(3), int(m.group(4)), int(m.group(5)))
    return text, choices


def census_unit(unit: Unit, opt: str = "-O2", plugin: Path | None = None) -> stats.Census:
    if plugin is None:
        return stats.census_of(mir.parse(mir_text(unit, opt)))
    text, choices = mir_with_estimate(unit, plugin, opt)
    c = stats.census_of(mir.parse(text))
    c.estimate = stats.compare_estimate(c.blocks, choices)
    return c


def run(units: list[Unit], opt: str = "-O2", jobs: int | None = None, on_done=None,
        plugin: Path | None = None):
    """Census of each unit: returns ({name: Census}, {name: error message})."""
    jobs = jobs or min(2, os.cpu_count() or 1)
    done, failed = {}, {}

    def work(u: Unit):
        try:
            return u, census_unit(u, opt, plugin), None
        except Exception as e:  # a source that does not compile is skipped, and said so
            return u, None, str(e)

    with ThreadPoolExecutor(max_workers=jobs) as ex:
        for u, c, err in ex.map(work, units):
            if c is not None:
                done[u.name] = c
            else:
                failed[u.name] = err
            if on_done:
                on_done(u, err)
    return done, failed
