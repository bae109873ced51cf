"""The real half of `ito-lab psafe`: parsing of psafe-real's CSV and of cachegrind's output
file, the per-program attribution of cache misses, the work-equivalent quantum and the
medians (no C program is run here)."""
import pytest

from ito_lab.experiments import psafe

REAL_OUT = """# quantum_us=500 bound_quanta=10 workers=2 wall_ns=113470328 ticks=286 preemptions=179 deferred=8 delayed=21 forced=0
program,label,policy,n,b,iters,time_ns,blocks,preemptions,delayed,delay_ns,forced,check
bmm,B-MM,psafe,256,32,1,20824604,64,0,21,1496246,0,ok
fft,FFT,psafe,524288,0,2,113251724,0,179,0,0,0,ok
"""

CG_OUT = """desc: D1 cache:         131072 B, 32 B, direct-mapped
cmd: ./psafe-real --policy psafe bmm blu
events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw
fl=/work/main/workloads/blocked/bmm.c
fn=bmm_setup
10 100 0 0 50 40 1 50 30 1
fn=bmm_thread
20 1000 1 1 400 7 1 100 3 1
21 10 0 0 4 1
fl=/work/main/workloads/blocked/wl.h
fn=bmm_thread
5 50 0 0 20 2 0 0 0 0
fl=/work/main/workloads/blocked/blu.c
fn=update.constprop.0
30 500 0 0 200 11 0 100 5 0
fn=blu_check
40 9999 0 0 9999 9999 0 0 0 0
fn=lu_helper_new
41 7 0 0 1 1 0 0 0 0
fl=/work/main/src/core/worker.c
fn=itoi_worker_loop
50 300 0 0 100 20 2 10 1 0
summary: 11966 1 1 10774 10081 4 260 39 2
"""


def test_parse_real_csv_reads_totals_and_rows():
    meta, rows = psafe.parse_real_csv(REAL_OUT)
    assert meta["quantum_us"] == 500 and meta["delayed"] == 21 and meta["workers"] == 2
    assert [r["program"] for r in rows] == ["bmm", "fft"]
    assert rows[0]["delayed"] == 21 and rows[0]["delay_ns"] == 1496246 and rows[0]["blocks"] == 64
    assert rows[1]["preemptions"] == 179 and rows[1]["check"] == "ok"


@pytest.mark.parametrize("text", ["", "# quantum_us=1\n", "# bad\nprogram,policy\n",
                                  "program,label\nbmm,B-MM\n"])
def test_parse_real_csv_rejects_bad_output(text):
    with pytest.raises(ValueError):
        psafe.parse_real_csv(text)


def test_parse_cachegrind_attributes_kernels_not_setup_or_check():
    cg = psafe.parse_cachegrind(CG_OUT)
    # bmm: bmm_thread in bmm.c (two lines, one with trailing zeros left out) + its inlined wl.h code
    assert cg["bmm"]["Ir"] == 1000 + 10 + 50
    assert cg["bmm"]["D1mr"] == 7 + 1 + 2 and cg["bmm"]["D1mw"] == 3 + 0 + 0
    # blu: a helper by name (suffix stripped) and an unknown function of blu.c by its file
    assert cg["blu"]["Ir"] == 500 + 7
    # setup and check (and the runtime) are "other", never a program's
    assert cg["other"]["Ir"] == 100 + 9999 + 300
    assert sum(v["Ir"] for v in cg.values()) == 11966


def test_parse_cachegrind_rejects_non_cachegrind_text():
    with pytest.raises(ValueError):
        psafe.parse_cachegrind("hello\nworld\n")
    with pytest.raises(ValueError):
        psafe.parse_cachegrind("events: Ir\n12 3\n")   # a cost line before any fn=


def test_real_quantum_is_the_papers_instructions_at_the_measured_rate():
    assert psafe.real_quantum(2.5e9) == 1000          # 2.5 M instructions at 2.5 G/s = 1 ms
    assert psafe.real_quantum(5e9) == 500
    assert psafe.real_quantum(1e12) == 100            # never below ito's minimum quantum


def _row(prog, pol, t, delayed=0, blocks=0):
    return {"program": prog, "policy": pol, "time_ns": t, "blocks": blocks, "delayed": delayed,
            "forced": 0, "delay_ns": delayed * 10, "preemptions": 3}


def test_summarize_real_takes_spreads_paired_ratios_and_a_sign_test():
    key = ("bmm", 2)
    runs = [(key, 0, {}, _row("bmm", "preempt", 100)), (key, 0, {}, _row("bmm", "psafe", 80, 4, 64)),
            (key, 1, {}, _row("bmm", "preempt", 300)), (key, 1, {}, _row("bmm", "psafe", 60, 6, 64)),
            (key, 2, {}, _row("bmm", "preempt", 200)), (key, 2, {}, _row("bmm", "psafe", 70, 5, 64))]
    s = psafe.summarize_real(runs, 10, 1)[(key, "bmm")]
    assert s["time_preempt"] == (100, 200, 300) and s["time_psafe"] == (60, 70, 80)
    # paired within a repetition: 0.8, 0.2, 0.35 -> median 0.35 (not the ratio of medians)
    assert s["ratio"] == pytest.approx((0.2, 0.35, 0.8))
    assert s["wins"] == 3 and s["n"] == 3
    assert s["direction"] == "no clear difference"      # 3 of 3 is not significant (p = 0.25)
    assert s["delayed"][1] == 5 and s["blocks"] == 64
    # mean delay per delayed turn: delay_ns = 10 ns per delay with a 1 us quantum
    assert s["mean_delay_q"][1] == pytest.approx(0.01) and s["over_bound"] == 0


def test_sign_test_and_direction():
    from ito_lab.psafe.real import direction, sign_test
    assert sign_test(10, 10) == pytest.approx(2 / 1024)
    assert sign_test(5, 10) == 1.0
    assert direction([0.9] * 9 + [1.1]) == "faster"      # 9 of 10: p = 0.021
    assert direction([1.1] * 9 + [0.9]) == "slower"
    assert direction([0.9] * 8 + [1.1] * 2) == "no clear difference"   # p = 0.11


def test_summarize_real_flags_a_mean_delay_over_the_bound():
    key = ("blu", 5)
    slow = dict(_row("blu", "psafe", 50, 2, 36), delay_ns=2 * 30_000)   # 30 us per delay, quantum 1 us
    runs = [(key, 0, {}, _row("blu", "preempt", 100)), (key, 0, {}, slow)]
    s = psafe.summarize_real(runs, 10, 1)[(key, "blu")]
    assert s["over_bound"] == 1 and s["mean_delay_q"][2] == pytest.approx(30.0)


def test_summarize_real_needs_both_policies():
    with pytest.raises(ValueError):
        psafe.summarize_real([(("bmm", 2), 0, {}, _row("bmm", "psafe", 1))], 10, 1)
