"""Invariants of the model, over grids of small cases (unit and paper stage times)."""
import itertools
import math

import pytest

from krpp import (PAPER, PARALLEL_SCHEMES, SCHEMES, Layout, Model, StageTimes, simulate,
                  unit_model)

SERIALIZED = {"A", "B", "C"}
UNIT_B2 = unit_model(B=2)
SMALL_PAPER = Model(layout=Layout(common_bytes=12, private_bytes=8))   # 3 + 2 pairs
MODELS = [UNIT_B2, unit_model(B=1), SMALL_PAPER, SMALL_PAPER.with_(issuer_creates=True),
          UNIT_B2.with_(issuer_creates=True)]
GRID = [(p, th) for p in (1, 2, 3, 5, 8) for th in (1, 2, 3, 7, 16, 33)]


def cases():
    for m, s, (p, th) in itertools.product(range(len(MODELS)), SCHEMES, GRID):
        yield m, s, p, th


@pytest.mark.parametrize("mi,scheme", list(itertools.product(range(len(MODELS)), SCHEMES)))
def test_trace_invariants(mi, scheme):
    model = MODELS[mi]
    for p, th in GRID:
        r = simulate(scheme, p, th, model, trace=True)
        # every thread created exactly once (simulate also raises on a double creation)
        assert sorted(r.created) == list(range(th))
        # a serialized resource never has two holders: its stages do not overlap
        for res in SERIALIZED:
            iv = sorted((e.start, e.end) for e in r.trace if e.stage == res)
            for (a0, a1), (b0, b1) in zip(iv, iv[1:]):
                assert a1 <= b0, (scheme, p, th, res, (a0, a1), (b0, b1))
            assert sum(b - a for a, b in iv) == r.resources[res]["busy"]
        # first come first served: a stage requested earlier starts earlier (ties: lower pid)
        for res in SERIALIZED:
            es = [e for e in r.trace if e.stage == res]
            order = sorted(es, key=lambda e: (e.requested, e.pid))
            assert [e.start for e in order] == sorted(e.start for e in es)
        # one processor runs one stage at a time
        pids = {e.pid for e in r.trace}
        for pid in pids:
            iv = sorted((e.start, e.end) for e in r.trace if e.pid == pid)
            assert all(a1 <= b0 for (_, a1), (b0, _) in zip(iv, iv[1:]))
        # a thread's stages: B first, then its data; it is created when its last stage ends
        for tid, (t_done, pid) in r.created.items():
            st = [e for e in r.trace if e.thread == tid]
            assert {e.pid for e in st} == {pid}
            assert min(st, key=lambda e: e.start).stage == "B"
            assert max(e.end for e in st) == t_done


