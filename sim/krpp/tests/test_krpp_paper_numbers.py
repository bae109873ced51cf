"""The paper's numbers as params.py transcribes them, and the closed forms they give.

The other krpp tests compute their expectations from the model's own parameters, so a
mistyped stage time (767 -> 766) or cache ratio passes all of them. This file pins the
transcription of Tsunedomi et al. 1991, sections 3.4.2 and 4.2, and one closed form per
stage time with the numbers written out, so a change of any of them fails here."""
import pytest

from krpp import PAPER, StageTimes, simulate
from krpp.engine import Engine


def test_stage_times_and_layout_are_the_papers():
    t = PAPER.times
    assert (t.M, t.A, t.B, t.C, t.S, t.L) == (767, 260, 768, 78, 69, 70)
    lay = PAPER.layout
    assert (lay.common_bytes, lay.private_bytes, lay.word_bytes) == (340, 116, 4)
    assert (lay.pairs_common, lay.pairs_private, lay.pairs_total) == (85, 29, 114)
    assert PAPER.cache_remote_ratio == 27


def test_warm_pair_of_each_reading():
    assert PAPER.warm_pair == 70                                        # T_L
    assert PAPER.with_(serial_warm_pair="ratio").warm_pair == pytest.approx(78 / 27 + 69)


@pytest.mark.parametrize("th", [1, 3])
def test_closed_forms_with_the_numbers_written_out(th):
    # simple on one creator: M + th * (A + B + 114 * (C + S))
    assert simulate("simple", 1, th).time == 767 + th * (260 + 768 + 114 * (78 + 69))
    # serial: th * B + 114 cold pairs + (th - 1) * 114 warm pairs (T_L)
    assert simulate("serial", 1, th).time == th * 768 + 114 * 147 + (th - 1) * 114 * 70
    ratio = PAPER.with_(serial_warm_pair="ratio")
    assert simulate("serial", 1, th, ratio).time == pytest.approx(
        th * 768 + 114 * 147 + (th - 1) * 114 * (78 / 27 + 69))


def test_negative_stage_durations_are_refused():
    with pytest.raises(ValueError):
        StageTimes(C=-1)

    def prog():
        yield ("M", None, -0.5, None)
    eng = Engine(())
    eng.add(0, prog)
    with pytest.raises(ValueError, match="negative stage duration"):
        eng.run()
