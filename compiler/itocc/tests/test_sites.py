"""The live sets ito-cc reads from a machine-code dump, and the stubs it writes for them."""
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from itocc import sites, stubs  # noqa: E402

ASM = ('INLINEASM &"lea -128(%rsp), %rsp\\0A\\09call .Lito_ys_{n}\\0A\\09lea 128(%rsp), %rsp" '
       '[sideeffect] [mayload] [maystore] [attdialect], $0:[clobber], implicit-def dead '
       'early-clobber $df, $1:[clobber], implicit-def early-clobber $fpsw, $2:[clobber], '
       'implicit-def dead early-clobber $eflags')

# f saves rbx (prologue) and uses it for its own value; r12..r15 it never touches (they hold
# its caller's values). At site 0, rdi and xmm1 are read later, rax is dead (overwritten),
# rbx holds f's value and is read later. At site 1 (after rbx's last use), rbx is dead for
# f but the epilogue restores it: not live; r12-r15 stay live throughout.
DUMP = """# *** IR Dump After Unpack machine instruction bundles (unpack-mi-bundles) ***:
# Machine code for function f: NoPHIs, TracksLiveness, NoVRegs
Function Live Ins: $rdi, $xmm1

bb.0 (%ir-block.0):
  successors: %bb.1(0x80000000); %bb.1(100.00%)
  liveins: $rdi, $xmm1, $rbx
  frame-setup PUSH64r killed $rbx, implicit-def $rsp, implicit $rsp
  $rbx = MOV64rr $rdi
  {asm0}
  $rax = MOV64ri 7
  $rdi = ADD64rr killed $rdi(tied-def 0), killed $rbx, implicit-def dead $eflags
  $xmm0 = ADDSDrr killed $xmm0(tied-def 0), killed $xmm1

bb.1:
; predecessors: %bb.0
  liveins: $rdi, $xmm0
  {asm1}
  $rbx = frame-destroy POP64r implicit-def $rsp, implicit $rsp
  RET64 implicit $rax, implicit $xmm0

# End machine code for function f.
clang: warning: something the user should see
"""


def dump():
    return DUMP.format(asm0=ASM.format(n=0), asm1=ASM.format(n=1))


def test_split_dump_keeps_other_messages():
    d, other = sites.split_dump(dump())
    assert list(d.functions) == ["f"]
    assert "clang: warning: something the user should see" in other
    assert "Machine code" not in other


def test_live_sets_at_the_sites():
    d, _ = sites.split_dump(dump())
    s = sites.module_sites(d)
    # site 0: rbx (f's value, read later), rdi, the untouched callee-saved r12-r15, xmm0
    # and xmm1 (read by ADDSD); not rax (written before any read).
    assert s[0].gprs == ("rbx", "rdi", "r12", "r13", "r14", "r15")
    assert s[0].vecs == (0, 1)
    # site 1: rax is read by the return: live; rbx is restored by the epilogue: dead here.
    assert s[1].gprs == ("rax", "r12", "r13", "r14", "r15")
    assert s[1].vecs == (0,)
    assert not s[0].full and s[0].width == 16


def test_x87_or_zmm_take_the_full_stub():
    text = dump().replace("$xmm0 = ADDSDrr", "$zmm0 = VADDPDZrr")
    d, _ = sites.split_dump(text)
    assert all(ls.full for ls in sites.module_sites(d).values())


def test_a_site_missing_from_the_dump_gets_the_full_stub():
    asm = stubs.binding_asm({}, {3})
    assert ".set .Lito_ys_3, __ito_ys_full" in asm
    assert "xsave64" in asm


def test_full_stub_leaves_the_x87_stack_empty_while_switched():
    # XSAVE keeps the x87 registers loaded; the next ULT must find the stack empty
    text = stubs.stub(sites.FULL)
    save, call = text.index("xsave64"), text.index("callq ito_coop_yield@PLT")
    assert save < text.index("emms") < call < text.index("xrstor64")


def test_stub_saves_and_restores_exactly_its_set():
    ls = sites.LiveSet(("rax", "r12"), (2,), 16)
    text = stubs.stub(ls)
    assert "pushq %rax" in text and "pushq %r12" in text and "pushq %rbx" not in text
    assert "movdqu %xmm2, -32(%rbp)" in text and "movdqu -32(%rbp), %xmm2" in text
    assert "movq -8(%rbp), %rax" in text and "movq -16(%rbp), %r12" in text
    assert text.index("callq ito_coop_yield@PLT") < text.index("movq -8(%rbp), %rax")


def test_sets_of_one_name_are_one_set_with_one_stub():
    # a site without live vectors in a function using ymm, and one in a function using xmm
    wide, narrow = sites.LiveSet(("rax", "rbx"), (), 32), sites.LiveSet(("rax", "rbx"), (), 16)
    assert wide == narrow and wide.name() == narrow.name()
    asm = stubs.binding_asm({0: wide, 1: narrow}, {0, 1})
    assert asm.count("__ito_ys_rax_rbx:") == 1


def test_union_of_two_copies_of_a_site():
    a = sites.LiveSet(("rax",), (1,), 16)
    b = sites.LiveSet(("rbx",), (3,), 32)
    u = a.union(b)
    assert u.gprs == ("rax", "rbx") and u.vecs == (1, 3) and u.width == 32
    assert a.union(sites.FULL).full


@pytest.mark.skipif(subprocess.run(["which", "clang-19"], capture_output=True).returncode != 0,
                    reason="clang-19 is not installed")
def test_generated_stubs_assemble():
    sets = {0: sites.LiveSet(("rax", "rdx", "r11"), (0, 15), 16),
            1: sites.LiveSet((), (), 16), 2: sites.LiveSet(("rcx",), (3,), 32), 3: sites.FULL}
    src = "\t.text\n" + "".join(f"\tcall .Lito_ys_{n}\n" for n in sets) + \
        stubs.binding_asm(sets, set(sets))
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "s.s"
        p.write_text(src)
        cp = subprocess.run(["clang-19", "-c", str(p), "-o", str(Path(d) / "s.o")],
                            capture_output=True, text=True)
        assert cp.returncode == 0, cp.stderr