@pytest.mark.parametrize("mi", range(len(MODELS)))
def test_message_accesses_and_chunk_sizes(mi):
    model = MODELS[mi]
    for p, th in GRID:
        creators = p
        # simple/template: one access per thread plus one futile access per creator
        for s in ("simple", "template"):
            r = simulate(s, p, th, model)
            assert r.resources["A"]["grants"] == th + creators
            assert r.resources["B"]["grants"] == th
        # chunk/combination: exactly one access per creator; chunk sizes ceil/floor(th/p)
        for s in ("chunk", "combination"):
            r = simulate(s, p, th, model)
            assert r.resources["A"]["grants"] == creators
            sizes = sorted((sum(1 for _, q in r.created.values() if q == pid)
                            for pid in {q for _, q in r.created.values()}), reverse=True)
            want = [math.ceil(th / p)] * (th % p) + [th // p] * (p - th % p)
            assert sizes == [k for k in want if k > 0]


def serial_closed_form(model, th, pairs, template_pairs=0):
    t = model.times
    pair = t.C + t.S
    return template_pairs * pair + th * t.B + pairs * pair + (th - 1) * pairs * model.warm_pair


@pytest.mark.parametrize("th", [1, 2, 10, 57])
def test_p1_reduces_to_serial_like_cost(th):
    ratio = PAPER.with_(serial_warm_pair="ratio")
    assert simulate("serial", 1, th, ratio).time == pytest.approx(
        serial_closed_form(ratio, th, ratio.layout.pairs_total))
    for model in (PAPER, UNIT_B2):       # warm pair = T_L, the chunk scheme's cached pair
        t, lay = model.times, model.layout
        ser = simulate("serial", 1, th, model).time
        sert = simulate("serial_template", 1, th, model).time
        assert ser == serial_closed_form(model, th, lay.pairs_total)
        assert sert == serial_closed_form(model, th, lay.pairs_private, lay.pairs_common)
        # one creator, nothing to contend with: chunk = serial + one message build and access
        assert simulate("chunk", 1, th, model).time == t.M + t.A + ser
        # simple parallel on one processor: every pair from memory, A per thread
        assert simulate("simple", 1, th, model).time == \
            t.M + th * (t.A + t.B + lay.pairs_total * (t.C + t.S))
        # when the issuer itself creates, one processor does everything in sequence
        own = model.with_(issuer_creates=True)
        assert simulate("combination", 1, th, own).time == t.M + t.A + sert
        assert simulate("template", 1, th, own).time == \
            t.M + lay.pairs_common * (t.C + t.S) + th * (t.A + t.B + lay.pairs_private * (t.C + t.S))


@pytest.mark.parametrize("scheme", PARALLEL_SCHEMES)
def test_resource_lower_bounds(scheme):
    """No schedule beats the work of a serialized resource, nor one thread's critical path."""
    for model in (PAPER, UNIT_B2):
        t, lay = model.times, model.layout
        pairs = lay.pairs_private if scheme in ("template", "combination") else lay.pairs_total
        for p, th in [(1, 5), (3, 20), (16, 40), (64, 100)]:
            r = simulate(scheme, p, th, model)
            assert r.time >= t.M + r.resources["B"]["busy"] == t.M + th * t.B
            assert r.time >= t.M + r.resources["C"]["busy"]
            assert r.time >= t.M + t.A + t.B + pairs * (t.C + t.S)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_time_never_shrinks_with_more_threads(scheme):
    """An extra thread can fill idle time (e.g. while the issuer still builds the template,
    or a chunk of the same size on a processor that was idle), but never speeds the call up;
    on one processor without a message pool every thread costs time."""
    for model in (PAPER, UNIT_B2):
        for p in (1, 2, 4, 9):
            times = [simulate(scheme, p, th, model).time for th in range(1, 40)]
            assert all(a <= b for a, b in zip(times, times[1:])), (scheme, p, times)
            if scheme in ("serial", "serial_template"):
                assert all(a < b for a, b in zip(times, times[1:]))


def test_serial_is_independent_of_processors():
    for s in ("serial", "serial_template"):
        assert {simulate(s, p, 50).time for p in (1, 7, 128)} == {simulate(s, 1, 50).time}


def test_chunk_beats_simple_from_two_processors_on():
    """With the paper's times, the chunk scheme reads the shared data once per chunk, the
    simple scheme once per thread, so chunk is faster whenever a chunk holds > 1 thread."""
    for p in (2, 4, 16):
        assert simulate("chunk", p, 200).time < simulate("simple", p, 200).time


def test_bad_arguments():
    with pytest.raises(ValueError):
        simulate("nope", 2, 2)
    with pytest.raises(ValueError):
        simulate("chunk", 0, 2)
    with pytest.raises(ValueError):
        simulate("chunk", 2, 0)
    with pytest.raises(ValueError):
        Model(serial_warm_pair="hot")
    with pytest.raises(ValueError):
        Layout(common_bytes=3).pairs_common
    with pytest.raises(ValueError):
        StageTimes(C=-1)


def test_sweep_and_speedup():
    from krpp import speedup, sweep
    seen = []
    pts = sweep(["serial", "chunk"], (10, 20), (1, 3), progress=lambda *a: seen.append(a))
    assert set(pts) == {("serial", 10, 1), ("serial", 20, 1), ("chunk", 10, 1), ("chunk", 10, 3),
                        ("chunk", 20, 1), ("chunk", 20, 3)}
    assert len(seen) == len(pts)
    assert speedup(pts, "chunk", "serial", 20, 3) == \
        simulate("serial", 1, 20).time / simulate("chunk", 3, 20).time
