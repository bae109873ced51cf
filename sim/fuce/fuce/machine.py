"""A cycle-exact discrete-event model of a Fuce-like processor: TEUs, one RTQ, the TAC.

Time is an integer number of cycles (1 GHz: 1 cycle = 1 ns). Timing rules, all from the paper's
section 3.4.1 where it states them and otherwise written down here:

1. A continuation that fires an entry at cycle x makes the thread ready at x + `activation`
   (paper: thread activation through the TAC takes 1 cycle); it is then appended to the single
   ready-thread queue (RTQ, FIFO).
2. Assignment from the RTQ to a free TEU takes `dispatch` cycles (paper: 1 cycle) and the
   dispatcher makes one assignment per cycle. A thread assigned at cycle d starts at d+dispatch.
   Free TEUs are taken lowest index first.
3. A thread runs to completion on its TEU. Compute(n) takes n cycles. Every other op is one
   instruction; TAC ops are serialized by the TAC (one per cycle): an op issued at cycle t takes
   effect at x = max(t, next free TAC cycle) and the thread resumes at x + 1. Memory and I/O ops
   take effect at t and the thread resumes at t + 1.
4. A thread that ends at cycle e frees its TEU at e; a ready thread can be assigned at e.
5. Events at the same cycle are processed in the order they were scheduled (a global sequence
   number), so every run is deterministic. As a speed-up, a thread whose next step is due before
   every queued event continues inline instead of going through the heap; this cannot change
   the order of anything (`inline=False` turns it off; a test checks identical traces).

Invariants the machine maintains: a TEU runs at most one thread; a thread is in exactly one of
{pending activation, RTQ, assigned/running}; the TAC performs at most one op per cycle.
"""
from __future__ import annotations

import heapq
from collections import deque
from typing import Any, Callable

from . import acm
from .ops import COMPUTE, IO, MEM, NOTE, TAC, Alloc, Continue, Free, Pop, Push, Rearm, TryLock, Unlock


class Thread:
    """One activation of an entry: the body's generator plus where and when it runs."""

    __slots__ = ("entry", "frame", "gen", "teu", "start", "machine")

    def __init__(self, machine: "Machine", entry: acm.Entry):
        self.machine = machine
        self.entry = entry
        self.frame = entry.frame
        self.gen = None
        self.teu = -1
        self.start = -1

    @property
    def data(self) -> dict:
        return self.frame.data

    @property
    def now(self) -> int:
        return self.machine.now

    def __repr__(self):
        return f"<thread {self.entry.name}#{self.frame.fid}>"


