"""ito-cc: clang-19 with the ito yield plugin, which inserts timer-guarded yield points.

    ito-cc [--ito-policy=every|loops|distance|bound] [--ito-distance=N] [--ito-bound=B]
           [--ito-extern-cost=N] [--ito-variant=min|abi|full|stub] [--ito-place=auto|begin|end]
           [--ito-tls=initial-exec|local-exec] [--ito-stubs=live|full]
           [--ito-allow-va-regions] [--ito-report]
           [--ito-probe] [--ito-off] <clang arguments>

--ito-off compiles without the plugin (the "no threading" build from the same sources). The
plugin is added only when something is compiled (not for link-only calls). ITO_YIELD_PLUGIN
overrides where the plugin is looked for.

--ito-variant=stub (per-live-set stubs, see sites.py and stubs.py) needs a second look at
the machine code: each source is compiled to assembly with the final machine functions
dumped (-mllvm -print-after=unpack-mi-bundles), the live registers at each site are read
from the dump, the stubs and the site bindings are appended to the assembly, and that is
assembled (-c), written (-S), or assembled and linked (no -c/-S). --ito-stubs=full binds every site to the stub that saves
everything (the paper's "full save" with the same checks and code). Every other variant is
one plain clang call.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from . import sites, stubs

VALUE_OPTS = {  # ito-cc option -> plugin option
    "--ito-policy=": "-ito-yield-policy=", "--ito-distance=": "-ito-yield-distance=",
    "--ito-bound=": "-ito-yield-bound=", "--ito-extern-cost=": "-ito-yield-extern-cost=",
    "--ito-variant=": "-ito-yield-variant=", "--ito-place=": "-ito-yield-place=",
    "--ito-tls=": "-ito-yield-tls=",
}
STUB_SETS = ("live", "full")  # --ito-stubs=: what each site's stub saves
BOOL_OPTS = {"--ito-allow-va-regions": "-ito-yield-allow-va-regions",
             "--ito-report": "-ito-yield-report", "--ito-probe": "-ito-yield-probe"}
# clang options whose value is the next argument
SEPARATE = {"-o", "-MF", "-MT", "-MQ", "-I", "-D", "-U", "-include", "-isystem", "-iquote",
            "-idirafter", "-imacros", "-x", "-Xclang", "-Xlinker", "-Xassembler", "-mllvm",
            "-L", "-T", "-u", "-z", "-target", "--param", "-isysroot", "-iprefix", "-F",
            "-Xpreprocessor", "-arch"}
SOURCE_EXT = (".c", ".i", ".ll", ".bc", ".cc", ".cpp", ".cxx", ".C")
NO_CODE = {"-E", "-fsyntax-only", "-M", "-MM"}


class Usage(Exception):
    pass


def split_args(argv: list[str]):
    """(plugin options, variant, off, clang arguments, stub set)"""
    ito, rest, off, variant, stubset = [], [], False, "min", "live"
    for a in argv:
        if a == "--ito-off":
            off = True
        elif a.startswith("--ito-stubs="):
            stubset = a.split("=", 1)[1]
            if stubset not in STUB_SETS:
                raise Usage(f"--ito-stubs= takes one of {', '.join(STUB_SETS)}")
        elif a in BOOL_OPTS:
            ito += ["-mllvm", BOOL_OPTS[a]]
        elif a.startswith("--ito-"):
            for k, v in VALUE_OPTS.items():
                if a.startswith(k):
                    ito += ["-mllvm", v + a[len(k):]]
                    if k == "--ito-variant=":
                        variant = a[len(k):]
                    break
            else:
                raise Usage(f"unknown option {a}")
        else:
            rest.append(a)
    return ito, variant, off, rest, stubset


def classify(rest: list[str]):
    """Positions of sources, the -o value, and whether -c / -S / no-code modes are present."""
    srcs, out, mode, i = [], None, "link", 0
    while i < len(rest):
        a = rest[i]
        if a in SEPARATE:
            if a == "-o" and i + 1 < len(rest):
                out = i + 1
            i += 2
            continue
        if a == "-c":
            mode = "c" if mode != "S" else mode
        elif a == "-S":
            mode = "S"
        elif a in NO_CODE or a == "-emit-llvm":
            mode = "nocode" if a != "-emit-llvm" else "llvm"
        elif not a.startswith("-") and a.endswith(SOURCE_EXT) or a == "-":
            srcs.append(i)
        i += 1
    return srcs, out, mode


def find_plugin(candidates: list[str]) -> str | None:
    env = os.environ.get("ITO_YIELD_PLUGIN")
    if env:
        return env
    for p in [str(Path(sys.argv[0]).resolve().parent / "ItoYield.so"), *candidates]:
        if p and Path(p).is_file():
            return p
    return None


LINK_ONLY = ("-Wl,", "-l", "-shared", "-static", "-pie", "-no-pie", "-rdynamic", "-nostdlib",
             "-nodefaultlibs", "-nostartfiles", "-fuse-ld=")


def compile_only(args: list[str]) -> list[str]:
    """The arguments of a compile step: without link inputs and linker options."""
    out, i = [], 0
    while i < len(args):
        a = args[i]
        if a in SEPARATE:
            if a not in ("-L", "-Xlinker", "-T", "-u", "-z"):
                out += args[i:i + 2]
            i += 2
            continue
        if not a.startswith("-") or a.startswith(LINK_ONLY):
            i += 1
            continue
        out.append(a)
        i += 1
    return out


def compile_stub(clang: str, plug: list[str], args: list[str], src: str, asm_out: Path,
                 stubset: str) -> int:
    """One source to assembly with its stubs appended (see the module docstring)."""
    cmd = [clang, *plug, *args, "-S", src, "-o", str(asm_out),
           "-mllvm", f"-print-after={sites.DUMP_PASS}"]
    cp = subprocess.run(cmd, stderr=subprocess.PIPE, text=True, errors="replace")
    dump, other = sites.split_dump(cp.stderr)
    sys.stderr.write(other)
    if cp.returncode != 0:
        return cp.returncode
    asm = asm_out.read_text(encoding="latin-1")  # bytes as they are (strings, debug info)
    referenced = sites.sites_in_asm(asm)
    if referenced:
        with asm_out.open("a", encoding="latin-1") as f:
            live = {} if stubset == "full" else sites.module_sites(dump)
            f.write(stubs.binding_asm(live, referenced))
    return 0


def run_stub_variant(clang: str, plug: list[str], rest: list[str], stubset: str) -> int:
    srcs, out_i, mode = classify(rest)
    if mode == "llvm":
        raise Usage("--ito-variant=stub needs object or assembly output, not -emit-llvm")
    if mode == "nocode" or not srcs:
        return subprocess.call([clang, *plug, *rest])
    drop = set(srcs) | ({out_i - 1, out_i} if out_i is not None else set())
    common = compile_only([a for k, a in enumerate(rest) if k not in drop and a not in ("-c", "-S")])
    out = rest[out_i] if out_i is not None else None
    if out is not None and len(srcs) > 1 and mode != "link":
        raise Usage("cannot specify -o with -c or -S and several sources")
    tmp = Path(tempfile.mkdtemp(prefix="ito-cc-"))
    try:
        objs = {}
        for k in srcs:
            src = rest[k]
            stem = Path(src).stem
            asm = tmp / f"{stem}.{k}.s"
            rc = compile_stub(clang, plug, common, src, asm, stubset)
            if rc:
                return rc
            if mode == "S":
                shutil.copyfile(asm, out or f"{stem}.s")
                continue
            obj = Path(out) if (mode == "c" and out) else (Path(f"{stem}.o") if mode == "c"
                                                             else tmp / f"{stem}.{k}.o")
            asflags = [a for a in common if a.startswith(("-Wa,", "--target=", "-m"))
                       and not a.startswith("-mllvm")]
            rc = subprocess.call([clang, *asflags, "-c", str(asm), "-o", str(obj)])
            if rc:
                return rc
            objs[k] = str(obj)
        if mode != "link":
            return 0
        link = [objs.get(k, a) for k, a in enumerate(rest)
                if a not in ("-c", "-S") and not (k in srcs and k not in objs)]
        # compile-only options are harmless at link time; -mllvm/-Xclang pairs are dropped
        cleaned, i = [], 0
        while i < len(link):
            if link[i] in ("-mllvm", "-Xclang"):
                i += 2
                continue
            cleaned.append(link[i])
            i += 1
        return subprocess.call([clang, *cleaned])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main(argv: list[str], clang: str, plugins: list[str]) -> int:
    try:
        ito, variant, off, rest, stubset = split_args(argv)
        srcs, _, mode = classify(rest)
        compiles = bool(srcs) or mode in ("c", "S", "nocode", "llvm") or "-x" in rest
        if compiles and not any(a.startswith("-fno-stack-clash-protection") for a in rest):
            # a frame larger than the guard below a ULT's stack still hits the guard
            rest = ["-fstack-clash-protection", *rest]
        if off or not compiles:
            os.execv(clang, [clang, *rest])
        plugin = find_plugin(plugins)
        if not plugin:
            print("ito-cc: the plugin ItoYield.so is not found (set ITO_YIELD_PLUGIN)",
                  file=sys.stderr)
            return 2
        # -Xclang -load loads the plugin before clang parses -mllvm, so that its
        # -ito-yield-* options exist by then; -fpass-plugin (the same file) adds the pass.
        plug = ["-Xclang", "-load", "-Xclang", plugin, f"-fpass-plugin={plugin}", *ito]
        if variant == "stub" and BOOL_OPTS["--ito-probe"] not in ito:
            return run_stub_variant(clang, plug, rest, stubset)
        os.execv(clang, [clang, *plug, *rest])
    except Usage as e:
        print(f"ito-cc: {e}", file=sys.stderr)
        return 2
    return 0
