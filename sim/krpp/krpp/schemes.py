"""The thread-creation schemes of the paper as programs for the engine.

Stages per scheme (section 3.4.2, 4.1-4.3; p = processors that create threads):

  serial           one processor, no message: per thread B + 114 pairs; the first thread's
                   pairs are C/S from memory, later threads' pairs hit the private cache.
  serial_template  one processor: template = 85 C/S pairs, then per thread B + 29 pairs
                   (first thread C/S, the rest cached).
  simple           issuer: M.  each creator: repeat { A; take one thread; B; 114 x (C, S) }.
  template         issuer: M, then 85 x (C, S) for the template.  creators as `simple`
                   with 29 pairs (private information only).
  chunk            issuer: M.  each creator: A once, takes ceil or floor(N/p) threads; per
                   thread B, then 114 x (C, S) for its first thread and 114 x L after.
  combination      issuer: M + template (85 pairs).  creators as `chunk` with 29 pairs.

Serialized: A (message queue), B (free-THCB list + ready queue, one lock), C (the single
memory module holding the shared data).  Parallel: M, S, L and the cached pairs.

The call completes when every thread is created and the template (if any) is built;
the futile message accesses that find no work left are simulated but do not count.

Chunk sizes: each creator accesses the message once and takes ceil(r/q) threads, r the
threads left, q the creators that have not accessed it yet; so the first N mod p creators
(in message-access order) take ceil(N/p) and the others floor(N/p), as the paper states.

Consecutive parallel stages of one processor (the 114 L stages of a chunk thread, the
cached pairs of the serial schemes) run as one stage of the summed length: no other
processor can observe the boundary, so the timing is identical and the run is faster.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from .engine import Engine, TraceEntry
from .params import PAPER, START_AFTER_TEMPLATE, Model

SERIAL_SCHEMES = ("serial", "serial_template")
PARALLEL_SCHEMES = ("simple", "template", "chunk", "combination")
SCHEMES = SERIAL_SCHEMES + PARALLEL_SCHEMES
ISSUER = 0


class Message:
    """The multiple-thread-creation message in the pool."""

    def __init__(self, threads: int, participants: int):
        self.next_tid = 0
        self.threads = threads
        self.unserved = participants

    @property
    def remaining(self) -> int:
        return self.threads - self.next_tid

    def take_one(self) -> Optional[int]:
        if self.next_tid >= self.threads:
            return None
        self.next_tid += 1
        return self.next_tid - 1

    def take_chunk(self) -> range:
        if self.unserved <= 0:
            raise RuntimeError("more chunk accesses than participating processors")
        k = -(-self.remaining // self.unserved)   # ceil
        self.unserved -= 1
        first = self.next_tid
        self.next_tid += k
        return range(first, first + k)


@dataclass
class Result:
    scheme: str
    processors: int
    threads: int
    time: float                          # all threads created (and template built)
    end: float                           # last event, futile message accesses included
    created: dict = field(default_factory=dict)   # thread -> (time, pid)
    template_done: Optional[float] = None
    resources: dict = field(default_factory=dict)  # name -> {busy, grants, wait}
    trace: Optional[list] = None
    events: int = 0


class _Run:
    def __init__(self, scheme: str, model: Model, threads: int, trace: bool):
        self.model = model
        self.eng = Engine(("A", "B", "C"), trace=trace)
        r = self.eng.resources
        t = model.times
        self.A, self.B, self.C = r["A"], r["B"], r["C"]
        self.T = t
        self.created: dict[int, tuple] = {}
        self.template_done: Optional[float] = None
        self.threads = threads
        self.scheme = scheme

    # -- building blocks --------------------------------------------------------------
    def done(self, tid: int, pid: int) -> None:
        if tid in self.created:
            raise AssertionError(f"thread {tid} created twice")
        self.created[tid] = (self.eng.now, pid)

    def cold_pairs(self, k: int, tid):
        C, tc, ts = self.C, self.T.C, self.T.S
        for _ in range(k):
            yield ("C", C, tc, tid)
            yield ("S", None, ts, tid)

    def template(self):
        yield from self.cold_pairs(self.model.layout.pairs_common, None)
        self.template_done = self.eng.now

    def per_thread(self, tid: int, pairs: int, first: bool, warm_cost: float, warm_name: str):
        yield ("B", self.B, self.T.B, tid)
        if first:
            yield from self.cold_pairs(pairs, tid)
        else:
            yield (warm_name, None, pairs * warm_cost, tid)

    # -- programs ------------------------------------------------------------------------
    def serial_prog(self, pairs: int, with_template: bool):
        m = self.model
        if with_template:
            yield from self.template()
        for tid in range(self.threads):
            first = tid == 0 and m.cold_first_serial and (m.serial_template_cold_first or not with_template)
            yield from self.per_thread(tid, pairs, first, m.warm_pair, "W")
            self.done(tid, ISSUER)

    def simple_creator(self, pid: int, msg: Message, pairs: int):
        while True:
            yield ("A", self.A, self.T.A, None)
            tid = msg.take_one()
            if tid is None:
                return
            yield ("B", self.B, self.T.B, tid)
            yield from self.cold_pairs(pairs, tid)
            self.done(tid, pid)

    def chunk_creator(self, pid: int, msg: Message, pairs: int):
        yield ("A", self.A, self.T.A, None)
        for j, tid in enumerate(msg.take_chunk()):
            yield from self.per_thread(tid, pairs, j == 0, self.T.L, "L")
            self.done(tid, pid)

    def issuer_prog(self, creators: list, with_template: bool, own):
        yield ("M", None, self.T.M, None)
        late = with_template and self.model.creators_start == START_AFTER_TEMPLATE
        if not late:
            for pid in creators:      # idle processors are awoken after M
                self.eng.wake(pid)
        if with_template:
            yield from self.template()
        if late:
            for pid in creators:      # ... or only once the template is built
                self.eng.wake(pid)
        if own is not None:
            yield from own


def simulate(scheme: str, processors: int, threads: int, model: Model = PAPER,
             trace: bool = False) -> Result:
    """Simulate one multiple-thread-creation call and return its timing."""
    if scheme not in SCHEMES:
        raise ValueError(f"unknown scheme {scheme!r}; one of {', '.join(SCHEMES)}")
    if threads < 1:
        raise ValueError("threads must be >= 1")
    if processors < 1:
        raise ValueError("processors must be >= 1")
    run = _Run(scheme, model, threads, trace)
    lay = model.layout
    eng = run.eng
    if scheme in SERIAL_SCHEMES:
        processors = 1
        with_t = scheme == "serial_template"
        pairs = lay.pairs_private if with_t else lay.pairs_total
        eng.add(ISSUER, lambda: run.serial_prog(pairs, with_t), start=0)
    else:
        with_t = scheme in ("template", "combination")
        pairs = lay.pairs_private if with_t else lay.pairs_total
        chunked = scheme in ("chunk", "combination")
        n_idle = processors - 1 if model.issuer_creates else processors
        msg = Message(threads, processors)
        body = run.chunk_creator if chunked else run.simple_creator
        creators = list(range(1, n_idle + 1))
        for pid in creators:
            eng.add(pid, (lambda pid=pid: body(pid, msg, pairs)), start=None)
        own = body(ISSUER, msg, pairs) if model.issuer_creates else None
        eng.add(ISSUER, lambda: run.issuer_prog(creators, with_t, own), start=0)
    end = eng.run()
    if len(run.created) != threads:
        raise AssertionError(f"{len(run.created)} of {threads} threads created")
    t_all = max(t for t, _ in run.created.values())
    if run.template_done is not None:
        t_all = max(t_all, run.template_done)
    if model.count_futile:              # the creators' last, empty message accesses count too
        t_all = max(t_all, end)
    res = {r.name: {"busy": r.busy, "grants": r.grants, "wait": r.wait}
           for r in eng.resources.values()}
    return Result(scheme=scheme, processors=processors, threads=threads, time=t_all, end=end,
                  created=run.created, template_done=run.template_done, resources=res,
                  trace=eng.trace, events=eng.events)


__all__ = ["simulate", "Result", "Message", "SCHEMES", "SERIAL_SCHEMES", "PARALLEL_SCHEMES",
           "ISSUER", "TraceEntry"]
