"""Backward liveness of physical registers over a register-allocated machine function.

A register is live at a point if some path from the point reads it before writing all of
it. Computed from scratch (kill flags and `liveins:` lists are not trusted; the latter are
compared with the result as a check of the parser):

    live_out(B) = union of live_in(S) over B's successors S
    live_in(B)  = transfer of live_out(B) backwards through B's instructions
    before(I)   = (after(I) - kills(I)) | uses(I)

Blocks without successors (returns, tail calls, calls that do not return) have nothing
live out: the return value is live because the return instruction reads it. Registers
holding the caller's values in callee-saved registers are *not* live (a function's own
values are counted, as in the paper's all-caller-saved convention); before prologue
insertion those registers are simply not referenced unless the function allocates them.

Points of a block: before each instruction that emits code (meta instructions excluded),
up to and including its first terminator; a block without a terminator has one more point
after its last instruction (its live-out). The first point is the block's beginning, the
last its end (the end is before the branch, where a yield would go).
"""
from __future__ import annotations

from dataclasses import dataclass

from .mir import Block, Function


@dataclass
class BlockLive:
    block: Block
    live_in: int
    live_out: int
    points: list[int]        # live registers (bit sets) at the block's points, in order
    per_instr: list[int]     # live before each code-emitting instruction of the block


def live_in_sets(fn: Function) -> dict[int, int]:
    """The registers live into each block (by number): the backward fixpoint."""
    live_in = {b.num: 0 for b in fn.blocks}
    changed = True
    while changed:
        changed = False
        for b in reversed(fn.blocks):
            live = 0
            for s in b.succs:
                live |= live_in.get(s, 0)
            for ins in reversed(b.instrs):
                live = (live & ~ins.kills) | ins.uses
            if live != live_in[b.num]:
                live_in[b.num], changed = live, True
    return live_in


def analyze(fn: Function) -> list[BlockLive]:
    by_num = {b.num: b for b in fn.blocks}
    live_in = live_in_sets(fn)
    result = []
    for b in fn.blocks:
        out = 0
        for s in b.succs:
            if s in by_num:
                out |= live_in[s]
        before = [0] * len(b.instrs)
        live = out
        for i in range(len(b.instrs) - 1, -1, -1):
            ins = b.instrs[i]
            live = (live & ~ins.kills) | ins.uses
            before[i] = live
        real = [i for i, ins in enumerate(b.instrs) if not ins.meta]
        first_term = next((i for i in real if b.instrs[i].terminator), None)
        if first_term is None:
            points = [before[i] for i in real] + [out]
        else:
            points = [before[i] for i in real if i <= first_term]
        result.append(BlockLive(b, live_in[b.num], out, points, [before[i] for i in real]))
    return result
