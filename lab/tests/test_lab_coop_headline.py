"""The headline's triples: the order rotation, the statistics and the verdicts."""
import pytest

from ito_lab.experiments import coop_headline as hl


def test_orders_rotate_through_all_six_permutations():
    seen = [hl.triple_order(i) for i in range(12)]
    assert len(set(seen[:6])) == 6 and seen[:6] == seen[6:]
    for role in hl.ROLES:  # each build takes each position once per six triples
        assert sorted(o.index(role) for o in seen[:6]) == [0, 0, 1, 1, 2, 2]


def test_headline_stats_pair_each_triple_with_its_own_plain_run():
    # plain alternates between a fast and a slow phase; the overheads are 10 % and 4 %
    # in both phases: only pairing within the triple sees that
    triples = [{"plain": p, "full": p * 1.10, "opt": p * 1.04} for p in (100.0, 200.0) * 10]
    hs = hl.headline_stats(triples, resamples=200)
    assert hs["triples"] == 20
    assert hs["full"] == (pytest.approx(10.0), pytest.approx(10.0), pytest.approx(10.0))
    assert hs["ratio"] == pytest.approx(0.4)
    assert hs["ratio_ci"] == (pytest.approx(0.4), pytest.approx(0.4))
    assert hs["opt_ci"] == (pytest.approx(4.0), pytest.approx(4.0))


def test_headline_stats_interval_widens_with_noise_and_is_seeded():
    triples = [{"plain": 100.0, "full": 100.0 + f, "opt": 100.0 + o}
               for f, o in zip([5, 15, 8, 12, 20, 2, 9, 11], [1, 9, 3, 6, 12, 0.5, 4, 7])]
    a = hl.headline_stats(triples, resamples=500, seed=7)
    b = hl.headline_stats(triples, resamples=500, seed=7)
    assert a == b
    assert a["ratio_ci"][0] < a["ratio"] < a["ratio_ci"][1]
    with pytest.raises(ValueError):
        hl.headline_stats([])


def test_bar_verdict_needs_the_whole_interval():
    assert hl.bar_verdict((0.30, 0.48), 0.5) == "met"
    assert hl.bar_verdict((0.30, 0.50), 0.5) == "met"
    assert hl.bar_verdict((0.52, 0.70), 0.5) == "not met"
    assert hl.bar_verdict((0.45, 0.55), 0.5).startswith("cannot tell")
