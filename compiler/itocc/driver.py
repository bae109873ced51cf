"""ito-cc: clang-19 with the ito yield plugin, which inserts timer-guarded yield points.

    ito-cc [--ito-policy=every|loops|distance|bound] [--ito-distance=N] [--ito-bound=B]
           [--ito-extern-cost=N] [--ito-variant=min|abi|full|stub] [--ito-place=auto|begin|end]
           [--ito-tls=initial-exec|local-exec] [--ito-stubs=live|full]
           [--ito-check=flag|budget]
           [--ito-allow-va-regions] [--ito-report]
           [--ito-probe] [--ito-off] [--ito-no-fallback] <clang arguments>
    ito-cc --ito-help

--ito-help prints this usage and where the options are described; --help prints clang's help
and then a line naming --ito-help (clang's help alone listed none of ito's options: found by
an outside tester, h61a, 2026-12-05).

Response files (@file) are expanded first (cmdline.py), so ito options may be in them.
--ito-off compiles without the plugin (the "no threading" build from the same sources). The
plugin is added only when C, C++, Objective-C or IR is compiled (by extension or -x; not for
link-only calls). ITO_YIELD_PLUGIN overrides where the plugin is looked for. The link of an
executable gets a weak stand-in for the runtime, used only when no runtime is linked
(fallback.py; --ito-no-fallback leaves it out).

--ito-variant=stub (per-live-set stubs, see sites.py and stubs.py) needs a second look at
the machine code: each C/C++/ObjC/IR input is compiled to assembly with the final machine
functions dumped (-mllvm -print-after=unpack-mi-bundles), the live registers at each site
are read from the dump, the stubs and the site bindings are appended to the assembly, and
that is assembled (-c), written (-S), or assembled and linked (no -c/-S). Other inputs are
compiled by plain clang calls (assembly: without the plugin) and linker inputs go to the
link, in their places. What clang would have done in one call stays the same: dependency
files name the real output (-MD/-MMD: -MQ and -MF as clang derives them), split DWARF goes
where clang puts it, -o - writes to standard output, -### prints every step's commands and
runs none. -flto is ignored with a warning (the sites are bound in machine code, which LTO
produces only at link time; the other variants ignore it too, in calls that compile: the
link-time optimiser would merge the thread-specific addresses the pass takes anew after
calls); -emit-llvm is refused. --ito-stubs=full binds every site to
the stub that saves everything (the paper's "full save" with the same checks and code).
Every other variant is one plain clang call, but for --ito-probe under -masm=intel
-fno-integrated-as, which takes these steps too (without stubs): the probes' AT&T text must
be put in .att_syntax for GNU as (stubs.att_sites). A header beside other inputs makes its
PCH as clang names it (h.h.pch) and is not linked.
"""
from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from . import fallback, sites, stubs
from .cmdline import (MODE_FLAGS, Arg, Usage, expand_response_files, last_value, mode,
                      output, parse, quote_gnu, words)

VALUE_OPTS = {  # ito-cc option -> plugin option
    "--ito-policy=": "-ito-yield-policy=", "--ito-distance=": "-ito-yield-distance=",
    "--ito-bound=": "-ito-yield-bound=", "--ito-extern-cost=": "-ito-yield-extern-cost=",
    "--ito-variant=": "-ito-yield-variant=", "--ito-place=": "-ito-yield-place=",
    "--ito-tls=": "-ito-yield-tls=", "--ito-check=": "-ito-yield-check=",
}
STUB_SETS = ("live", "full")  # --ito-stubs=: what each site's stub saves
BOOL_OPTS = {"--ito-allow-va-regions": "-ito-yield-allow-va-regions",
             "--ito-report": "-ito-yield-report", "--ito-probe": "-ito-yield-probe"}
COMPILED = ("code", "asm", "other")  # input kinds a compile step takes
LTO_OPTS = ("-flto", "-fno-lto", "-ffat-lto-objects", "-fno-fat-lto-objects",
            "-fwhole-program-vtables", "-fno-whole-program-vtables", "-fsplit-lto-unit",
            "-fno-split-lto-unit", "-funified-lto", "-fno-unified-lto")
# what the assembling of a generated .s takes from the command line
AS_FLAGS = {"-fintegrated-as", "-fno-integrated-as", "-integrated-as", "-no-integrated-as",
            "-###", "-v", "-Xassembler", "-target", "--prefix"}
