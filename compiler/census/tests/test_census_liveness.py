"""The census on small MIR functions whose liveness was worked out by hand."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ito_census import liveness, mir, stats  # noqa: E402


def wrap(name: str, body: str) -> str:
    return f"---\nname: {name}\nbody: |\n{body}\n...\n"


BRANCHY = wrap("f", """
  bb.0.entry:
    successors: %bb.1(0x40000000), %bb.2(0x40000000)
    liveins: $edi, $esi
    renamable $eax = MOV32rr $edi
    renamable $eax = ADD32rr killed renamable $eax, killed renamable $esi, implicit-def dead $eflags
    TEST32rr renamable $eax, renamable $eax, implicit-def $eflags
    JCC_1 %bb.2, 4, implicit killed $eflags
  bb.1.double:
    successors: %bb.2(0x80000000)
    liveins: $eax
    renamable $eax = SHL32ri killed renamable $eax, 1, implicit-def dead $eflags
  bb.2.out:
    liveins: $eax
    RET 0, $eax
""")


def counts(bl):
    return [stats.ngpr(p) for p in bl.points]


def test_branchy_points_and_histogram():
    (fn,) = mir.parse(BRANCHY)
    b0, b1, b2 = liveness.analyze(fn)
    # bb.0: before MOV {rdi,rsi}, ADD {rax,rsi}, TEST {rax}, JCC {rax}+flags
    assert counts(b0) == [2, 2, 1, 1]
    assert stats.flags_live(b0.points[-1]) and not stats.flags_live(b0.points[-2])
    # bb.1 has no terminator: the point after SHL is its live-out {rax}
    assert counts(b1) == [1, 1]
    assert counts(b2) == [1]
    c = stats.census_of([fn])
    assert c.instructions == 6
    assert dict(c.gpr_hist) == {2: 2, 1: 4}
    assert c.flags_live == 1
    assert c.livein_checked == 3 and c.livein_mismatch == 0
    s0 = c.blocks[0]
    assert (s0.begin, s0.end, s0.min_live, s0.max_live) == (2, 1, 1, 2)
    assert s0.min_at_end and not s0.min_at_begin and s0.ends_loss == 0


def test_subregister_lanes():
    # al and ah are written separately; cx reads both; RET reads all of ecx, so the upper
    # lanes of rcx (never written here) are live from the start.
    (fn,) = mir.parse(wrap("lanes", """
  bb.0:
    liveins: $rdi, $rcx
    $al = MOV8ri 1
    $ah = MOV8ri 2
    $cx = MOV16rr $ax
    RET 0, $ecx
"""))
    (b,) = liveness.analyze(fn)
    assert counts(b) == [1, 2, 2, 1]
    # rdi is never read: not live, although it is a live-in of the MIR
    assert stats.gpr_set(b.live_in) == 1 << 1  # rcx only


def test_call_clobbers_and_callee_saved():
    (fn,) = mir.parse(wrap("calls", """
  bb.0:
    liveins: $rdi, $rbx
    $r12 = COPY $rdi
    $rsi = COPY $rbx
    CALL64pcrel32 target-flags(x86-plt) @g, csr_64, implicit $rsp, implicit $ssp, implicit $rdi, implicit-def $rsp, implicit-def $ssp, implicit-def $eax
    $eax = ADD32rr $eax, $r12d, implicit-def dead $eflags
    RET 0, $eax
"""))
    (b,) = liveness.analyze(fn)
    # rsi is written and clobbered by the call unread: dead; r12 survives the call;
    # rsp (read by the call) is never counted.
    assert counts(b) == [2, 3, 2, 2, 1]


def test_middle_only_and_loss():
    (fn,) = mir.parse(wrap("mid", """
  bb.0:
    successors: %bb.1(0x80000000)
    liveins: $rdi, $rsi, $rdx
    $rax = ADD64rr $rdi, $rsi, implicit-def dead $eflags
    $rax = ADD64rr $rax, $rdx, implicit-def dead $eflags
    $rcx = MOV64ri 5
    $rdx = MOV64ri 6
  bb.1:
    liveins: $rax, $rcx, $rdx
    $rax = ADD64rr $rax, $rcx, implicit-def dead $eflags
    $rax = ADD64rr $rax, $rdx, implicit-def dead $eflags
    RET 0, $rax
"""))
    b0, b1 = liveness.analyze(fn)
    assert counts(b0) == [3, 2, 1, 2, 3]
    assert counts(b1) == [3, 2, 1]
    c = stats.census_of([fn])
    s0, s1 = c.blocks
    assert s0.middle_only and s0.ends_loss == 2 and s0.min_live == 1
    assert s1.min_at_end and not s1.middle_only and s1.ends_loss == 0
    rows = stats.table1(c.blocks)
    assert rows == [[3, 2, 0.0, 50.0, 50.0, 1.0, 1.0]]


def test_loop_back_edge():
    (fn,) = mir.parse(wrap("loop", """
  bb.0:
    successors: %bb.1(0x80000000)
    liveins: $rdi
    $eax = MOV32r0 implicit-def dead $eflags
  bb.1:
    successors: %bb.1(0x7c000000), %bb.2(0x04000000)
    liveins: $rax, $rdi
    $rax = ADD64rr $rax, $rdi, implicit-def dead $eflags
    $rdi = DEC64r $rdi, implicit-def $eflags
    JCC_1 %bb.1, 5, implicit $eflags
  bb.2:
    liveins: $eax
    RET 0, $eax
"""))
    b0, b1, b2 = liveness.analyze(fn)
    assert counts(b0) == [1, 2]
    assert counts(b1) == [2, 2, 2]
    assert stats.census_of([fn]).livein_mismatch == 0


def test_table1_percentages_count_both_ends():
    # A block whose minimum is at both ends counts for both columns (the paper's rule).
    (fn,) = mir.parse(wrap("both", """
  bb.0:
    liveins: $rdi
    $rax = COPY $rdi
    RET 0, $rax
"""))
    c = stats.census_of([fn])
    (row,) = stats.table1(c.blocks)
    assert row[:5] == [1, 1, 100.0, 0.0, 100.0]


def test_virtual_registers_are_skipped():
    (fn,) = mir.parse(wrap("notyet", """
  bb.0:
    %0:gr32 = COPY $edi
    RET 0, %0
"""))
    c = stats.census_of([fn])
    assert c.skipped_functions == ["notyet"] and c.instructions == 0
