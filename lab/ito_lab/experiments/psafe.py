"""ito-lab psafe: the preemption-safe policy for blocked programs (Jung, Hyun, Lee; seed 003).

Two halves write into results/psafe/ (the code is in ito_lab/psafe/):

  * simulated (psafe/sim.py): the paper's 8-processor bus machine runs the mixes of Tables 4 and 5
    and Sect. 5.2 under preemption and under the preemption-safe policy with three compensation
    rules side by side (the paper's Fig. 4, the paper's introduction, ito's runtime); Figs. 5-9,
    where the time goes, Sect. 5.3's comparison, a delay-bound sweep and a run-length sweep;
  * real (psafe/real.py): the same mixes on this machine with ito's timer preemption, gangs and
    psafe regions, 10 interleaved repetitions per cell (2 with --quick), with spread, a sign test
    and the host; cache misses from cachegrind.
"""
from __future__ import annotations

from ..argtypes import positive_int

from ..psafe.common import BOUND_QUANTA
from ..psafe.real import (parse_cachegrind, parse_real_csv, real_quantum, run_real,  # noqa: F401 (tests)
                          summarize_real)
from ..psafe.sim import run_sim, times
from ..report import write_report

NAME = "psafe"
HELP = "preemption-safe policy for blocked programs: Figs. 5-9 on the simulated bus machine, and the real run on ito"


def add_arguments(p):
    p.add_argument("--part", choices=["sim", "real", "all"], default="all",
                   help="sim: the simulated machine; real: this machine, on ito")
    p.add_argument("--jobs", type=positive_int, default=2, help="simulator runs in parallel (default 2)")
    p.add_argument("--bound", type=positive_int, default=BOUND_QUANTA,
                   help="delay bound in quanta (default 10 = 100 ms)")
    p.add_argument("--real-reps", type=positive_int, default=None,
                   help="real run: interleaved repetitions per mix and policy (default 10; 2 with --quick)")
    p.add_argument("--real-quantum", type=positive_int, default=None,
                   help="real run: quantum in microseconds (default: the paper's 2.5 M instructions "
                        "at this machine's measured rate)")
    p.add_argument("--real-no-cache", action="store_true",
                   help="real run: skip the cachegrind runs (no cache misses)")


def run(args, ctx) -> int:
    out = ctx.out(NAME)
    part = getattr(args, "part", "all")
    t = times(ctx.quick)
    sections = [("What ran", (
        f"Scale: {'quick (matrix and grid sides halved, time constants / 8)' if ctx.quick else 'paper'}; "
        f"quantum {t['quantum']:,} cycles, signal {t['signal']:,}, context switch {t['switch']:,}, delay bound "
        f"{getattr(args, 'bound', BOUND_QUANTA)} quanta. Percentages are psafe relative to preempt (negative = "
        "better). Assumptions and the comparison with the paper: docs/reproductions/psafe.md."))]
    if part in ("sim", "all"):
        sections += run_sim(args, ctx, out)
    if part in ("real", "all"):
        sections += run_real(args, ctx, out)
    write_report(out / "report.md", "Preemption-safe policy for blocked programs (seed 003)", sections)
    print(f"psafe: wrote {out / 'report.md'}")
    return 0