AS_PREFIXES = ("-Wa,", "--target=", "-m", "-B", "--prefix=", "-gz", "-fdebug-prefix-map=",
               "-ffile-prefix-map=", "--gcc-toolchain=", "--gcc-install-dir=")
LINK_DROPS = {"-mllvm", "-mmlir", "-Xclang", "-Xassembler"}  # and -Wa,: unused at link time
DWO_SECTION = re.compile(r"^\s*\.section\s+\.debug_\w+\.dwo\b", re.M)
ARG_LIMIT = 100_000  # bytes of arguments above which clang gets them in a response file


def plugin_option(opt: str) -> list[str]:
    """A plugin option for clang's compile jobs (cc1) only. -mllvm alone also reaches the
    assembler job (cc1as) of an assembly input or of -save-temps, which does not load the
    plugin and rejects its options."""
    return ["-Xclang", "-mllvm", "-Xclang", opt]


def split_args(argv: list[str]):
    """(plugin options, variant, off, clang arguments, stub set, fallback)"""
    ito, rest, off, variant, stubset, fb = [], [], False, "min", "live", True
    for k, a in enumerate(argv):
        if a == "--":  # the end of options: the rest are inputs, for clang (cmdline.parse)
            rest += argv[k:]
            break
        if a == "--ito-off":
            off = True
        elif a == "--ito-no-fallback":
            fb = False
        elif a.startswith("--ito-stubs="):
            stubset = a.split("=", 1)[1]
            if stubset not in STUB_SETS:
                raise Usage(f"--ito-stubs= takes one of {', '.join(STUB_SETS)}")
        elif a in BOOL_OPTS:
            ito += plugin_option(BOOL_OPTS[a])
        elif a.startswith("--ito-"):
            for k, v in VALUE_OPTS.items():
                if a.startswith(k):
                    ito += plugin_option(v + a[len(k):])
                    if k == "--ito-variant=":
                        variant = a[len(k):]
                    break
            else:
                raise Usage(f"unknown option {a}")
        else:
            rest.append(a)
    return ito, variant, off, rest, stubset, fb


def find_plugin(candidates: list[str]) -> str | None:
    env = os.environ.get("ITO_YIELD_PLUGIN")
    if env:
        return env
    for p in [str(Path(sys.argv[0]).resolve().parent / "ItoYield.so"), *candidates]:
        if p and Path(p).is_file():
            return p
    return None


class Scratch:
    """The call's temporary directory, made on first use, removed at the end."""

    def __init__(self):
        self.path: Path | None = None

    def dir(self) -> Path:
        if self.path is None:
            self.path = Path(tempfile.mkdtemp(prefix="ito-cc-"))
        return self.path

    def sub(self, name: str) -> Path:
        p = self.dir() / name
        p.mkdir()
        return p

    def close(self):
        if self.path is not None:
            shutil.rmtree(self.path, ignore_errors=True)


def shorten(cmd: list[str], scratch: Scratch) -> list[str]:
    """cmd, with its arguments in a response file when they are too long for one exec
    (response files are expanded, so a build that used them may need them again)."""
    if sum(len(a) + 1 for a in cmd) <= ARG_LIMIT:
        return cmd
    fd, path = tempfile.mkstemp(suffix=".rsp", dir=scratch.dir())
    with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write("\n".join(quote_gnu(a) for a in cmd[1:]) + "\n")
    return [cmd[0], "@" + path]


def call(cmd: list[str], scratch: Scratch) -> int:
    return subprocess.call(shorten(cmd, scratch))


def execute(cmd: list[str], scratch: Scratch) -> int:
    """The last command of a call: exec'd when nothing is left to clean up afterwards."""
    cmd = shorten(cmd, scratch)
    if scratch.path is None:
        os.execv(cmd[0], cmd)
    return subprocess.call(cmd)


# ---- the stub variant's steps ----

