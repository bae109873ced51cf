"""The x86-64 register file as the census sees it.

GPRs are numbered 0..15 in hardware encoding order (rax rcx rdx rbx rsp rbp rsi rdi r8..r15),
and liveness is tracked per lane, as LLVM does for sub-registers: lane 0 = bits 0-7 (al),
lane 1 = bits 8-15 (ah), lane 2 = bits 16-31, lane 3 = bits 32-63. A name covers lanes:
rax/eax all four (a 32-bit write zero-extends, so it replaces the whole register), ax lanes
0-1, al lane 0, ah lane 1 (LLVM's artificial hax/r8wh: lane 2). A write ends the liveness of
the lanes it covers only; a GPR is live when any of its lanes is. Vector registers xmm/ymm/zmm 0..31 map to one vector number each (any write counts as
a full write). EFLAGS is one register of its own. Everything else (rip, segment registers,
x87 and MMX, mask registers, mxcsr, fpcw, ssp, df) is ignored.
"""
from __future__ import annotations

import re

GPR64 = ["rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
         "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15"]
RSP = GPR64.index("rsp")
RBP = GPR64.index("rbp")

GPR, VEC, FLAGS = "gpr", "vec", "flags"


L_ALL, L_16, L_LO8, L_HI8, L_HI16 = 0b1111, 0b0011, 0b0001, 0b0010, 0b0100


def _gpr_table() -> dict[str, tuple[int, int]]:
    """name -> (gpr number, lanes)"""
    t: dict[str, tuple[int, int]] = {}
    legacy = {"rax": ("eax", "ax", "al", "ah"), "rcx": ("ecx", "cx", "cl", "ch"),
              "rdx": ("edx", "dx", "dl", "dh"), "rbx": ("ebx", "bx", "bl", "bh"),
              "rsp": ("esp", "sp", "spl", None), "rbp": ("ebp", "bp", "bpl", None),
              "rsi": ("esi", "si", "sil", None), "rdi": ("edi", "di", "dil", None)}
    for r64, (r32, r16, r8, r8h) in legacy.items():
        n = GPR64.index(r64)
        t[r64] = (n, L_ALL)
        t[r32] = (n, L_ALL)
        t[r16] = (n, L_16)
        t[r8] = (n, L_LO8)
        t["h" + r16] = (n, L_HI16)  # LLVM's artificial high 16 bits of the 32 (hax, hsp, ...)
        if r8h:
            t[r8h] = (n, L_HI8)
    for k in range(8, 16):
        n = GPR64.index(f"r{k}")
        t[f"r{k}"] = (n, L_ALL)
        t[f"r{k}d"] = (n, L_ALL)
        t[f"r{k}w"] = (n, L_16)
        t[f"r{k}b"] = (n, L_LO8)
        t[f"r{k}wh"] = (n, L_HI16)
        t[f"r{k}bh"] = (n, L_HI8)
    return t


_GPRS = _gpr_table()
_VEC = re.compile(r"^[xyz]mm(\d+)$")


def classify(name: str) -> tuple[str, int, int] | None:
    """'$eax' -> ('gpr', 0, 0b1111), '$ah' -> ('gpr', 0, 0b0010); None when ignored."""
    n = name.lstrip("$").lower()
    if n in _GPRS:
        num, lanes = _GPRS[n]
        return GPR, num, lanes
    m = _VEC.match(n)
    if m:
        return VEC, int(m.group(1)), 1
    if n == "eflags":
        return FLAGS, 0, 1
    return None


# Register masks of calls: the registers a callee preserves. Everything else it clobbers.
_CALLEE_SAVED_SYSV = {"rbx", "rbp", "rsp", "r12", "r13", "r14", "r15"}
REGMASK_PRESERVED_GPR: dict[str, set[str]] = {
    "csr_64": _CALLEE_SAVED_SYSV,
    "csr_64_tls_darwin": _CALLEE_SAVED_SYSV,
    "csr_64_swifterror": _CALLEE_SAVED_SYSV - {"r12"},
    "csr_64_noneregs": {"rbp", "rsp"},           # preserve_none
    "csr_noregs": {"rsp"},
    "csr_64_mostregs": set(GPR64) - {"r11"},       # preserve_most
    "csr_64_rt_mostregs": set(GPR64) - {"r11"},
    "csr_64_allregs": set(GPR64),                  # preserve_all
    "csr_64_rt_allregs": set(GPR64),
    "csr_64_allregs_avx": set(GPR64),
    "csr_64_allregs_avx512": set(GPR64),
}
# Vector registers preserved by those masks (SysV preserves none).
REGMASK_PRESERVES_VEC = {"csr_64_allregs", "csr_64_rt_allregs", "csr_64_allregs_avx",
                         "csr_64_allregs_avx512", "csr_64_mostregs"}
