"""The census's judgement of the plugin's begin/end choice (stats.compare_estimate), the
merge of per-unit censuses and the mean live count, on hand-made numbers (found by mutation
testing: no other test reached them)."""
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ito_census import stats  # noqa: E402


def blk(fn, name, begin, end, lo):
    return stats.BlockStat(fn, 0, name, 3, max(begin, end), lo, begin, end,
                           begin == lo, end == lo, 0, 0, 0)


BLOCKS = [blk("f", "a", 3, 5, 2),     # plugin says begin: agrees (3 < 5)
          blk("f", "b", 4, 3, 3),     # plugin says begin: disagrees by one (4 > 3)
          blk("f", "c", 6, 2, 1),     # plugin says end: agrees
          blk("g", "d", 1, 1, 1)]     # no choice recorded: not matched
CHOICES = {("f", "a"): ("begin",), ("f", "b"): ("begin",), ("f", "c"): ("end",)}


def test_compare_estimate_counts_agreement_and_sums():
    e = stats.compare_estimate(BLOCKS, CHOICES)
    assert e.matched == 3
    assert e.agree == 2                  # "b" is one register off: not an agreement
    assert (e.sum_begin, e.sum_end) == (3 + 4 + 6, 5 + 3 + 2)
    assert e.sum_choice == 3 + 4 + 2
    assert e.sum_best_end == 3 + 3 + 2
    assert e.sum_min == 2 + 3 + 1
    m = e.means()
    assert m["agree_pct"] == 100.0 * 2 / 3 and m["plugin"] == 9 / 3


def test_merge_keeps_the_other_units_estimate():
    a, b = stats.Census(), stats.Census()
    b.estimate = stats.compare_estimate(BLOCKS, CHOICES)
    a.merge(b)
    assert a.estimate is not None and a.estimate.matched == 3 and a.estimate.agree == 2
    c = stats.Census()
    c.estimate = stats.compare_estimate(BLOCKS, CHOICES)
    a.merge(c)
    assert a.estimate.matched == 6 and a.estimate.agree == 4


def test_mean_live_weights_each_count_by_its_instructions():
    c = stats.Census(gpr_hist=Counter({1: 3, 4: 1}))
    assert c.mean_live() == (1 * 3 + 4 * 1) / 4
    assert stats.Census().mean_live() == 0.0
