"""Per-live-set yield stubs (x86-64, ELF, GNU as syntax), as the paper's compiler generated them.

One stub per distinct set of live registers; each yield site's label `.Lito_ys_N` is bound to
the stub of its set (`.set`). A stub is a local function at the end of the object's text
(each object has its own copies: a weak or COMDAT symbol would be reached through the
alias as a section-relative reference into a section the linker may discard). It is
entered from the site's inline asm

    lea -128(%rsp), %rsp        # step over the red zone the function may be using
    call .Lito_ys_N             # = __ito_ys_<set>
    lea 128(%rsp), %rsp

with every register holding the interrupted function's values, saves exactly <set>, and
calls the runtime's minimal yield, ito_coop_yield (libito: keeps only rsp and rbp, switches
to the next ULT and returns when this one is resumed). The saved context:

    ------------------------------------------------------------------------------
    | address      | rbp+8  | rbp    | rbp-8 ... rbp-8g | below: v vector slots    |
    ------------------------------------------------------------------------------
    | what         | return | caller | the g live GPRs  | the live xmm/ymm, w bytes|
    |              | to site| rbp    | in set order     | each, then alignment pad |
    ------------------------------------------------------------------------------
    rsp is then rounded down to 16 bytes, so that ito_coop_yield is entered at 8 mod 16.

The call frame information tells unwinders (gdb, libgcc's, glibc's backtrace) the caller's
rsp as it was at the site, before its `lea -128(%rsp)`: the CFA is rbp+144 (CFA_OFFSET),
not the usual rbp+16, the return address is at CFA-136 and the caller's rbp at CFA-144,
and each saved GPR where the stub pushed it. With the usual rule a function without a frame
pointer got an rsp 128 bytes too low, and the backtrace stopped at it (or went astray).

The `full` stub (functions whose state the per-register stubs do not cover: x87/MMX, mask
registers, zmm, xmm16-31) saves all 14 GPRs and XSAVEs x87, SSE, AVX and AVX-512 state
(mask 0xE7) into a 64-byte aligned area whose XSAVE header it zeroes first. Unlike FNSAVE,
XSAVE leaves the x87 registers loaded: the stub then empties the x87 stack (EMMS: every tag
empty, the control word kept), because the next ULT on the worker expects an empty stack,
as every function is entered; XRSTOR brings this ULT's stack back when it resumes.

Not saved by any stub: MXCSR and the x87 control word (the ULTs of a program share one
floating-point environment at yield points), and EFLAGS (the asm declares it clobbered).
"""
from __future__ import annotations

import re

from .sites import LiveSet

PREFIX = "__ito_ys_"
ALL_GPRS = ("rax", "rcx", "rdx", "rbx", "rsi", "rdi", "r8", "r9", "r10", "r11", "r12", "r13",
            "r14", "r15")
XSAVE_AREA = 2752          # legacy 512 + header 64 + AVX 256 + opmask 64 + ZMM_Hi256 512 + Hi16 1024, rounded to 64
XSAVE_MASK = 0xE7


# The CFA of a stub is the caller's rsp at the site: 128 (the red zone the site steps over)
# above the return address's slot + 8, so 136 above rsp on entry and 144 above rbp.
RED_ZONE = 128
CFA_OFFSET = RED_ZONE + 16


def _head(sym: str) -> list[str]:
    return [
        "\t.text",
        f"\t.type {sym},@function",
        "\t.p2align 4",
        f"{sym}:",
        "\t.cfi_startproc",
        f"\t.cfi_def_cfa %rsp, {CFA_OFFSET - 8}          # the site's rsp, before its lea",
        f"\t.cfi_offset %rip, -{CFA_OFFSET - 8}",
        "\tpushq %rbp                      # kept by ito_coop_yield: our frame register",
        f"\t.cfi_def_cfa_offset {CFA_OFFSET}",
        f"\t.cfi_offset %rbp, -{CFA_OFFSET}",
        "\tmovq %rsp, %rbp                 # the saved context is addressed from rbp",
        "\t.cfi_def_cfa_register %rbp",
    ]


def _push(regs: tuple[str, ...], why: str) -> list[str]:
    """pushq of each register, and where it is for an unwinder (rbp - 8k, k from 1)."""
    out = []
    for k, r in enumerate(regs, 1):
        out += [f"\tpushq %{r:<26}# {why}", f"\t.cfi_offset %{r}, -{CFA_OFFSET + 8 * k}"]
    return out


