"""The MIR parser: operand forms, and agreement with LLVM's own block live-ins."""
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ito_census import compile as comp  # noqa: E402
from ito_census import mir, stats  # noqa: E402
from ito_census.mir import bit  # noqa: E402
from ito_census.regs import GPR, GPR64, VEC  # noqa: E402


def g(name: str, lanes: int = 0b1111) -> int:
    return bit(GPR, GPR64.index(name), lanes)


def test_defs_uses_flags_memops():
    i = mir.parse_instr("renamable $rsi = nuw nsw ADD64ri32 killed renamable $rsi, 32, "
                        "implicit-def dead $eflags, debug-location !12 :: (store (s64) into %ir.p)")
    assert i.opcode == "ADD64ri32" and not i.meta and not i.terminator
    assert i.uses == g("rsi")
    assert i.kills == g("rsi") | 1 << mir.FLAGS_BIT


def test_undef_use_reads_nothing_and_tied_def():
    i = mir.parse_instr("renamable $xmm0 = PXORrr undef renamable $xmm0(tied-def 0), "
                        "undef renamable $xmm0")
    assert i.uses == 0 and i.kills == bit(VEC, 0)


def test_killed_tied_use_is_a_use():
    # Regression: "$rdi(tied-def 0)" after other flags was not read as a use (the
    # whitespace split broke the tie marker), so two-address updates ended liveness.
    i = mir.parse_instr("renamable $rdi = nuw nsw INC64r killed renamable $rdi(tied-def 0), "
                        "implicit-def dead $eflags")
    assert i.uses == g("rdi") and i.kills & g("rdi")


def test_inline_asm_operands():
    i = mir.parse_instr('INLINEASM &"movl $1, $0; # a, b", 0 /* attdialect */, '
                        '2359306 /* regdef:GR32 */, def $eax, 2359305 /* reguse:GR32 */, '
                        'killed $ecx, 12 /* clobber */, implicit-def dead early-clobber $df')
    assert i.kills == g("rax") and i.uses == g("rcx")


def test_custom_regmask_and_unknown_mask():
    i = mir.parse_instr("CALL64r killed renamable $r11, CustomRegMask($rbx,$rbp,$r12,$r13,$r14,"
                        "$r15,$rdi), implicit $rsp")
    assert not i.kills & g("rdi") and i.kills & g("rsi") and i.uses & g("r11")
    j = mir.parse_instr("CALL64pcrel32 @f, csr_64_noneregs, implicit $rsp")
    assert j.kills & g("rbx") and not j.kills & g("rbp")


def test_meta_and_terminators():
    assert mir.parse_instr("DBG_VALUE $eax, $noreg, !1, !DIExpression()").meta
    assert mir.parse_instr("CFI_INSTRUCTION def_cfa_offset 16").meta
    assert mir.parse_instr("JCC_1 %bb.2, 4, implicit killed $eflags").terminator
    assert mir.parse_instr("TCRETURNdi64 @g, 0, csr_64, implicit $rsp, implicit $rdi").terminator
    k = mir.parse_instr("$eax = KILL killed $eax, implicit-def $rax")
    assert k.meta and k.kills == g("rax") and k.uses == g("rax")


@pytest.mark.skipif(not (shutil.which("clang-19") or Path("/usr/lib/llvm-19/bin/clang").exists()),
                    reason="clang-19 not installed")
def test_computed_liveins_match_llvm_on_real_code():
    src = r"""
    #include <string.h>
    struct s { long a, b; unsigned char c; short d; };
    long use(struct s *p, int n, const char *t) {
        long r = 0; unsigned char x = 0;
        for (int i = 0; i < n; i++) {
            p[i].c = (unsigned char)(p[i].c + x); x ^= (unsigned char)p[i].d;
            r += p[i].a * p[i].b + (long)strlen(t + i % 3);
            if (r & 1) r = r / 3 + x; else r = r * 5 - i;
        }
        return r + x;
    }
    double mix(double *v, int n) { double s = 0; for (int i = 0; i < n; i++) s = s * 0.5 + v[i]; return s; }
    """
    with tempfile.TemporaryDirectory() as tmp:
        p = Path(tmp) / "t.c"
        p.write_text(src)
        for opt in ("-O0", "-O2"):
            fns = mir.parse(comp.mir_text(comp.Unit("t", "other", p), opt))
            c = stats.census_of(fns)
            assert c.functions == 2 and c.instructions > 20
            assert c.livein_checked > 0 and c.livein_mismatch == 0


# __builtin_frame_address(0) (src/core/thread.c run_inline) reads $rbp before prologue
# insertion: rbp is then the reserved frame pointer, not a value, and LLVM's liveins: leave it out
FRAME_ADDRESS = """---
name: fa
frameInfo:
  isFrameAddressTaken: true
body: |
  bb.0.entry:
    successors: %bb.1(0x80000000)
    liveins: $rdi
    MOV64mr $rdi, 1, $noreg, 0, $noreg, $rbp
  bb.1.next:
    liveins: $rdi
    MOV64mr killed $rdi, 1, $noreg, 8, $noreg, $rbp
    RET 0
...
"""


def test_frame_pointer_read_is_not_a_live_value():
    fns = mir.parse(FRAME_ADDRESS)
    c = stats.census_of(fns)
    assert c.livein_checked == 2 and c.livein_mismatch == 0
    # without the frameInfo flag the same body would make rbp live into both blocks
    plain = stats.census_of(mir.parse(FRAME_ADDRESS.replace("  isFrameAddressTaken: true\n", "")))
    assert plain.livein_mismatch == 2
