"""ito-cc on real files with clang-19 and the plugin: what a build system sees of it.

Mostly the stub variant (`STUB`, the recommended build of outside code), which compiles
each input in steps (to assembly, stubs appended, assembled, linked): each test checks
that a command behaves as the same clang command does.
"""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import (CLANG, LAUNCH, PKG_DIR, PLUGIN, STUB, ItoCC, needs_clang, run,
                      symbols, tool)
from conftest import write as write_files

sys.path.insert(0, str(PKG_DIR))
from itocc import fallback, sites, stubs  # noqa: E402

pytestmark = needs_clang

MAIN = '#include <stdio.h>\nint f(int); int g(void);\n' \
       'int main(void){ printf("%d %d\\n", f(10), g()); return 0; }\n'
F = "int f(int n){ int s=0; for(int i=0;i<n;i++) s+=i; return s; }\n"
G_S = "\t.text\n\t.globl g\ng:\tmovl $7, %eax\n\tret\n" \
      '\t.section .note.GNU-stack,"",@progbits\n'
# a stand-in runtime, so that the tests of everything but linking without one (12) link
# with one, as the old driver needed
RT_C = "__thread volatile int ito_coop_flag;\nvoid ito_coop_yield(void) {}\n" \
       "void ito_coop_yield_abi(void) {}\nvoid ito_coop_yield_full(void) {}\n"
RT = "rt.o"
PROGRAM = {"main.c": MAIN, "f.c": F, "g.S": G_S, "rt.c": RT_C}
CXX = "template <class T> T twice(T x) { return 2 * x; }\n" \
      "int h(int n) { int s = 0; for (int i = 0; i < n; i++) s += twice(i); return s; }\n"


def write(d: Path, files: dict[str, str]):
    """The files, and rt.o when rt.c is one (compiled by clang, without the plugin)."""
    write_files(d, files)
    if "rt.c" in files:
        subprocess.run([CLANG, "-c", "rt.c", "-o", RT], cwd=d, check=True)


def instrumented(obj: Path) -> bool:
    """The object has the stub variant's per-live-set stubs (a yield site was bound)."""
    return "__ito_ys_" in symbols(obj)


# ---- 1. dependency files ----

DEP_CASES = [
    ["-c", "a.c", "-o", "a.o", "-MD", "-MF", "dep.d"],
    ["-c", "a.c", "-o", "sub/a.o", "-MMD", "-MP"],
    ["-c", "a.c", "-MD"],
    ["-c", "a.c", "-o", "w.o", "-Wp,-MMD,w.d"],
    ["-c", "a.c", "-o", "a.o", "-MD", "-MT", "custom"],
    ["-S", "a.c", "-o", "sub/a.s", "-MMD"],
    ["a.c", "m.c", RT, "-MMD", "-o", "prog"],
]


@pytest.mark.parametrize("args", DEP_CASES, ids=" ".join)
def test_dependency_files_as_clang_writes_them(itocc, tmp_path, args):
    files = {"rt.c": RT_C,
             "a.c": '#include "a.h"\n'
                    'int f(void){ int s=0; for(int i=0;i<A;i++) s+=i; return s; }\n',
             "a.h": "#define A 3\n", "m.c": "int f(void);\nint main(void){ return f() != 3; }\n"}
    ref = tmp_path / "ref"
    for d in (tmp_path, ref):
        write(d, files)
        (d / "sub").mkdir()
    subprocess.run([CLANG, *args], cwd=ref, check=True)
    itocc.ok(*STUB, *args)
    want = {p.relative_to(ref): p.read_text() for p in ref.rglob("*.d")}
    got = {p.relative_to(tmp_path): p.read_text() for p in tmp_path.rglob("*.d")
           if ref not in p.parents}
    assert want and got == want


@pytest.mark.skipif(not shutil.which("make"), reason="no make")
def test_make_rebuilds_after_a_header_changes(itocc, tmp_path):
    launcher = tmp_path / "ito-cc"
    launcher.write_text(f"#!{sys.executable}\n" + LAUNCH.replace(
        "sys.argv[1]", repr(str(PKG_DIR))).replace("sys.argv[2]", repr(CLANG)).replace(
        "sys.argv[3:]", "sys.argv[1:]"))
    launcher.chmod(0o755)
    write(tmp_path, {
        "rt.c": RT_C, "v.h": "#define V 1\n", "v.c": '#include "v.h"\nint v(void){ return V; }\n',
        "main.c": '#include <stdio.h>\nint v(void);\nint main(void){ printf("%d\\n", v()); }\n',
        "Makefile": f"CC = {launcher} {' '.join(STUB)}\n"
                    f"prog: main.o v.o\n\t$(CC) main.o v.o {RT} -o prog\n"
                    "%.o: %.c\n\t$(CC) -MMD -MP -c $< -o $@\n"
                    "-include main.d v.d\n"})
    env = {**os.environ, "ITO_YIELD_PLUGIN": PLUGIN, "XDG_CACHE_HOME": str(itocc.cache)}
    subprocess.run(["make", "-s"], cwd=tmp_path, check=True, env=env)
    assert run(tmp_path / "prog") == "1\n"
    (tmp_path / "v.h").write_text("#define V 2\n")
    later = (tmp_path / "v.o").stat().st_mtime + 5
    os.utime(tmp_path / "v.h", (later, later))
    subprocess.run(["make", "-s"], cwd=tmp_path, check=True, env=env)
    assert run(tmp_path / "prog") == "2\n"


# ---- 2. link-only options ----

LINK_FLAGS = ["-L/usr/lib", "-L", "/usr/lib", "-Wl,-O1", "-lm", "-l", "m", "-s", "-rdynamic",
              "-Xlinker", "-O1", "-z", "now", "--ld-path=/usr/bin/ld", "-fuse-ld=bfd",
              "-static-libgcc", "-u", "f"]


def test_link_options_stay_out_of_the_compile_steps(itocc, tmp_path):
    write(tmp_path, PROGRAM)
    itocc.ok(*STUB, "-Werror", "main.c", "f.c", "g.S", *LINK_FLAGS, "-pie", RT, "-o", "p")
    assert run(tmp_path / "p") == "45 7\n"
    itocc.ok(*STUB, "-Werror", "main.c", "f.c", "g.S", "-no-pie", "-static", RT, "-o",
             "ps")
    assert run(tmp_path / "ps") == "45 7\n"
    # (local-exec TLS is for executables)
    itocc.ok("--ito-variant=stub", "-Werror", "-fPIC", "-shared", "-nostdlib", "f.c", "-o",
             "libf.so")
    assert b"\x03\x00" == (tmp_path / "libf.so").read_bytes()[16:18]  # ET_DYN
    itocc.ok(*STUB, "-Werror", "-r", "f.c", "g.S", "-o", "fg.o")
    assert instrumented(tmp_path / "fg.o") and " T g" in symbols(tmp_path / "fg.o")
    itocc.ok(*STUB, "-c", "f.c", *LINK_FLAGS, "-o", "f.o")
    assert instrumented(tmp_path / "f.o")
    # a call that links nothing reports them unused, as clang does (section 14, bugB3)
    ref = subprocess.run([CLANG, "-Werror", "-c", "f.c", *LINK_FLAGS, "-o", "r.o"],
                         cwd=tmp_path, capture_output=True)
    cp = itocc(*STUB, "-Werror", "-c", "f.c", *LINK_FLAGS, "-o", "f.o")
    assert ref.returncode != 0 and cp.returncode == ref.returncode, cp.err


# ---- 3. options with a separate value ----

def test_options_with_separate_values(itocc, tmp_path):
    write(tmp_path, {
        "inc/x.h": "#define FROM_I 1\n", "qd/q.h": "#define FROM_IQUOTE 2\n",
        "sys/s.h": "#define FROM_ISYSTEM 4\n", "after/a.h": "#define FROM_IDIRAFTER 8\n",
        "pre.h": "#define FROM_INCLUDE 16\n", "mac.h": "#define FROM_IMACROS 32\n",
        "v.c": '#include <x.h>\n#include "q.h"\n#include <s.h>\n#include <a.h>\n'
               "#ifdef GONE\n#error -U\n#endif\n"
               "int v(int n){ int s = FROM_I + FROM_IQUOTE + FROM_ISYSTEM + FROM_IDIRAFTER"
               " + FROM_INCLUDE + FROM_IMACROS + D_VALUE; for (int i = 0; i < n; i++) s += i;"
               " return s; }\n",
        "main.c": '#include <stdio.h>\nint v(int);\nint main(void){ printf("%d\\n", v(0)); }\n',
        "rt.c": RT_C})
    itocc.ok(*STUB, "-Werror", "-c", "v.c", "--sysroot", "/", "-B", "/usr/bin", "-MJ", "cc.json",
             "-isystem", "sys", "-iquote", "qd", "-idirafter", "after", "-include", "pre.h",
             "-imacros", "mac.h", "-Xclang", "-fno-builtin", "-target", "x86_64-linux-gnu",
             "-I", "inc", "-D", "D_VALUE=64", "-D", "GONE", "-U", "GONE", "-MD", "-MT", "t",
             "-MQ", "q", "-MF", "v.d", "-Xpreprocessor", "-DXP", "-Xassembler",
             "--noexecstack", "--param", "ssp-buffer-size=4", "-o", "v.o")
    assert instrumented(tmp_path / "v.o")
    assert (tmp_path / "v.d").read_text().startswith("t q:")
    assert '"output": "v.o"' in (tmp_path / "cc.json").read_text()  # not the temporary .s
    itocc.ok(*STUB, "main.c", "v.o", RT, "-ovx")
    assert run(tmp_path / "vx") == "127\n"