def compile_options(args: list[Arg], no_lto: bool, link_only: bool = False) -> list[str]:
    """The options of a compile step: no inputs, -c/-S/-o/-x, -MJ (the steps' entries are
    written by StubBuild), and no link-only options or linker inputs (objects, archives)
    unless link_only (a call that links nothing, where clang reports them unused: -Werror
    makes that an error)."""
    out = []
    for a in args:
        if link_only and a.kind == "link":
            out += a.words
            continue
        if (a.is_input or a.name in MODE_FLAGS or a.output() is not None
                or a.x_lang() is not None or (a.link_only() and not link_only)
                or a.name.startswith("-MJ")
                or (no_lto and a.name.startswith(LTO_OPTS))):
            continue
        out += a.words
    return out


def assembler_options(args: list[Arg]) -> list[str]:
    """What the assembling of a generated .s takes: -Wa, and -Xassembler, the target, -m
    options, where the assembler is (-B, -fno-integrated-as), compressed debug sections."""
    out = []
    for a in args:
        if not a.is_input and a.name not in ("-mllvm", "-mmlir") and (
                a.name in AS_FLAGS or a.name.startswith(AS_PREFIXES)):
            out += a.words
    return [*out, "-Qunused-arguments"]


def link_options(args: list[Arg], objs: dict[int, str]) -> list[str]:
    """The link step: every argument in its place, each compiled input replaced by its
    object, without -c/-S, every -x (the objects are objects whatever -x was in force) and
    the compile-only options clang would call unused at link time."""
    out = []
    for k, a in enumerate(args):
        if a.is_input:
            if k in objs or a.linked():  # not a header: its PCH is no linker input
                out.append(objs.get(k, a.name))
        elif not (a.name in MODE_FLAGS or a.x_lang() is not None or a.name in LINK_DROPS
                  or a.name.startswith("-Wa,")):
            out += a.words
    return out


def lto_requested(args: list[Arg]) -> bool:
    on = False
    for a in args:
        if a.name == "-flto" or a.name.startswith("-flto="):
            on = True
        elif a.name == "-fno-lto":
            on = False
    return on


def stem(path: str) -> str:
    """The file name without its extension, as LLVM's path::stem."""
    f = os.path.basename(path)
    i = f.rfind(".")
    return f[:i] if i >= 0 and f not in (".", "..") else f


def replace_ext(path: str, ext: str, base: bool = False) -> str:
    """path (its file name only, if base) with its extension replaced by ext."""
    return os.path.join("" if base else os.path.dirname(path), stem(path) + ext)


def dependency_options(args: list[Arg], src: str, out: str | None) -> list[str]:
    """-MQ/-MF for a compile step whose output is not the real one, when -MD/-MMD (or
    -Wp,-MD,file) asks for a dependency file: the target and the file clang would name
    (the -o value and the -o value with .d, else <input stem>.o and <input stem>.d), unless
    the user named them."""
    md = target = depfile = False
    for a in args:
        n = a.name
        if a.is_input:
            continue
        if n in ("-MD", "-MMD"):
            md = True
        elif n.startswith("-Wp,") and n[4:].split(",")[0] in ("-MD", "-MMD"):
            md = True
            depfile = depfile or len(n[4:].split(",")) > 1
        elif n.startswith(("-MT", "-MQ")):
            target = True
        elif n.startswith("-MF"):
            depfile = True
    if not md:
        return []
    extra = [] if target else ["-MQ", out if out is not None else replace_ext(src, ".o", True)]
    if not depfile:
        extra += ["-MF", replace_ext(out, ".d") if out is not None else stem(src) + ".d"]
    return extra


def split_dwarf(args: list[Arg], m: str, out: str | None, src: str, final: str) -> str | None:
    """The .dwo name clang would give a compile of src (clang's SplitDebugName), or None
    without -gsplit-dwarf; with =single, the object itself (final)."""
    kind = None
    for a in args:
        if a.name == "-gsplit-dwarf" or a.name.startswith("-gsplit-dwarf="):
            kind = a.name.partition("=")[2] or "split"
        elif a.name == "-gno-split-dwarf":
            kind = None
    if kind is None:
        return None
    if kind == "single":
        return final
    dumpdir = last_value(args, "-dumpdir")
    if dumpdir is None and m == "link":
        dumpdir = (out if out is not None else "a") + "-"
    if dumpdir is not None:
        return dumpdir + stem(src) + ".dwo"
    if m == "c" and out is not None:
        return replace_ext(out, ".dwo")
    return stem(src) + ".dwo"


