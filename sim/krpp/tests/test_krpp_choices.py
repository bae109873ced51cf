"""The three modelling choices of krpp.Model (creators_start, count_futile,
serial_template_cold_first): each changes exactly what it says and nothing else."""
import itertools

import pytest

from krpp import PAPER, START_AFTER_TEMPLATE, Layout, Model, simulate, unit_model

SMALL = Model(layout=Layout(common_bytes=12, private_bytes=8))   # 3 + 2 pairs, paper stage times
GRID = [(p, th) for p in (1, 2, 3, 5) for th in (1, 2, 7, 16)]


@pytest.mark.parametrize("base", [unit_model(B=2), SMALL])
def test_creators_start_after_template(base):
    late = base.with_(creators_start=START_AFTER_TEMPLATE)
    for scheme, (p, th) in itertools.product(("template", "combination"), GRID):
        r = simulate(scheme, p, th, late, trace=True)
        # no creator stage begins before the issuer finished the template
        first = min(e.start for e in r.trace if e.pid != 0)
        assert first >= r.template_done
        assert r.time >= simulate(scheme, p, th, base).time - 1e-9 or p == 1
    for scheme, (p, th) in itertools.product(("simple", "chunk", "serial", "serial_template"), GRID):
        assert simulate(scheme, p, th, late).time == simulate(scheme, p, th, base).time


@pytest.mark.parametrize("base", [unit_model(B=2), SMALL])
def test_count_futile(base):
    fut = base.with_(count_futile=True)
    for scheme, (p, th) in itertools.product(("simple", "template", "chunk", "combination"), GRID):
        r0 = simulate(scheme, p, th, base, trace=True)
        r1 = simulate(scheme, p, th, fut)
        # completion = the last event of anyone, the futile message accesses included
        assert r1.time == max(e.end for e in r0.trace) == r0.end
        assert r1.time >= r0.time
    # simple: every creator makes one futile access after the last thread, so with p >= 2 it is later
    assert simulate("simple", 3, 7, fut).time > simulate("simple", 3, 7, base).time
    for scheme in ("serial", "serial_template"):
        assert simulate(scheme, 1, 7, fut).time == simulate(scheme, 1, 7, base).time


def test_serial_template_first_thread_warm():
    warm = PAPER.with_(serial_template_cold_first=False)
    t, lay = PAPER.times, PAPER.layout
    for th in (1, 2, 10, 100):
        cold = simulate("serial_template", 1, th, PAPER).time
        w = simulate("serial_template", 1, th, warm).time
        # closed forms: template cold, then the first thread cold or warm, the rest warm
        assert cold == lay.pairs_common * (t.C + t.S) + t.B + lay.pairs_private * (t.C + t.S) + \
            (th - 1) * (t.B + lay.pairs_private * t.L)
        assert w == lay.pairs_common * (t.C + t.S) + th * (t.B + lay.pairs_private * t.L)
        # the plain serial baseline keeps its cold first thread
        assert simulate("serial", 1, th, warm).time == simulate("serial", 1, th, PAPER).time


def test_bad_choice_rejected():
    with pytest.raises(ValueError):
        PAPER.with_(creators_start="later")
