"""A discrete-event model of a Fuce-like continuation-based multithreaded processor.

Modules: acm (instance frames, counters, locks, modes), ops (what thread bodies yield),
machine (TEUs, RTQ, TAC timing), device (I/O controller with masking), iochain (the paper's
Fig. 7 program), throughput (the Fig. 8 experiment).
"""
from .acm import EntrySpec, FrameTemplate, FuceError, LockError, Mode, ModeError, NotArmedError, FrameError
from .device import Device
from .iochain import Costs, IoSystem
from .machine import Machine
from .throughput import PERIOD, RTT, fig8, max_throughput, run_chain

__all__ = ["EntrySpec", "FrameTemplate", "FuceError", "LockError", "Mode", "ModeError", "NotArmedError",
           "FrameError", "Device", "Costs", "IoSystem", "Machine", "PERIOD", "RTT", "fig8",
           "max_throughput", "run_chain"]