# ---- 4. inputs by language ----

def test_inputs_by_language(itocc, tmp_path):
    write(tmp_path, {**PROGRAM, "f.inc": F, "g2.s": G_S.replace("g\n", "g2\n").replace(
        "g:", "g2:")})
    itocc.ok(*STUB, "-c", "-x", "c", "f.inc", "-o", "finc.o")
    itocc.ok(*STUB, "-c", "-xc", "f.inc", "-o", "finc2.o")
    assert instrumented(tmp_path / "finc.o") and instrumented(tmp_path / "finc2.o")
    for ext in ("c++", "cp", "CPP", "cxx", "C", "cc"):
        write(tmp_path, {f"h.{ext}": CXX})
        itocc.ok(*STUB, "-c", f"h.{ext}", "-o", f"h_{ext}.o")
        assert instrumented(tmp_path / f"h_{ext}.o")
    itocc.ok(*STUB, "-c", "main.c", "f.c", "g.S", "g2.s")  # one object per input
    assert instrumented(tmp_path / "f.o") and (tmp_path / "main.o").is_file()
    assert " T g\n" in symbols(tmp_path / "g.o") and " T g2\n" in symbols(tmp_path / "g2.o")


# ---- 5. -x at link time ----

def test_x_c_is_not_applied_to_the_objects(itocc, tmp_path):
    write(tmp_path, PROGRAM)
    itocc.ok(*STUB, "-x", "c", "main.c", "f.c", "-x", "none", "g.S", RT, "-o", "p")
    assert run(tmp_path / "p") == "45 7\n"
    itocc.ok(*STUB, "-xc", "main.c", "-x", "c", "f.c", "-xassembler-with-cpp", "g.S", "-x",
             "none", RT, "-o", "p2")
    assert run(tmp_path / "p2") == "45 7\n"


# ---- 6. -Xassembler ----

def test_xassembler_reaches_the_assembler(itocc, tmp_path):
    write(tmp_path, {"gx.c": "extern int gv;\nint f(int n){ int s=gv; for(int i=0;i<n;i++) "
                             "s+=i; return s; }\n"})

    def relocs(*extra):
        itocc.ok(*STUB, "-fPIC", "-c", "gx.c", "-o", "gx.o", *extra)
        return subprocess.run([tool("llvm-readobj"), "-r", "gx.o"], cwd=tmp_path,
                              capture_output=True, text=True, check=True).stdout

    assert "R_X86_64_REX_GOTPCRELX" in relocs()
    r = relocs("-Xassembler", "-mrelax-relocations=no")
    assert "R_X86_64_GOTPCREL " in r and "GOTPCRELX" not in r


@pytest.mark.skipif(not shutil.which("as"), reason="no GNU as (for -fno-integrated-as)")
def test_sites_assemble_in_either_syntax(itocc, tmp_path):
    # bug4, found 2026-12-03: with -masm=intel -fno-integrated-as the sites' AT&T text was
    # printed verbatim into Intel-syntax assembly, which GNU as rejected ("junk `(%rsp)'
    # after expression"); the integrated assembler and -masm=att must keep working
    write(tmp_path, {**PROGRAM, "g.c": "int g(void) { return 7; }\n"})  # g.S is AT&T
    for syntax in ("intel", "att"):
        for asm_with in ("-fno-integrated-as", "-fintegrated-as"):
            for check in ("flag", "budget"):
                opts = [f"-masm={syntax}", asm_with, f"--ito-check={check}"]
                itocc.ok(*STUB, *opts, "-O2", "main.c", "f.c", "g.c", "-o", "p")
                assert run(tmp_path / "p") == "45 7\n", opts
                itocc.ok(*STUB, *opts, "-S", "f.c", "-o", "f.s")  # the .s as GNU as takes it
                itocc.ok(asm_with, "-c", "f.s", "-o", "f.o")
                assert instrumented(tmp_path / "f.o"), opts


# ---- 7. -flto ----

def test_flto_compiles_without_lto_and_says_so(itocc, tmp_path):
    write(tmp_path, PROGRAM)
    cp = itocc.ok(*STUB, "-flto", "-c", "f.c", "-o", "f.o")
    assert (tmp_path / "f.o").read_bytes()[:4] == b"\x7fELF" and instrumented(tmp_path / "f.o")
    assert "ito-cc: warning:" in cp.err and "LTO" in cp.err
    itocc.ok(*STUB, "-flto=thin", "-O2", "main.c", "f.c", "g.S", RT, "-o", "p")
    assert run(tmp_path / "p") == "45 7\n"


@pytest.mark.parametrize("variant", ["min", "abi", "full"])
def test_flto_other_variants_compile_without_lto(itocc, tmp_path, variant):
    # Found by an outside tester (2026-12-05): with -flto the link-time optimiser merged
    # the thread-specific addresses the pass takes anew after calls, silently; only the
    # stub variant dropped -flto. A link of objects alone keeps it (other LTO objects).
    write(tmp_path, PROGRAM)
    cp = itocc.ok(f"--ito-variant={variant}", "-flto", "-O2", "-c", "f.c", "-o", "f.o")
    assert (tmp_path / "f.o").read_bytes()[:4] == b"\x7fELF"  # an object, not bitcode
    assert "ito-cc: warning:" in cp.err and "LTO" in cp.err
    itocc.ok(f"--ito-variant={variant}", "-flto=thin", "-O2", "main.c", "f.c", "g.S", RT, "-o", "p")
    assert run(tmp_path / "p") == "45 7\n"


# ---- 8. response files ----

def test_response_files(itocc, tmp_path):
    write(tmp_path, {**PROGRAM, "args.rsp": "--ito-variant=stub --ito-policy=loops -O2\n"
                                            "'f.c' -c -o \"f 8.o\" @more.rsp\n",
                     "more.rsp": "-DUNUSED=1 --ito-tls=local-exec",
                     "srcs.rsp": "-c f.c -o f9.o"})
    itocc.ok("@args.rsp")
    assert instrumented(tmp_path / "f 8.o")
    cp = itocc.ok("--ito-report", "@srcs.rsp")  # a source in a response file gets the plugin
    assert "ito-yield: f:" in cp.err


def test_long_command_lines_go_through_a_response_file(itocc, tmp_path):
    defs = "\n".join(f"-DMACRO_{i:05d}_{'X' * 80}=1" for i in range(30000))  # 3 MB
    write(tmp_path, {**PROGRAM, "big.rsp": defs})
    itocc.ok(*STUB, "@big.rsp", "-c", "f.c", "-o", "f.o")
    assert instrumented(tmp_path / "f.o")
    itocc.ok("@big.rsp", "-c", "f.c", "-o", "f2.o")
    itocc.ok(*STUB, "@big.rsp", "main.c", "f.c", "g.S", RT, "-o", "p")
    assert run(tmp_path / "p") == "45 7\n"


# ---- 9. compile and link in one call ----

def test_compile_and_link_without_c_gets_the_plugin(itocc, tmp_path):
    write(tmp_path, {"hello.inc": '#include <stdio.h>\nint main(void){ int s=0; '
                                  'for(int i=0;i<10;i++) s+=i; printf("hello %d\\n", s); }\n',
                     "h.c++": CXX + "int main() { return h(3) != 6; }\n", "rt.c": RT_C})
    cp = itocc.ok("--ito-report", RT, "-xc", "hello.inc", "-o", "hi")
    assert "ito-yield: main:" in cp.err and run(tmp_path / "hi") == "hello 45\n"
    if Path(CLANG + "++").is_file():
        cp = itocc.ok("--ito-report", "h.c++", RT, "-o", "hx", cxx=True)
        assert "ito-yield: _Z1hi:" in cp.err
        run(tmp_path / "hx")


def test_plugin_options_stay_out_of_the_assembler(itocc, tmp_path):
    # as -mllvm, the plugin's options reached the assembler job (cc1as) of an assembly
    # input and of -save-temps, which has no plugin loaded and rejected them (bug8)
    write(tmp_path, PROGRAM)
    itocc.ok("--ito-variant=abi", "--ito-policy=loops", "-O2", "-save-temps", "-c", "f.c")
    assert "U ito_coop_yield_abi\n" in symbols(tmp_path / "f.o")
    assert (tmp_path / "f.s").is_file()
    itocc.ok("--ito-policy=loops", "--ito-report", "-O2", "main.c", "f.c", "g.S", RT, "-o", "p")
    assert run(tmp_path / "p") == "45 7\n"


# ---- 10. dry runs and standard output ----