# options that make clang's compile job write a file named after the job's output (-o),
# and the cc1 options that name it: the stub variant's compile job writes a temporary .s,
# so without the real names the file went to the temporary directory, removed at the end
# (the gcov notes of --coverage -c, -fstack-usage's .su, -fsave-optimization-record's
# .opt.yaml, -ftime-trace's .json), and the .gcda path compiled into the object named that
# directory: the program re-created it in /tmp at exit and wrote its counts there (found
# by an outside tester, h65b, 2026-12-06)
AUX_TRIGGERS = ("--coverage", "-coverage", "-ftest-coverage", "-fprofile-arcs", "-fstack-usage",
                "-fsave-optimization-record", "-ftime-trace")
AUX_JOINED = ("-coverage-notes-file=", "-coverage-data-file=", "-ftime-trace=")
AUX_SEPARATE = ("-stack-usage-file", "-opt-record-file")


def aux_requested(ws: list[str]) -> bool:
    return any(w in AUX_TRIGGERS or w.startswith(("-fsave-optimization-record=", "-ftime-trace="))
               for w in ws)


def aux_outputs(clang: str, cmd: list[str], final: str, how: str, scratch: Scratch) -> list[str]:
    """The cc1 options naming the auxiliary outputs of `clang cmd how -o final` as clang
    itself derives them (asked with -###), for the compile job that writes the .s instead:
    each as -Xclang, after the driver's own, so they win."""
    cp = subprocess.run(shorten([clang, *cmd, how, "-o", final, "-###"], scratch),
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                        errors="replace")
    out: list[str] = []
    for line in cp.stderr.splitlines():
        if '"-cc1"' not in line:
            continue
        try:
            ws = shlex.split(line)
        except ValueError:
            continue
        for k, w in enumerate(ws):
            if w.startswith(AUX_JOINED):
                out += ["-Xclang", w]
            elif w in AUX_SEPARATE and k + 1 < len(ws):
                out += ["-Xclang", w, "-Xclang", ws[k + 1]]
        break
    return out


def compile_stub(clang: str, cmd: list[str], asm_out: Path, stubset: str, dry: bool,
                 scratch: Scratch) -> int:
    """One input to assembly with its stubs appended (see the module docstring)."""
    cmd = [clang, *cmd, "-S", "-o", str(asm_out), "-mllvm", f"-print-after={sites.DUMP_PASS}"]
    if dry:
        rc = call(cmd, scratch)
        asm_out.touch()  # what the next step's -### reads
        return rc
    cp = subprocess.run(shorten(cmd, scratch), stderr=subprocess.PIPE, text=True,
                        errors="replace")
    dump, other = sites.split_dump(cp.stderr)
    sys.stderr.write(other)
    if cp.returncode != 0:
        return cp.returncode
    if not asm_out.is_file():  # a front-end action that writes no code (-Xclang -ast-dump)
        return 0
    asm = asm_out.read_text(encoding="latin-1")  # bytes as they are (strings, debug info)
    referenced = sites.sites_in_asm(asm)
    # the line table as `clang -c` writes it (no assembler warning), then
    # -masm=intel -fno-integrated-as: sites printed verbatim
    att = stubs.att_sites(stubs.consistent_md5(asm))
    if referenced or att is not asm:
        live = {} if stubset == "full" or not referenced else sites.module_sites(dump)
        with asm_out.open("a" if att is asm else "w", encoding="latin-1") as f:
            if att is not asm:
                f.write(att)
            if referenced:
                f.write(stubs.binding_asm(live, referenced))
    return 0


def remove_result(path: str) -> None:
    """What clang's driver does with the output of a job that failed: it removes the file,
    if it is a regular file it may write (an object or .s left by an earlier build, which
    the stub variant left in place when its compile failed: a build that went on with
    `make -k`, or a check that only asks whether the object exists, took the stale one;
    found by an outside tester, h69a, 2026-12-06). Not /dev/null, not standard output."""
    try:
        if path != "-" and os.path.isfile(path) and os.access(path, os.W_OK):
            os.unlink(path)
    except OSError:
        pass


def os_error(what: str, e: OSError) -> int:
    """One line for a file ito-cc itself could not write (as clang reports its own), not a
    traceback; the status clang then exits with."""
    print(f"ito-cc: error: {what}: {e.strerror or e}", file=sys.stderr)
    return 1


