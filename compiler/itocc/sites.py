"""The registers live at each yield site of a compiled module, read from the final machine code.

The plugin's stub variant puts, on the cold path of each check, an inline-asm call of
`.Lito_ys_N` that the register allocator believes preserves every register. ito-cc compiles
the module once with `-mllvm -print-after=unpack-mi-bundles` (the last machine pass before
the assembly printer: prologue/epilogue insertion, block placement, copy propagation and
every pre-emit pass have run) and reads the machine code of every function from that dump.
For each site it computes the registers live right after the INLINEASM, which are exactly
the registers a stub must save and restore there:

  * backward liveness over the machine function (compiler/census: mir.py parses the
    instructions, explicit and implicit operands; kill flags are not trusted);
  * every return, tail call and block without successors reads rbx, rbp and r12-r15: the
    caller's values in callee-saved registers stay live until the epilogue restores them,
    and a register this function never saves holds a caller's value all along;
  * call register masks are not needed: a register a call clobbers cannot be live after it.

What a site's stub saves is its `LiveSet`: GPRs (rsp never, rbp always by the stub itself),
the vector registers by number and width (16 bytes, or 32 when the function uses ymm), or
`full` when the function touches state the per-register stubs do not handle (x87/MMX, mask
registers, zmm, xmm16-31): then the stub saves every GPR and XSAVEs the vector state.
"""
from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "census"))
from ito_census import mir  # noqa: E402
from ito_census.liveness import live_in_sets  # noqa: E402
from ito_census.regs import GPR, GPR64, classify  # noqa: E402

CALLEE_SAVED = ("rbx", "rbp", "r12", "r13", "r14", "r15")
DUMP_PASS = "unpack-mi-bundles"
SITE = re.compile(r"\.Lito_ys_(\d+)")
_FN_START = re.compile(r"^# Machine code for function (\S+?):")
_FN_END = re.compile(r"^# End machine code for function ")
_DUMP_HEAD = re.compile(r"^# \*\*\* IR Dump After ")
_WIDE = re.compile(r"\$(?:zmm\d+|k\d\b|fp\d|st\d|mm\d\b|xmm(?:1[6-9]|2\d|3[01])|ymm(?:1[6-9]|2\d|3[01]))")
_YMM = re.compile(r"\$ymm\d+")


@dataclass(frozen=True)
class LiveSet:
    gprs: tuple[str, ...] = ()     # in GPR64 order, without rsp and rbp
    vecs: tuple[int, ...] = ()     # xmm/ymm numbers 0..15
    width: int = 16                # bytes per vector register saved
    full: bool = False

    def __post_init__(self):
        # What a stub saves is all a set is: without vector registers the width saves
        # nothing (and a full set saves everything), so such sets are equal, as their stubs
        # and names are (binding_asm emits one stub per distinct set, under its name).
        if self.full:
            object.__setattr__(self, "gprs", ())
            object.__setattr__(self, "vecs", ())
        if not self.vecs:
            object.__setattr__(self, "width", 16)

    def name(self) -> str:
        if self.full:
            return "full"
        parts = list(self.gprs) + [("y" if self.width == 32 else "x") + str(v) for v in self.vecs]
        return "_".join(parts) or "none"

    def union(self, o: "LiveSet") -> "LiveSet":
        if self.full or o.full:
            return FULL
        g = set(self.gprs) | set(o.gprs)
        return LiveSet(tuple(r for r in GPR64 if r in g), tuple(sorted(set(self.vecs) | set(o.vecs))),
                       max(self.width, o.width))


FULL = LiveSet(full=True)


@dataclass
class Dump:
    """The machine functions of one dump, by name, as text blocks."""
    functions: dict[str, list[str]] = field(default_factory=dict)


def split_dump(stderr: str) -> tuple[Dump, str]:
    """Separate the machine-code dump from clang's other messages (returned as text)."""
    d, other, cur, after = Dump(), [], None, False
    for line in stderr.splitlines():
        if _DUMP_HEAD.match(line) or (after and not line.strip()):
            continue  # a dump's header, and the blank line that follows each function
        after = False
        m = _FN_START.match(line)
        if m:
            cur = d.functions.setdefault(m.group(1), [])
            cur.clear()  # a later dump of the same function replaces an earlier one
            continue
        if cur is not None:
            if _FN_END.match(line):
                cur, after = None, True
            else:
                cur.append(line)
            continue
        other.append(line)
    return d, "\n".join(other) + ("\n" if other else "")


def _bits(names) -> int:
    b = 0
    for n in names:
        c = classify(n)
        if c:
            b |= mir.bit(*c)
    return b


_CSR_BITS = _bits(CALLEE_SAVED)


def function_sites(name: str, lines: list[str]) -> dict[int, LiveSet]:
    """Sites of one machine function and the registers live after each."""
    text = "\n".join(lines)
    if not SITE.search(text):
        return {}
    fn = mir.parse(f"name: {name}\nbody: |\n" + text)[0]
    if _WIDE.search(text):
        return {int(n): FULL for n in SITE.findall(text)}
    width = 32 if _YMM.search(text) else 16
    # Exits read the callee-saved registers (see the module docstring).
    for b in fn.blocks:
        if not b.succs:
            b.instrs.append(mir.Instr(opcode="ITO_EXIT", uses=_CSR_BITS, meta=True))
    by_num = {b.num: b for b in fn.blocks}
    live_in = live_in_sets(fn)
    sites: dict[int, LiveSet] = {}
    for b in fn.blocks:
        live = 0
        for s in b.succs:
            if s in by_num:
                live |= live_in[s]
        for ins in reversed(b.instrs):
            if ins.opcode == "INLINEASM":
                for n in SITE.findall(ins.text):
                    ls = live_set(live, width)
                    k = int(n)
                    sites[k] = sites[k].union(ls) if k in sites else ls
            live = (live & ~ins.kills) | ins.uses
    return sites


def live_set(bits: int, width: int) -> LiveSet:
    gprs = []
    for k, r in enumerate(GPR64):
        if r in ("rsp", "rbp"):
            continue
        if bits & mir.bit(GPR, k):
            gprs.append(r)
    vecs = [v for v in range(16) if bits & (1 << (mir.VEC_SHIFT + v))]
    if any(bits & (1 << (mir.VEC_SHIFT + v)) for v in range(16, 32)):
        return FULL
    return LiveSet(tuple(gprs), tuple(vecs), width)


def module_sites(d: Dump) -> dict[int, LiveSet]:
    out: dict[int, LiveSet] = {}
    for name, lines in d.functions.items():
        for k, ls in function_sites(name, lines).items():
            out[k] = out[k].union(ls) if k in out else ls
    return out


def sites_in_asm(asm: str) -> set[int]:
    """The site numbers the assembly references (every one needs a binding)."""
    return {int(n) for n in SITE.findall(asm)}
