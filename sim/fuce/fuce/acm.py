"""Activation Control Memory: instance frames, thread entries, sync counters, lock bits, modes.

This is the *untimed* semantics of the Fuce thread model (CEFOS paper, sections 2.2 and 3.1.2);
the machine (machine.py) decides *when* each operation happens, this module decides *what* it does.

An instance frame (an ACM page) holds up to `ENTRIES_PER_PAGE` thread entries and a data area.
Each entry is {sync count, fan-in, code entry, lock bit} plus the thread's mode.

Invariants (each violation raises a FuceError, so a broken program graph fails loudly):
- An entry is *armed* while its count is > 0. A continuation decrements an armed entry's count;
  the one continuation that takes it from 1 to 0 *fires* it (the thread becomes ready), so an
  entry fires exactly once per arming. A continuation to an entry whose count is already 0
  (fired and not re-armed) is an error: the model never silently drops or double-fires.
- Re-arming (the paper's self-continuation that "resets the synchronization counter to a
  predefined value") is only legal on a fired entry (count 0); it sets the count to the fan-in
  or to a given positive value.
- The lock bit starts at 0. trylk sets it to 1 and returns True iff it was 0; unlk sets it to 0
  (unlocking an unlocked entry is reported as an error, a protocol bug in the model). The lock
  bit has no owner, as in Fuce: any thread may unlk.
- Modes: a USER thread may not continue to, lock, unlock or re-arm a KERNEL entry; it must go
  through a KERNEL-INTERFACE entry (paper Fig. 5). Kernel and kernel-interface threads may reach
  any mode.
- Operations on a freed frame or on an entry index outside the page are errors.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Callable

ENTRIES_PER_PAGE = 8     # paper 3.4.1: ACM = 5 B/entry x 8 entries/page x 1K pages
ACM_PAGES = 1024


class Mode(enum.IntEnum):
    USER = 0
    KERNEL = 1
    KIF = 2  # kernel interface


class FuceError(RuntimeError):
    """A violation of the thread model's rules by the simulated program."""


class ModeError(FuceError):
    pass


class NotArmedError(FuceError):
    pass


class FrameError(FuceError):
    pass


class LockError(FuceError):
    pass


@dataclass(frozen=True)
class EntrySpec:
    name: str
    code: Callable[[Any], Any]   # body(thread) -> generator of ops
    fan_in: int = 1
    mode: Mode = Mode.USER


@dataclass(frozen=True)
class FrameTemplate:
    name: str
    entries: tuple[EntrySpec, ...]

    def __post_init__(self):
        if not 1 <= len(self.entries) <= ENTRIES_PER_PAGE:
            raise FrameError(f"{self.name}: a frame holds 1..{ENTRIES_PER_PAGE} entries")
        for e in self.entries:
            if e.fan_in < 1:
                raise FrameError(f"{self.name}.{e.name}: fan-in must be >= 1")


class Entry:
    __slots__ = ("frame", "index", "name", "code", "fan_in", "count", "lock", "mode", "fires")

    def __init__(self, frame: "Frame", index: int, spec: EntrySpec):
        self.frame = frame
        self.index = index
        self.name = spec.name
        self.code = spec.code
        self.fan_in = spec.fan_in
        self.count = spec.fan_in
        self.lock = 0
        self.mode = spec.mode
        self.fires = 0

    def __repr__(self):
        return f"<{self.frame.template.name}#{self.frame.fid}.{self.name} count={self.count} lock={self.lock}>"


class Frame:
    """One instance (ACM page): entries plus the data area the paper's base address points to."""

    __slots__ = ("fid", "template", "entries", "by_name", "data", "live")

    def __init__(self, fid: int, template: FrameTemplate):
        self.fid = fid
        self.template = template
        self.entries = [Entry(self, i, s) for i, s in enumerate(template.entries)]
        self.by_name = {e.name: e for e in self.entries}
        self.data: dict[str, Any] = {}
        self.live = True

    def entry(self, key) -> Entry:
        if not self.live:
            raise FrameError(f"frame {self.template.name}#{self.fid} is freed")
        if isinstance(key, int):
            if not 0 <= key < len(self.entries):
                raise FrameError(f"entry index {key} out of range for {self.template.name}")
            return self.entries[key]
        try:
            return self.by_name[key]
        except KeyError:
            raise FrameError(f"no entry {key!r} in {self.template.name}") from None


@dataclass
class FramePool:
    """ACM pages; allocation fails (FrameError) when all pages are in use."""

    pages: int = ACM_PAGES
    in_use: int = 0
    peak: int = 0
    _next_id: int = field(default=0, repr=False)

    def alloc(self, template: FrameTemplate) -> Frame:
        if self.in_use >= self.pages:
            raise FrameError("ACM full: no free instance page")
        self.in_use += 1
        self.peak = max(self.peak, self.in_use)
        self._next_id += 1
        return Frame(self._next_id, template)

    def free(self, frame: Frame) -> None:
        if not frame.live:
            raise FrameError(f"double free of frame {frame.template.name}#{frame.fid}")
        frame.live = False
        self.in_use -= 1


def _check_live(entry: Entry) -> None:
    if not entry.frame.live:
        raise FrameError(f"operation on freed frame: {entry!r}")


def check_mode(src: Mode, target: Entry) -> None:
    if src == Mode.USER and target.mode == Mode.KERNEL:
        raise ModeError(f"a user thread cannot reach kernel thread {target!r} directly")


def continue_to(src: Mode, target: Entry, slot: str | None = None, value: Any = None) -> bool:
    """Deliver one continuation; store `value` in the target frame's `slot`. True iff it fired."""
    _check_live(target)
    check_mode(src, target)
    if target.count <= 0:
        raise NotArmedError(f"continuation to an entry that is not armed: {target!r}")
    if slot is not None:
        target.frame.data[slot] = value
    target.count -= 1
    if target.count == 0:
        target.fires += 1
        return True
    return False


def rearm(src: Mode, target: Entry, count: int | None = None) -> None:
    _check_live(target)
    check_mode(src, target)
    if target.count != 0:
        raise NotArmedError(f"re-arm of an entry that is still armed: {target!r}")
    c = target.fan_in if count is None else count
    if c < 1:
        raise NotArmedError(f"re-arm count must be >= 1, got {c}")
    target.count = c


def trylock(src: Mode, target: Entry) -> bool:
    _check_live(target)
    check_mode(src, target)
    if target.lock:
        return False
    target.lock = 1
    return True


def unlock(src: Mode, target: Entry) -> None:
    _check_live(target)
    check_mode(src, target)
    if not target.lock:
        raise LockError(f"unlk of an unlocked entry: {target!r}")
    target.lock = 0
