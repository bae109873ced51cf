"""The simulated half of `ito-lab psafe`: the paper's 8-processor bus machine (<build>/sim/busmp/busmp)
runs the program mixes of Tables 4 and 5 and Sect. 5.2 under the preemption policy and the
preemption-safe policy with each of three compensation rules, side by side:

  sitout   the paper's Fig. 4 literally: a delayed gang leaves the run queue for `delay` cycles and
           re-enters at the tail (expired gangs re-enter before the gang that just ran);
  shorten  the paper's introduction: "subtracting any extra time ... from their next quantum" (fair
           by construction);
  runtime  ito's own rule (src/preempt/gang.c): whole turns skipped per quantum of debt, the gang
           runs on while its switch is pending, quanta on one periodic tick grid; compared with a
           preemption run on the same tick grid (variant preempt_grid).

Besides Figs. 5-9 it writes where each blocked program's time goes (instructions, miss penalties,
signals, barrier waits, idle, waiting for the other gangs, and the compensation credit = machine
time received beyond round robin), the Sect. 5.3 comparison (time saved against the signal cost,
and how much of the saving the cache explains), a sweep of the delay bound and a sweep of the
instruction cost that brings the runs to the lengths the paper's Sect. 5.3 implies.  Every run
checks its programs' results (column `check`); a wrong result fails the experiment.
"""
from __future__ import annotations

import concurrent.futures as cf
from pathlib import Path

from ..plot import plt  # matplotlib at the first plot
from ..progress import steps
from ..report import image, markdown_table, write_csv
from .common import (BOUND_QUANTA, LABEL, MIXES, PAPER, PAPER_DELAYED, PAPER_GAIN_L5,
                     PAPER_IMPLIED_TIME_L5, PAPER_SIGNAL_COST_L5, pct, run_csv)

# variant -> (policy, rule preset of busmp)
VARIANTS = {
    "preempt": ("preempt", "paper"),
    "sitout": ("psafe", "paper"),
    "shorten": ("psafe", "fair"),
    "preempt_grid": ("preempt", "runtime"),
    "runtime": ("psafe", "runtime"),
}
RULES = ("sitout", "shorten", "runtime")
BASELINE = {"sitout": "preempt", "shorten": "preempt", "runtime": "preempt_grid"}
RULE_TEXT = {"sitout": "Fig. 4: sit out the delay", "shorten": "Sect. 1: shorten the next quanta",
             "runtime": "ito runtime: skip whole turns, gang runs on, tick grid"}
RULE_COLOR = {"preempt": "#5d6d7e", "sitout": "#c0392b", "shorten": "#2874a6", "runtime": "#27ae60",
              "preempt_grid": "#95a5a6"}
NCPU = 8

# Paper scale: Tables 1-2 as they are.  Quick scale halves every matrix / grid side (1/8 of
# the blocked programs' work) and scales the three time constants by the same 1/8.
QUICK_TIME_SCALE = 8
PAPER_TIMES = {"quantum": 2_500_000, "signal": 2_700, "switch": 26_425}
BOUND_SWEEP = (1, 2, 5, 20)          # besides BOUND_QUANTA; quick: (1, 20)
# Instruction-cost factors for the run-length sweep: the paper's Sect. 5.3 implies level-5 runs
# of ~602 M (B-MM) and ~2.1 G cycles (B-LU) under preemption (its gains divided by its time
# decreases, i.e. derived from the paper's own policy results), ~7.8x and ~4x our total times.
# The factor scales only the non-memory instruction cycles, so the runs reach 381 M and 1.1 G,
# not the implied lengths.  Applied to every program of the mix alike (the machine's
# instruction cost); never chosen from one of our policy results.
OPS_SCALE = {"bmm": 8, "blu": 4}