def deliver(path: Path, dest: str) -> int:
    try:
        if dest == "-":
            sys.stdout.buffer.write(path.read_bytes())
            sys.stdout.buffer.flush()
        else:
            shutil.copyfile(path, dest)
    except OSError as e:
        return os_error(f"unable to open output file '{dest}'", e)
    return 0


def compdb_file(args: list[Arg]) -> str | None:
    """The -MJ file (clang's compilation database entries), if any."""
    path = None
    for a in args:
        if a.name.startswith("-MJ") and not a.is_input:
            path = a.name[3:] or (a.words[1] if len(a.words) > 1 else None)
    return path


def compdb_entry(clang: str, src: str, final: str, cmd: list[str]) -> str:
    """The -MJ entry of a compile that ito-cc ran in steps: its real output, and a command
    clang compiles the input with (without ito-cc's options), in clang's format."""
    entry = {"directory": os.getcwd(), "file": src, "output": final, "arguments": [clang, *cmd]}
    return json.dumps(entry) + ",\n"


class StubBuild:
    """One ito-cc call of the stub variant: each compiled input in its steps, then the
    link (see the module docstring)."""

    def __init__(self, clang: str, plug: list[str], args: list[Arg], stubset: str,
                 scratch: Scratch):
        self.clang, self.plug, self.args, self.stubset = clang, plug, args, stubset
        self.scratch, self.mode, self.out = scratch, mode(args), output(args)
        self.dry = "-###" in words(args)
        self.compiled = [k for k, a in enumerate(args) if a.kind in COMPILED]
        self.no_lto = lto_requested(args)
        # clang in one call would find every option used by some step: so do not warn here;
        # a call of one input that links nothing warns as clang does, link-only options too
        alone = self.mode != "link" and len(self.compiled) == 1
        self.common = compile_options(self.args, self.no_lto, alone) + (
            [] if alone else ["-Qunused-arguments"])
        if self.mode == "link" and last_value(args, "-dumpdir") is None:
            # what clang gives its compile jobs when it links: auxiliary outputs (.dwo) are
            # named <output>-<input stem>
            self.common += ["-dumpdir", (self.out if self.out is not None else "a") + "-"]
        self.compdb = None if self.dry else compdb_file(args)
        self.aux = aux_requested(self.common)

    def run(self, extra: list[str]) -> int:
        # headers make a PCH in every mode, named as clang names it (h.h.pch), and are not
        # linked: with -o, clang refuses them beside any other output, the link's included
        headers = {k for k in self.compiled if not self.args[k].linked()}
        if self.out is not None and len(self.compiled) > 1 and (self.mode != "link" or headers):
            raise Usage("cannot specify -o when generating multiple output files", 1)  # clang's status
        if self.no_lto:
            print("ito-cc: warning: --ito-variant=stub compiles without LTO (-flto ignored): "
                  "the yield sites are bound in machine code", file=sys.stderr)
        if self.compdb and self.add_entry("", "w"):  # as clang: this call's entries only
            return 1
        objs, failed = {}, 0
        for n, k in enumerate(self.compiled):
            a, sub = self.args[k], self.scratch.sub(str(n))
            if k in headers:
                failed = failed or self.plain(a, sub, None)
                continue
            if self.mode == "link":
                final = str(sub / f"{stem(a.name)}.o")
            else:
                final = self.out if self.out is not None else \
                    stem(a.name) + (".s" if self.mode == "S" else ".o")
            step = self.code if a.kind == "code" else self.plain
            rc = step(a, sub, final)
            if rc:
                # as clang: the other inputs are still compiled (their errors reported,
                # their objects written), the link is not made, the first status is kept
                failed = failed or rc
                if self.mode != "link" and not self.dry:
                    remove_result(final)
                continue
            if self.dry and self.mode == "link":
                Path(final).touch()  # what the link's -### reads
            objs[k] = final
        if failed or self.mode != "link":
            return failed
        return call([self.clang, *link_options(self.args, objs), "-Qunused-arguments", *extra],
                    self.scratch)

    def add_entry(self, text: str, how: str = "a") -> int:
        try:
            with open(self.compdb, how, encoding="utf-8") as f:
                f.write(text)
        except OSError as e:
            return os_error(f"compilation database '{self.compdb}' could not be opened", e)
        return 0

    def plain(self, a: Arg, sub: Path, final: str | None) -> int:
        """Assembly (without the plugin) or another compilable input (with it): one call.
        final None: a header, whose PCH clang names itself (h.h.pch, with -c, -S or none)."""
        lang = ["-x", a.lang] if a.lang else []
        mj = ["-MJ", str(sub / "cc.json")] if self.compdb else []
        if final is None:
            how = ["-S"] if self.mode == "S" else ["-c"] if self.mode == "c" else []
        else:
            how = ["-S" if self.mode == "S" else "-c", "-o", final,
                   *dependency_options(self.args, a.name, self.out)]
        rc = call([self.clang, *(self.plug if a.kind == "other" else []), *self.common, *mj,
                   *lang, a.name, *how], self.scratch)
        if mj and (sub / "cc.json").is_file():
            rc = self.add_entry((sub / "cc.json").read_text(encoding="utf-8")) or rc
        return rc

    def code(self, a: Arg, sub: Path, final: str) -> int:
        """C, C++, ObjC or IR: to assembly, stubs appended, assembled (or written, -S)."""
        src, lang = a.name, (["-x", a.lang] if a.lang else [])
        dwo = split_dwarf(self.args, self.mode, self.out, src, final)
        split = dwo is not None and dwo.endswith(".dwo")
        asm = sub / f"{stem(dwo if split else src)}.s"
        dwo_opts = [] if dwo is None else [
            "-Xclang", "-split-dwarf-file", "-Xclang", dwo,  # the name the skeleton records
            "-Xclang", "-split-dwarf-output", "-Xclang", str(sub / "cc1.dwo")]  # -S: empty
        deps = dependency_options(self.args, src, self.out)
        aux = aux_outputs(self.clang, [*self.common, *lang, src], final,
                          "-S" if self.mode == "S" else "-c", self.scratch) \
            if self.aux and not self.dry else []
        rc = compile_stub(self.clang, [*self.plug, *self.common, *deps, *dwo_opts, *aux, *lang,
                                       src],
                          asm, self.stubset, self.dry, self.scratch)
        if rc:
            return rc
        if not self.dry and not asm.is_file():
            return 0  # nothing to assemble or deliver, as clang then writes nothing
        if self.mode == "S":
            if not self.dry:
                rc = deliver(asm, final)
        else:
            as_split = []
            if split and DWO_SECTION.search(asm.read_text(encoding="latin-1")):
                # the assembler writes <dumpdir><stem of the .s>.dwo: dwo
                as_split = ["-gsplit-dwarf", "-dumpdir", os.path.join(os.path.dirname(dwo), "")
                            or "./"]
            rc = call([self.clang, *assembler_options(self.args), *as_split, "-c", str(asm),
                       "-o", final], self.scratch)
        if rc == 0 and self.compdb:
            rc = self.add_entry(compdb_entry(self.clang, src, final, [
                *self.common, *deps, *lang, src, "-S" if self.mode == "S" else "-c", "-o",
                final]))
        return rc


