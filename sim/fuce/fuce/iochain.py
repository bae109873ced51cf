"""The paper's I/O chain (Fig. 7) as a zero-wait-thread program graph on the Fuce model.

    sender --trylk/continue--> gate --> syscall --> semaphore --trylk--> device_thread
        ^ failed trylk: continue to itself      (queue if busy)            | Issue   | continue
                                                                           v         v
                           receiver <--continue-- handler (fan-in 2) <--device event--

Frames (one ACM page each):
- "proc"   (per request, user):  sender, receiver                      [USER]
- "gate"   (one, shared):        gate  (lock bit guards its data slot)  [KERNEL-INTERFACE]
- "sysreq" (per request, kernel, allocated by the gate): syscall, semaphore   [KERNEL]
- "devctl" (one per device):     device_thread (fan-in 1), handler (fan-in 2)  [KERNEL]
  handler's two continuations are device_thread's (which names the receiver, 5-3) and the
  device's completion (6-1); device_thread's lock bit says "device in use" (4-1).

Thread bodies follow the numbered steps of section 3.3. Instruction counts per thread are the
`Costs` fields (non-control instructions; every control op adds one more cycle, see ops.py).
The paper gives none of them: the defaults and their reasons are in docs/reproductions/cefos-io.md
and in Costs below; throughput.py sweeps a scale factor over all of them.

Protocol for the device queue. Taken literally, 3.3 has a lost-wakeup window: semaphore_thread
fails trylk(device_thread) and later enqueues (4-3) while handler_thread finds the queue empty and
unlocks (6-3) in between, leaving a request queued with the device idle and nobody to start it.
`protocol="safe"` (the default) closes it with the usual enqueue-then-trylock / unlock-then-recheck
order: the semaphore pushes first and then tries the lock; whoever holds the lock drains the queue
(hands the lock to device_thread with the next request) and after unlocking re-checks the queue.
`protocol="literal"` keeps the paper's order so a test can show the window is real.

Invariants: each request is, at every cycle, in exactly one stage (req.stage); the gate's data
slot is written only by a sender that holds the gate's lock bit, and the gate re-arms itself before
it unlocks; device_thread's lock bit is 1 whenever the device has a request in service.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, fields, replace

from . import acm
from .acm import EntrySpec, FrameTemplate, Mode
from .device import Device
from .machine import Machine
from .ops import Alloc, Compute, Continue, Free, Issue, Note, Peek, Pop, Push, Rearm, Take, TryLock, Unlock


@dataclass(frozen=True)
class Costs:
    """Non-control instructions per thread (1 instruction = 1 cycle on the MIPS-like Main unit).

    None are given by the paper; each default is the smallest plausible MIPS sequence for what
    section 3.3 says the thread does (reasons in docs/reproductions/cefos-io.md).
    """
    sender: int = 2         # li syscall number; la gate entry                      (before trylk)
    sender_args: int = 4    # sw syscall no., device/buffer, length, receiver id     (after trylk)
    retry: int = 1          # beq on trylk's result                                   (failed path)
    gate: int = 6           # load syscall no., bound check, table load, copy 3 args (2-1, 2-2)
    syscall: int = 12       # validate buffer/length, build the I/O descriptor        (3-1)
    semaphore: int = 3      # compute the device's queue address and the descriptor   (4-x)
    device: int = 6         # write command, address, length, tag to device registers (5-2)
    handler: int = 6        # read status and data word(s), store into receiver frame (6-1, 6-2)
    receiver: int = 4       # check status, store result                              (user side)

    def scaled(self, k: float) -> "Costs":
        return replace(self, **{f.name: max(0, round(getattr(self, f.name) * k)) for f in fields(self)})

    def total(self) -> int:
        return sum(getattr(self, f.name) for f in fields(self) if f.name != "retry")


class Request:
    __slots__ = ("rid", "device", "frame", "issued_at", "completed_at", "stage", "retries")

    def __init__(self, rid: int, device: int):
        self.rid = rid
        self.device = device
        self.frame = None
        self.issued_at = -1
        self.completed_at = -1
        self.stage = "new"
        self.retries = 0

    def __repr__(self):
        return f"<req {self.rid} dev {self.device} {self.stage}>"


class DevCtl:
    """Per-device kernel state: the devctl frame, its entries, the device and its request queue."""

    def __init__(self, frame: acm.Frame, dev: Device):
        self.frame = frame
        self.devthr = frame.entry("device_thread")
        self.handler = frame.entry("handler")
        self.dev = dev
        self.queue: deque = deque()


class IoSystem:
    def __init__(self, m: Machine, devices: int, rtt: int, costs: Costs = Costs(), protocol: str = "safe",
                 enqueue_delay: int = 0):
        if devices < 1:
            raise ValueError("at least one device")
        if protocol not in ("safe", "literal"):
            raise ValueError(protocol)
        self.m = m
        self.c = costs
        self.protocol = protocol
        self.enqueue_delay = enqueue_delay   # literal protocol only: instructions between failed trylk and enqueue
        self.requests: list[Request] = []
        self.completed: list[Request] = []
        self.proc_t = FrameTemplate("proc", (EntrySpec("sender", self._sender, 1, Mode.USER),
                                             EntrySpec("receiver", self._receiver, 1, Mode.USER)))
        self.gate_t = FrameTemplate("gate", (EntrySpec("gate", self._gate, 1, Mode.KIF),))
        self.sysreq_t = FrameTemplate("sysreq", (EntrySpec("syscall", self._syscall, 1, Mode.KERNEL),
                                                 EntrySpec("semaphore", self._semaphore, 1, Mode.KERNEL)))
        self.devctl_t = FrameTemplate("devctl", (EntrySpec("device_thread", self._device_thread, 1, Mode.KERNEL),
                                                 EntrySpec("handler", self._handler, 2, Mode.KERNEL)))
        self.gate = m.new_frame(self.gate_t).entry("gate")
        self.devs: list[DevCtl] = []
        for d in range(devices):
            f = m.new_frame(self.devctl_t)
            dev = Device(m, rtt, name=f"dev{d}")
            dc = DevCtl(f, dev)
            dev.connect(dc.handler, "data")
            self.devs.append(dc)

    # ---- workload --------------------------------------------------------------------------
    def submit(self, at: int, device: int | None = None) -> Request:
        """The measurement unit puts one sender_thread (one system call request) at cycle `at`."""
        rid = len(self.requests)
        r = Request(rid, rid % len(self.devs) if device is None else device)
        r.frame = self.m.new_frame(self.proc_t)
        r.issued_at = at
        self.requests.append(r)
        self.m.inject(at, r.frame.entry("sender"), "req", r)
        return r

    def census(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for r in self.requests:
            out[r.stage] = out.get(r.stage, 0) + 1
        return out

    # ---- thread bodies (section 3.3) --------------------------------------------------------
    def _sender(self, th):
        req = th.data["req"]
        req.stage = "sender"
        yield Compute(self.c.sender)
        ok = yield TryLock(self.gate)                       # 1-1
        if ok:
            yield Compute(self.c.sender_args)
            yield Continue(self.gate, "req", req)           # 1-2
        else:
            req.retries += 1
            yield Compute(self.c.retry)
            yield Rearm(th.entry)                           # 1-3: continue to itself
            yield Continue(th.entry)

    def _gate(self, th):
        req = th.data["req"]
        req.stage = "gate"
        yield Compute(self.c.gate)                          # 2-1
        kf = yield Alloc(self.sysreq_t)
        yield Continue(kf.entry("syscall"), "req", req)     # 2-2
        yield Rearm(th.entry)                               # ready for the next sender ...
        yield Unlock(th.entry)                              # ... before the lock is released

    def _syscall(self, th):
        th.data["req"].stage = "syscall"
        yield Compute(self.c.syscall)                       # 3-1
        yield Continue(th.frame.entry("semaphore"))         # 3-2 (req stays in the frame's data)

    def _semaphore(self, th):
        req = th.data["req"]
        req.stage = "queued"
        dc = self.devs[req.device]
        yield Compute(self.c.semaphore)
        if self.protocol == "safe":
            yield Push(dc.queue, req)
            ok = yield TryLock(dc.devthr)
            if ok:
                yield from self._drain(dc)
        else:
            ok = yield TryLock(dc.devthr)                   # 4-1
            if ok:
                yield Continue(dc.devthr, "req", req)       # 4-2
            else:
                yield Compute(self.enqueue_delay)
                yield Push(dc.queue, req)                   # 4-3
        yield Free(th.frame)

    def _drain(self, dc: DevCtl):
        """Called holding dc.devthr's lock: hand it to device_thread with the next request or
        release it; after releasing, re-check the queue so that no request is stranded."""
        while True:
            item = yield Pop(dc.queue)
            if item is not None:
                yield Continue(dc.devthr, "req", item)
                return
            yield Unlock(dc.devthr)
            nonempty = yield Peek(dc.queue)
            if not nonempty:
                return
            ok = yield TryLock(dc.devthr)
            if not ok:
                return

    def _device_thread(self, th):
        req = th.data["req"]
        req.stage = "device"
        dc = self.devs[req.device]
        yield Rearm(th.entry)
        yield Compute(self.c.device)                        # 5-1
        yield Issue(dc.dev, req)                            # 5-2
        yield Continue(dc.handler, "req", req)              # 5-3

    def _handler(self, th):
        dc = self.devs[th.data["req"].device]
        yield Rearm(th.entry)                               # before Take: Take may deliver the next event
        data = yield Take(dc.dev)                           # 6-1
        if data is not th.data["req"]:
            raise acm.FuceError(f"handler got {data!r} but device_thread named {th.data['req']!r}")
        data.stage = "handler"
        yield Compute(self.c.handler)
        yield Continue(data.frame.entry("receiver"), "data", data)   # 6-2
        if self.protocol == "safe":
            yield from self._drain(dc)                      # 6-3
        else:
            item = yield Pop(dc.queue)
            if item is not None:
                yield Continue(dc.devthr, "req", item)      # 6-3
            else:
                yield Unlock(dc.devthr)

    def _receiver(self, th):
        req = th.data["data"]
        req.stage = "receiver"
        yield Compute(self.c.receiver)
        yield Free(th.frame)
        yield Note(lambda t: self._complete(req, t))

    def _complete(self, req: Request, t: int) -> None:
        if req.completed_at >= 0:
            raise acm.FuceError(f"request {req.rid} completed twice")
        req.completed_at = t
        req.stage = "done"
        self.completed.append(req)