def test_dry_run_prints_every_step_and_makes_nothing(itocc, tmp_path):
    write(tmp_path, PROGRAM)
    cp = itocc.ok(*STUB, "-###", "-c", "f.c", "-o", "f.o")
    assert '"-cc1"' in cp.err and '"-cc1as"' in cp.err and "Traceback" not in cp.err
    cp = itocc.ok(*STUB, "-###", "main.c", "f.c", "g.S", RT, "-o", "p")
    assert cp.err.count('"-cc1as"') == 3 and '"-o" "p"' in cp.err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.c", "g.S", "main.c", "rt.c", RT]


def test_output_to_standard_output(itocc, tmp_path):
    write(tmp_path, PROGRAM)
    assert b"__ito_ys_" in itocc.ok(*STUB, "-S", "f.c", "-o", "-").stdout
    assert itocc.ok(*STUB, "-c", "f.c", "-o", "-").stdout[:4] == b"\x7fELF"
    assert not (tmp_path / "-").exists()


def test_front_end_actions_that_write_no_code(itocc, tmp_path):
    # -Xclang -ast-dump: clang prints the tree and writes no assembly; the stub variant
    # ended in a traceback looking for the .s (found by an outside-code test, 2026-12-03)
    write(tmp_path, PROGRAM)
    cp = itocc(*STUB, "-c", "f.c", "-Xclang", "-ast-dump")
    assert cp.returncode == 0, cp.err
    assert b"FunctionDecl" in cp.stdout
    assert "Traceback" not in cp.err


def test_refusals_exit_as_clang_does(itocc, tmp_path):
    write(tmp_path, PROGRAM)
    ref = subprocess.run([CLANG, "-c", "f.c", "main.c", "-o", "both.o"], cwd=tmp_path,
                         capture_output=True)
    cp = itocc(*STUB, "-c", "f.c", "main.c", "-o", "both.o")
    assert ref.returncode != 0 and cp.returncode == ref.returncode, cp.err


UNWRITABLE = [["-S", "f.c", "-o", "missing/f.s"], ["-S", "f.c", "-o", "dir"],
              ["-c", "f.c", "-MJ", "missing/cc.json"]]


@pytest.mark.parametrize("args", UNWRITABLE, ids=" ".join)
def test_an_unwritable_output_is_one_error(itocc, tmp_path, args):
    # ito-cc's own writes (the -S output, the -MJ file) ended in a traceback (bug1)
    write(tmp_path, PROGRAM)
    (tmp_path / "dir").mkdir()
    ref = subprocess.run([CLANG, *args], cwd=tmp_path, capture_output=True)
    cp = itocc(*STUB, *args)
    assert ref.returncode == 1 and cp.returncode == 1, cp.err
    assert "Traceback" not in cp.err
    assert cp.err.startswith("ito-cc: error: ") and cp.err.count("\n") == 1, cp.err


def test_a_failing_input_does_not_stop_the_others(itocc, tmp_path):
    # clang compiles every input and reports each error; the stub variant stopped at the
    # first failing one (bug4). With a link: no link, as clang.
    files = {"a.c": F, "b.c": "int b(void) { return x; }\n", "c.c": F.replace("f(", "c(")}
    ref = tmp_path / "ref"
    for d in (tmp_path, ref):
        write(d, files)
    for args in (["-c", "a.c", "b.c", "c.c"], ["a.c", "b.c", "c.c", "-o", "p"]):
        want = subprocess.run([CLANG, *args], cwd=ref, capture_output=True)
        cp = itocc(*STUB, *args)
        assert want.returncode == 1 and cp.returncode == 1
        assert cp.err.count("error:") == want.stderr.decode().count("error:"), cp.err
        objs = sorted(p.name for p in ref.iterdir() if p.suffix in (".o", "") and p.is_file())
        assert sorted(p.name for p in tmp_path.iterdir()
                      if p.suffix in (".o", "") and p.is_file()) == objs


def test_a_missing_input_compiles_nothing(itocc, tmp_path):
    # clang checks every input before it runs a job: with one missing, it writes no object
    # and reports the missing file alone. The stub variant compiled the other inputs one by
    # one and left their objects behind (a.o beside `no such file or directory: 'nope.c'`),
    # with an extra "no input files" error (found by an outside tester, h68h, 2026-12-06).
    files = {"a.c": F, "c.c": F.replace("f(", "c(")}
    ref = tmp_path / "ref"
    for d in (tmp_path, ref):
        write(d, files)
    for args in (["-c", "nope.c", "a.c"], ["-c", "a.c", "c.c", "gone.o"],
                 ["-S", "a.c", "nope.c"], ["a.c", "nope.c", "-o", "p"]):
        want = subprocess.run([CLANG, *args], cwd=ref, capture_output=True)
        cp = itocc(*STUB, *args)
        assert want.returncode == 1 and cp.returncode == 1, cp.err
        assert cp.err.count("error:") == want.stderr.decode().count("error:"), cp.err
        made = sorted(p.name for p in tmp_path.iterdir()
                      if p.suffix in (".o", ".s", "") and p.is_file())
        assert made == sorted(p.name for p in ref.iterdir()
                              if p.suffix in (".o", ".s", "") and p.is_file()), made


STALE = [["-c", "b.c", "-o", "b.o"], ["-S", "b.c", "-o", "b.s"], ["-c", "a.c", "b.c"],
         ["-S", "b.c"], ["-c", "b.c", "-o", "/dev/null"]]


@pytest.mark.parametrize("args", STALE, ids=" ".join)
def test_a_failed_compile_removes_its_stale_output(itocc, tmp_path, args):
    # clang removes the output of a job that failed (an object of an earlier build
    # included); the stub variant left it, so the stale object looked like this build's
    # (found by an outside tester, h69a, 2026-12-06)
    files = {"a.c": F, "b.c": "int b(void) { return x; }\n", "b.o": "stale", "b.s": "stale"}
    ref = tmp_path / "ref"
    for d in (tmp_path, ref):
        write(d, files)
    want = subprocess.run([CLANG, *args], cwd=ref, capture_output=True)
    cp = itocc(*STUB, *args)
    assert want.returncode == 1 and cp.returncode == 1, cp.err
    names = sorted(p.name for p in ref.iterdir())
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "ref") == names, names
    assert Path("/dev/null").exists()


