"""krpp: a discrete-event model of the Kyushu University Reconfigurable Parallel Processor
running the parallel thread-creation schemes of Tsunedomi et al. (1991).

    from krpp import simulate, PAPER
    r = simulate("chunk", processors=16, threads=2000, model=PAPER)
    r.time   # clocks until all 2000 threads are created
"""
from .engine import Engine, Resource, TraceEntry
from .params import (PAPER, START_AFTER_M, START_AFTER_TEMPLATE, WARM_L, WARM_RATIO, Layout, Model,
                     StageTimes, unit_model)
from .schemes import PARALLEL_SCHEMES, SCHEMES, SERIAL_SCHEMES, Message, Result, simulate
from .sweep import (FIGURES, PROCESSORS, PROCESSORS_QUICK, THREADS, THREADS_QUICK, Point,
                    speedup, sweep)

__all__ = ["Engine", "Resource", "TraceEntry", "PAPER", "START_AFTER_M", "START_AFTER_TEMPLATE",
           "WARM_L", "WARM_RATIO", "Layout",
           "Model", "StageTimes", "unit_model", "PARALLEL_SCHEMES", "SCHEMES",
           "SERIAL_SCHEMES", "Message", "Result", "simulate", "FIGURES", "PROCESSORS",
           "PROCESSORS_QUICK", "THREADS", "THREADS_QUICK", "Point", "speedup", "sweep"]
