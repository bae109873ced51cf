"""A simulated device behind Fuce's I/O controller: requests in, continuations out, with masking.

The paper (3.2.1): "An I/O controller of Fuce processor converts the signal from an external
device into a continuation event and delivers the continuation event to the target handler
threads. Signals from the same device are masked until the handler thread actually process the
data from the device." Its experiment (3.4.1) simulates a device as a thread that loops for the
round-trip time (RTT) and then continues to handler_thread.

Model:
- Issue(item) at cycle t starts the request at t if the device is idle, otherwise it waits in the
  device's FIFO (`serial=True`, one request in service at a time, like the paper's single looping
  virtual_hw_thread); with `serial=False` every request is serviced independently (a pipelined
  device, used by the tests to produce bursts of events). A request started at s completes at
  s + rtt.
- A completion *delivers* one continuation (through the TAC) to the handler entry, carrying the
  item in the handler frame's data slot, and sets the device's mask. While masked, further
  completions are held in the device's pending FIFO: none is lost, none is delivered.
- Take (executed by the handler) returns the delivered item and clears the mask; if completions
  are pending, the oldest is delivered at once (so the handler must be re-armed before it takes).
Invariant: delivered - taken is 0 or 1; every completion is delivered exactly once, in order.
"""
from __future__ import annotations

from collections import deque
from typing import Any

from . import acm
from .ops import Issue, Take


class Device:
    def __init__(self, machine, rtt: int, name: str = "dev", serial: bool = True):
        if rtt < 1:
            raise ValueError("rtt must be >= 1 cycle")
        self.m = machine
        self.rtt = rtt
        self.name = name
        self.serial = serial
        self.handler: acm.Entry | None = None
        self.slot = "data"
        self.busy = False
        self.waiting: deque = deque()
        self.masked = False
        self.pending: deque = deque()
        self.issued = 0
        self.completed = 0
        self.delivered = 0
        self.taken = 0
        self.busy_cycles = 0
        self.log: list[tuple[str, int, Any]] = []   # (event, cycle, item): issue/complete/deliver/take

    def connect(self, handler: acm.Entry, slot: str = "data") -> None:
        self.handler = handler
        self.slot = slot

    # called by the machine for Issue/Take ops
    def op(self, th, op) -> Any:
        if isinstance(op, Issue):
            self.issue(op.item)
            return None
        if isinstance(op, Take):
            return self.take()
        raise TypeError(op)

    def issue(self, item: Any) -> None:
        self.issued += 1
        self.log.append(("issue", self.m.now, item))
        if self.serial and self.busy:
            self.waiting.append(item)
        else:
            self._start(item)

    def _start(self, item: Any) -> None:
        self.busy = True
        self.busy_cycles += self.rtt
        self.m.at(self.m.now + self.rtt, self._complete, item)

    def _complete(self, item: Any) -> None:
        self.completed += 1
        self.log.append(("complete", self.m.now, item))
        if self.serial:
            if self.waiting:
                self._start(self.waiting.popleft())
            else:
                self.busy = False
        if self.masked:
            self.pending.append(item)
        else:
            self._deliver(item)

    def _deliver(self, item: Any) -> None:
        if self.handler is None:
            raise acm.FuceError(f"device {self.name} has no handler")
        self.masked = True
        self.delivered += 1
        self.log.append(("deliver", self.m.now, item))
        h, slot = self.handler, self.slot
        self.m.tac_call(lambda: self.m._continue(acm.Mode.KERNEL, h, slot, item))

    def take(self) -> Any:
        if not self.masked:
            raise acm.FuceError(f"take on device {self.name} with no delivered data")
        item = self.handler.frame.data.get(self.slot)
        self.masked = False
        self.taken += 1
        self.log.append(("take", self.m.now, item))
        if self.pending:
            self._deliver(self.pending.popleft())
        return item
