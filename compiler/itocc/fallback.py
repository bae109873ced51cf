"""A stand-in for the runtime, for executables linked without one.

Every instrumented object refers to the runtime's flag and yields (ito_coop_flag,
ito_coop_yield, ito_coop_yield_abi, ito_coop_yield_full), so a program linked without
libito does not link, and configure checks that link without the user's LIBS (libtool's
nm check, meson's sanity check, CMake's compiler checks) fail. ito-cc therefore appends
to the link of every executable an archive with one member that defines those four
symbols weakly. A linker takes a member out of an archive only for a symbol that is still
undefined when it reaches the archive, and the archive comes after every input the user
gave: a runtime linked anywhere on the command line (libito.so or libito.a, a custom
runtime's objects or archive) resolves the symbols first and the member is never used.
Only a program linked with no runtime at all gets it; nothing in such a program sets the
flag, so its yields are never reached (code built with --ito-check=budget reaches them
when its countdown runs out: there they refill the countdown and return). A runtime
loaded later into an executable that exports these symbols (-rdynamic: an interpreter
dlopen()ing an extension linked with libito) finds its own yields taken over by them
(the dynamic linker binds every later object to the executable's definitions first, weak
or not) and hands the fallback its real ones in ito_coop_handover (src/core/coop.c,
coop_handover): the yields then call those. Should one be reached otherwise (the runtime
came in some other way, e.g. a shared library it was linked against), it writes why on
stderr and traps rather than return. Not for -shared or -r (a weak definition in a shared library
could take the place of the runtime's); `--ito-no-fallback` leaves it out.

The archive is built once per clang and target options into $XDG_CACHE_HOME/ito-cc
(~/.cache/ito-cc), or into the call's temporary directory when that cannot be written.
On x86 it is built with -fcf-protection=full: a linker marks an executable for IBT and
shadow stacks (CET) only when every input object says it is ready for them, so a member
without the note would take the marking from every program that has it.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import struct
import subprocess
import tempfile
from pathlib import Path
from typing import Callable

SYMBOLS = ("ito_coop_flag", "ito_coop_budget", "ito_coop_yield", "ito_coop_yield_abi",
           "ito_coop_yield_full")
SOURCE = r"""/* ito-cc's runtime fallback (compiler/itocc/fallback.py) */
__attribute__((weak)) __thread volatile int ito_coop_flag;
__attribute__((weak)) __thread volatile int ito_coop_budget;
static const char ito_fallback_msg[] = "ito: a yield point was reached in a program linked "
    "without the ito runtime: link it (-lito)\n";
__attribute__((noreturn)) static void ito_fallback(void) {
#if defined(__x86_64__) && defined(__linux__)
    long r;
    __asm__ volatile("syscall" : "=a"(r) : "0"(1L), "D"(2L), "S"(ito_fallback_msg),
                     "d"(sizeof ito_fallback_msg - 1) : "rcx", "r11", "memory");
#endif
    __builtin_trap();
}
/* Code built with the budget check reaches its yields by itself: without a runtime there
 * is nothing to switch to, so the budget is refilled (for about 2^31 instructions). */
static int ito_fallback_budget(void) {
    if (ito_coop_flag) return 0;
    ito_coop_budget = 0x7fffffff;
    return 1;
}
/* The runtime, loaded after all into a host that exports these symbols (-rdynamic): its
 * constructor fills ito_coop_handover (src/core/coop.c, same layout) and the yields go
 * there. */