@pytest.mark.parametrize("sig", ["SIGTERM", "SIGHUP"])
def test_a_signal_stops_the_steps_and_removes_the_temporary_directory(itocc, tmp_path, sig):
    # A stopped build signals ito-cc: Python died at once, its temporary directory stayed in
    # $TMPDIR and the clang step it waited for ran on to its end (found by an outside
    # tester, h69a, 2026-12-06). Now the step is stopped, the directory removed, and ito-cc
    # ends by the same signal, as clang does.
    import signal as sg
    import time
    src = tmp_path / "slow_h69a.c"
    src.write_text("".join(f"int f{i}(int n){{ int s=0; for(int k=0;k<n;k++) s+=k*{i}^s; "
                           f"return s; }}\n" for i in range(3000)))
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {**os.environ, "ITO_YIELD_PLUGIN": PLUGIN, "XDG_CACHE_HOME": str(itocc.cache),
           "TMPDIR": str(tmp)}
    p = subprocess.Popen([sys.executable, "-c", LAUNCH, str(PKG_DIR), CLANG, *STUB, "-O2",
                          "-c", str(src), "-o", "slow.o"], cwd=tmp_path, env=env,
                         stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while not list(tmp.glob("ito-cc-*/0")) and p.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert p.poll() is None, p.stderr.read()  # still compiling
    p.send_signal(getattr(sg, sig))
    p.wait(timeout=60)
    assert p.returncode == -getattr(sg, sig), p.stderr.read()
    assert list(tmp.iterdir()) == []
    assert not (tmp_path / "slow.o").exists()
    time.sleep(0.5)
    for proc in Path("/proc").iterdir():
        try:
            assert str(src).encode() not in (proc / "cmdline").read_bytes(), proc
        except (OSError, ValueError):
            pass


MISSING_VALUE = [["-c", "f.c", "-MD", "-MF"], ["-c", "f.c", "-MD", "-MT"], ["-c", "f.c", "-o"],
                 ["-c", "f.c", "-Xclang"], ["f.c", "main.c", "-o"],
                 ["f.c", "main.c", "-o", "p", "-L"]]


@pytest.mark.parametrize("variant", [STUB, ["--ito-variant=min"]], ids=["stub", "min"])
@pytest.mark.parametrize("args", MISSING_VALUE, ids=" ".join)
def test_an_option_missing_its_value_is_clangs_error(itocc, tmp_path, args, variant):
    # clang refuses a line that ends in an option without its value. ito-cc's steps put
    # their own words after the user's, and the option took the first for its value: with
    # the stub variant `-c f.c -MD -MF` beside an f.o of an earlier build wrote a dependency
    # file named "-MQ" and exited 0; with a missing f.o, and for `-o`, `-Xclang`, `-MT`, it
    # failed on a file the user never named (found by an outside tester, h69a, 2026-12-06)
    write(tmp_path, {**PROGRAM, "f.o": "", "f.d": "", "main.o": ""})
    ref = subprocess.run([CLANG, *args], cwd=tmp_path, capture_output=True, text=True)
    before = sorted(p.name for p in tmp_path.iterdir())
    cp = itocc(*variant, *args)
    assert ref.returncode == 1 and cp.returncode == 1, cp.err
    assert "is missing (expected 1 value)" in cp.err, cp.err
    assert sorted(p.name for p in tmp_path.iterdir()) == before


# ---- 11. standard error, split DWARF ----

def test_nothing_on_stderr_when_all_is_well(itocc, tmp_path):
    write(tmp_path, {**PROGRAM, "two.c": F + "int f2(int n){ return f(n) + 1; }\n"})
    assert itocc.ok(*STUB, "-c", "two.c", "-o", "two.o").stderr == b""
    assert itocc.ok(*STUB, "main.c", "f.c", "g.S", RT, "-o", "p").stderr == b""


# found by an outside tester, h65e, 2026-12-06: each C++ unit with -g that includes
# <cstdlib> printed "warning: inconsistent use of MD5 checksums" (one per .file directive
# clang 19 writes without a checksum: std_abs.h, cstdlib, an EH table's <stdin>) when
# ito-cc assembled its .s; `clang -c` of the same source prints nothing
CXX_G = "#include <cstdlib>\n#include <string>\n" \
        "int k(const char *s) { return std::abs((int)std::strtol(s, nullptr, 10)); }\n" \
        "std::string w(int n) { try { return std::to_string(k(\"-4\") + n); }\n" \
        "  catch (...) { return {}; } }\n"


@pytest.mark.parametrize("dbg", ["-g", "-gdwarf-5", "-g1"])
def test_debug_info_of_cxx_assembles_without_warnings(itocc, tmp_path, dbg):
    write(tmp_path, {"k.cpp": CXX_G})
    plain = subprocess.run([CLANG, "-O2", dbg, "-c", "k.cpp", "-o", "plain.o"], cwd=tmp_path,
                           capture_output=True, check=True)
    assert plain.stderr == b""
    assert itocc.ok(*STUB, "-O2", dbg, "-c", "k.cpp", "-o", "k.o").stderr == b""
    # the same line table as clang -c writes (no checksums where not every file has one)
    dump = tool("llvm-dwarfdump")
    lines = [subprocess.run([dump, "--debug-line", o], cwd=tmp_path, capture_output=True,
                            text=True, check=True).stdout.count("MD5")
             for o in ("plain.o", "k.o")]
    assert lines[0] == lines[1]


def test_consistent_md5_only_when_mixed():
    both = '\t.file\t0 "/d" "a.c" md5 0xab\n\t.file\t1 "/d" "b.h" md5 0xcd\n'
    assert stubs.consistent_md5(both) is both
    none = '\t.file\t"a.c"\n\t.file\t1 "/d" "b.h"\n'
    assert stubs.consistent_md5(none) is none
    mixed = both + '\t.file\t2 "/d" "c.h"\n\t.file\t3 "/d" "e.h" md5 0xEF source "x"\n'
    assert stubs.consistent_md5(mixed) == (
        '\t.file\t0 "/d" "a.c"\n\t.file\t1 "/d" "b.h"\n\t.file\t2 "/d" "c.h"\n'
        '\t.file\t3 "/d" "e.h" source "x"\n')


# found by an outside tester, h65e, 2026-12-06: a C++20 module unit (.cppm) or its BMI
# (.pcm) compiled to an object got the plugin in one plain clang call, so the stub variant's
# sites stayed unbound: "error: Undefined temporary symbol .Lito_ys_0"
MODULE = "module;\n#include <stdint.h>\nexport module m;\n" \
         "export uint64_t spin(uint64_t n) { uint64_t s = 0;\n" \
         "  for (uint64_t i = 0; i < n; i++) s = s * 31 + i; return s; }\n"


@pytest.mark.parametrize("how", [["m.cppm", "-fmodule-output=m.pcm"],
                                 ["-x", "c++-module", "m.cppm"], ["m.pcm"]], ids=" ".join)
def test_cxx_module_units_get_their_stubs(itocc, tmp_path, how):
    write(tmp_path, {"m.cppm": MODULE})
    if "m.pcm" in how and "m.cppm" not in how:
        itocc.ok(*STUB, "-std=c++20", "--precompile", "m.cppm", "-o", "m.pcm")
    itocc.ok(*STUB, "-std=c++20", "-O2", "-c", *how, "-o", "m.o")
    assert instrumented(tmp_path / "m.o")


@pytest.mark.parametrize("how", [["k.cl"], ["-x", "cl", "k.cl"]], ids=" ".join)
def test_opencl_for_the_host_gets_its_stubs(itocc, tmp_path, how):
    # the same as the module units (h65e, 2026-12-06): OpenCL C compiled for the host
    write(tmp_path, {"k.cl": "int f(int n){ int s=0; for(int i=0;i<n;i++) s=s*31+i; return s; }\n"})
    itocc.ok(*STUB, "-c", *how, "-o", "k.o")
    assert instrumented(tmp_path / "k.o")


def test_split_dump_leaves_no_blank_lines():
    fn = "# Machine code for function {0}: NoPHIs\n\nbb.0:\n  RET64\n\n" \
         "# End machine code for function {0}.\n\n"
    head = "# *** IR Dump After Unpack machine instruction bundles (unpack-mi-bundles) ***:\n"
    d, other = sites.split_dump(head + fn.format("f") + head + fn.format("g") + "warning: w\n")
    assert list(d.functions) == ["f", "g"] and other == "warning: w\n"


def test_split_dwarf_where_clang_puts_it(itocc, tmp_path):
    write(tmp_path, PROGRAM)
    ref = tmp_path / "ref"
    write(ref, PROGRAM)
    for d in (tmp_path, ref):
        (d / "sub").mkdir()
    for args in (["-c", "f.c", "-o", "sub/f.o"], ["main.c", "f.c", "g.S", RT, "-o", "sub/p"],
                 ["-c", "f.c", "-o", "f1.o", "-gsplit-dwarf=single"]):
        opts = ["-g", "-gsplit-dwarf", *args]
        subprocess.run([CLANG, *opts], cwd=ref, check=True)
        itocc.ok(*STUB, *opts)
    dwos = sorted(str(p.relative_to(ref)) for p in ref.rglob("*.dwo"))
    assert dwos == ["sub/f.dwo", "sub/p-f.dwo", "sub/p-g.dwo", "sub/p-main.dwo"]
    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*.dwo")
                  if ref not in p.parents) == dwos
    for obj, name in (("sub/f.o", b"sub/f.dwo"), ("f1.o", b"f1.o")):
        assert name in (tmp_path / obj).read_bytes()  # the skeleton's DW_AT_dwo_name


AUX_CASES = [  # each makes its compile job write a file named after the job's output
    (["--coverage", "-c", "f.c"], ["f.gcno"]),
    (["--coverage", "-c", "f.c", "-o", "sub/cov.o"], ["sub/cov.gcno"]),
    (["-ftest-coverage", "-S", "f.c", "-o", "sub/f.s"], ["sub/f.gcno"]),
    (["--coverage", "-c", "f.c", "main.c"], ["f.gcno", "main.gcno"]),
    (["-fstack-usage", "-c", "f.c", "-o", "sub/su.o"], ["sub/su.su"]),
    (["-fsave-optimization-record", "-c", "f.c"], ["f.opt.yaml"]),
    (["-ftime-trace", "-c", "f.c", "-o", "sub/t.o"], ["sub/t.json"]),
]


@pytest.mark.parametrize("args,files", AUX_CASES, ids=lambda v: " ".join(v))
def test_auxiliary_outputs_where_clang_puts_them(itocc, tmp_path, args, files):
    """The files a compile names after its output (gcov notes, .su, .opt.yaml, time trace)
    lie where clang puts them, not in ito-cc's removed temporary directory (found by an
    outside tester, h65b, 2026-12-06: a --coverage build of lz4/bzip2 had no .gcno)."""
    write(tmp_path, PROGRAM)
    ref = tmp_path / "ref"
    write(ref, PROGRAM)
    for d in (tmp_path, ref):
        (d / "sub").mkdir()
    subprocess.run([CLANG, *args], cwd=ref, check=True)
    itocc.ok(*STUB, *args)
    for f in files:
        assert (ref / f).is_file(), f  # what clang writes
        assert (tmp_path / f).is_file(), f


def test_coverage_counts_go_beside_the_object(itocc, tmp_path):
    """The .gcda path compiled into an object of --coverage -c is clang's, beside the
    object: it named ito-cc's temporary directory, which the program made again in /tmp
    to write its counts there (found by an outside tester, h65b, 2026-12-06)."""
    write(tmp_path, PROGRAM)
    (tmp_path / "sub").mkdir()
    itocc.ok(*STUB, "--coverage", "-c", "f.c", "-o", "sub/f.o")
    itocc.ok(*STUB, "--coverage", "-c", "main.c")
    itocc.ok(*STUB, "--coverage", "main.o", "sub/f.o", "g.S", RT, "-o", "prog")
    data = (tmp_path / "sub/f.o").read_bytes()
    assert str(tmp_path / "sub/f.gcda").encode() in data
    assert b"ito-cc-" not in data
    run(tmp_path / "prog")
    assert (tmp_path / "sub/f.gcda").is_file() and (tmp_path / "main.gcda").is_file()