def run_stub_variant(clang: str, plug: list[str], args: list[Arg], stubset: str,
                     scratch: Scratch, extra: list[str]) -> int:
    m = mode(args)
    if m == "llvm":
        raise Usage("--ito-variant=stub needs object or assembly output, not -emit-llvm")
    if m == "nocode" or not any(a.kind == "code" for a in args):
        return call([clang, *plug, *words(args), *extra], scratch)
    if any(a.is_input and a.name != "-" and not os.path.exists(a.name) for a in args):
        # clang checks every input before it runs a job: one missing, it reports it and
        # compiles nothing (the steps below compiled the others and left their objects)
        return call([clang, *plug, *words(args), *extra], scratch)
    return StubBuild(clang, plug, args, stubset, scratch).run(extra)


def intel_for_outside_as(args: list[Arg]) -> bool:
    """Whether code is made (-c, -S or a link; no LTO) as assembly in Intel syntax for an
    outside assembler (-masm=intel -fno-integrated-as): then the inline asm the plugin
    writes in AT&T syntax reaches GNU as verbatim, and must be put in .att_syntax."""
    masm, ias = None, True
    for a in args:
        if a.is_input:
            continue
        if a.name.startswith("-masm="):
            masm = a.name[len("-masm="):]
        elif a.name in ("-fno-integrated-as", "-no-integrated-as"):
            ias = False
        elif a.name in ("-fintegrated-as", "-integrated-as"):
            ias = True
    return masm == "intel" and not ias and mode(args) in ("c", "S", "link") \
        and not lto_requested(args)