struct ito_coop_handover { void (*abi)(void); void (*full)(void); };
__attribute__((weak)) const struct ito_coop_handover *ito_coop_handover;
static const struct ito_coop_handover *ito_fallback_runtime(void) {
    return __atomic_load_n(&ito_coop_handover, __ATOMIC_ACQUIRE);
}
__attribute__((weak)) void ito_coop_yield(void) {
    const struct ito_coop_handover *rt = ito_fallback_runtime();
    if (rt) rt->abi();
    else if (!ito_fallback_budget()) ito_fallback();
}
__attribute__((weak)) void ito_coop_yield_abi(void) {
    const struct ito_coop_handover *rt = ito_fallback_runtime();
    if (rt) rt->abi();
    else if (!ito_fallback_budget()) ito_fallback();
}
__attribute__((weak)) void ito_coop_yield_full(void) {
    const struct ito_coop_handover *rt = ito_fallback_runtime();
    if (rt) rt->full();
    else if (!ito_fallback_budget()) ito_fallback();
}
"""
# options that choose the target the object is built for
TARGET_OPTS = ("--target=", "-m32", "-m64", "-mx32", "-m16")
NOT_EXECUTABLE = {"-shared", "--shared", "-r"}
LD_NOT_EXECUTABLE = {"-shared", "--shared", "-Bshareable", "-r", "--relocatable", "-i"}
WHOLE_ARCHIVE = {"--whole-archive", "-whole-archive"}  # GNU ld's and lld's spellings
NO_WHOLE_ARCHIVE = {"--no-whole-archive", "-no-whole-archive"}
PUSH_STATE = {"--push-state", "-push-state"}
POP_STATE = {"--pop-state", "-pop-state"}


def target_options(words: list[str]) -> list[str]:
    out = []
    for k, w in enumerate(words):
        if w.startswith(TARGET_OPTS):
            out.append(w)
        elif w == "-target" and k + 1 < len(words):
            out += [w, words[k + 1]]
    return out


def linker_words(words: list[str]) -> list[str]:
    """What the command line gives the linker directly, in order: the words of -Wl,a,b,
    -Xlinker a and --for-linker a (or =a)."""
    ld = []
    for k, w in enumerate(words):
        if w.startswith("-Wl,"):
            ld += w[4:].split(",")
        elif w.startswith("--for-linker="):
            ld.append(w[len("--for-linker="):])
        elif w in ("-Xlinker", "--for-linker") and k + 1 < len(words):
            ld.append(words[k + 1])
    return ld


def whole_archive_open(ld: list[str]) -> bool:
    """Whether a --whole-archive is still in force at the end of the linker's words: only
    then would it reach the fallback (a pair closed by --no-whole-archive, the usual way to
    link one archive whole, does not; nor does one between --push-state and --pop-state,
    which restores the state pushed: CMake's $<LINK_LIBRARY:WHOLE_ARCHIVE,...>)."""
    on, saved = False, []
    for w in ld:
        if w in WHOLE_ARCHIVE:
            on = True
        elif w in NO_WHOLE_ARCHIVE:
            on = False
        elif w in PUSH_STATE:
            saved.append(on)
        elif w in POP_STATE and saved:  # a pop without a push: ld refuses the link
            on = saved.pop()
    return on


def links_executable(words: list[str]) -> bool:
    """Whether a link (inputs, no -c/-S/-E) makes an executable: no -shared or -r, also
    given to the linker directly (-Wl, -Xlinker), and no --whole-archive left open (which
    would take the fallback's member in whatever else defines its symbols)."""
    ld = linker_words(words)
    return not (NOT_EXECUTABLE & set(words) or LD_NOT_EXECUTABLE & set(ld)
                or whole_archive_open(ld))


def cache_dir() -> Path | None:
    base = os.environ.get("XDG_CACHE_HOME") or (
        os.path.join(os.environ["HOME"], ".cache") if os.environ.get("HOME") else None)
    return Path(base) / "ito-cc" if base else None


# the member's code options: position independent (it may be linked into a PIE), and
# ready for CET where the target has it (tried first; a target without it refuses the option)
CODE_OPTS = ("-O1", "-fPIC")
CET_OPTS = ("-fcf-protection=full",)


def archive(clang: str, target: list[str], scratch: Callable[[], Path]) -> str | None:
    """The path of the fallback archive for clang and these target options (None when it
    cannot be built: then links go on without it); scratch() gives a temporary directory."""
    key = hashlib.sha256("\0".join([SOURCE, os.path.realpath(clang), *CODE_OPTS, *CET_OPTS,
                                    *target]).encode())
    name = f"fallback-{key.hexdigest()[:16]}.a"
    cache = cache_dir()
    if cache is not None:
        path = cache / name
        if path.is_file() and sound_archive(path):
            return str(path)
        # missing, or damaged from outside (emptied, truncated, overwritten): built again. A
        # damaged one used to break every later link with messages that never named the
        # cache ("undefined reference to ito_coop_flag", "file not recognized"; found by an
        # outside tester, h61a, 2026-12-05)
        try:
            cache.mkdir(parents=True, exist_ok=True)
            work = Path(tempfile.mkdtemp(dir=cache))
            try:
                if _build(clang, target, work, work / name):
                    os.replace(work / name, path)  # atomic: parallel builds race harmlessly
                    return str(path)
                return None
            finally:
                shutil.rmtree(work, ignore_errors=True)
        except OSError:
            pass
    work = scratch()
    return str(work / name) if _build(clang, target, work, work / name) else None


def sound_archive(path: Path) -> bool:
    """Whether path holds a whole ar archive of at least two entries (the symbol index and
    the member ar_archive writes): the magic, then headers whose sizes account for every
    byte of the file."""
    try:
        data = path.read_bytes()
    except OSError:
        return False
    if not data.startswith(b"!<arch>\n"):
        return False
    pos, entries = 8, 0
    while pos < len(data):
        header = data[pos:pos + 60]
        if len(header) < 60 or header[58:60] != b"`\n":
            return False
        try:
            size = int(header[48:58])
        except ValueError:
            return False
        pos += 60 + size + size % 2
        entries += 1
    return pos == len(data) and entries >= 2


def _build(clang: str, target: list[str], work: Path, out: Path) -> bool:
    src, obj = work / "ito_fallback.c", work / "ito_fallback.o"
    src.write_text(SOURCE)
    for extra in (CET_OPTS, ()):
        cp = subprocess.run([clang, *target, "-x", "c", *CODE_OPTS, *extra, "-w", "-c", str(src),
                             "-o", str(obj)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if cp.returncode == 0:
            break
    else:
        return False
    out.write_bytes(ar_archive("ito_fallback.o", obj.read_bytes(), SYMBOLS))
    return True


def ar_archive(member: str, data: bytes, symbols: tuple[str, ...]) -> bytes:
    """A System V (GNU) ar archive of one member with its symbol index."""
    def header(name: str, size: int) -> bytes:
        return f"{name:<16}{0:<12}{0:<6}{0:<6}{644:<8}{size:<10}`\n".encode()

    names = b"".join(s.encode() + b"\0" for s in symbols)
    index_size = 4 + 4 * len(symbols) + len(names)
    pad = index_size % 2
    at = 8 + 60 + index_size + pad  # where the member's header starts
    index = struct.pack(f">{1 + len(symbols)}I", len(symbols), *[at] * len(symbols)) + names
    return (b"!<arch>\n" + header("/", index_size) + index + b"\n" * pad
            + header(member + "/", len(data)) + data + b"\n" * (len(data) % 2))