BT_C = """#include <stdio.h>
#include <stdlib.h>
void bt_report(void);
__attribute__((noinline)) long leaf(long n, long *arr) {
    long s = 0;
    for (long i = 0; i < n; i++) { s += arr[i % 64] * i; arr[(i * 7) % 64] ^= s; }
    return s;
}
__attribute__((noinline)) long mid(long n) {
    long arr[64];
    for (int i = 0; i < 64; i++) arr[i] = i;
    return leaf(n, arr) + arr[3];
}
__attribute__((noinline)) long top(long n) { volatile char pad[300]; pad[0] = 1; return mid(n) + pad[0]; }
int main(int argc, char **argv) {
    printf("%ld\\n", top(argc > 1 ? atol(argv[1]) : 100000));
    bt_report();
    return 0;
}
"""
# A stand-in runtime whose yield walks the stack with libgcc's unwinder: the functions of
# bt.c it finds must be a tail of leaf, mid, top, main (the yield may be taken in any).
BT_RT_C = """#include <stdio.h>
#include <unwind.h>
__thread volatile int ito_coop_flag;
__thread volatile int ito_coop_budget;
long leaf(long, long *), mid(long), top(long);
int main(int, char **);
static void *want[4];
static int yields, whole, from_leaf, found, ok;
static _Unwind_Reason_Code frame(struct _Unwind_Context *c, void *arg) {
    void *fn = _Unwind_FindEnclosingFunction((void *)_Unwind_GetIP(c));
    (void)arg;
    for (int k = 0; k < 4; k++)
        if (fn == want[k]) {
            ok = ok && (found == 0 || found == k);  /* in order, nothing left out */
            if (found == 0 && k == 0) from_leaf++;
            found = k + 1;
        }
    return _URC_NO_REASON;
}
void ito_coop_yield(void) {
    want[0] = (void *)leaf; want[1] = (void *)mid; want[2] = (void *)top; want[3] = (void *)main;
    found = 0, ok = 1;
    _Unwind_Backtrace(frame, 0);
    yields++;
    whole += ok && found == 4;
    ito_coop_budget = 1000;
}
void ito_coop_yield_abi(void) { ito_coop_yield(); }
void ito_coop_yield_full(void) { ito_coop_yield(); }
void bt_report(void) { printf("yields %d whole %d leaf %d\\n", yields, whole, from_leaf); }
"""


@pytest.mark.parametrize("stubset", ["live", "full"])
def test_backtraces_through_a_yield_reach_main(itocc, tmp_path, stubset):
    # bug5, found 2026-12-03: the stubs' CFI gave the CFA as rbp+16, but the site calls
    # the stub 128 bytes below its rsp (the red zone), so an unwinder recovered the caller's
    # rsp 128 bytes too low and a backtrace from inside the yield stopped at a function
    # without a frame pointer (-O2); it must reach main
    write(tmp_path, {"bt.c": BT_C, "bt_rt.c": BT_RT_C})
    itocc.ok("--ito-off", "-O2", "-c", "bt_rt.c")
    itocc.ok(*STUB, "--ito-check=budget", f"--ito-stubs={stubset}", "-O2", "bt.c", "bt_rt.o",
             "-o", "bt")
    out = run(tmp_path / "bt").split("\n")
    n, whole, leaf = (int(w) for w in out[1].split()[1::2])
    assert n > 100 and whole == n and leaf > 0, out[1]


# ---- 12. linking without the runtime ----

def test_links_and_runs_without_the_runtime(itocc, tmp_path):
    write(tmp_path, PROGRAM)
    itocc.ok(*STUB, "main.c", "f.c", "g.S", "-o", "p")  # no -lito: configure checks do this
    assert run(tmp_path / "p") == "45 7\n"
    itocc.ok("main.c", "f.c", "g.S", "-o", "pmin")  # the min variant, initial-exec TLS
    assert run(tmp_path / "pmin") == "45 7\n"
    itocc.ok(*STUB, "-c", "main.c", "f.c", "g.S")
    itocc.ok("main.o", "f.o", "g.o", "-o", "plink")  # a link-only call
    assert run(tmp_path / "plink") == "45 7\n"
    cp = itocc(*STUB, "--ito-no-fallback", "main.c", "f.c", "g.S", "-o", "pno")
    assert cp.returncode != 0 and "ito_coop_yield" in cp.err


def test_a_yield_reached_without_the_runtime_says_so(itocc, tmp_path):
    write(tmp_path, {"f.c": F, "m.c": "extern __thread volatile int ito_coop_flag;\nint f(int);\n"
                                      "int main(void){ ito_coop_flag = 1; return f(1000); }\n"})
    itocc.ok("--ito-off", "-c", "m.c")
    itocc.ok(*STUB, "m.o", "f.c", "-o", "p")
    cp = subprocess.run([str(tmp_path / "p")], capture_output=True, text=True)
    assert cp.returncode != 0 and "linked without the ito runtime" in cp.stderr


def test_budget_checks_without_the_runtime_run_to_the_end(itocc, tmp_path):
    """Code built with --ito-check=budget reaches its yields by itself (no timer): linked
    without a runtime, the fallback refills the countdown instead of trapping."""
    big = "int f(int n){ int s=0; for(int i=0;i<n;i++) s+=i%7; return s; }\n"
    write(tmp_path, {"f.c": big, "m.c": '#include <stdio.h>\nint f(int);\n'
                                        'int main(void){ printf("%d\\n", f(3000000)); return 0; }\n'})
    for variant in (STUB, ()):  # the stub (local-exec TLS) and min (initial-exec) variants
        itocc.ok(*variant, "--ito-check=budget", "m.c", "f.c", "-o", "p")
        assert run(tmp_path / "p") == "8999994\n"


def test_a_runtime_on_the_command_line_is_the_one_used(itocc, tmp_path):
    write(tmp_path, PROGRAM)
    subprocess.run([tool("llvm-ar"), "rcs", "librt.a", "rt.o"], cwd=tmp_path, check=True)
    for runtime in (["rt.o"], ["-L.", "-lrt"], ["librt.a"]):
        itocc.ok(*STUB, "main.c", "f.c", "g.S", *runtime, "-o", "p")
        syms = symbols(tmp_path / "p")
        assert "T ito_coop_yield\n" in syms and "ito_fallback_msg" not in syms
    d = Path(PLUGIN).parents[1] / "src"  # the plugin's build tree
    if (d / "libito.so").is_file():
        itocc.ok(*STUB, "main.c", "f.c", "g.S", f"-L{d}", "-lito", f"-Wl,-rpath,{d}", "-o", "pl")
        syms = symbols(tmp_path / "pl")
        assert "U ito_coop_yield\n" in syms and "ito_fallback_msg" not in syms
        assert run(tmp_path / "pl") == "45 7\n"


def test_no_fallback_in_shared_libraries(itocc, tmp_path):
    write(tmp_path, PROGRAM)
    itocc.ok("--ito-variant=stub", "-fPIC", "-shared", "f.c", "-o", "libf.so")
    assert "U ito_coop_yield\n" in symbols(tmp_path / "libf.so")


def test_precompiled_headers_without_c_get_no_fallback(itocc, tmp_path):
    # bug1, found 2026-12-03: a PCH build without -c was taken for a link and got the
    # fallback archive as a second input ("cannot specify -o when generating multiple
    # output files"); clang-19 makes the PCH and exits 0
    write(tmp_path, {"h.h": "#define H 45\n", "h3.h": "#define H3 1\n",
                     "p.hpp": "template <class T> T twice(T x) { return 2 * x; }\n",
                     "u.c": '#include <stdio.h>\nint main(void){ printf("%d\\n", H); }\n'})
    cases = [(["-x", "c-header", "h.h", "-o", "h.pch"], "h.pch", False),
             (["h3.h"], "h3.h.pch", False),
             (["-x", "c++-header", "p.hpp", "-o", "p.hpp.pch"], "p.hpp.pch", True)]
    for variant in (STUB, ()):
        for args, out, cxx in cases:
            if cxx and not Path(CLANG + "++").is_file():
                continue
            (tmp_path / out).unlink(missing_ok=True)
            itocc.ok(*variant, *args, cxx=cxx)
            assert (tmp_path / out).is_file(), (variant, args)
        itocc.ok(*variant, "-include-pch", "h.pch", "u.c", "-o", "u")  # and it is a PCH
        assert run(tmp_path / "u") == "45\n"


def make_libg(itocc, tmp_path):
    """libg.a (f, built with the stub variant) and m.o (a main calling f) in tmp_path."""
    write(tmp_path, {"g.c": F, "m.c": "int f(int);\nint main(void){ return f(10) != 45; }\n"})
    itocc.ok(*STUB, "-c", "g.c", "m.c")
    subprocess.run([tool("llvm-ar"), "rcs", "libg.a", "g.o"], cwd=tmp_path, check=True)