def fallback_options(clang: str, args: list[Arg], scratch: Scratch) -> list[str]:
    """The runtime fallback archive, for the link of an executable (see fallback.py). Not
    when no input is linked: headers alone (`-x c-header h.h -o h.pch`, `ito-cc h.h`) make
    a PCH and no link, and the archive would be one more input to it."""
    ws = words(args)
    if mode(args) != "link" or not any(a.linked() for a in args) or \
            not fallback.links_executable(ws):
        return []
    path = fallback.archive(clang, fallback.target_options(ws), scratch.dir)
    # an archive, whatever -x was in force. Not exported to the dynamic symbol table: a
    # library loaded later with its own libito would bind to the fallback's weak flag and
    # yields (the dynamic loader ignores weakness) and trap, and a -static-pie program
    # crashed at start-up on the exported TLS symbols (a first fix for hosts that dlopen
    # libraries built by ito-cc did that; found by its reviewer, 2026-12-04)
    return ["-x", "none", path] if path else []


PIC_WORDS = {"-fPIC": True, "-fpic": True, "-fno-PIC": False, "-fno-pic": False,
             "-fPIE": False, "-fpie": False, "-fno-PIE": False, "-fno-pie": False}


def tls_for_shared(ito: list[str], rest: list[str]) -> list[str]:
    """--ito-tls=local-exec is for executables; code for a shared library (-fPIC or -fpic
    last among the PIC options, or -shared) gets initial-exec instead: a local-exec access
    cannot be linked into a shared object (R_X86_64_TPOFF32), and libtool and CMake build a
    library's objects with -fPIC (found by a tester linking libpng with the recommended
    options, 2026-12-04). A PIE (-fPIE) keeps local-exec."""
    le = plugin_option("-ito-yield-tls=local-exec")
    if le[-1] not in ito:
        return ito
    pic = [PIC_WORDS[a] for a in rest if a in PIC_WORDS]
    shared = {"-shared", "--shared"} & set(rest) or \
        {"-shared", "--shared", "-Bshareable"} & set(fallback.linker_words(rest))  # also -Wl,-shared
    if not (shared or (pic and pic[-1])):
        return ito
    return [plugin_option("-ito-yield-tls=initial-exec")[-1] if w == le[-1] else w for w in ito]


ITO_HELP = (__doc__.split("\n\n")[1] + "\n\nThe options are described in compiler/README.md "
            "(\"ito-cc\"); every other argument is clang's.")


def foreign_target(args: list[Arg]) -> str | None:
    """Why the compile target is not x86-64 ELF, or None. The yield points are x86-64 code
    (the sites' AT&T asm, the stubs, the runtime's preserve_none switch): the stub variant
    failed in the assembler with one error per site ("register %rsp is only available in
    64-bit mode" under -m32, "unrecognized instruction mnemonic" for aarch64, ".type ...
    expected absolute expression" for Windows), and the other variants made objects for a
    machine no ito runtime exists for (found by outside tester h63d, 2026-12-06)."""
    triple, mode = None, None
    for a in args:
        if a.is_input:
            continue
        t = a.value("-target", "--target")
        if t is not None and (a.name in ("-target", "--target") or a.name.startswith("--target=")):
            triple = t
        elif a.name in ("-m32", "-mx32", "-m16"):
            mode = a.name
        elif a.name == "-m64":
            mode = None
    if mode:
        return f"the yield points are x86-64 code: {mode} is not supported (use --ito-off)"
    if triple is not None:
        arch, _, rest = triple.partition("-")
        if arch not in ("x86_64", "amd64") or any(
                os_ in rest for os_ in ("windows", "win32", "mingw", "cygwin", "darwin",
                                        "macos", "apple", "uefi", "gnux32")):
            return (f"the yield points are x86-64 ELF code: --target={triple} is not "
                    "supported (use --ito-off)")
    return None


class Terminated(BaseException):
    """A signal that ends ito-cc (SIGTERM, SIGHUP, SIGINT) while it runs its steps."""

    def __init__(self, sig: int):
        super().__init__(sig)
        self.sig = sig


def _terminated(sig, _frame):
    raise Terminated(sig)


