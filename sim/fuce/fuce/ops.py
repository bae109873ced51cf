"""The operations a simulated thread body yields to the machine, and their cost classes.

A thread body is a Python generator: `def body(th): ...; yield Compute(5); ok = yield TryLock(e)`.
Every op below except Compute and Note is one instruction (1 cycle on the TEU):
- TAC ops (Continue, TryLock, Unlock, Rearm, Alloc, Free) go through the Thread Activation
  Controller, which performs one op per cycle (paper 3.4.1: "throughput of TAC is 1 clock
  cycle"); an op that finds the TAC busy waits for the next free cycle.
- Memory ops (Push, Pop, Peek) act atomically on a simulated in-memory queue.
- I/O ops (Issue, Take) talk to the I/O controller of a device.
Compute(n) is n ordinary instructions (1 cycle each, in-order MIPS-like core, no stalls).
Note(fn) calls fn(now) for bookkeeping and costs nothing.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

COMPUTE, TAC, MEM, IO, NOTE = range(5)


@dataclass(slots=True)
class Compute:
    n: int
    kind = COMPUTE


@dataclass(slots=True)
class Continue:
    target: Any            # acm.Entry
    slot: str | None = None
    value: Any = None
    kind = TAC


@dataclass(slots=True)
class TryLock:
    target: Any
    kind = TAC


@dataclass(slots=True)
class Unlock:
    target: Any
    kind = TAC


@dataclass(slots=True)
class Rearm:
    target: Any
    count: int | None = None
    kind = TAC


@dataclass(slots=True)
class Alloc:
    template: Any          # acm.FrameTemplate
    kind = TAC


@dataclass(slots=True)
class Free:
    frame: Any
    kind = TAC


@dataclass(slots=True)
class Push:
    queue: Any             # collections.deque
    item: Any
    kind = MEM


@dataclass(slots=True)
class Pop:
    queue: Any
    kind = MEM


@dataclass(slots=True)
class Peek:
    queue: Any
    kind = MEM


@dataclass(slots=True)
class Issue:
    device: Any            # device.Device
    item: Any
    kind = IO


@dataclass(slots=True)
class Take:
    device: Any
    kind = IO


@dataclass(slots=True)
class Note:
    fn: Callable[[int], None]
    kind = NOTE
