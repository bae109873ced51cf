"""The clang command line as ito-cc reads it (clang 19's driver, x86-64 Linux).

  * response files: `@file` arguments are replaced by the arguments in the file, as clang
    reads them (GNU quoting, nested files relative to the working directory);
  * which options take their value(s) in the next argument(s) (`SEPARATE`: every option for
    which clang-19's driver says "argument to 'X' is missing", checked by the tests against
    the installed clang), so that a value is never taken for an input;
  * the inputs and their language: the `-x` in force (`-x c`, `-xc`, `--language=c`;
    `-x none` goes back to the extension) or the extension, as clang maps them;
  * the mode (-c, -S, link, or no code: -E, -fsyntax-only, -M, ...) and the options a
    compile step or a link step does not take.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

# clang options whose value is the next argument ("-I dir", "--sysroot /", "-MJ cc.json")
_SEPARATE_1 = """
    --CLASSPATH --analyzer-output --assert --bootclasspath --classpath --config --define-macro
    --dyld-prefix --encoding --extdirs --for-linker --force-link --imacros --include
    --include-directory --include-directory-after --include-prefix --include-with-prefix
    --include-with-prefix-after --include-with-prefix-before --language --library-directory
    --mhwdiv --no-system-header-prefix --output --output-class-directory --param --prefix
    --print-file-name --print-prog-name --resource --rtlib --serialize-diagnostics --std
    --stdlib --sysroot --system-header-prefix --undefine-macro --vfsoverlay
    -A -B -D -F -G -I -L -MF -MJ -MQ -MT -T -U -V -Xanalyzer -Xarch_ -Xarch_device -Xarch_host
    -Xassembler -Xclang -Xcuda-fatbinary -Xcuda-ptxas -Xlinker -Xmicrosoft-visualc-tools-root
    -Xmicrosoft-visualc-tools-version -Xmicrosoft-windows-sdk-root
    -Xmicrosoft-windows-sdk-version -Xmicrosoft-windows-sys-root -Xoffload-linker
    -Xopenmp-target -Xpreprocessor -Zlinker-input -alias_list -allowable_client -arch
    -arch_only -arcmt-migrate-report-output -b -bundle_loader -ccc-arcmt-migrate -ccc-gcc-name
    -ccc-install-dir -ccc-objcmt-migrate -client_name -compatibility_version -current_version
    -cxx-isystem -darwin-target-variant -darwin-target-variant-triple -dependency-dot
    -dependency-file -dsym-dir -dumpdir -dylib_file -dylinker_install_name -e
    -exported_symbols_list -fdebug-compilation-dir -fexperimental-openacc-macro-override
    -filelist -fmodule-implementation-of -fmodules-user-build-path -fnew-alignment -force_load
    -framework -ftrapv-handler -gen-cdb-fragment-path -hlsl-entry -iapinotes-modules
    -idirafter -iframework -iframeworkwithsysroot -imacros -image_base -imultilib -include
    -include-pch -init -install_name -iprefix -iquote -isysroot -isystem -isystem-after
    -ivfsoverlay -iwithprefix -iwithprefixbefore -iwithsysroot -l -lazy_framework
    -lazy_library -meabi -mllvm -mmlir -module-dependency-dir -mthread-model -multiply_defined
    -multiply_defined_unused -o -object-file-name -pagezero_size -read_only_relocs
    -reexport_framework -reexport_library -resource-dir -rpath -seg1addr -seg_addr_table
    -seg_addr_table_filename -segs_read_only_addr -segs_read_write_addr -serialize-diagnostics
    -specs -stdlib++-isystem -sub_library -sub_umbrella -target -u -umbrella -undefined
    -unexported_symbols_list -validator-version -vfsoverlay -weak_framework -weak_library
    -weak_reference_mismatches -working-directory -x -z