def test_closed_whole_archive_keeps_the_fallback(itocc, tmp_path):
    # bug2, found 2026-12-03: -Wl,--whole-archive libg.a -Wl,--no-whole-archive (a closed
    # pair) dropped the fallback ("whole-archive" matched --no-whole-archive too), so a
    # program without the runtime no longer linked; only a --whole-archive left open counts
    make_libg(itocc, tmp_path)
    for wa in (["-Wl,--whole-archive", "libg.a", "-Wl,--no-whole-archive"],
               ["-Wl,--whole-archive,libg.a,--no-whole-archive"],
               ["-Wl,-whole-archive", "libg.a", "-Wl,-no-whole-archive"],
               ["-Xlinker", "--whole-archive", "libg.a", "-Xlinker", "--no-whole-archive"]):
        itocc.ok("m.o", *wa, "-o", "p")
        run(tmp_path / "p")
    ld = fallback.linker_words
    assert fallback.links_executable(["m.o", "-Wl,--whole-archive", "x.a", "-Wl,--no-whole-archive"])
    assert not fallback.links_executable(["m.o", "-Wl,--whole-archive", "x.a"])
    assert not fallback.links_executable(["-Wl,--no-whole-archive,--whole-archive", "x.a"])
    assert not fallback.links_executable(["-Xlinker", "--whole-archive", "x.a"])
    assert ld(["--for-linker", "-a", "--for-linker=-b", "-Wl,-c,-d"]) == ["-a", "-b", "-c", "-d"]


@pytest.mark.parametrize("variant", [STUB, ["--ito-variant=min"], ["--ito-off"]], ids=" ".join)
def test_end_of_options(itocc, tmp_path, variant):
    # bug3, found 2026-12-03: with "--" (end of options) on the command line ito-cc put its
    # own options after it (-S -o of the stub steps, -Qunused-arguments, the fallback's
    # -x none), which clang then took for input files
    write(tmp_path, {**PROGRAM, "f.inc": F, "-m.c": MAIN})
    for args in (["-c", "-o", "a1.o", "--", "f.c"], ["-o", "p1", "--", "main.c", "f.c", "g.S"],
                 ["-c", "--", "main.c"], ["-x", "c", "-c", "-o", "i.o", "--", "f.inc"]):
        ref = subprocess.run([CLANG, *args], cwd=tmp_path, capture_output=True)
        assert ref.returncode == 0, ref.stderr
        itocc.ok(*variant, *args)
    assert run(tmp_path / "p1") == "45 7\n"
    itocc.ok(*variant, "-o", "p2", "--", "-m.c", "f.c", "g.S")  # an input named like an option
    assert run(tmp_path / "p2") == "45 7\n"
    if variant == STUB:
        assert instrumented(tmp_path / "a1.o") and instrumented(tmp_path / "i.o")
    cp = itocc(*variant, "-o", "p3", "--", "main.c", "f.c", "-lm")  # "-lm" is a file here
    assert cp.returncode == 1 and "-lm" in cp.err


def test_fallback_without_a_writable_cache(itocc, tmp_path):
    write(tmp_path, PROGRAM)
    (tmp_path / "ro").write_text("a file, not a directory")
    itocc.ok(*STUB, "main.c", "f.c", "g.S", "-o", "p", env={"XDG_CACHE_HOME": str(tmp_path / "ro")})
    assert run(tmp_path / "p") == "45 7\n"


# ---- 13. found by review of the fixes of 2026-12-03 ----

def test_push_state_whole_archive_keeps_the_fallback(itocc, tmp_path):
    # bugA, found 2026-12-03: -Wl,--push-state,--whole-archive libg.a -Wl,--pop-state (what
    # CMake >= 3.24 writes for $<LINK_LIBRARY:WHOLE_ARCHIVE,g>) was taken for a
    # --whole-archive left open, and the fallback was dropped: undefined ito_coop_yield
    make_libg(itocc, tmp_path)
    for wa in (["-Wl,--push-state,--whole-archive", "libg.a", "-Wl,--pop-state"],
               ["-Wl,--push-state,--whole-archive,libg.a,--pop-state"],
               ["-Xlinker", "--push-state", "-Xlinker", "--whole-archive", "libg.a",
                "-Xlinker", "--pop-state"]):
        itocc.ok("m.o", *wa, "-o", "p")
        run(tmp_path / "p")
    ok = fallback.links_executable
    assert ok(["m.o", "-Wl,--push-state,--whole-archive", "x.a", "-Wl,--pop-state"])
    assert ok(["-Wl,--push-state,--whole-archive,--push-state,--no-whole-archive,--pop-state",
               "x.a", "-Wl,--pop-state"])
    assert not ok(["-Wl,--whole-archive,--push-state,--no-whole-archive", "x.a",
                   "-Wl,--pop-state"])  # the state popped has it on
    assert not ok(["-Wl,--push-state", "-Wl,--whole-archive", "x.a"])  # never popped


def test_headers_beside_sources_in_the_stub_variant(itocc, tmp_path):
    # bugB, found 2026-12-03: the stub variant named a header's PCH <stem>.o (-c) or
    # <stem>.s (-S) and, linking, gave it to the linker ("h.o: file not recognized");
    # clang-19 writes h.h.pch in every mode and links the other inputs
    files = {"h.h": "#define H 45\nint g(void);\n",
             "m.c": '#include <stdio.h>\nint main(void){ printf("%d\\n", H); return 0; }\n'}
    for how in ([], ["-c"], ["-S"]):
        made = {}
        for who in ("clang", "ito-cc"):
            d = tmp_path / f"{who}{len(how)}{''.join(how)}"
            d.mkdir()
            write(d, {**files, "m.c": "#include \"h.h\"\n" + files["m.c"]})
            args = [*how, "h.h", "m.c"]
            if who == "clang":
                subprocess.run([CLANG, *args], cwd=d, check=True)
            else:
                ItoCC(d, itocc.cache).ok(*STUB, *args)
            made[who] = sorted(p.name for p in d.iterdir())
            if not how:
                assert run(d / "a.out") == "45\n"
        assert made["ito-cc"] == made["clang"], how
        assert "h.h.pch" in made["ito-cc"]
    ref = subprocess.run([CLANG, "h.h", "m.c", "-o", "p"], cwd=tmp_path / "clang0",
                         capture_output=True)
    cp = ItoCC(tmp_path / "ito-cc0", itocc.cache)(*STUB, "h.h", "m.c", "-o", "p")
    assert ref.returncode == cp.returncode == 1 and "multiple output files" in cp.err
    write(tmp_path, {"u.c": files["m.c"]})  # and it is a PCH, as clang's
    itocc.ok(*STUB, "-include-pch", "clang0/h.h.pch", "u.c", "-o", "u1")
    itocc.ok(*STUB, "-include-pch", "ito-cc0/h.h.pch", "u.c", "-o", "u2")
    assert run(tmp_path / "u1") == run(tmp_path / "u2") == "45\n"


SWITCHES = {  # user inline asm that switches to Intel syntax and back, in an AT&T module
    "one line": ".intel_syntax noprefix; mov %0, %1; .att_syntax prefix",
    "several lines": ".intel_syntax noprefix\\n\\tmov %0, %1\\n\\t.att_syntax prefix",
    "labels and comments": "1: .intel_syntax noprefix; mov %0, %1 # .intel_syntax\\n"
                           "lab%=: .att_syntax prefix /* ; .intel_syntax */",
}


@pytest.mark.skipif(not shutil.which("as"), reason="no GNU as (for -fno-integrated-as)")
@pytest.mark.parametrize("switch", list(SWITCHES), ids=list(SWITCHES))
def test_user_syntax_switches_stay_the_users(itocc, tmp_path, switch):
    # bugC, found 2026-12-03 (a regression of bug4's fix): in an ordinary AT&T module an
    # inline asm `.intel_syntax noprefix; ...; .att_syntax prefix` on one line was read as
    # a switch to Intel for the rest of the module (the .att_syntax after `;` unseen),
    # so the later sites were wrapped and GNU as was left in Intel syntax
    src = ("volatile int s;\nlong ident(long a) {\n  long r;\n"
           f'  __asm__ volatile("{SWITCHES[switch]}" : "=r"(r) : "r"(a));\n  return r;\n}}\n'
           "int work(int n) { int t = 0; for (int i = 0; i < n; i++) { t += ident(i) + s;"
           " s = 0; } return t; }\n"
           '#include <stdio.h>\nint main(void) { printf("%d\\n", work(10)); }\n')
    write(tmp_path, {"u.c": src, "rt.c": RT_C, **PROGRAM})
    subprocess.run([CLANG, "-fno-integrated-as", "u.c", RT, "-o", "ref"], cwd=tmp_path,
                   check=True)
    for opt in ("-O0", "-O2"):
        itocc.ok(*STUB, "-fno-integrated-as", opt, "u.c", RT, "-o", "p")
        assert run(tmp_path / "p") == run(tmp_path / "ref") == "45\n"
        itocc.ok(*STUB, "-fno-integrated-as", opt, "-c", "u.c", "-o", "u.o")
        assert instrumented(tmp_path / "u.o")
    # -masm=intel -fno-integrated-as: clang-19 itself leaves GNU as in AT&T syntax after any
    # user inline asm (it closes it with `.att_syntax`), so only a module without any
    for syntax in ("-masm=intel", "-masm=att"):
        itocc.ok(*STUB, syntax, "-fno-integrated-as", "-O2", "main.c", "f.c", "g.S", "-o", "q")
        assert run(tmp_path / "q") == "45 7\n"


