"""The engine's arbitration rules, on hand-made programs."""
import pytest

from krpp import Engine


def prog(*stages):
    def g():
        for s in stages:
            yield s
    return g


def entries(eng):
    return sorted((e.pid, e.stage, e.start, e.end) for e in eng.trace)


def test_simultaneous_requests_served_by_pid():
    eng = Engine(["R"], trace=True)
    R = eng.resources["R"]
    eng.add(2, prog(("x", R, 3, None)))
    eng.add(1, prog(("x", R, 3, None)))
    assert eng.run() == 6
    assert entries(eng) == [(1, "x", 0, 3), (2, "x", 3, 6)]


def test_earlier_request_beats_lower_pid():
    eng = Engine(["R"], trace=True)
    R = eng.resources["R"]
    eng.add(1, prog(("w", None, 2, None), ("x", R, 1, None)))
    eng.add(2, prog(("w", None, 1, None), ("x", R, 5, None)))
    eng.add(3, prog(("x", R, 4, None)))
    eng.run()
    # P3 asks at 0, P2 at 1, P1 at 2: served P3[0,4) P2[4,9) P1[9,10)
    assert [e for e in entries(eng) if e[1] == "x"] == [(1, "x", 9, 10), (2, "x", 4, 9),
                                                        (3, "x", 0, 4)]
    assert eng.resources["R"].wait == (9 - 2) + (4 - 1)


def test_release_and_regrant_in_the_same_clock():
    eng = Engine(["R"], trace=True)
    R = eng.resources["R"]
    eng.add(1, prog(("x", R, 2, None), ("x", R, 2, None)))
    eng.add(2, prog(("w", None, 2, None), ("x", R, 2, None)))
    eng.run()
    # at t=2 P1 releases and asks again, P2 asks: both stamped 2, P1 has the lower pid
    assert [e for e in entries(eng) if e[1] == "x"] == [(1, "x", 0, 2), (1, "x", 2, 4),
                                                        (2, "x", 4, 6)]


def test_parallel_stages_overlap_and_zero_stages_vanish():
    eng = Engine(["R"], trace=True)
    for pid in (1, 2, 3):
        eng.add(pid, prog(("s", None, 5, None), ("z", None, 0, None)))
    assert eng.run() == 5
    assert entries(eng) == [(1, "s", 0, 5), (2, "s", 0, 5), (3, "s", 0, 5)]


def test_wake_and_never_woken():
    eng = Engine(["R"])

    def waker():
        yield ("m", None, 4, None)
        eng.wake(2)
    eng.add(1, waker)
    eng.add(2, prog(("s", None, 1, None)), start=None)
    assert eng.run() == 5
    assert eng.finish_time(2) == 5

    eng2 = Engine(["R"])
    eng2.add(1, prog(("s", None, 1, None)))
    eng2.add(2, prog(("s", None, 1, None)), start=None)
    with pytest.raises(AssertionError, match="never woken"):
        eng2.run()