def _tail(sym: str) -> list[str]:
    return [
        "\tleave                           # rsp = rbp; pop the caller's rbp",
        f"\t.cfi_def_cfa %rsp, {CFA_OFFSET - 8}",
        "\tret                             # back to the site",
        "\t.cfi_endproc",
        f"\t.size {sym}, .-{sym}",
    ]


def stub(ls: LiveSet) -> str:
    sym = PREFIX + ls.name()
    out = _head(sym)
    if ls.full:
        return "\n".join(out + _full_body() + _tail(sym)) + "\n"
    g = len(ls.gprs)
    out += _push(ls.gprs, "live here")
    if ls.vecs:
        w = ls.width
        out.append(f"\tsubq ${w * len(ls.vecs)}, %rsp{'':14}# vector slots")
        mov = "vmovdqu" if w == 32 else "movdqu"
        reg = "ymm" if w == 32 else "xmm"
        for k, v in enumerate(ls.vecs):
            off = 8 * g + w * (k + 1)
            out.append(f"\t{mov} %{reg}{v}, -{off}(%rbp){'':8}# live here")
    out += ["\tandq $-16, %rsp                 # align: the yield is entered at 8 mod 16",
            "\tcallq ito_coop_yield@PLT        # switch; returns when this ULT resumes"]
    if ls.vecs:
        w = ls.width
        mov = "vmovdqu" if w == 32 else "movdqu"
        reg = "ymm" if w == 32 else "xmm"
        for k, v in enumerate(ls.vecs):
            off = 8 * g + w * (k + 1)
            out.append(f"\t{mov} -{off}(%rbp), %{reg}{v}{'':8}# restore")
    for k, r in enumerate(ls.gprs):
        out.append(f"\tmovq -{8 * (k + 1)}(%rbp), %{r:<16}# restore")
    return "\n".join(out + _tail(sym)) + "\n"


def _full_body() -> list[str]:
    out = _push(ALL_GPRS, "every GPR")
    out += [
        f"\tsubq ${XSAVE_AREA}, %rsp             # the XSAVE area",
        "\tandq $-64, %rsp                 # ... 64-byte aligned",
        "\tmovq $0, 512(%rsp)              # zero the XSAVE header (XRSTOR requires it)",
    ]
    for k in range(1, 8):
        out.append(f"\tmovq $0, {512 + 8 * k}(%rsp)")
    out += [
        f"\tmovl ${XSAVE_MASK:#x}, %eax               # x87, SSE, AVX, opmask, ZMM state",
        "\txorl %edx, %edx",
        "\txsave64 (%rsp)                  # save the vector and x87 state",
        "\temms                            # XSAVE keeps the x87 stack: empty it for the next ULT",
        "\tcallq ito_coop_yield@PLT        # switch; returns when this ULT resumes",
        f"\tmovl ${XSAVE_MASK:#x}, %eax",
        "\txorl %edx, %edx",
        "\txrstor64 (%rsp)                 # restore it",
    ]
    for k, r in enumerate(ALL_GPRS):
        out.append(f"\tmovq -{8 * (k + 1)}(%rbp), %{r:<16}# restore")
    return out


_SYNTAX = re.compile(r"^\.(intel|att)_syntax\b")
_LABEL = re.compile(r"^\s*(?:[A-Za-z_.$][\w.$]*|\d+)\s*:")
# the site's text as the plugin writes it (Insert.cpp emitStubCall): a stub site or a probe
_SITE_TEXT = (re.compile(r"^\s*lea -128\(%rsp\), %rsp\s*$"),
              re.compile(r"^\s*call (?:\.Lito_ys_\d+|ito_probe_hit@PLT)\s*$"),
              re.compile(r"^\s*lea 128\(%rsp\), %rsp\s*$"))


def statements(line: str) -> list[str]:
    """The statements of one line of GNU as input for x86: split at `;` outside strings,
    up to a `#` or the start of a `/*` comment (its rest is dropped), each without its
    labels (`l: .intel_syntax`) and leading blanks."""
    out, cur, i, n = [], [], 0, len(line)
    while i < n:
        c = line[i]
        if c == '"':  # a string: `;` and `#` in it are text
            j = i + 1
            while j < n and line[j] != '"':
                j += 2 if line[j] == "\\" else 1
            cur.append(line[i:j + 1])
            i = j + 1
            continue
        if c == "#" or line.startswith("/*", i):
            break
        if c == ";":
            out.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        i += 1
    out.append("".join(cur))
    res = []
    for st in out:
        while True:
            m = _LABEL.match(st)
            if not m:
                break
            st = st[m.end():]
        res.append(st.strip())
    return res


