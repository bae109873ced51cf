"""Timing rules of machine.py that the hand-made schedules elsewhere do not pin down
(found by mutation testing: each test fails when its rule is broken):
rule 2 (the dispatcher makes one assignment per cycle; free TEUs are taken lowest index
first, also after TEUs are freed out of order), MEM Pop is FIFO, the throughput search's
tie rule (smallest N with the best count) and the device utilisation."""
from collections import deque

from fuce import Machine, Mode, max_throughput, run_chain
from fuce.acm import EntrySpec, FrameTemplate
from fuce.ops import Compute, Pop, Push


def build(m, bodies):
    """bodies: {name: body}; one frame holding every entry (fan-in 1, kernel mode)."""
    tmpl = FrameTemplate("g", tuple(EntrySpec(n, b, 1, Mode.KERNEL) for n, b in bodies.items()))
    f = m.new_frame(tmpl)
    return {n: f.entry(n) for n in bodies}


def spans(m):
    return {name: (teu, s, e) for name, _, teu, s, e in m.trace}


def work(n):
    def body(th):
        yield Compute(n)
    return body


def test_dispatcher_assigns_one_thread_per_cycle():
    # without TAC serialization both fire at 0 and are ready at 1 together; the dispatcher
    # assigns A at 1 (starts 2) and B only at 2 (starts 3), though both TEUs are free.
    m = Machine(2, tac_serial=False, trace=True)
    E = build(m, {"A": work(5), "B": work(5)})
    m.inject(0, E["A"])
    m.inject(0, E["B"])
    m.run()
    assert spans(m) == {"A": (0, 2, 7), "B": (1, 3, 8)}


def test_freed_teus_are_taken_lowest_index_first():
    # A on TEU0 (2..7), B on TEU1 (3..103), C on TEU2 (4..5): TEU2 is freed before TEU0.
    # D, injected at 20 when TEU0 and TEU2 are free, must go to TEU0.
    m = Machine(3, tac_serial=False, trace=True)
    E = build(m, {"A": work(5), "B": work(100), "C": work(1), "D": work(1)})
    for n in "ABC":
        m.inject(0, E[n])
    m.inject(20, E["D"])
    m.run()
    s = spans(m)
    assert s["A"] == (0, 2, 7) and s["B"] == (1, 3, 103) and s["C"] == (2, 4, 5)
    assert s["D"] == (0, 22, 23)


def test_mem_pop_is_fifo():
    q = deque()
    got = []

    def body(th):
        yield Push(q, 1)
        yield Push(q, 2)
        yield Push(q, 3)
        got.append((yield Pop(q)))
        got.append((yield Pop(q)))
        got.append((yield Pop(q)))
        got.append((yield Pop(q)))       # empty: None
    m = Machine(1, trace=True)
    E = build(m, {"A": body})
    m.inject(0, E["A"])
    m.run()
    assert got == [1, 2, 3, None]
    assert spans(m)["A"] == (0, 2, 9)     # 7 memory ops, one cycle each


def test_best_n_is_the_smallest_n_with_the_best_count():
    best, curve = max_throughput(2, 1, period=20_000)
    top = max(c for _, c in curve)
    assert best.completed == top
    assert best.n == min(n for n, c in curve if c == top)


def test_device_utilisation_of_one_request_is_one_round_trip():
    r = run_chain(1, 1, 1, period=20_000, rtt=2_000)
    assert r.completed == 1
    assert r.dev_util == 2_000 / 20_000
    r = run_chain(1, 2, 2, period=20_000, rtt=2_000)
    assert r.completed == 2 and r.dev_util == 2 * 2_000 / (2 * 20_000)


def test_acm_peak_is_a_high_water_mark():
    from fuce.acm import FramePool
    pool = FramePool(8)
    tmpl = FrameTemplate("p", (EntrySpec("e", work(1), 1, Mode.KERNEL),))
    frames = [pool.alloc(tmpl) for _ in range(3)]
    pool.free(frames[0])
    pool.free(frames[1])
    pool.alloc(tmpl)
    assert pool.in_use == 2 and pool.peak == 3
