"""Timing of the machine on tiny graphs, against schedules computed by hand.

Rules (machine.py): a continuation at cycle x fires the thread, it enters the RTQ at x+1
(activation), is assigned at the first cycle a TEU and the dispatcher are free, and starts one
cycle later; Compute(n) is n cycles; every other op is 1 cycle, TAC ops one per cycle machine-wide.
"""
import pytest

from fuce import Machine, Mode
from fuce.acm import EntrySpec, FrameTemplate, ModeError
from fuce.ops import Compute, Continue, TryLock


def build(m, specs):
    """specs: {name: (fan_in, body_factory(entries)->body)}; one frame holding all entries."""
    entries = {}
    tmpl = FrameTemplate("g", tuple(EntrySpec(n, (lambda n=n: lambda th: specs[n][1](entries)(th))(), fi, Mode.KERNEL)
                                    for n, (fi, _) in specs.items()))
    f = m.new_frame(tmpl)
    entries.update({n: f.entry(n) for n in specs})
    return entries


def spans(m):
    return {name: (teu, s, e) for name, _, teu, s, e in m.trace}


def test_chain_of_two():
    m = Machine(1, trace=True)

    def a(E):
        def body(th):
            yield Compute(5)
            yield Continue(E["B"])
        return body

    def b(E):
        def body(th):
            yield Compute(3)
        return body
    E = build(m, {"A": (1, a), "B": (1, b)})
    m.inject(0, E["A"])
    m.run()
    # A: fires 0, ready 1, assigned 1, starts 2; compute 2..7; continue at 7; ends 8.
    # B: fires 7, ready 8; TEU free at 8, assigned 8, starts 9; compute 3 -> ends 12.
    assert spans(m) == {"A": (0, 2, 8), "B": (0, 9, 12)}


@pytest.mark.parametrize("act,disp", [(1, 1), (3, 2), (0, 1)])
def test_chain_of_two_activation_and_dispatch(act, disp):
    m = Machine(1, activation=act, dispatch=disp, trace=True)

    def a(E):
        def body(th):
            yield Compute(5)
            yield Continue(E["B"])
        return body

    def b(E):
        def body(th):
            yield Compute(3)
        return body
    E = build(m, {"A": (1, a), "B": (1, b)})
    m.inject(0, E["A"])
    m.run()
    a_start = act + disp
    a_end = a_start + 6
    b_start = max(a_start + 5 + act, a_end) + disp
    assert spans(m) == {"A": (0, a_start, a_end), "B": (0, b_start, b_start + 3)}


def test_join_fan_in_two_on_two_teus():
    m = Machine(2, trace=True)

    def src(E):
        def body(th):
            yield Compute(4)
            yield Continue(E["C"])
        return body

    def c(E):
        def body(th):
            yield Compute(2)
        return body
    E = build(m, {"A": (1, src), "B": (1, src), "C": (2, c)})
    m.inject(0, E["A"])
    m.inject(0, E["B"])
    m.run()
    # injections share the TAC: A fires 0, B fires 1 -> A starts 2 (TEU0), B starts 3 (TEU1).
    # A's continue at 6 (C count 2->1), ends 7; B's at 7 fires C, B ends 8.
    # C ready 8, TEU0 free since 7 -> starts 9, ends 11.
    assert spans(m) == {"A": (0, 2, 7), "B": (1, 3, 8), "C": (0, 9, 11)}
    assert E["C"].fires == 1


def test_rtq_is_fifo_on_one_teu():
    m = Machine(1, trace=True)

    def w(E):
        def body(th):
            yield Compute(10)
        return body
    E = build(m, {"A": (1, w), "B": (1, w), "C": (1, w)})
    for n in "ABC":
        m.inject(0, E[n])
    m.run()
    assert spans(m) == {"A": (0, 2, 12), "B": (0, 13, 23), "C": (0, 24, 34)}
    assert m.rtq_peak == 2


def test_tac_serializes_ops_of_the_same_cycle():
    m = Machine(2, trace=True)
    got = {}

    def locker(delay):
        def f(E):
            def body(th):
                yield Compute(delay)
                got[th.entry.name] = yield TryLock(E["L"])
            return body
        return f

    def idle(E):
        def body(th):
            yield from ()
        return body
    E = build(m, {"A": (1, locker(2)), "B": (1, locker(1)), "L": (1, idle)})
    m.inject(0, E["A"])
    m.inject(0, E["B"])
    m.run()
    # A starts 2, trylk issued at 4 -> TAC cycle 4 -> True, ends 5.
    # B starts 3, trylk issued at 4 -> TAC busy, done at 5 -> False, ends 6.
    assert got == {"A": True, "B": False}
    assert spans(m)["A"] == (0, 2, 5) and spans(m)["B"] == (1, 3, 6)
    assert m.tac_wait == 1 + 1   # B's trylk waited 1; B's injection waited 1 behind A's


def test_teu_runs_one_thread_at_a_time():
    m = Machine(3, trace=True)

    def w(E):
        def body(th):
            yield Compute(7)
        return body
    names = [f"T{i}" for i in range(8)]
    E = build(m, {n: (1, w) for n in names})
    for n in names:
        m.inject(0, E[n])
    m.run()
    by_teu = {}
    for _, _, teu, s, e in m.trace:
        by_teu.setdefault(teu, []).append((s, e))
    assert set(by_teu) == {0, 1, 2}
    for iv in by_teu.values():
        iv.sort()
        assert all(e1 < s2 for (_, e1), (s2, _) in zip(iv, iv[1:]))


def test_user_thread_cannot_continue_to_kernel_thread():
    m = Machine(1)

    def body(th):
        yield Continue(k)
    t = FrameTemplate("u", (EntrySpec("u", body, 1, Mode.USER),))
    kt = FrameTemplate("k", (EntrySpec("k", lambda th: iter(()), 1, Mode.KERNEL),))
    u = m.new_frame(t).entry("u")
    k = m.new_frame(kt).entry("k")
    m.inject(0, u)
    with pytest.raises(ModeError):
        m.run()
    assert k.count == 1