TERM_SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)


def main(argv: list[str], clang: str, plugins: list[str]) -> int:
    scratch = Scratch()
    # A build that is stopped (make or ninja interrupted, a CI timeout) signals ito-cc: by
    # default Python died at once and left its temporary directory in $TMPDIR and the clang
    # step it was waiting for running to its end (SIGTERM), or printed a traceback (SIGINT).
    # As an exception, the signal stops the step (subprocess kills a child it waits for when
    # an exception interrupts the wait), the directory is removed, and ito-cc then ends by
    # the same signal, as clang does (found by an outside tester, h69a, 2026-12-06).
    # exec'd commands (execute) get the default dispositions back.
    for sig in TERM_SIGNALS:
        if signal.getsignal(sig) not in (signal.SIG_IGN, None):
            signal.signal(sig, _terminated)
    try:
        argv = expand_response_files(argv)
        if "--ito-help" in (argv[:argv.index("--")] if "--" in argv else argv):
            print(ITO_HELP)
            return 0
        ito, variant, off, rest, stubset, fb = split_args(argv)
        args = parse(rest)
        if any(a.missing_value() for a in args):
            # clang refuses the line ("argument to '-o' is missing"), and so must ito-cc: its
            # own steps put words after the user's, and an option at the end took the first
            # of them for its value (`-c f.c -MD -MF` wrote a dependency file named "-MQ"
            # and exited 0 with the stub variant; found by an outside tester, h69a)
            return execute([clang, *rest], scratch)
        if any(a.name == "--help" and not a.is_input for a in args):
            # an option, not the value of one (`-mllvm --help`, `-o --help`) nor an input
            # after `--`: those compiled without the plugin (h69a)
            sys.stdout.flush()
            rc = subprocess.call([clang, *rest])  # not exec'd: the line below comes after
            print("\nito-cc: ito's own options (--ito-*): ito-cc --ito-help")
            return rc
        ito = tls_for_shared(ito, rest)
        compiles = any(a.kind in ("code", "other") for a in args)
        if compiles and not any(a.startswith("-fno-stack-clash-protection") for a in rest):
            # a frame larger than the guard below a ULT's stack still hits the guard
            args = parse(["-fstack-clash-protection", *rest])
        extra = fallback_options(clang, args, scratch) if fb and not off else []
        if off or not compiles:
            return execute([clang, *words(args), *extra], scratch)
        why = foreign_target(args)
        if why:
            raise Usage(why)
        plugin = find_plugin(plugins)
        if not plugin:
            print("ito-cc: the plugin ItoYield.so is not found (set ITO_YIELD_PLUGIN)",
                  file=sys.stderr)
            return 2
        # -Xclang -load loads the plugin before clang parses -mllvm, so that its
        # -ito-yield-* options exist by then; -fpass-plugin (the same file) adds the pass.
        plug = ["-Xclang", "-load", "-Xclang", plugin, f"-fpass-plugin={plugin}", *ito]
        probe = BOOL_OPTS["--ito-probe"] in ito
        if (variant == "stub" and not probe) or (probe and intel_for_outside_as(args)):
            # the probes' AT&T text needs the same rewrite as the stub sites (att_sites)
            return run_stub_variant(clang, plug, args, stubset, scratch, extra)
        if lto_requested(args):
            # The link-time optimiser merges the thread-specific addresses the pass takes
            # anew after each call (ThreadAddr.h): with -flto a ULT that moved used the old
            # worker's errno and thread_locals (found by an outside tester, 2026-12-05;
            # before, only the stub variant dropped -flto). This call compiles: its objects
            # are made without LTO, as the stub variant's are.
            print(f"ito-cc: warning: --ito-variant={variant} compiles without LTO (-flto ignored): "
                  "link-time optimisation would merge the thread-specific addresses taken anew "
                  "after calls", file=sys.stderr)
            args = [a for a in args if a.is_input or not a.name.startswith(LTO_OPTS)]
        return execute([clang, *plug, *words(args), *extra], scratch)
    except Usage as e:
        print(f"ito-cc: {e}", file=sys.stderr)
        return e.status
    except Terminated as t:
        scratch.close()
        signal.signal(t.sig, signal.SIG_DFL)
        os.kill(os.getpid(), t.sig)
        return 128 + t.sig
    finally:
        scratch.close()