def test_att_sites_follows_the_syntax_statement_by_statement():
    site = ["\tlea -128(%rsp), %rsp", "\tcall .Lito_ys_0", "\tlea 128(%rsp), %rsp"]
    wrapped = ["\t.att_syntax prefix", *site, "\t.intel_syntax noprefix"]
    intel = ["\t.text", "\t.intel_syntax noprefix", "f:"]
    one_line = ["\t#APP", "\t.intel_syntax noprefix; mov rax, rax; .att_syntax prefix", "\t#NO_APP"]
    for user in (one_line, ["x: .intel_syntax noprefix ; nop ; y: z: .att_syntax prefix # c"]):
        asm = "\n".join(["\t.text", "f:", *user, "\t#APP", *site, "\t#NO_APP", ""])
        assert stubs.att_sites(asm) is asm  # an AT&T module stays as it is
    asm = "\n".join([*intel, *site, "\tret", ""])  # the module in Intel syntax
    assert stubs.att_sites(asm) == "\n".join([*intel, *wrapped, "\tret", ""])
    back = ["\t.att_syntax prefix; movq %rax, %rax; .intel_syntax noprefix"]
    asm = "\n".join([*intel, *back, *site, ""])  # a user's AT&T block ended on its line
    assert stubs.att_sites(asm) == "\n".join([*intel, *back, *wrapped, ""])
    for no in ('\t.ascii "; .intel_syntax noprefix"', "\t# .intel_syntax noprefix",
               "\tnop /* ; .intel_syntax noprefix */"):  # not a statement
        asm = "\n".join(["\t.text", no, *site, ""])
        assert stubs.att_sites(asm) is asm, no
    probe = [s.replace(".Lito_ys_0", "ito_probe_hit@PLT") for s in site]
    asm = "\n".join([*intel, *probe, ""])
    assert stubs.att_sites(asm) == "\n".join([*intel, "\t.att_syntax prefix", *probe,
                                              "\t.intel_syntax noprefix", ""])


@pytest.mark.skipif(not shutil.which("as"), reason="no GNU as (for -fno-integrated-as)")
def test_probe_builds_assemble_in_either_syntax(itocc, tmp_path):
    # bugD, found 2026-12-03: --ito-probe writes its sites' text in AT&T syntax too, and a
    # probe build is one plain clang call: with -masm=intel -fno-integrated-as GNU as
    # rejected it ("junk `(%rsp)' after expression"); now it takes the stub variant's steps
    write(tmp_path, {"f.c": F, "m.c": "int f(int);\nint main(void){ return f(10) != 45; }\n",
                     "hit.S": "\t.globl ito_probe_hit\nito_probe_hit:\n\tret\n"
                              '\t.section .note.GNU-stack,"",@progbits\n'})
    for syntax in ("intel", "att"):
        for asm_with in ("-fno-integrated-as", "-fintegrated-as"):
            opts = ["--ito-probe", f"-masm={syntax}", asm_with]
            itocc.ok(*opts, "-O2", "-c", "f.c", "-o", "f.o")
            assert "U ito_probe_hit" in symbols(tmp_path / "f.o"), opts
            itocc.ok(*opts, "-S", "f.c", "-o", "f.s")  # the .s as GNU as takes it
            itocc.ok(asm_with, "-c", "f.s", "-o", "f2.o")
            assert "U ito_probe_hit" in symbols(tmp_path / "f2.o"), opts
            itocc.ok(*opts, "m.c", "f.c", "hit.S", "-o", "p")
            run(tmp_path / "p")


# ---- 14. found by a tester building outside code, 2026-12-04 ----

IFUNC_C = r"""#include <stdio.h>
static int impl_a(int x) { return x + 1; }
static int impl_b(int x) { return x + 2; }
static volatile int n = 3;
static void *resolve_add(void)
{
    int s = 0;
    for (int i = 0; i < n; i++) s += i;   /* a loop: a check, were it instrumented */
    return s == 3 ? (void *)impl_a : (void *)impl_b;
}
int add(int) __attribute__((ifunc("resolve_add")));
__attribute__((target_clones("avx2", "default"))) int tc(int k)
{ int s = 0; for (int i = 0; i < k; i++) s += i * i; return s; }
int main(void) { printf("%d %d\n", add(1), tc(10)); return 0; }
"""


def _static_libc() -> bool:
    cp = subprocess.run([CLANG, "-print-file-name=libc.a"], capture_output=True, text=True)
    return cp.returncode == 0 and os.path.isabs(cp.stdout.strip())


@pytest.mark.skipif(not _static_libc(), reason="no static libc (libc.a)")
@pytest.mark.parametrize("variant", [STUB, ()], ids=["stub", "min"])
def test_ifunc_resolvers_in_static_programs(itocc, tmp_path, variant):
    # bugB1: IFUNC resolvers (hand-written, and clang's for target_clones) got checks; in
    # a -static program the start-up code runs them before the thread pointer exists, so
    # the check's %fs load crashed before main (SIGSEGV); clang-19's build prints "2 285"
    write(tmp_path, {"i.c": IFUNC_C})
    itocc.ok(*variant, "-O1", "-static", "i.c", "-o", "p")
    assert run(tmp_path / "p") == "2 285\n"


@pytest.mark.skipif(not shutil.which("readelf"), reason="no readelf")
@pytest.mark.parametrize("variant", [["--ito-variant=stub"], ()], ids=["stub", "min"])
def test_the_fallback_keeps_cet_marking(itocc, tmp_path, variant):
    # bugB2: the fallback's member had no GNU property note, so the linker dropped the
    # executable's IBT/SHSTK marking (and -z cet-report=error refused the link).
    # -nostartfiles: this Debian's crt objects have no note and would hide it; the
    # loop's check must refer to the flag, so that the member is linked
    write(tmp_path, {"c.c": "#include <unistd.h>\nint sum(int n){ int s=0; "
                            "for(int i=0;i<n;i++) s+=i; return s; }\n"
                            "void _start(void){ int s = sum(10); "
                            "write(1, s == 45 ? \"ok\\n\" : \"no\\n\", 3); _exit(0); }\n"})
    itocc.ok(*variant, "-O1", "-fcf-protection=full", "-nostartfiles", "c.c", "-o", "p",
             "-Wl,-z,cet-report=error")
    notes = subprocess.run(["readelf", "-n", str(tmp_path / "p")], capture_output=True,
                           text=True, check=True).stdout
    assert "IBT, SHSTK" in notes, notes
    assert "ito_coop_flag" in symbols(tmp_path / "p")
    assert run(tmp_path / "p") == "ok\n"


@pytest.mark.parametrize("opt", ["-L/nonexistent", "-lm", "-Wl,--as-needed", "-rdynamic"])
def test_link_options_in_a_compile_only_call_are_reported(itocc, tmp_path, opt):
    # bugB3: the stub variant left link-only options out of a -c call's steps, so clang's
    # "argument unused during compilation" (an error under -Werror) never came
    write(tmp_path, {"f.c": F})
    ref = subprocess.run([CLANG, "-Werror", "-c", "f.c", opt, "-o", "ref.o"], cwd=tmp_path,
                         capture_output=True, text=True)
    for how in (["-c", "-o", "f.o"], ["-S", "-o", "f.s"]):
        cp = itocc(*STUB, "-Werror", "f.c", opt, *how)
        assert (cp.returncode == 0) == (ref.returncode == 0), (opt, how, cp.err, ref.stderr)
        if ref.returncode != 0:
            assert "unused" in cp.err, cp.err
    cp = itocc(*STUB, "-c", "f.c", opt, "-o", "f.o")  # without -Werror: a warning, as clang
    assert cp.returncode == 0


def test_linker_inputs_in_a_compile_only_call_are_reported(itocc, tmp_path):
    # found by a reviewer of bugB3's fix: an object beside the one source of a -c call
    # ("other.o: 'linker' input unused", an error under -Werror) was dropped silently
    write(tmp_path, {"f.c": F, "o.c": "int o;\n"})
    subprocess.run([CLANG, "-c", "o.c", "-o", "other.o"], cwd=tmp_path, check=True)
    ref = subprocess.run([CLANG, "-Werror", "-c", "f.c", "other.o"], cwd=tmp_path,
                         capture_output=True, text=True)
    assert ref.returncode != 0
    cp = itocc(*STUB, "-Werror", "-c", "f.c", "other.o")
    assert cp.returncode != 0 and "linker' input unused" in cp.err, cp.err
    cp = itocc(*STUB, "-c", "f.c", "other.o")
    assert cp.returncode == 0 and instrumented(tmp_path / "f.o")


# ---- 15. shared libraries (found by a tester building gawk, libpng, and its reviewer) ----

