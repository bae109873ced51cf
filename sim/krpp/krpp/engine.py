"""A small discrete-event engine: processors running stage programs, serialized resources.

Model of time.  Time is a number of clocks.  A processor runs a *program*, a Python
generator that yields stages `(name, resource, duration, thread)`; `resource` is None for a
stage that runs in parallel with everything else (M, S, L) or a `Resource` for a stage that
must hold that resource exclusively (A: the message queue, B: the THCB-list lock, C: the
single memory module of the shared data).  The generator is resumed when its stage ends, so
whatever it does between two yields (claiming threads from the message, recording that a
thread is created) happens atomically at that instant.

Arbitration.  A resource serves its waiters first-come first-served by the time they asked;
requests made at the same instant are served in increasing processor id.  All events of one
instant are processed before any grant of that instant, so the outcome never depends on the
order in which the heap returns simultaneous events: at each instant t the engine
  1. ends every stage that finishes at t (releasing its resource) and lets each program
     choose its next stage (a serialized stage becomes a request stamped t);
  2. then grants every free resource to its earliest waiter (ties: lowest pid).
A resource released at t may thus be re-granted at t (no idle clock between holders).
Waiting processors spin for free: the paper assumes no network contention from spin locks.

Invariants (checked by the tests through the trace): a resource has at most one holder at a
time; every stage of positive length appears once in the trace; a processor has at most one
pending event; time never goes backwards.  Zero-length stages are skipped entirely.
"""
from __future__ import annotations

from dataclasses import dataclass
from heapq import heappop, heappush
from typing import Callable, Generator, Iterable, Optional

Stage = tuple  # (name: str, resource: Resource | None, duration: float, thread: int | None)
Program = Generator[Stage, None, None]


class Resource:
    """A serialized resource: one holder at a time, FIFO by request time, ties by pid."""
    __slots__ = ("name", "holder", "waiters", "busy", "grants", "wait")

    def __init__(self, name: str):
        self.name = name
        self.holder: Optional[int] = None
        self.waiters: list = []          # heap of (request time, pid)
        self.busy = 0.0                  # total time held
        self.grants = 0                  # number of stages served
        self.wait = 0.0                  # total time processors spent waiting for it


@dataclass
class TraceEntry:
    pid: int
    stage: str
    start: float
    end: float
    thread: Optional[int]
    requested: float   # when the processor asked for the stage (== start if not serialized)


class _Proc:
    __slots__ = ("pid", "gen", "stage", "start", "req", "holding", "done", "started")

    def __init__(self, pid: int, gen: Program):
        self.pid = pid
        self.gen = gen
        self.stage: Optional[Stage] = None
        self.start = 0.0
        self.req = 0.0
        self.holding: Optional[Resource] = None
        self.done: Optional[float] = None
        self.started = False


class Engine:
    def __init__(self, resource_names: Iterable[str], trace: bool = False):
        self.resources = {n: Resource(n) for n in resource_names}
        self._procs: dict[int, _Proc] = {}
        self._heap: list = []
        self.now = 0.0
        self.trace: Optional[list[TraceEntry]] = [] if trace else None
        self.events = 0

    # -- set-up -------------------------------------------------------------------------
    def add(self, pid: int, program: Callable[[], Program], start: Optional[float] = 0.0) -> None:
        """Register a processor; it starts at `start`, or when woken if start is None."""
        if pid in self._procs:
            raise ValueError(f"pid {pid} already exists")
        p = _Proc(pid, program())
        self._procs[pid] = p
        if start is not None:
            p.started = True
            heappush(self._heap, (start, pid))

    def wake(self, pid: int) -> None:
        """Start a registered, not yet started processor now (called from a program)."""
        p = self._procs[pid]
        if p.started:
            raise RuntimeError(f"processor {pid} woken twice")
        p.started = True
        heappush(self._heap, (self.now, pid))

    def finish_time(self, pid: int) -> Optional[float]:
        return self._procs[pid].done

    # -- the loop -----------------------------------------------------------------------
    def run(self) -> float:
        heap = self._heap
        procs = self._procs
        trace = self.trace
        push, pop = heappush, heappop
        dirty: list = []
        events = 0
        while heap:
            t = heap[0][0]
            if t < self.now:
                raise AssertionError("time went backwards")
            self.now = t
            # phase 1: end every stage finishing at t and let the programs choose the next
            while heap and heap[0][0] == t:
                p = procs[pop(heap)[1]]
                events += 1
                st = p.stage
                if st is not None:
                    r = p.holding
                    if r is not None:
                        r.holder = None
                        r.busy += t - p.start
                        p.holding = None
                        dirty.append(r)
                    if trace is not None:
                        trace.append(TraceEntry(p.pid, st[0], p.start, t, st[3], p.req))
                r = self._advance(p, t)
                if r is not None:
                    dirty.append(r)
            # phase 2: grant each free resource touched at t to its earliest waiter
            if dirty:
                for r in dirty:
                    if r.holder is None and r.waiters:
                        req, pid = pop(r.waiters)
                        p = procs[pid]
                        r.holder = pid
                        r.grants += 1
                        r.wait += t - req
                        p.holding = r
                        p.start = t
                        push(heap, (t + p.stage[2], pid))
                dirty.clear()
        self.events += events
        for p in procs.values():
            if p.done is None:
                what = "never woken" if not p.started else "never finished (deadlock)"
                raise AssertionError(f"processor {p.pid} {what}")
        return self.now

    def _advance(self, p: _Proc, t: float) -> Optional[Resource]:
        """Run p's program to its next stage; returns the resource it now waits for."""
        gen = p.gen
        while True:
            try:
                st = next(gen)
            except StopIteration:
                p.stage = None
                p.done = t
                return None
            dur = st[2]
            if dur <= 0:
                if dur < 0:
                    raise ValueError(f"negative stage duration {st!r}")
                continue
            p.stage = st
            p.req = t
            r = st[1]
            if r is None:
                p.start = t
                heappush(self._heap, (t + dur, p.pid))
                return None
            heappush(r.waiters, (t, p.pid))
            return r