class Machine:
    def __init__(self, teus: int = 1, activation: int = 1, dispatch: int = 1,
                 tac_serial: bool = True, trace: bool = False, pages: int = acm.ACM_PAGES,
                 inline: bool = True):
        if teus < 1:
            raise ValueError("at least one TEU")
        self.teus = teus
        self.activation = activation
        self.dispatch = dispatch
        self.tac_serial = tac_serial
        self.inline = inline        # resume a thread without the heap when nothing else is due first
        self.pool = acm.FramePool(pages)
        self.now = 0
        self._heap: list = []
        self._seq = 0
        self.rtq: deque[Thread] = deque()
        self._free_teus = list(range(teus))      # kept sorted
        self._tac_free = 0
        self._disp_free = 0
        self._until: int | None = None
        # statistics
        self.teu_busy = [0] * teus
        self.runs: dict[str, int] = {}
        self.tac_ops = 0
        self.tac_wait = 0
        self.rtq_peak = 0
        self.trace: list[tuple[str, int, int, int, int]] | None = [] if trace else None

    # ---- event queue -------------------------------------------------------------------
    def at(self, t: int, fn: Callable[[Any], None], arg: Any = None) -> None:
        if t < self.now:
            raise ValueError(f"event in the past: {t} < {self.now}")
        self._seq += 1
        heapq.heappush(self._heap, (t, self._seq, fn, arg))

    def run(self, until: int | None = None, max_events: int = 50_000_000) -> None:
        """Process events up to and including cycle `until` (all of them if None)."""
        heap = self._heap
        self._until = until
        n = 0
        while heap and (until is None or heap[0][0] <= until):
            t, _, fn, arg = heapq.heappop(heap)
            self.now = t
            fn(arg)
            n += 1
            if n > max_events:
                raise RuntimeError("event budget exhausted (livelock?)")
        if until is not None and self.now < until:
            self.now = until

    def _resume_at(self, t: int, th: Thread, val) -> bool:
        """Resume th at cycle t: True if it may continue inline (nothing else can happen first),
        else the resumption is queued and False is returned. Inline continuation is exactly
        equivalent to queueing it, because no other event is due at or before t."""
        heap = self._heap
        if self.inline and (not heap or heap[0][0] > t) and (self._until is None or t <= self._until):
            self.now = t
            return True
        self.at(t, self._step, (th, val))
        return False

    @property
    def idle(self) -> bool:
        return not self._heap

    # ---- external continuations (measurement unit, I/O controller) -------------------------
    def inject(self, t: int, entry: acm.Entry, slot: str | None = None, value: Any = None,
               src: acm.Mode = acm.Mode.KERNEL) -> None:
        """A continuation from outside the TEUs, delivered through the TAC at cycle t."""
        self.at(t, self._tac_external, (src, entry, slot, value))

    def tac_call(self, fn: Callable[[], None]) -> None:
        """Run fn through the TAC now or at its next free cycle (used by device.py)."""
        x = self._tac_slot(self.now)
        if x == self.now:
            fn()
        else:
            self.at(x, lambda f: f(), fn)

    def _tac_external(self, arg) -> None:
        src, entry, slot, value = arg
        self.tac_call(lambda: self._continue(src, entry, slot, value))

    def _tac_slot(self, t: int) -> int:
        self.tac_ops += 1
        if not self.tac_serial:
            return t
        x = t if t >= self._tac_free else self._tac_free
        self.tac_wait += x - t
        self._tac_free = x + 1
        return x

    # ---- firing, RTQ and dispatch --------------------------------------------------------
    def _continue(self, src: acm.Mode, entry: acm.Entry, slot, value) -> bool:
        fired = acm.continue_to(src, entry, slot, value)
        if fired:
            self.at(self.now + self.activation, self._make_ready, Thread(self, entry))
        return fired

    def _make_ready(self, th: Thread) -> None:
        self.rtq.append(th)
        if len(self.rtq) > self.rtq_peak:
            self.rtq_peak = len(self.rtq)
        self._dispatch()

    def _dispatch(self) -> None:
        while self._free_teus and self.rtq:
            d = self.now if self.now >= self._disp_free else self._disp_free
            self._disp_free = d + 1
            th = self.rtq.popleft()
            th.teu = self._free_teus.pop(0)
            self.at(d + self.dispatch, self._start, th)

    def _start(self, th: Thread) -> None:
        th.start = self.now
        th.gen = th.entry.code(th)
        self._step((th, None))

    def _finish(self, th: Thread) -> None:
        name = th.entry.name
        self.runs[name] = self.runs.get(name, 0) + 1
        self.teu_busy[th.teu] += self.now - th.start
        if self.trace is not None:
            self.trace.append((name, th.frame.fid, th.teu, th.start, self.now))
        teu = th.teu
        free = self._free_teus
        i = 0
        while i < len(free) and free[i] < teu:
            i += 1
        free.insert(i, teu)
        self._dispatch()

    # ---- executing a thread body -----------------------------------------------------------
    def _step(self, arg) -> None:
        th, val = arg
        send = th.gen.send
        while True:
            t = self.now
            try:
                op = send(val)
            except StopIteration:
                self._finish(th)
                return
            k = op.kind
            if k == COMPUTE:
                if op.n < 0:
                    raise ValueError("negative compute")
                val = None
                if not self._resume_at(t + op.n, th, None):
                    return
            elif k == TAC:
                x = self._tac_slot(t)
                if x == t:
                    val = self._tac_do(th, op)
                    if not self._resume_at(t + 1, th, val):
                        return
                else:
                    self.at(x, self._tac_apply, (th, op))
                    return
            elif k == MEM:
                q = op.queue
                if isinstance(op, Push):
                    q.append(op.item)
                    val = None
                elif isinstance(op, Pop):
                    val = q.popleft() if q else None
                else:
                    val = bool(q)
                if not self._resume_at(t + 1, th, val):
                    return
            elif k == IO:
                val = op.device.op(th, op)
                if not self._resume_at(t + 1, th, val):
                    return
            elif k == NOTE:
                op.fn(t)
                val = None
            else:
                raise TypeError(f"unknown op {op!r}")

    def _tac_apply(self, arg) -> None:
        th, op = arg
        val = self._tac_do(th, op)
        self.at(self.now + 1, self._step, (th, val))

    def _tac_do(self, th: Thread, op):
        mode = th.entry.mode
        if isinstance(op, Continue):
            self._continue(mode, op.target, op.slot, op.value)
            return None
        if isinstance(op, TryLock):
            return acm.trylock(mode, op.target)
        if isinstance(op, Unlock):
            acm.unlock(mode, op.target)
            return None
        if isinstance(op, Rearm):
            acm.rearm(mode, op.target, op.count)
            return None
        if isinstance(op, Alloc):
            return self.pool.alloc(op.template)
        if isinstance(op, Free):
            self.pool.free(op.frame)
            return None
        raise TypeError(f"unknown TAC op {op!r}")

    # ---- convenience ------------------------------------------------------------------------
    def new_frame(self, template: acm.FrameTemplate) -> acm.Frame:
        """Allocate a frame outside any thread (set-up by the loader / measurement unit)."""
        return self.pool.alloc(template)
