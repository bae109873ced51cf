"""A parser for x86-64 MIR after register allocation (the part of it the census needs).

Input: the text `clang-19 -S -mllvm -stop-after=virtregrewriter` (or llc-19) writes: YAML
documents, one per machine function, each with `name:` and a `body: |` block of basic
blocks `bb.N[.name] [(attrs)]:` holding `successors:`, `liveins:` and one instruction per
line. From each instruction it keeps which registers it reads and writes:

  - operands before ` = ` are explicit defs; `implicit-def` and `def` operands are defs
    (of the register lanes they name, see regs.py);
    every other register operand is a use, except `undef` ones (they read nothing);
  - a register mask operand (`csr_64`, `CustomRegMask(...)`) clobbers every register it
    does not list as preserved;
  - memory operands (after ` :: `), debug locations and comments are dropped.

Meta instructions (DBG_*, CFI_INSTRUCTION, labels, KILL, IMPLICIT_DEF, ...) emit no code:
they are no census points, though KILL and IMPLICIT_DEF keep their register effects.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from .regs import (FLAGS, GPR, GPR64, REGMASK_PRESERVED_GPR, REGMASK_PRESERVES_VEC, VEC,
                   classify)

NGPR, NVEC, LANES = 16, 32, 4
VEC_SHIFT = NGPR * LANES           # bits 0..63: GPR lanes (4 per GPR), then vectors, then flags
FLAGS_BIT = VEC_SHIFT + NVEC
ALL_GPR = (1 << VEC_SHIFT) - 1
ALL_VEC = ((1 << NVEC) - 1) << VEC_SHIFT

META = {"DBG_VALUE", "DBG_VALUE_LIST", "DBG_LABEL", "DBG_INSTR_REF", "DBG_PHI",
        "CFI_INSTRUCTION", "EH_LABEL", "GC_LABEL", "ANNOTATION_LABEL", "KILL",
        "IMPLICIT_DEF", "LIFETIME_START", "LIFETIME_END", "PSEUDO_PROBE", "FAKE_USE",
        "MEMBARRIER", "JUMP_TABLE_DEBUG_INFO", "ARITH_FENCE"}
TERMINATOR_PREFIXES = ("JMP", "JCC", "RET", "TCRETURN", "TAILJMP", "EH_RETURN", "RETI",
                       "EH_SjLj_Setup", "INDIRECT_THUNK_TCRETURN")
_REG_FLAGS = {"implicit", "implicit-def", "def", "dead", "killed", "undef", "internal",
              "early-clobber", "debug-use", "renamable"}
_MI_FLAGS = {"frame-setup", "frame-destroy", "nnan", "ninf", "nsz", "arcp", "contract", "afn",
             "reassoc", "nuw", "nsw", "exact", "nofpexcept", "nneg", "disjoint",
             "unpredictable", "noconvergent", "samesign", "nomerge"}


def bit(cls: str, num: int, lanes: int = 0b1111) -> int:
    if cls == GPR:
        return lanes << (LANES * num)
    if cls == VEC:
        return 1 << (VEC_SHIFT + num)
    return 1 << FLAGS_BIT


@dataclass
class Instr:
    opcode: str
    uses: int = 0          # register lanes read (bit set, see bit())
    kills: int = 0         # register lanes written (defs, clobbers)
    meta: bool = False
    terminator: bool = False
    text: str = ""


@dataclass
class Block:
    num: int
    name: str = ""
    succs: list[int] = field(default_factory=list)
    liveins: int = 0
    has_liveins: bool = False
    landing_pad: bool = False
    instrs: list[Instr] = field(default_factory=list)


@dataclass
class Function:
    name: str
    blocks: list[Block] = field(default_factory=list)
    virtual_regs: bool = False  # not register-allocated: the census skips it
    frame_address_taken: bool = False  # frameInfo isFrameAddressTaken: rbp is the frame pointer


def _split_top(s: str) -> list[str]:
    """Split on commas outside (), <>, {}, [] and quotes."""
    out, depth, cur, quote = [], 0, [], False
    for ch in s:
        if quote:
            cur.append(ch)
            if ch == '"':
                quote = False
            continue
        if ch == '"':
            quote = True
        elif ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
            continue
        cur.append(ch)
    if "".join(cur).strip():
        out.append("".join(cur).strip())
    return out


_COMMENT = re.compile(r"/\*.*?\*/")
_REGTOK = re.compile(r"^\$([A-Za-z0-9_]+)(?::[a-z0-9_]+)?(?:\(tied-def \d+\))?$")
_VREG = re.compile(r"(?:^|[\s,(])%\d+(?:[\s,:)]|$)")
_CUSTOM = re.compile(r"CustomRegMask\((.*)\)")


def _regmask(tok: str) -> int | None:
    """Registers clobbered by a register mask operand, or None if tok is not one."""
    m = _CUSTOM.match(tok)
    if m:
        keep = [classify(r.strip()) for r in m.group(1).split(",") if r.strip()]
        kept = 0
        for k in keep:
            if k:
                kept |= bit(*k)
        return (ALL_GPR | ALL_VEC | (1 << FLAGS_BIT)) & ~kept
    if not re.fullmatch(r"csr_[a-z0-9_]+", tok):
        return None
    preserved = REGMASK_PRESERVED_GPR.get(tok)
    if preserved is None:
        preserved = REGMASK_PRESERVED_GPR["csr_64"]  # unknown mask: assume SysV
    kept = 0
    for r in preserved:
        kept |= bit(GPR, GPR64.index(r))
    if tok in REGMASK_PRESERVES_VEC:
        kept |= ALL_VEC
    return (ALL_GPR | ALL_VEC | (1 << FLAGS_BIT)) & ~kept


_TIED = re.compile(r"\(tied-def \d+\)")


def _reg_operand(tok: str, ins: Instr, explicit_def: bool) -> None:
    words = _TIED.sub("", tok).split()
    if not words:
        return
    flags = set(words[:-1])
    if not flags <= _REG_FLAGS:
        return
    m = _REGTOK.match(words[-1])
    if not m:
        return
    c = classify(m.group(1))
    if c is None:
        return
    b = bit(*c)
    if explicit_def or "implicit-def" in flags or "def" in flags:
        ins.kills |= b
    elif "undef" not in flags and "debug-use" not in flags:
        ins.uses |= b


def parse_instr(line: str) -> Instr:
    text = line.strip()
    body = _COMMENT.sub("", text)
    q = body.find(" :: ")
    if q >= 0:
        body = body[:q]
    defs_part, rest = "", body
    eq = body.find(" = ")
    first_op = re.search(r"(?:^|\s)[A-Z][A-Za-z0-9_]*(?:\s|$)", body)
    if eq >= 0 and (first_op is None or eq < first_op.start()):
        defs_part, rest = body[:eq], body[eq + 3:]
    words = rest.split(None, 1)
    while words and words[0] in _MI_FLAGS:
        words = words[1].split(None, 1) if len(words) > 1 else []
    opcode = words[0] if words else ""
    ops = words[1] if len(words) > 1 else ""
    ins = Instr(opcode=opcode, text=text)
    ins.meta = opcode in META or opcode.startswith("DBG_")
    ins.terminator = opcode.startswith(TERMINATOR_PREFIXES)
    if opcode.startswith("DBG_") or opcode == "CFI_INSTRUCTION":
        return ins
    for tok in _split_top(defs_part):
        _reg_operand(tok, ins, explicit_def=True)
    for tok in _split_top(ops):
        if tok.startswith(("debug-location", "debug-instr-number", "pcsections",
                           "pre-instr-symbol", "post-instr-symbol", "heap-alloc-marker",
                           "cfi-type", "mmra")):
            continue
        clob = _regmask(tok)
        if clob is not None:
            ins.kills |= clob
            continue
        _reg_operand(tok, ins, explicit_def=False)
    return ins


_BB = re.compile(r"^\s*bb\.(\d+)(?:\.([^\s(:]+))?\s*(?:\((.*)\))?\s*:\s*$")


def parse(text: str) -> list[Function]:
    funcs: list[Function] = []
    fn: Function | None = None
    in_body = False
    blk: Block | None = None
    for line in text.splitlines():
        if line.startswith("name:"):
            fn = Function(name=line.split(":", 1)[1].strip().strip("'\""))
            funcs.append(fn)
            in_body, blk = False, None
            continue
        if line.startswith("body:") and fn is not None:
            in_body = True
            continue
        if fn is not None and not in_body and line.strip() == "isFrameAddressTaken: true":
            # __builtin_frame_address reads $rbp before prologue insertion: there rbp is the
            # reserved frame pointer, not a value (LLVM's liveins: lists leave it out)
            fn.frame_address_taken = True
            continue
        if line.startswith(("...", "---")):
            in_body = False
            continue
        if not in_body or fn is None:
            continue
        s = line.strip()
        if not s or s.startswith(("#", ";")) or s in ("{", "}"):
            continue
        m = _BB.match(line)
        if m:
            blk = Block(num=int(m.group(1)), name=m.group(2) or "")
            attrs = m.group(3) or ""
            blk.landing_pad = "landing-pad" in attrs or "ehpad" in attrs
            ir = re.search(r"%ir-block\.([^\s,)]+)", attrs)
            if ir and not blk.name:
                blk.name = ir.group(1)
            fn.blocks.append(blk)
            continue
        if blk is None:
            continue
        if s.startswith("successors:"):
            blk.succs = [int(x) for x in re.findall(r"%bb\.(\d+)", s)]
            continue
        if s.startswith("liveins:"):
            blk.has_liveins = True
            for r in s.split(":", 1)[1].split(","):
                c = classify(r.strip())
                if c:
                    blk.liveins |= bit(*c)
            continue
        if _VREG.search(_COMMENT.sub("", s.split(" :: ")[0])):
            fn.virtual_regs = True
        blk.instrs.append(parse_instr(s))
    fp = ~(0b1111 << (LANES * GPR64.index("rbp")))
    for f in funcs:
        if f.frame_address_taken:
            for b in f.blocks:
                for ins in b.instrs:
                    ins.uses &= fp
                    ins.kills &= fp
    return funcs
