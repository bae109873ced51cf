"""The case-study arithmetic of ito-lab cooperative (Table 3): parsing the player's and
callgrind's output, the per-switch cost and the composed totals."""
import pytest

from ito_lab.experiments import coop_case as co


def test_parse_kv_reads_player_output():
    kv = co.parse_kv("variant=min\nmode=1\nchecksum=00ff\nnoise line\nframes=10\n")
    assert kv == {"variant": "min", "mode": "1", "checksum": "00ff", "frames": "10"}


def test_parse_callgrind_ir_takes_the_collected_line():
    err = "==1== Events    : Ir\n==1== Collected : 84629409\n==1==\n==1== I   refs: 84,629,409\n"
    assert co.parse_callgrind_ir(err) == 84629409
    with pytest.raises(ValueError):
        co.parse_callgrind_ir("==1== nothing here\n")


def test_per_switch_is_the_extra_work_per_extra_player_run():
    assert co.per_switch(1_300, 1_000, 4, 1) == pytest.approx(100.0)
    with pytest.raises(ValueError):
        co.per_switch(1_300, 1_000, 1, 1)


def test_model_and_overhead():
    total = co.model_total(1_000_000, 1_000, 300.0)
    assert total == pytest.approx(1_300_000)
    assert co.overhead_pct(total, 1_000_000) == pytest.approx(30.0)


def test_paper_values_are_the_papers():
    nothr, full, opt = (co.PAPER_TABLE3[k][0] for k in ("nothr", "full", "min"))
    assert co.overhead_pct(full, nothr) == pytest.approx(23.8, abs=0.05)
    assert co.overhead_pct(opt, nothr) == pytest.approx(12.6, abs=0.05)


def test_parse_size_text_takes_the_text_column():
    out = "   text\t   data\t    bss\t    dec\t    hex\tfilename\n  59686\t     10\t   1024\t  60720\t   ed30\tdecoder.o\n"
    assert co.parse_size_text(out) == 59686


def test_the_headline_pairs_compare_the_same_placement():
    names = {v[0]: v[2] for v in co.VARIANTS}
    for full, opt, place in co.PAIRS:
        assert names[full] == names[opt] == place
    for full, opt, place in co.BUDGET_PAIRS:
        assert names[full] == names[opt] and place.startswith(names[opt])
        assert co.SWITCH_OF[full] == "stub-full" and co.SWITCH_OF[opt] == "stub"


def test_budget_quantum_gives_the_papers_density_in_cycles():
    # plain 35 ms at 2445 MHz = 85.6e6 cycles = 11,114 ticks of 7,700 cycles; the quantum
    # 7,700 made 52,889 yields, so 36,644 makes about 11,114
    q = co.budget_quantum(52_889, 35e6, 2445.0)
    assert q == 36_644                      # 7,700 x 52,889 / 11,113.6 ticks = 36,643.7
    assert 52_889 * 7700 / q == pytest.approx(11_113.6, abs=0.5)   # yields = the plain build's ticks
    with pytest.raises(ValueError):
        co.budget_quantum(0, 35e6, 2445.0)
    assert co.budget_args("quiet", 5) == ["--budget", str(co.BUDGET_OFF)]
    assert co.budget_args("paper", 5) == ["--budget", "7700"]
    assert co.budget_args("dense", 36645) == ["--budget", "36645"]


def test_cycle_model_adds_checks_and_ticks():
    # plain 10 ms at 2000 MHz = 20e6 cycles; checks: 1 ms more = 10 %; ticks: 20e6/7700
    # of them at 1000/2 cycles each = 6.49 %.
    checks, switches, total = co.cycle_model(10e6, 11e6, 1000.0, 2000.0)
    assert checks == pytest.approx(10.0)
    assert switches == pytest.approx(100.0 * (20e6 / 7700 * 500) / 20e6)
    assert total == pytest.approx(checks + switches)


def test_dense_period_is_the_papers_tick_at_the_tsc_rate():
    assert co.dense_period_us(2000.0) == pytest.approx(7700 / 2000.0)
    with pytest.raises(ValueError):
        co.dense_period_us(0.0)


def test_wall_headline_compares_measured_overheads():
    # plain 100 ns; full save 120 (20 %), optimized 104 (4 %): 0.2, half and <= 5 %
    assert co.wall_headline(100.0, 120.0, 104.0) == [20.0, 4.0, 0.2, "yes", "yes"]
    assert co.wall_headline(100.0, 110.0, 107.0) == [10.0, 7.0, 0.7, "no", "no"]
    # a plain build slower than the variant (this host's slow phase caught it): no result
    assert co.wall_headline(100.0, 90.0, 95.0)[2:] == ["", "no result", "no result"]


def test_paired_median_excess_pairs_runs_of_one_repetition():
    # the third repetition ran in a slow phase: both builds slower, the difference the same
    assert co.paired_median_excess([10.0, 10.0, 16.0], [11.0, 12.0, 18.0]) == 2.0
    # unpaired statistics would mix the phases: median 12 - median 10 = 2, min 11 - 10 = 1
    assert co.paired_median_excess([10.0, 20.0], [13.0, 21.0]) == 2.0
    with pytest.raises(ValueError):
        co.paired_median_excess([1.0], [1.0, 2.0])


def test_dense_quanta_fixed_or_calibrated():
    runs = {"budget": 52_889, "budget-abi": 52_889}
    cal = co.dense_quanta(list(runs), runs, 35e6, 2445.0)
    assert cal == {n: co.budget_quantum(52_889, 35e6, 2445.0) for n in runs}
    # a slower calibration decode gives a smaller quantum (more yields)
    assert co.dense_quanta(["budget"], runs, 50e6, 2445.0)["budget"] < cal["budget"]
    assert co.dense_quanta(list(runs), runs, 50e6, 2445.0, fixed=11_137) == {
        "budget": 11_137, "budget-abi": 11_137}
    assert co.dense_quanta(["budget"], runs, 0.0, 2445.0) == {}
    with pytest.raises(ValueError):
        co.dense_quanta(["budget"], runs, 35e6, 2445.0, fixed=0)


def test_paired_round_stats_take_each_repetition_alone():
    plain = [100.0, 100.0, 200.0, 200.0]
    full = [110.0, 120.0, 220.0, 240.0]   # 10, 20, 10, 20 %
    opt = [104.0, 106.0, 212.0, 220.0]    # 4, 6, 6, 10 %
    ps = co.paired_round_stats(plain, full, opt)
    assert ps["rounds"] == 4
    assert ps["full"] == (10.0, 15.0, 20.0)
    assert ps["opt"] == (5.0, 6.0, 8.0)
    assert ps["ratio"] == (pytest.approx(0.35), pytest.approx(0.45), pytest.approx(0.55))
    assert ps["half_met"] == 3   # 0.4, 0.3 and 0.5 (exactly half meets it); not 0.6
    assert ps["five_met"] == 1


def test_paired_round_stats_without_a_dearer_full_save_give_no_ratio():
    ps = co.paired_round_stats([100.0, 100.0], [99.0, 100.0], [101.0, 102.0])
    assert ps["ratio"] is None and ps["half_met"] == 0 and ps["five_met"] == 2
    with pytest.raises(ValueError):
        co.paired_round_stats([1.0], [1.0, 2.0], [1.0])
