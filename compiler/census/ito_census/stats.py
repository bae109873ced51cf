"""What the census reports: per-block minima (paper Table 1) and the distribution of live
registers per instruction (paper Fig. 1).

Counting: the 16 GPRs except rsp (the stack pointer is the thread's identity, saved by
every switch); rbp counts whenever it holds a live value (as a frame pointer it is not
referenced before prologue insertion, so it is not live then). Vector registers and EFLAGS
are counted separately and never mixed into the GPR numbers.

Per block, over its points (see liveness.py): the minimum and whether it occurs at the
beginning, at the end, or only in the middle (a block counts for both ends when both reach
the minimum, as in the paper); the loss of looking only at the ends is
min(live at beginning, live at end) - minimum.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from .liveness import BlockLive
from .mir import ALL_GPR, FLAGS_BIT, LANES, NGPR, VEC_SHIFT
from .regs import RSP

GPR_COUNTED = ALL_GPR & ~(0b1111 << (LANES * RSP))
VEC_MASK = ((1 << 32) - 1) << VEC_SHIFT


def gpr_set(live: int) -> int:
    """One bit per GPR (bit n: GPR n) with any live lane; rsp excluded."""
    live &= GPR_COUNTED
    return sum(1 << n for n in range(NGPR) if live >> (LANES * n) & 0b1111)


def ngpr(live: int) -> int:
    return bin(gpr_set(live)).count("1")


def nvec(live: int) -> int:
    return bin(live & VEC_MASK).count("1")


def flags_live(live: int) -> bool:
    return bool(live >> FLAGS_BIT & 1)


@dataclass
class BlockStat:
    function: str
    block: int
    name: str
    npoints: int
    max_live: int
    min_live: int
    begin: int
    end: int
    min_at_begin: bool
    min_at_end: bool
    vec_begin: int
    vec_end: int
    vec_min: int

    @property
    def middle_only(self) -> bool:
        return not (self.min_at_begin or self.min_at_end)

    @property
    def ends_loss(self) -> int:
        return min(self.begin, self.end) - self.min_live


def block_stat(function: str, bl: BlockLive) -> BlockStat:
    g = [ngpr(p) for p in bl.points]
    v = [nvec(p) for p in bl.points]
    lo = min(g)
    return BlockStat(function, bl.block.num, bl.block.name, len(g), max(g), lo, g[0], g[-1],
                     g[0] == lo, g[-1] == lo, v[0], v[-1], min(v))


@dataclass
class Census:
    blocks: list[BlockStat] = field(default_factory=list)
    gpr_hist: Counter = field(default_factory=Counter)   # live GPRs -> instructions
    vec_hist: Counter = field(default_factory=Counter)
    flags_live: int = 0
    instructions: int = 0
    functions: int = 0
    skipped_functions: list[str] = field(default_factory=list)
    livein_mismatch: int = 0   # blocks whose computed GPR live-in differs from MIR liveins
    livein_checked: int = 0
    estimate: "EstimateCheck | None" = None  # the plugin's IR choices against this census

    def add_function(self, name: str, blocks: list[BlockLive]) -> None:
        self.functions += 1
        for bl in blocks:
            if bl.block.has_liveins:
                self.livein_checked += 1
                if gpr_set(bl.live_in) != gpr_set(bl.block.liveins):
                    self.livein_mismatch += 1
            self.blocks.append(block_stat(name, bl))
            for live in bl.per_instr:
                self.gpr_hist[ngpr(live)] += 1
                self.vec_hist[nvec(live)] += 1
                self.flags_live += flags_live(live)
                self.instructions += 1

    def merge(self, other: "Census") -> None:
        self.blocks += other.blocks
        self.gpr_hist.update(other.gpr_hist)
        self.vec_hist.update(other.vec_hist)
        self.flags_live += other.flags_live
        self.instructions += other.instructions
        self.functions += other.functions
        self.skipped_functions += other.skipped_functions
        self.livein_mismatch += other.livein_mismatch
        self.livein_checked += other.livein_checked
        if other.estimate is not None:
            if self.estimate is None:
                self.estimate = EstimateCheck()
            self.estimate.merge(other.estimate)

    def mean_live(self) -> float:
        n = sum(self.gpr_hist.values())
        return sum(k * v for k, v in self.gpr_hist.items()) / n if n else 0.0


TABLE1_HEADER = ["max live (#regs)", "blocks", "opt. in begin. (%)", "opt. in middle only (%)",
                 "opt. at end (%)", "aver. min (#regs)", "aver. min(ends) - opt (#regs)"]


def table1(blocks: list[BlockStat], min_max_live: int = 1) -> list[list]:
    """One row per maximum live count (paper Table 1), from min_max_live upwards."""
    rows = []
    for m in sorted({b.max_live for b in blocks if b.max_live >= min_max_live}):
        sel = [b for b in blocks if b.max_live == m]
        n = len(sel)
        rows.append([m, n,
                     100.0 * sum(b.min_at_begin for b in sel) / n,
                     100.0 * sum(b.middle_only for b in sel) / n,
                     100.0 * sum(b.min_at_end for b in sel) / n,
                     sum(b.min_live for b in sel) / n,
                     sum(b.ends_loss for b in sel) / n])
    return rows


def table1_total(blocks: list[BlockStat], min_max_live: int = 1) -> list:
    sel = [b for b in blocks if b.max_live >= min_max_live]
    n = len(sel) or 1
    return ["all", len(sel),
            100.0 * sum(b.min_at_begin for b in sel) / n,
            100.0 * sum(b.middle_only for b in sel) / n,
            100.0 * sum(b.min_at_end for b in sel) / n,
            sum(b.min_live for b in sel) / n,
            sum(b.ends_loss for b in sel) / n]


def census_of(functions) -> Census:
    """Census of parsed MIR functions (mir.Function list)."""
    from .liveness import analyze
    c = Census()
    for fn in functions:
        if fn.virtual_regs or not fn.blocks:
            c.skipped_functions.append(fn.name)
            continue
        c.add_function(fn.name, analyze(fn))
    return c


# The paper's Table 1 (DENbench 1.0, LLVM 2.2, linear scan, 16 registers), for comparison.
PAPER_TABLE1 = [
    [1, 44.6, 0.1, 99.9, 0.4, 0.0], [2, 49.7, 7.8, 81.9, 0.9, 0.1],
    [3, 55.5, 18.9, 49.8, 1.4, 0.2], [4, 56.5, 22.3, 38.8, 1.8, 0.2],
    [5, 58.3, 22.7, 35.2, 2.1, 0.3], [6, 59.9, 23.3, 32.7, 2.6, 0.2],
    [7, 58.6, 25.2, 28.1, 2.9, 0.3], [8, 51.3, 27.5, 40.7, 3.8, 0.3],
    [9, 53.0, 28.5, 37.3, 4.2, 0.3], [10, 62.9, 28.9, 30.2, 4.3, 0.3],
    [11, 68.1, 16.9, 37.4, 4.4, 0.2], [12, 68.4, 15.8, 33.7, 2.9, 0.2],
    [13, 66.7, 13.3, 26.7, 3.3, 0.1], [14, 100.0, 0.0, 0.0, 3.0, 0.0],
]
NGPR_COUNTED = NGPR - 1


@dataclass
class EstimateCheck:
    """The plugin's begin/end choice (IR liveness) judged by machine liveness.

    Blocks are matched by (function, IR block name); a machine block carries the name of
    the IR block it starts, so an IR block that instruction selection split is judged on
    its first machine block. Sums of live GPRs at the chosen point, over matched blocks."""
    matched: int = 0
    agree: int = 0           # the IR choice is a side with the fewer machine-live GPRs
    sum_begin: int = 0       # always the beginning (the paper's case study)
    sum_end: int = 0         # always the end
    sum_choice: int = 0      # the plugin's choice
    sum_best_end: int = 0    # the better end by machine liveness
    sum_min: int = 0         # the block's minimum anywhere

    def merge(self, o: "EstimateCheck") -> None:
        for k in self.__dataclass_fields__:
            setattr(self, k, getattr(self, k) + getattr(o, k))

    def means(self) -> dict:
        n = self.matched or 1
        return {"matched": self.matched, "agree_pct": 100.0 * self.agree / n,
                "begin": self.sum_begin / n, "end": self.sum_end / n,
                "plugin": self.sum_choice / n, "best_end": self.sum_best_end / n,
                "min": self.sum_min / n}


def compare_estimate(blocks: list[BlockStat], choices: dict) -> EstimateCheck:
    e = EstimateCheck()
    for b in blocks:
        ch = choices.get((b.function, b.name))
        if ch is None:
            continue
        live = b.begin if ch[0] == "begin" else b.end
        best = min(b.begin, b.end)
        e.matched += 1
        e.agree += live == best
        e.sum_begin += b.begin
        e.sum_end += b.end
        e.sum_choice += live
        e.sum_best_end += best
        e.sum_min += b.min_live
    return e
