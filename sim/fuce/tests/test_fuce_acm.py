"""Untimed semantics of instance frames: counters, re-arming, lock bits, modes, bad input."""
import pytest

from fuce import acm
from fuce.acm import EntrySpec, FrameError, FramePool, FrameTemplate, LockError, Mode, ModeError, NotArmedError


def _body(th):
    yield from ()


def frame(fan_in=1, mode=Mode.USER, pool=None):
    t = FrameTemplate("t", (EntrySpec("a", _body, fan_in, mode), EntrySpec("b", _body, 1, mode)))
    return (pool or FramePool()).alloc(t)


def test_fires_exactly_at_zero_and_once_per_arming():
    e = frame(fan_in=3).entry("a")
    assert [acm.continue_to(Mode.KERNEL, e) for _ in range(3)] == [False, False, True]
    assert e.fires == 1 and e.count == 0
    with pytest.raises(NotArmedError):
        acm.continue_to(Mode.KERNEL, e)         # a 4th continuation is not silently absorbed
    assert e.fires == 1


def test_rearm_to_fan_in_and_to_given_value():
    e = frame(fan_in=2).entry("a")
    with pytest.raises(NotArmedError):
        acm.rearm(Mode.KERNEL, e)               # still armed: re-arming would lose a continuation
    acm.continue_to(Mode.KERNEL, e)
    acm.continue_to(Mode.KERNEL, e)
    acm.rearm(Mode.KERNEL, e)                   # back to fan-in 2
    assert e.count == 2
    assert [acm.continue_to(Mode.KERNEL, e) for _ in range(2)] == [False, True]
    acm.rearm(Mode.KERNEL, e, 1)                # a predefined value other than fan-in
    assert acm.continue_to(Mode.KERNEL, e) is True
    assert e.fires == 3
    with pytest.raises(NotArmedError):
        acm.rearm(Mode.KERNEL, e, 0)


def test_value_lands_in_the_target_frame_slot():
    f = frame()
    acm.continue_to(Mode.KERNEL, f.entry("b"), "x", 42)
    assert f.data["x"] == 42


def test_trylock_unlock():
    e = frame().entry("a")
    assert e.lock == 0                          # initial lock bit is zero
    assert acm.trylock(Mode.USER, e) is True
    assert e.lock == 1
    assert acm.trylock(Mode.USER, e) is False   # second taker fails, bit unchanged
    assert e.lock == 1
    acm.unlock(Mode.USER, e)
    assert e.lock == 0
    with pytest.raises(LockError):
        acm.unlock(Mode.USER, e)
    assert acm.trylock(Mode.KERNEL, e) is True  # no owner: anyone may take it after unlk


def test_mode_rules():
    pool = FramePool()
    k = frame(mode=Mode.KERNEL, pool=pool).entry("a")
    kif = frame(mode=Mode.KIF, pool=pool).entry("a")
    u = frame(mode=Mode.USER, pool=pool).entry("a")
    for op in (lambda: acm.continue_to(Mode.USER, k), lambda: acm.trylock(Mode.USER, k)):
        with pytest.raises(ModeError):
            op()
    assert k.count == 1 and k.lock == 0         # a refused op changes nothing
    assert acm.continue_to(Mode.USER, kif) is True      # user -> kernel interface: allowed
    assert acm.continue_to(Mode.KIF, k) is True         # kernel interface -> kernel: allowed
    assert acm.continue_to(Mode.KERNEL, u) is True      # kernel -> user (returning results): allowed


def test_bad_input_freed_frame_and_out_of_range_entry():
    pool = FramePool(pages=2)
    f = frame(pool=pool)
    with pytest.raises(FrameError):
        f.entry(8)
    with pytest.raises(FrameError):
        f.entry("nope")
    e = f.entry(0)
    pool.free(f)
    with pytest.raises(FrameError):
        acm.continue_to(Mode.KERNEL, e)
    with pytest.raises(FrameError):
        f.entry(0)
    with pytest.raises(FrameError):
        pool.free(f)


def test_acm_pages_are_finite():
    pool = FramePool(pages=3)
    for _ in range(3):
        frame(pool=pool)
    with pytest.raises(FrameError):
        frame(pool=pool)
    assert pool.peak == 3


def test_template_limits():
    with pytest.raises(FrameError):
        FrameTemplate("big", tuple(EntrySpec(f"e{i}", _body) for i in range(acm.ENTRIES_PER_PAGE + 1)))
    with pytest.raises(FrameError):
        FrameTemplate("z", (EntrySpec("e", _body, fan_in=0),))