def att_sites(asm: str) -> str:
    """asm with each site's text (a stub site's or a probe's, written by the plugin in AT&T
    syntax) put between `.att_syntax prefix` and the Intel directive in force again, where
    the assembler reads Intel syntax at the site: in a module printed in Intel syntax. The
    integrated assembler parses inline asm in its own dialect and prints it in the module's,
    but with -fno-integrated-as (and -masm=intel) LLVM prints it verbatim for GNU as, which
    then reads AT&T operands as Intel ("junk `(%rsp)' after expression").

    The syntax in force is followed statement by statement, as GNU as does: the module's
    `.intel_syntax noprefix` at its top, and any switch in the user's inline asm, also
    several on one line (`.intel_syntax noprefix; mov %0, %1; .att_syntax prefix`, after
    a label, before a `#` comment). In an AT&T module, and with the sites printed as
    instructions, nothing changes (the same string is returned)."""
    if ".intel_syntax" not in asm:
        return asm
    lines = asm.split("\n")
    out, intel, k, changed = [], None, 0, False
    while k < len(lines):
        if intel and k + 3 <= len(lines) and all(
                p.match(lines[k + j]) for j, p in enumerate(_SITE_TEXT)):
            out += ["\t.att_syntax prefix", *lines[k:k + 3], "\t" + intel]
            k += 3
            changed = True
            continue
        line = lines[k]
        if "_syntax" in line:
            for st in statements(line):
                m = _SYNTAX.match(st)
                if m:
                    intel = st if m.group(1) == "intel" else None
        out.append(line)
        k += 1
    return "\n".join(out) if changed else asm


_FILE_NUMBERED = re.compile(r"^[ \t]*\.file[ \t]+\d+[ \t].*$", re.M)
_FILE_MD5 = re.compile(r"[ \t]+md5[ \t]+0x[0-9a-fA-F]+")


def consistent_md5(asm: str) -> str:
    """asm with the MD5 checksums of its numbered `.file` directives (DWARF 5 line table)
    dropped when only some of them have one. clang 19 writes none for some files (C++
    headers reached through namespace-scope declarations, `std_abs.h`, `cstdlib`; an EH
    table's `<stdin>`), and its assembler then warns "inconsistent use of MD5 checksums"
    for each such directive, which `clang -c` of the same source never prints: the object
    writer, seeing not every file with one, writes the table without checksums. Dropping
    them all makes the same line table as `clang -c` without the warning. Found by an
    outside tester, h65e, 2026-12-06 (every C++ unit with -g that includes <cstdlib>).
    Unchanged (the same string) when all or none have one."""
    lines = _FILE_NUMBERED.findall(asm)
    with_md5 = sum(1 for ln in lines if _FILE_MD5.search(ln))
    if with_md5 == 0 or with_md5 == len(lines):
        return asm
    return _FILE_NUMBERED.sub(lambda m: _FILE_MD5.sub("", m.group(0)), asm)


def binding_asm(sites: dict[int, LiveSet], referenced: set[int]) -> str:
    """Stubs for every set used, and a binding for every referenced site (a site missing
    from the dump, which should not happen, gets the full stub)."""
    bind = {n: sites.get(n, LiveSet(full=True)) for n in sorted(referenced)}
    # The stubs are AT&T syntax, and clang may have written the module in Intel syntax
    # (-masm=intel: `.intel_syntax noprefix` at the top); they end the file, so nothing
    # after them needs the module's syntax back.
    parts = ["", "# ---- ito-cc: per-live-set yield stubs (compiler/itocc/stubs.py) ----",
             "\t.att_syntax prefix"]
    for ls in sorted(set(bind.values()), key=lambda s: s.name()):
        parts.append(stub(ls))
    parts.append("\t.text")
    for n, ls in bind.items():
        parts.append(f"\t.set .Lito_ys_{n}, {PREFIX}{ls.name()}")
    return "\n".join(parts) + "\n"
