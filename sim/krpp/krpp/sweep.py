"""Speedup curves: the quantities plotted in the paper's Figs. 4, 10, 11 and 12.

The paper's "speedup rate" of a scheme is T(baseline) / T(scheme) for the same number of
threads, the baseline being the serial scheme (Figs. 4, 10a, 11, 12a) or the serial template
scheme (Figs. 10b, 12b).  The serial baselines run on one processor and do not depend on p.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Optional

from .params import PAPER, Model
from .schemes import simulate

# (figure id, scheme, baseline) in the paper's order
FIGURES = (
    ("fig4", "simple", "serial"),
    ("fig10a", "template", "serial"),
    ("fig10b", "template", "serial_template"),
    ("fig11", "chunk", "serial"),
    ("fig12a", "combination", "serial"),
    ("fig12b", "combination", "serial_template"),
)

THREADS = (10, 50, 100, 200, 500, 1000, 2000)
PROCESSORS = (1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 40, 48, 64, 80, 96, 112, 128)
THREADS_QUICK = (10, 100, 1000)
PROCESSORS_QUICK = (1, 2, 3, 4, 8, 16, 32, 64, 128)


@dataclass(frozen=True)
class Point:
    scheme: str
    threads: int
    processors: int
    time: float          # clocks until every thread is created


def sweep(schemes: Iterable[str], threads: Iterable[int], processors: Iterable[int],
          model: Model = PAPER, progress: Optional[Callable[[str, int, int], None]] = None
          ) -> dict:
    """Simulate every (scheme, threads, processors); returns {(scheme, th, p): Point}.
    Serial schemes are simulated once per thread count (stored under p = 1)."""
    out = {}
    for s in schemes:
        for th in threads:
            ps = (1,) if s in ("serial", "serial_template") else tuple(processors)
            for p in ps:
                r = simulate(s, p, th, model)
                out[(s, th, p)] = Point(s, th, p, r.time)
                if progress is not None:
                    progress(s, th, p)
    return out


def speedup(points: dict, scheme: str, baseline: str, threads: int, processors: int) -> float:
    return points[(baseline, threads, 1)].time / points[(scheme, threads, processors)].time
