"""How ito-cc reads a clang command line (cmdline.py), checked against clang-19 itself."""
import shlex
import subprocess
import sys

import pytest

from conftest import CLANG, PKG_DIR

sys.path.insert(0, str(PKG_DIR))
from itocc import cmdline  # noqa: E402

needs_clang_only = pytest.mark.skipif(not CLANG, reason="clang-19 not found")


def inputs(argv):
    return [(a.name, a.kind, a.lang) for a in cmdline.parse(argv) if a.is_input]


def test_separate_values_are_not_inputs():
    argv = ["--sysroot", "/", "-B", "/usr/bin", "-MJ", "cc.json", "-isystem", "sys", "-iquote",
            "q", "-idirafter", "a", "-include", "p.h", "-imacros", "m.h", "-Xclang", "-x",
            "-Xassembler", "--noexecstack", "-arch", "x86_64", "-target", "x86_64-linux-gnu",
            "-MT", "t", "-MQ", "q", "-MF", "d", "-o", "out", "-I", "inc", "-D", "X", "-U", "Y",
            "-Xarch_x86_64", "-O2", "-sectcreate", "a", "b", "c", "f.c"]
    assert inputs(argv) == [("f.c", "code", None)]
    assert cmdline.output(cmdline.parse(argv)) == "out"
    assert cmdline.output(cmdline.parse(["-ofoo.o", "-c", "f.c"])) == "foo.o"


def test_languages_by_x_and_extension():
    argv = ["-x", "c", "a.inc", "-xc++", "b.txt", "--language=assembler", "c.asm", "-x", "none",
            "d.c++", "e.cp", "f.CPP", "g.cxx", "h.C", "i.cc", "j.S", "k.s", "l.h", "m.o",
            "libn.so.1", "o", "-"]
    assert inputs(argv) == [
        ("a.inc", "code", "c"), ("b.txt", "code", "c++"), ("c.asm", "asm", "assembler"),
        ("d.c++", "code", None), ("e.cp", "code", None), ("f.CPP", "code", None),
        ("g.cxx", "code", None), ("h.C", "code", None), ("i.cc", "code", None),
        ("j.S", "asm", None), ("k.s", "asm", None), ("l.h", "other", None),
        ("m.o", "link", None), ("libn.so.1", "link", None), ("o", "link", None),
        ("-", "code", None)]


def test_link_only_options():
    link = ["-L/x", "-lm", "-Wl,-O1", "-s", "-r", "-pie", "-no-pie", "-shared", "-rdynamic",
            "-nostdlib", "-static-libgcc", "--ld-path=/usr/bin/ld", "-fuse-ld=lld"]
    assert all(cmdline.Arg([w]).link_only() for w in link)
    both = ["-static", "-pthread", "-O2", "-undef", "-fPIC", "-flto", "-fsanitize=address"]
    assert not any(cmdline.Arg([w]).link_only() for w in both)


def test_response_file_tokens():
    text = "-D'A B' -D\"C\\\"D\" -DE\\ F\n-DG'x\\'y' '' \t-DH\n"
    assert cmdline.tokenize_gnu(text) == ["-DA B", '-DC"D', "-DE F", "-DGx'y", "-DH"]
    for a in ["plain", "with space", 'quo"te', "back\\slash", "it's"]:
        assert cmdline.tokenize_gnu(cmdline.quote_gnu(a)) == [a]


def test_response_files_nest_and_missing_ones_stay(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.rsp").write_text("-DA @b.rsp @missing.rsp")
    (tmp_path / "b.rsp").write_text("--ito-policy=loops 'f 1.c'")  # relative to the cwd
    assert cmdline.expand_response_files(["-c", "@sub/a.rsp"]) == [
        "-c", "-DA", "--ito-policy=loops", "f 1.c", "@missing.rsp"]
    (tmp_path / "loop.rsp").write_text("@loop.rsp")
    with pytest.raises(cmdline.Usage):
        cmdline.expand_response_files(["@loop.rsp"])


@needs_clang_only
def test_response_file_tokens_as_clang_reads_them(tmp_path):
    text = "-D'A B' -D\"C\\\"D\" -DE\\ F\n-DG'x\\'y' -D'$H' -DI\\\\J"
    (tmp_path / "q.rsp").write_text(text)
    cp = subprocess.run([CLANG, "-###", "-E", "-x", "c", "/dev/null", "@q.rsp"], cwd=tmp_path,
                        capture_output=True, text=True)
    # -### quotes each argument and escapes ", \ and $ with a backslash
    cc1 = [w.replace("\\$", "$") for w in
           shlex.split(next(line for line in cp.stderr.splitlines() if '"-cc1"' in line))]
    clang_defs = [cc1[k + 1] for k, w in enumerate(cc1) if w == "-D" and
                  not cc1[k + 1].startswith("__")]
    assert ["-D" + d for d in clang_defs] == cmdline.tokenize_gnu(text)


@needs_clang_only
def test_separate_table_matches_clang():
    """Every option the table says takes separate values is one clang-19 wants them for."""
    wrong = []
    for name, n in cmdline.SEPARATE.items():
        cp = subprocess.run([CLANG, "-###", name], capture_output=True, text=True)
        if f"argument to '{name}' is missing (expected {n} value" not in cp.stderr:
            wrong.append(name)
    for name in ("-Xarch_x86_64", "-Xopenmp-target=x86_64"):
        assert cmdline.separate_values(name) == 1
        cp = subprocess.run([CLANG, "-###", name], capture_output=True, text=True)
        assert "expected 1 value" in cp.stderr
    assert not wrong