def times(quick: bool) -> dict:
    if not quick:
        return dict(PAPER_TIMES)
    return {k: v // QUICK_TIME_SCALE for k, v in PAPER_TIMES.items()}


def command(binary: Path, progs, variant: str, quick: bool, bound: int, ops_scale: int = 1) -> list[str]:
    t = times(quick)
    pol, rule = VARIANTS[variant]
    return [str(binary), "--policy", pol, "--rule", rule, "--scale", "quick" if quick else "paper",
            "--quantum", str(t["quantum"]), "--signal", str(t["signal"]), "--switch", str(t["switch"]),
            "--bound", str(bound), "--ops-scale", str(ops_scale), *progs]


def plan(quick: bool, bound: int) -> dict:
    """{(mix, level, variant, bound, ops_scale): program list} of every run."""
    jobs = {}
    for key, progs in MIXES.items():
        for v in VARIANTS:
            jobs[(*key, v, bound, 1)] = progs
    for b in ((1, 20) if quick else BOUND_SWEEP):
        if b == bound:
            continue
        for blk in ("bmm", "blu"):
            for v in ("sitout", "runtime"):
                jobs[(blk, 5, v, b, 1)] = MIXES[(blk, 5)]
    for blk in ("bmm", "blu"):
        for lv in ((2,) if quick else (2, 5)):
            for v in VARIANTS:
                jobs[(blk, lv, v, bound, OPS_SCALE[blk])] = MIXES[(blk, lv)]
    # heaviest first (more programs, longer blocked program), so two workers finish together
    return dict(sorted(jobs.items(), key=lambda kv: (-len(kv[1]), kv[0][0] != "blu", kv[0][4])))


def _num(r: dict) -> dict:
    out = dict(r)
    for k, v in r.items():
        if k not in ("policy", "program", "label", "check"):
            out[k] = float(v) if k == "fair_cycles" else int(v)
    return out


def run_all(binary: Path, quick: bool, bound: int, jobs_n: int) -> dict:
    jobs = plan(quick, bound)
    results: dict = {}
    with steps(len(jobs), "psafe: simulated runs") as step, \
            cf.ThreadPoolExecutor(max_workers=max(1, jobs_n)) as ex:
        futs = {ex.submit(run_csv, command(binary, progs, k[2], quick, k[3], k[4])): k for k, progs in jobs.items()}
        for f in cf.as_completed(futs):
            k = futs[f]
            results[k] = {r["program"]: _num(r) for r in f.result()}
            step(f"{k[0]} level {k[1]} {k[2]} bound {k[3]} k={k[4]}")
    return results


def check_and_write(results: dict, out: Path) -> None:
    rows, bad, header = [], [], None
    for key, progs in sorted(results.items()):
        for p, r in progs.items():
            header = header or (["mix", "level", "variant", "bound", "ops_scale"] + list(r.keys()))
            rows.append(list(key) + list(r.values()))
            if r["check"] != "ok":
                bad.append(f"{key}: {p}: {r['check']}")
    write_csv(out / "runs.csv", header, rows)
    if bad:
        raise RuntimeError("wrong program results in the simulator: " + "; ".join(bad))


class View:
    """Look-ups into the results of one bound / ops scale."""

    def __init__(self, results: dict, bound: int, k: int = 1):
        self.R, self.bound, self.k = results, bound, k

    def has(self, mix, lv, variant, bound=None, k=None) -> bool:
        return (mix, lv, variant, bound or self.bound, k or self.k) in self.R

    def get(self, mix, lv, variant, prog, bound=None, k=None) -> dict:
        return self.R[(mix, lv, variant, bound or self.bound, k or self.k)][prog]

    def change(self, mix, lv, rule, prog, col, bound=None, k=None) -> float:
        """Percent change of col under `rule` against its baseline."""
        return pct(self.get(mix, lv, rule, prog, bound, k)[col], self.get(mix, lv, BASELINE[rule], prog, bound, k)[col])


def breakdown(r: dict) -> dict:
    """Where one program's time went, in cycles per processor (finish = own + waiting)."""
    return {"finish": r["finish"], "own": r["run_cycles"], "instr": r["cyc_instr"] / NCPU,
            "penalty": r["cyc_penalty"] / NCPU, "signal": r["cyc_signal"] / NCPU,
            "barrier": r["cyc_barrier"] / NCPU, "idle": r["cyc_idle"] / NCPU,
            "waiting": r["finish"] - r["run_cycles"], "credit": r["run_cycles"] - r["fair_cycles"]}


def _blocked_levels(blk):
    return [k for k in MIXES if blk in MIXES[k]]


# ---- sections ------------------------------------------------------------------------------
def rules_section(V: View, out: Path) -> list[tuple[str, str]]:
    secs = []
    for blk, fig in (("bmm", 5), ("blu", 7)):
        levels = list(range(2, 6))
        path = out / f"fig{fig}_{blk}.png"
        f, ax = plt.subplots(1, 2, figsize=(11, 4))
        variants = ("preempt", "sitout", "shorten", "runtime")
        w = 0.8 / len(variants)
        for i, (col, what, sc) in enumerate((("finish", "execution time (M cycles)", 1e6),
                                             ("misses", "cache misses (K)", 1e3))):
            for j, v in enumerate(variants):
                ax[i].bar([x + (j - 1.5) * w for x in range(len(levels))],
                          [V.get(blk, lv, v, blk)[col] / sc for lv in levels], w,
                          label=v if v == "preempt" else f"psafe, {v}", color=RULE_COLOR[v])
            ax[i].set_xticks(range(len(levels)), [f"level {lv}" for lv in levels])
            ax[i].set_ylabel(what)
            ax[i].set_title(f"({'ab'[i]}) {LABEL[blk]} {what.split(' (')[0]}")
            ax[i].legend(fontsize=7)
        f.suptitle(f"Fig. {fig}: {LABEL[blk]} under preemption and three compensation rules (simulated)")
        f.tight_layout()
        f.savefig(path, dpi=120)
        plt.close(f)
        rows = []
        for lv in levels:
            row = [lv]
            for rule in RULES:
                row.append(round(V.change(blk, lv, rule, blk, "finish"), 1))
            row.append(PAPER.get((blk, lv, "time"), ""))
            for rule in RULES:
                row.append(round(V.change(blk, lv, rule, blk, "misses"), 1))
            row.append(PAPER.get((blk, lv, "misses"), ""))
            rows.append(row)
        hdr = (["level"] + [f"time %, {r}" for r in RULES] + ["paper time %"] +
               [f"misses %, {r}" for r in RULES] + ["paper misses %"])
        secs.append((f"Fig. {fig}: {LABEL[blk]} by programming level, three compensation rules",
                     image(path, f"Fig. {fig}", out) + "\n\nPercent = psafe relative to its preemption baseline "
                     "(runtime: against preemption on the same tick grid).\n\n" + markdown_table(hdr, rows)))
    return secs


def normalized_section(V: View, out: Path) -> list[tuple[str, str]]:
    secs = []
    for mix, lv, fig in (("bmm", 5, 6), ("blu", 5, 8), ("both", 6, 9)):
        progs = MIXES[(mix, lv)]
        path = out / f"fig{fig}_{mix}_all.png"
        f, ax = plt.subplots(1, 2, figsize=(11, 4))
        w = 0.8 / len(RULES)
        rows = []
        for j, rule in enumerate(RULES):
            for i, col in enumerate(("finish", "misses")):
                ax[i].bar([x + (j - 1) * w for x in range(len(progs))],
                          [1 + V.change(mix, lv, rule, p, col) / 100 for p in progs], w, label=rule,
                          color=RULE_COLOR[rule])
                ax[i].set_xticks(range(len(progs)), [LABEL[p] for p in progs])
        for p in progs:
            rows.append([LABEL[p]] + [round(1 + V.change(mix, lv, r, p, "finish") / 100, 3) for r in RULES] +
                        [round(1 + V.change(mix, lv, r, p, "misses") / 100, 3) for r in RULES])
        for i, t in enumerate(("(a) execution time, psafe / preempt", "(b) cache misses, psafe / preempt")):
            ax[i].axhline(1.0, color="black", lw=0.8)
            ax[i].set_title(t)
            ax[i].set_ylim(0, 1.25)
            ax[i].legend(fontsize=8)
        f.suptitle(f"Fig. {fig}: all programs at level {lv}, normalized to preemption (simulated)")
        f.tight_layout()
        f.savefig(path, dpi=120)
        plt.close(f)
        secs.append((f"Fig. {fig}: all programs at level {lv} (normalized)", image(path, f"Fig. {fig}", out) + "\n\n" +
                     markdown_table(["program"] + [f"time, {r}" for r in RULES] + [f"misses, {r}" for r in RULES], rows)))
    return secs


def breakdown_section(V: View, out: Path) -> list[tuple[str, str]]:
    rows = []
    for blk in ("bmm", "blu"):
        for key in _blocked_levels(blk):
            for v in ("preempt", "sitout", "shorten", "preempt_grid", "runtime"):
                b = breakdown(V.get(*key, v, blk))
                rows.append([LABEL[blk], key[1], v] + [round(b[c] / 1e6, 2) for c in
                             ("finish", "own", "instr", "penalty", "signal", "barrier", "idle", "waiting", "credit")])
    hdr = ["program", "level", "variant", "finish", "own slices", "instructions", "miss penalty", "signals",
           "barrier wait", "idle", "waiting for others", "credit"]
    write_csv(out / "breakdown.csv", hdr, rows)
    # stacked bars: level 2 and 5 of each blocked program
    path = out / "breakdown.png"
    f, axes = plt.subplots(1, 4, figsize=(15, 4.2), sharey=False)
    parts = (("instr", "instructions", "#5d6d7e"), ("penalty", "miss penalty", "#c0392b"),
             ("signal", "signals", "#f39c12"), ("barrier", "barrier wait", "#8e44ad"),
             ("idle", "idle in own slices", "#bdc3c7"), ("waiting", "waiting for other gangs", "#aed6f1"))
    for ax, (blk, lv) in zip(axes, (("bmm", 2), ("bmm", 5), ("blu", 2), ("blu", 5))):
        vs = ("preempt", "sitout", "shorten", "preempt_grid", "runtime")
        bottom = [0.0] * len(vs)
        for col, lab, color in parts:
            vals = [max(0.0, breakdown(V.get(blk, lv, v, blk))[col] / 1e6) for v in vs]
            ax.bar(range(len(vs)), vals, bottom=bottom, color=color, label=lab)
            bottom = [a + b for a, b in zip(bottom, vals)]
        ax.set_xticks(range(len(vs)), ["preempt", "sitout", "shorten", "pre.grid", "runtime"], rotation=30)
        ax.set_title(f"{LABEL[blk]}, level {lv}")
        ax.set_ylabel("M cycles (per processor)")
    axes[-1].legend(fontsize=7, loc="lower right")
    f.suptitle("Where the blocked program's execution time goes (simulated; per processor)")
    f.tight_layout()
    f.savefig(path, dpi=120)
    plt.close(f)
    text = (image(path, "breakdown", out) + "\n\nM cycles. finish = own slices + waiting for others; own slices "
            "(per processor) = instructions + miss penalty + signals + barrier wait + idle (idle: stopped at a "
            "pending switch, exited, or at a barrier since an earlier slice; it can be slightly negative when "
            "processes pass a slice end within one window). credit = own slices - the program's fair share of "
            "every slice that ran before it finished (slice / unfinished programs): machine time received "
            "beyond round robin.\n\n" + markdown_table(hdr, rows))
    return [("Where the time goes", text)]


def overhead_section(V: View) -> list[tuple[str, str]]:
    """Sect. 5.3: G - P x N x O > 0, and how much of G the cache explains."""
    rows = []
    for blk in ("bmm", "blu"):
        for key in _blocked_levels(blk):
            for rule in RULES:
                base = V.get(*key, BASELINE[rule], blk)
                ps = V.get(*key, rule, blk)
                G = base["finish"] - ps["finish"]
                sig = ps["cyc_signal"]               # signals x O, summed over the P processes
                cache = (base["cyc_penalty"] - ps["cyc_penalty"]) / NCPU
                rows.append([LABEL[blk], key[1], rule, G, sig, G - sig, round(cache), G - round(cache),
                             PAPER_GAIN_L5[blk] if key[1] == 5 and key[0] != "both" else ""])
    hdr = ["program", "level", "rule", "G = time saved", "P x N x O (signals)", "G - PNO",
           "miss penalty saved per processor", "G not explained by the cache", "paper's G"]
    text = ("Sect. 5.3 compares the time saved, G, with the signal cost P x N x O (paper, level 5: "
            f"{PAPER_SIGNAL_COST_L5:,} cycles; G = {PAPER_GAIN_L5['bmm']:,} for B-MM and "
            f"{PAPER_GAIN_L5['blu']:,} for B-LU, which it attributes to the reduced misses). Here G comes "
            "with the part the cache can explain: the miss penalty cycles saved per processor. The rest of G "
            "is scheduling (the compensation credit).\n\n" + markdown_table(hdr, rows))
    return [("Sect. 5.3: time saved against the signal cost", text)]


def delays_section(V: View, q: int) -> list[tuple[str, str]]:
    rows = []
    for blk in ("bmm", "blu"):
        for key in _blocked_levels(blk):
            for rule in RULES:
                v = V.get(*key, rule, blk)
                blocks = v["regions"] / NCPU
                rows.append([f"{key[0]} L{key[1]}", LABEL[blk], rule, round(blocks, 1), v["delays"],
                             v["delayed_ticks"], round(v["delayed_ticks"] / blocks, 2) if blocks else "",
                             round(v["delay_cycles"] / v["delays"] / q, 2) if v["delays"] else "", v["forced"],
                             v["turns_skipped"], PAPER_DELAYED[blk]])
    return [("Delayed context switches", markdown_table(
        ["mix", "program", "rule", "blocks per process", "delays", "delayed switches", "delayed switches per block",
         "mean delay (quanta)", "forced", "turns skipped", "paper: per block"], rows))]


def bound_section(R: dict, bound: int, quick: bool) -> list[tuple[str, str]]:
    rows = []
    bounds = sorted({k[3] for k in R})
    for blk in ("bmm", "blu"):
        for rule in ("sitout", "runtime"):
            for b in bounds:
                V = View(R, b)
                if not V.has(blk, 5, rule) or not V.has(blk, 5, BASELINE[rule], bound=bound):
                    continue
                ps = V.get(blk, 5, rule, blk)
                base = V.get(blk, 5, BASELINE[rule], blk, bound=bound)
                others = [p for p in MIXES[(blk, 5)] if p != blk]
                worst = max(pct(V.get(blk, 5, rule, p)["finish"], V.get(blk, 5, BASELINE[rule], p, bound=bound)["finish"])
                            for p in others)
                rows.append([LABEL[blk], rule, b, round(pct(ps["finish"], base["finish"]), 1),
                             round(pct(ps["misses"], base["misses"]), 1), ps["delays"], ps["forced"],
                             round((ps["run_cycles"] - ps["fair_cycles"]) / 1e6, 2), round(worst, 1)])
    text = ("Level 5, the delay bound in quanta (the paper: \"a multiple of default quantum size\"; it gives 50 and "
            "100 ms as examples and does not say which it used). Preemption does not depend on the bound. "
            "worst other = the largest change of another program's time.\n\n" +
            markdown_table(["program", "rule", "bound (quanta)", "time %", "misses %", "delays", "forced",
                            "credit (M cycles)", "worst other program, time %"], rows))
    return [("Sweep of the delay bound", text)]


def length_section(R: dict, bound: int) -> list[tuple[str, str]]:
    rows = []
    ks = sorted({k[4] for k in R})
    for blk in ("bmm", "blu"):
        for k in ks:
            V = View(R, bound, k)
            for lv in (2, 5):
                if not V.has(blk, lv, "preempt"):
                    continue
                pre = V.get(blk, lv, "preempt", blk)
                blocks = pre["regions"] / NCPU
                first = all(V.get(blk, lv, "preempt", p)["finish"] > pre["finish"] for p in MIXES[(blk, lv)] if p != blk)
                row = [LABEL[blk], k, lv, round(pre["finish"] / 1e6, 1),
                       round(PAPER_IMPLIED_TIME_L5[blk] / 1e6) if lv == 5 else ""]
                for rule in RULES:
                    row.append(round(V.change(blk, lv, rule, blk, "finish"), 1))
                row.append(PAPER.get((blk, lv, "time"), ""))
                row.append(round(V.change(blk, lv, "sitout", blk, "misses"), 1))
                row.append(PAPER.get((blk, lv, "misses"), ""))
                s = V.get(blk, lv, "sitout", blk)
                row.append(round(s["delayed_ticks"] / blocks, 2) if blocks else "")
                row.append(PAPER_DELAYED[blk])
                row.append("yes" if first else "no")
                rows.append(row)
    text = ("Every program's non-memory instruction cycles multiplied by k (busmp --ops-scale k; B-MM's mixes k = "
            f"{OPS_SCALE['bmm']}, B-LU's k = {OPS_SCALE['blu']}): our hand-counted "
            "instructions per loop body are far fewer than MINT's MIPS counts must have been, so our runs are "
            "shorter than the paper's. Sect. 5.3's gains and time decreases imply level-5 preemption times of "
            f"~{PAPER_IMPLIED_TIME_L5['bmm'] / 1e6:.0f} M cycles (B-MM) and ~{PAPER_IMPLIED_TIME_L5['blu'] / 1e9:.1f} G "
            "(B-LU). k is a sensitivity input chosen from those lengths, not from any policy result; iteration counts "
            "stay as at k = 1 (\"blocked first\" says whether the blocked program still finishes before the others "
            "under preemption).\n\n" +
            markdown_table(["program", "k", "level", "preempt time (M cycles)", "paper's implied (M)"] +
                           [f"time %, {r}" for r in RULES] + ["paper time %", "misses %", "paper misses %",
                                                                "delayed switches per block (sitout)",
                                                                "paper per block", "blocked first"], rows))
    return [("At the paper's run lengths (instruction-cost sweep)", text)]


def run_sim(args, ctx, out: Path) -> list[tuple[str, str]]:
    binary = ctx.program("sim/busmp/busmp")
    bound = getattr(args, "bound", BOUND_QUANTA)
    R = run_all(binary, ctx.quick, bound, getattr(args, "jobs", 2))
    check_and_write(R, out)
    V = View(R, bound)
    q = times(ctx.quick)["quantum"]
    secs = [("Rules compared", "Compensation rules: " + "; ".join(f"**{r}** = {t}" for r, t in RULE_TEXT.items()) +
             ". Nothing else differs between the columns.")]
    secs += rules_section(V, out)
    secs += normalized_section(V, out)
    secs += breakdown_section(V, out)
    secs += overhead_section(V)
    secs += delays_section(V, q)
    secs += bound_section(R, bound, ctx.quick)
    secs += length_section(R, bound)
    return secs