PLUGIN_SO = "volatile int sink;\nint work(int n){ int s=0; for(int i=0;i<n;i++){ s+=i*3; sink=s; } " \
            "return s; }\n"
HOST = '#include <dlfcn.h>\n#include <stdio.h>\n' \
       'int main(int c, char **v){ (void)c; void *h = dlopen(v[1], RTLD_NOW);\n' \
       ' if (!h) { printf("%s\\n", dlerror()); return 1; }\n' \
       ' int (*w)(int) = (int (*)(int))dlsym(h, "work"); printf("%d\\n", w(1000)); return 0; }\n'


@pytest.mark.parametrize("variant", [STUB, ()], ids=["stub", "min"])
def test_a_host_with_the_fallback_loads_a_plugin_with_its_runtime(itocc, tmp_path, variant):
    # a first fix for hosts that dlopen libraries built by ito-cc exported the fallback's
    # symbols from every executable: a plugin linked with -lito then bound to the host's
    # fallback (the dynamic loader ignores weakness), and its first yield trapped ("a yield
    # point was reached in a program linked without the ito runtime"); found by its
    # reviewer. The plugin sets the flag, as a program's ticker would.
    d = Path(PLUGIN).parents[1] / "src"  # the plugin's build tree
    if not (d / "libito.so").is_file():
        pytest.skip("no libito.so beside the plugin")
    plug = "extern __thread volatile int ito_coop_flag;\n" + PLUGIN_SO.replace(
        "int work(int n){", "int work(int n){ ito_coop_flag = 0;")
    write(tmp_path, {"p.c": plug, "h.c": HOST.replace("int main", "volatile int hs;\nint main")})
    itocc.ok(*variant, "-O2", "-fPIC", "-shared", "p.c", "-o", "p.so", f"-L{d}", "-lito",
             f"-Wl,-rpath,{d}")
    itocc.ok(*variant, "-O2", "h.c", "-o", "h", "-ldl")
    dyn = subprocess.run([tool("llvm-nm"), "-D", str(tmp_path / "h")], capture_output=True,
                         text=True, check=True).stdout
    assert "ito_coop" not in dyn, dyn
    cp = subprocess.run([str(tmp_path / "h"), str(tmp_path / "p.so")], capture_output=True,
                        text=True, timeout=60)
    assert cp.returncode == 0 and cp.stdout == "1498500\n", (cp.stdout, cp.stderr)


def test_static_pie_programs_start(itocc, tmp_path):
    # the same first fix exported the fallback's TLS flag, which a -static-pie program's
    # start-up code cannot relocate: every such program crashed before main
    write(tmp_path, {"m.c": '#include <stdio.h>\nint main(void){ puts("hi"); return 0; }\n'})
    for variant in (STUB, ()):
        itocc.ok(*variant, "-static-pie", "m.c", "-o", "p")
        assert run(tmp_path / "p") == "hi\n"


def relocations(obj: Path) -> str:
    return subprocess.run([tool("llvm-readobj"), "-r", str(obj)], capture_output=True, text=True,
                          check=True).stdout


def test_local_exec_gives_way_in_shared_objects(itocc, tmp_path):
    # the recommended options (STUB: --ito-tls=local-exec) made every -fPIC object refer to
    # ito_coop_flag with R_X86_64_TPOFF32, which no shared object may hold: libpng's
    # libpng16.so did not link; clang-19 links it. A PIE keeps local-exec.
    write(tmp_path, {"p.c": PLUGIN_SO})
    itocc.ok(*STUB, "-O2", "-fPIC", "-shared", "p.c", "-o", "p.so")
    itocc.ok(*STUB, "-O2", "-fPIC", "-c", "p.c", "-o", "pic.o")
    itocc.ok(*STUB, "-O2", "-fPIE", "-c", "p.c", "-o", "pie.o")
    assert "TPOFF32" not in relocations(tmp_path / "pic.o")
    assert "GOTTPOFF" in relocations(tmp_path / "pic.o")
    assert "TPOFF32" in relocations(tmp_path / "pie.o")
    itocc.ok("-shared", "pic.o", "-o", "p2.so")
    write(tmp_path, {"f.c": F})  # no data: links into a shared object without -fPIC
    itocc.ok(*STUB, "-O0", "-Wl,-shared", "f.c", "-o", "p3.so")  # -shared given to the linker


def test_a_damaged_cached_fallback_is_built_again(tmp_path):
    """A fallback archive in the cache that was damaged from outside (emptied, cut to its
    magic, overwritten, truncated) is built again, not used: it broke every later link with
    messages that did not name the cache (found by an outside tester, h61a, 2026-12-05)."""
    cache = tmp_path / "cache"
    cc = ItoCC(tmp_path, cache)
    big = "int f(int n){ int s=0; for(int i=0;i<n;i++) s+=i%7; return s; }\n"
    write_files(tmp_path, {"f.c": big, "m.c": '#include <stdio.h>\nint f(int);\n'
                                             'int main(void){ printf("%d\\n", f(300000)); return 0; }\n'})
    cc.ok("--ito-check=budget", "m.c", "f.c", "-o", "p")
    [arch] = list((cache / "ito-cc").glob("fallback-*.a"))
    good = arch.read_bytes()
    assert fallback.sound_archive(arch)
    for damage in (b"", b"!<arch>\n", b"garbage, not an archive\n", good[:len(good) // 2]):
        arch.write_bytes(damage)
        assert not fallback.sound_archive(arch)
        cc.ok("--ito-check=budget", "m.c", "f.c", "-o", "p")
        assert run(tmp_path / "p") == "899997\n"
        assert arch.read_bytes() == good


def test_help_names_ito_options(itocc):
    """--ito-help prints ito-cc's own options; --help (clang's) names --ito-help (h61a)."""
    cp = itocc("--ito-help")
    out = cp.stdout.decode()
    assert cp.returncode == 0 and "--ito-variant=min|abi|full|stub" in out and "compiler/README.md" in out
    cp = itocc("--help")
    out = cp.stdout.decode()
    assert cp.returncode == 0 and "OVERVIEW: clang" in out and "ito-cc --ito-help" in out


@pytest.mark.parametrize("variant", [STUB, ["--ito-variant=min"]], ids=["stub", "min"])
def test_help_words_that_are_no_option_compile(itocc, tmp_path, variant):
    # `--help` as the value of an option or an input after `--`, and `--ito-help` after
    # `--`, were taken for the help options: `-o --help` compiled without the plugin (an
    # object without yield points, and ito's help line on stdout), `-mllvm --help` listed
    # LLVM's options without the plugin's, `-- --ito-help` printed the usage and exited 0
    # (found by an outside tester, h69a, 2026-12-06)
    write(tmp_path, {"f.c": F})
    cp = itocc(*variant, "-c", "f.c", "-o", "--help")
    assert cp.returncode == 0 and cp.stdout == b"", cp.err
    assert "ito_coop_flag" in symbols(tmp_path / "--help")
    (tmp_path / "--help").unlink()
    cp = itocc(*variant, "-c", "f.c", "-mllvm", "--help")
    assert cp.returncode == 0 and b"-ito-yield-variant" in cp.stdout, cp.err
    for name in ("--help", "--ito-help"):
        ref = subprocess.run([CLANG, "-c", "--", name], cwd=tmp_path, capture_output=True)
        cp = itocc(*variant, "-c", "--", name)
        assert ref.returncode == 1 and cp.returncode == 1 and cp.stdout == b"", cp.err
    (tmp_path / "rsp").write_text("--ito-help\n")
    assert b"--ito-variant=" in itocc.ok("@rsp").stdout


@pytest.mark.parametrize("variant", ["stub", "min"])
@pytest.mark.parametrize("target", [["-m32"], ["-mx32"], ["--target=aarch64-linux-gnu"],
                                    ["-target", "riscv64-linux-gnu"],
                                    ["--target=x86_64-pc-windows-msvc"]], ids=" ".join)
def test_a_target_other_than_x86_64_elf_is_one_clear_error(itocc, tmp_path, variant, target):
    # The yield points are x86-64 ELF code: the stub variant failed in the assembler with
    # one error per site ("register %rsp is only available in 64-bit mode"), min made
    # objects for a machine without an ito runtime (found by an outside tester, h63d,
    # 2026-12-06). Now one line and ito-cc's usage status; --ito-off still builds.
    write(tmp_path, {"f.c": F})
    cp = itocc(f"--ito-variant={variant}", *target, "-c", "f.c", "-o", "f.o")
    assert cp.returncode == 2, cp.err
    assert cp.err.startswith("ito-cc: the yield points are x86-64") and cp.err.count("\n") == 1, cp.err
    assert not (tmp_path / "f.o").exists()


def test_x86_64_targets_are_taken(itocc, tmp_path):
    write(tmp_path, {"f.c": F})
    for target in (["--target=x86_64-linux-gnu"], ["-target", "x86_64-unknown-linux-gnu"],
                   ["-m32", "-m64"]):
        cp = itocc(*STUB, *target, "-c", "f.c", "-o", "f.o")
        assert cp.returncode == 0 and instrumented(tmp_path / "f.o"), (target, cp.err)