"""
SEPARATE = {**dict.fromkeys(_SEPARATE_1.split(), 1),
            "-sectalign": 3, "-sectcreate": 3, "-sectobjectsymbols": 2, "-sectorder": 3,
            "-segaddr": 2, "-segcreate": 3, "-segprot": 3}
# a joined part and then a separate value: "-Xarch_x86_64 -O2", "-Xopenmp-target=T -opt"
JOINED_AND_SEPARATE = ("-Xarch_", "-Xopenmp-target=")

# Languages (-x) and extensions (clang's lookupTypeForExtension), by what ito-cc does with
# the input: "code" gets the plugin (and, with the stub variant, its stubs), "asm" is
# assembled as it is, "other" (headers, CUDA, ...) is left to one plain clang call,
# "link" goes to the linker.
CODE_LANGS = {"c", "c++", "objective-c", "objective-c++", "cpp-output", "c++-cpp-output",
              "objective-c-cpp-output", "objc-cpp-output", "objective-c++-cpp-output",
              "objc++-cpp-output", "ir", "c++-module", "c++-module-cpp-output", "cl", "clcpp"}
ASM_LANGS = {"assembler", "assembler-with-cpp"}
LINK_LANGS = {"object", "lto-ir", "lto-bc"}
CODE_EXT = {"c", "C", "cc", "CC", "cp", "cpp", "CPP", "c++", "C++", "cxx", "CXX", "i", "ii",
            "m", "M", "mm", "mi", "mii", "ll", "bc",
            # C++20 module units and their BMIs make code too (`-c m.cppm`, `-c m.pcm`): as
            # "other" they got the plugin in one plain call, and the stub variant's sites were
            # left unbound ("Undefined temporary symbol .Lito_ys_0"; found by an outside
            # tester, h65e, 2026-12-06)
            "ccm", "c++m", "cppm", "cxxm", "iim", "pcm",
            "cl", "clcpp"}  # OpenCL C / C++ for OpenCL compiled for the host, the same
ASM_EXT = {"s", "S", "asm"}
HEADER_EXT = {"h", "H", "hh", "hpp", "hxx", "iih"}  # headers: compiled, they make a PCH
PCH_EXT = {"pch", "gch"}  # a PCH given as an input is not linked either
OTHER_EXT = {"h", "H", "hh", "hpp", "hxx", "cu", "cui", "hip", "hipi", "cli",
             "ast", "iih", "hlsl", "rs"}

NO_CODE = {"-E", "--preprocess", "-fsyntax-only", "-M", "-MM", "--analyze", "-emit-ast",
           "--precompile"}
MODE_FLAGS = {"-c", "--compile", "-S", "--assemble"}

# Options only the link step uses (a compile step would call them unused, an error under
# -Werror): flags, options whose value is joined, and options with a separate value.
LINK_ONLY_FLAGS = {"-s", "-r", "-t", "-shared", "--shared", "-static-pie", "-pie", "-no-pie",
                   "-rdynamic", "-nostartfiles", "-nolibc", "-nostdlib", "-nodefaultlibs",
                   "-nostdlib++", "-static-libgcc", "-static-libstdc++", "-shared-libgcc",
                   "-static-openmp", "-no-pthread"}
LINK_ONLY_JOINED = ("-l", "-L", "-Wl,", "-T", "-fuse-ld=", "--ld-path=", "-rtlib=", "--rtlib=",
                    "-unwindlib=", "--unwindlib=", "--library-directory=", "-specs=",
                    "--specs=", "-flto-jobs=")
LINK_ONLY_SEPARATE = {"-Xlinker", "-z", "-u", "-e", "-rpath", "--for-linker", "--force-link",
                      "-Xoffload-linker", "-filelist", "-force_load", "-framework",
                      "-weak_framework", "-weak_library", "-lazy_framework", "-lazy_library",
                      "-reexport_framework", "-reexport_library", "-Zlinker-input"}


class Usage(Exception):
    """A command line ito-cc refuses: the message, and the exit status (2, a usage error of
    ito-cc's own; 1 where clang refuses the same line, so that callers see clang's status)."""

    def __init__(self, message: str, status: int = 2):
        super().__init__(message)
        self.status = status


# ---- response files ----

def tokenize_gnu(text: str) -> list[str]:
    """Arguments of a response file, as LLVM's TokenizeGNUCommandLine (gcc's buildargv):
    whitespace separates, single and double quotes group, a backslash escapes the next
    character (also inside quotes); an empty quoted string gives no argument."""
    out, tok, i, n = [], [], 0, len(text)
    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n:
            tok.append(text[i + 1])
            i += 2
        elif c in "'\"":
            i += 1
            while i < n and text[i] != c:
                if text[i] == "\\" and i + 1 < n:
                    i += 1
                tok.append(text[i])
                i += 1
            i += 1
        elif c in " \t\r\n":
            if tok:
                out.append("".join(tok))
                tok = []
            i += 1
        else:
            tok.append(c)
            i += 1
    if tok:
        out.append("".join(tok))
    return out


def quote_gnu(arg: str) -> str:
    """One argument for a response file that tokenize_gnu reads back as it is."""
    return '"' + arg.replace("\\", "\\\\").replace('"', '\\"') + '"'


def expand_response_files(argv: list[str], _open: tuple[str, ...] = ()) -> list[str]:
    """argv with every readable @file replaced by its arguments, recursively (a nested
    @file is relative to the working directory, as clang has it); an @file that cannot be
    read stays as it is (clang then reports it as a missing input)."""
    out = []
    for a in argv:
        if not (a.startswith("@") and len(a) > 1):
            out.append(a)
            continue
        real = os.path.realpath(a[1:])
        if real in _open:
            raise Usage(f"recursive expansion of response file {a}")
        try:
            with open(a[1:], encoding="utf-8", errors="surrogateescape") as f:
                text = f.read()
        except OSError:
            out.append(a)
            continue
        out += expand_response_files(tokenize_gnu(text), (*_open, real))
    return out


# ---- the parsed command line ----

def separate_values(a: str) -> int:
    """How many of the following arguments option a takes as its values."""
    n = SEPARATE.get(a)
    if n is not None:
        return n
    return 1 if a.startswith(JOINED_AND_SEPARATE) else 0


def _ext(path: str) -> str:
    base = os.path.basename(path)
    return base.rsplit(".", 1)[1] if "." in base else ""


def input_kind(path: str, lang: str | None) -> str:
    if lang is not None:
        if lang in CODE_LANGS:
            return "code"
        if lang in ASM_LANGS:
            return "asm"
        return "link" if lang in LINK_LANGS else "other"
    if path == "-":
        return "code"  # clang wants -x for standard input and says so
    ext = _ext(path)
    if ext in CODE_EXT:
        return "code"
    if ext in ASM_EXT:
        return "asm"
    return "other" if ext in OTHER_EXT else "link"


def makes_no_object(path: str, lang: str | None) -> bool:
    """Whether an input reaches no link: a header (-x c-header, c++-header, ...; .h, .hpp
    ... by extension) is compiled into a precompiled header, and a PCH is no linker input."""
    if lang is not None:
        return "header" in lang
    return _ext(path) in HEADER_EXT | PCH_EXT


@dataclass
class Arg:
    """An option with its separate values, or an input (kind code/asm/other/link)."""
    words: list[str]
    kind: str = "opt"
    lang: str | None = None  # an input's -x language; None: by its extension

    @property
    def name(self) -> str:
        return self.words[0]

    @property
    def is_input(self) -> bool:
        return self.kind != "opt"

    def value(self, short: str, alias: str, not_joined: tuple[str, ...] = ()) -> str | None:
        """The value of option `short` (separate or joined) or of its `alias` (separate or
        after "="), None for other options and for options named like not_joined."""
        a = self.name
        if self.is_input:
            return None
        if a in (short, alias):
            return self.words[1] if len(self.words) > 1 else None
        if a.startswith(alias + "="):
            return a[len(alias) + 1:]
        if a.startswith(short) and len(a) > len(short) and not a.startswith(not_joined):
            return a[len(short):]
        return None

    def x_lang(self) -> str | None:
        """The language an -x option sets ("none" included), None for other options."""
        return self.value("-x", "--language")

    def output(self) -> str | None:
        """The value of -o or --output, None for other options."""
        return self.value("-o", "--output", ("-objcmt", "-object"))

    def linked(self) -> bool:
        """Whether this input is linked (as its object, or as it is) when the call links."""
        return self.is_input and not makes_no_object(self.name, self.lang)

    def missing_value(self) -> bool:
        """Whether this option is the last argument and lacks its separate value(s), which
        clang-19 refuses ("argument to '-o' is missing")."""
        return not self.is_input and len(self.words) < 1 + separate_values(self.name)

    def link_only(self) -> bool:
        a = self.name
        return a in LINK_ONLY_FLAGS or a in LINK_ONLY_SEPARATE or a.startswith(LINK_ONLY_JOINED)


def parse(rest: list[str]) -> list[Arg]:
    """The arguments as clang reads them. After `--` (the end of options) every argument is
    an input, in the -x in force; `--` itself is not kept, as ito-cc puts options of its own
    after the inputs of the commands it builds (-S -o for a step, the fallback archive), so
    an input named like an option is written ./<name>, which clang reads as the same file."""
    out, lang, i = [], None, 0
    while i < len(rest):
        a = rest[i]
        if a == "--":
            for b in rest[i + 1:]:
                w = "./" + b if b.startswith("-") and b != "-" else b
                out.append(Arg([w], input_kind(w, lang), lang))
            break
        if a == "-" or not a.startswith("-"):
            out.append(Arg([a], input_kind(a, lang), lang))
            i += 1
            continue
        arg = Arg(rest[i:i + 1 + separate_values(a)])
        i += len(arg.words)
        x = arg.x_lang()
        if x is not None:
            lang = None if x == "none" else x
        out.append(arg)
    return out


def mode(args: list[Arg]) -> str:
    """nocode (-E, -fsyntax-only, -M, ...), llvm (-emit-llvm), S, c or link."""
    names = {a.name for a in args if not a.is_input}
    if names & NO_CODE:
        return "nocode"
    if "-emit-llvm" in names:
        return "llvm"
    if names & {"-S", "--assemble"}:
        return "S"
    return "c" if names & {"-c", "--compile"} else "link"


def output(args: list[Arg]) -> str | None:
    out = None
    for a in args:
        if not a.is_input and a.output() is not None:
            out = a.output()
    return out


def last_value(args: list[Arg], name: str) -> str | None:
    """The value of the last `name value` option (separate form)."""
    v = None
    for a in args:
        if a.name == name and not a.is_input and len(a.words) > 1:
            v = a.words[1]
    return v


def words(args: list[Arg]) -> list[str]:
    return [w for a in args for w in a.words]
