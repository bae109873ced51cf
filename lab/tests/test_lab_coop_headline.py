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


def test_floor_rounds_rotate_through_all_five_builds():
    seen = [hl.triple_order(i, floor=True) for i in range(240)]
    assert len(set(seen[:120])) == 120 and seen[:120] == seen[120:]
    for role in hl.FLOOR_ROLES:  # each build takes each of the five positions 24 times
        assert sorted(o.index(role) for o in seen[:120]) == sorted(list(range(5)) * 24)
    assert hl.triple_order(0) in hl.ORDERS  # without the floor: the triples as before


def test_floor_pair_statistics_and_ito_share_per_yield():
    # ito's builds 10 % / 4 % over plain, the floor's 8 % / 2 %: the floor's pair is
    # judged on its own (ratio 0.25), and ito's share is (ito - floor) / yields
    rounds = [{"plain": p, "full": p * 1.10, "opt": p * 1.04, "floor_full": p * 1.08,
               "floor_opt": p * 1.02, "yields": 100} for p in (1000.0, 2000.0) * 10]
    fl = hl.headline_stats(rounds, resamples=200, full="floor_full", opt="floor_opt")
    assert fl["ratio"] == pytest.approx(0.25)
    assert fl["opt_ci"] == (pytest.approx(2.0), pytest.approx(2.0))
    assert hl.headline_stats(rounds, resamples=200)["ratio"] == pytest.approx(0.4)
    sh = hl.ito_share(rounds)
    # optimized: 0.02 x plain / 100 yields = 0.2 ns (plain 1000) or 0.4 ns (plain 2000)
    assert sh["opt"][0] == pytest.approx(0.2) and sh["opt"][2] == pytest.approx(0.4)
    assert sh["full"][1] == pytest.approx(0.3)


def test_round_order_beyond_five_builds_is_a_seeded_shuffle_of_all():
    roles = hl.FLOOR_ROLES + hl.MATCHED
    orders = [hl.round_order(i, roles) for i in range(50)]
    assert all(sorted(o) == sorted(roles) for o in orders)
    assert orders == [hl.round_order(i, roles) for i in range(50)]  # reproducible
    assert len(set(orders)) > 40
    assert hl.round_order(3, hl.ROLES) == hl.triple_order(3)
    assert hl.round_order(7, hl.FLOOR_ROLES) == hl.triple_order(7, floor=True)


def test_host_density_states_tsc_cycles_per_yield():
    # 26 ms at 2,600 MHz over 11,137 yields: 6,070 TSC cycles per yield
    assert "one per 6,070 TSC cycles" in hl.host_density(26.0e6, 11137, 2600.0)
    assert "unknown" in hl.host_density(26.0e6, 11137, 0.0)


def test_calibrate_quantum_hits_the_papers_density(monkeypatch):
    # plain decodes of 27, 26 and 28 ms (the fastest counts); 43,439 yields at a quantum of
    # 7,700; TSC 2,600 MHz: 26 ms is 8,779 ticks of 7,700 cycles, so the quantum is
    # 7,700 x 43,439 / 8,779 = 38,100 and the yields then come once per ~7,700 cycles
    # (after WARMUP decodes that do not count, however fast)
    outs = iter(["decode_ns=1000\n"] * hl.WARMUP +
                ["decode_ns=27000000\n", "decode_ns=26000000\n", "decode_ns=28000000\n",
                 "player_runs=43439\ndecode_ns=30000000\n"])
    calls = []

    class CP:
        def __init__(self, out):
            self.stdout = out

    def fake_run(cmd, env=None):
        calls.append(cmd)
        return CP(next(outs))

    monkeypatch.setattr(hl, "_run", fake_run)
    q, note = hl.calibrate_quantum(["plain"], ["opt", "x.ogg"], 3, 2600.0, env={})
    assert q == pytest.approx(38100, rel=0.001)
    assert calls[-1] == ["opt", "x.ogg", "--budget", "7700"]
    assert f"{q:,}" in note
    yields = 43439 * 7700 / q
    assert 26.0e6 * 2600.0 / 1000.0 / yields == pytest.approx(7700, rel=0.001)
    with pytest.raises(SystemExit):
        hl.calibrate_quantum(["plain"], ["opt"], 3, 0.0, env={})
