"""The wsc experiment: parsing of wsc_fig11 / chatroom / cachegrind / hackbench output, the
medians and ratios, and the report sections (no C program is run here)."""
import pytest

from ito_lab.experiments import wsc
from ito_lab.parse import parse_results
from ito_lab.report import read_csv

FIG11_OUT = """# wsc_fig11: 128 calls per trial
RESULT kind=raw backend=uring op=nop issuer=none k=1 calls=128 median_ns=51200.0 ratio=3.0 trials=5 crossings=128
RESULT kind=raw backend=uring op=nop issuer=none k=32 calls=128 median_ns=9216.0 ratio=0.5 trials=5 crossings=4
RESULT kind=wsc backend=uring op=nop issuer=zwt k=1 calls=128 median_ns=83200.0 ratio=4.5 trials=5 crossings=128
RESULT kind=wsc backend=uring op=nop issuer=zwt k=32 calls=128 median_ns=15360.0 ratio=0.9 trials=5 crossings=4
RESULT kind=plain backend=uring op=getpid calls=128 median_ns=12800.0 trials=5
"""


def test_fig11_rows_keep_raw_and_wsc_and_check_fields():
    res = parse_results(FIG11_OUT)
    rows = wsc.fig11_rows(res)
    assert [(r["kind"], r["k"]) for r in rows] == [("raw", 1), ("raw", 32), ("wsc", 1), ("wsc", 32)]
    assert wsc.fig11_plain_ns(res) == [12800.0]


@pytest.mark.parametrize("line", [
    "RESULT kind=wsc backend=uring op=nop issuer=zwt k=1 calls=64 median_ns=1.0 ratio=1.0 crossings=1",
    "RESULT kind=wsc backend=uring op=nop issuer=zwt k=1 calls=128 median_ns=1.0 ratio=0 crossings=1",
    "RESULT kind=wsc backend=uring op=nop k=1 calls=128 median_ns=1.0 ratio=1.0 crossings=1",
])
def test_fig11_rows_reject_bad_lines(line):
    with pytest.raises(ValueError):
        wsc.fig11_rows(parse_results(line))


def test_fig11_merge_takes_medians_over_runs_and_break_even():
    run = wsc.fig11_rows(parse_results(FIG11_OUT))
    other = [dict(r, ratio=r["ratio"] * 2, median_ns=r["median_ns"] * 2) for r in run]
    third = [dict(r, ratio=r["ratio"] * 3) for r in run]
    m = wsc.fig11_merge([run, other, third])
    ratio, ns_call, cross = m[("wsc", "uring", "nop", "zwt")][32]
    assert ratio == pytest.approx(1.8)                  # median of 0.9, 1.8, 2.7
    assert ns_call == pytest.approx(15360.0 / 128)      # median of 15360, 30720, 15360
    assert cross == 4
    assert wsc.break_even(wsc.fig11_merge([run])[("raw", "uring", "nop", "none")]) == 32
    assert wsc.break_even(m[("wsc", "uring", "nop", "zwt")]) is None


def test_fig11_outputs_write_csv_png_and_say_the_paper_gives_a_shape(tmp_path):
    merged = wsc.fig11_merge([wsc.fig11_rows(parse_results(FIG11_OUT))])
    (heading, text), = wsc.fig11_outputs(tmp_path, merged, [12800.0])
    assert "Fig. 11" in heading and "No values are printed" in text and "100.0 ns" in text
    header, rows = read_csv(tmp_path / "fig11.csv")
    assert header[4] == "threshold" and len(rows) == 4
    assert (tmp_path / "fig11.png").stat().st_size > 0


def test_fig11_floor_rows_and_the_gap_per_call(tmp_path):
    out = FIG11_OUT + (
        "RESULT kind=floor backend=uring op=nop issuer=zwt k=1 calls=128 median_ns=57600.0 ratio=3.4 trials=5 crossings=128\n"
        "RESULT kind=floor backend=uring op=nop issuer=zwt k=32 calls=128 median_ns=10496.0 ratio=0.6 trials=5 crossings=4\n")
    rows = wsc.fig11_rows(parse_results(out))
    assert sum(1 for r in rows if r["kind"] == "floor") == 2
    merged = wsc.fig11_merge([rows])
    gap = wsc.floor_gap(merged)
    # K=32: floor - raw = (10496 - 9216) / 128 = 10.0 ns; ito - floor = (15360 - 10496) / 128 = 38.0 ns
    assert "| 32 | 0.50 | 0.60 | 0.90 | 10.00 | 38.00 |" in gap
    assert "| 1 | 3.00 | 3.40 | 4.50 | 50.00 | 200.0 |" in gap
    (_, text), = wsc.fig11_outputs(tmp_path, merged, [12800.0])
    assert "The design's floor" in text
    # without a floor series (an older benchmark's output) there is no such section
    assert wsc.floor_gap(wsc.fig11_merge([wsc.fig11_rows(parse_results(FIG11_OUT))])) == ""


def chat(mode, backend, rooms, total, cpu, rnd=0, lost=False):
    r = {"kind": "chatroom", "mode": mode, "backend": backend, "rooms": rooms, "clients": 20,
         "messages": 20, "total_ns": total, "server_cpu_ns": cpu, "relayed": rooms * 400 - lost,
         "sends": rooms * 7600, "crossings": rooms * (800 if mode == "wsc" else 8000), "buckets": 1,
         "recv_posts": rooms * 400, "short_sends": 0, "server_pid": 42, "round": rnd}
    return r


def test_check_chat_fails_loudly_on_a_lost_message():
    assert wsc.check_chat(chat("wsc", "uring", 1, 10, 10))["mode"] == "wsc"
    with pytest.raises(ValueError, match="lost"):
        wsc.check_chat(chat("wsc", "uring", 1, 10, 10, lost=True))


def test_chatroom_result_line_parses_into_a_checked_run():
    line = ("RESULT kind=chatroom mode=wsc backend=uring rooms=1 clients=20 messages=20 total_ns=36000000 "
            "server_cpu_ns=35000000 relayed=400 sends=7600 crossings=800 buckets=800 recv_posts=400 "
            "short_sends=0 server_pid=77")
    (r,) = parse_results(line)
    assert wsc.check_chat(r)["server_pid"] == 77


def test_chat_summary_and_paired_ratios():
    runs = [chat("plain", "uring", 1, 100, 90, 0), chat("wsc", "uring", 1, 80, 72, 0),
            chat("plain", "uring", 1, 200, 180, 1), chat("wsc", "uring", 1, 190, 171, 1),
            chat("plain", "uring", 1, 150, 135, 2), chat("wsc", "uring", 1, 90, 81, 2)]
    s = wsc.chat_summary(runs)
    assert s[(1, "plain", "uring")]["total_ms"] == pytest.approx(150 / 1e6)
    assert s[(1, "wsc", "uring")]["n"] == 3
    # per-round ratios 0.8, 0.95, 0.6 -> median 0.8 (not the ratio of medians, 90/150)
    assert wsc.paired_ratio(runs, 1, ("wsc", "uring"), ("plain", "uring"), "total_ns") == pytest.approx(0.8)
    assert wsc.paired_ratio(runs, 5, ("wsc", "uring"), ("plain", "uring"), "total_ns") is None


def test_chat_outputs_write_tables(tmp_path):
    runs = [chat(m, b, 1, t, t) for (m, b), t in zip(wsc.CHAT_MODES, (100, 110, 80, 90))]
    (heading, text), = wsc.chat_outputs(tmp_path, runs, [1])
    assert "chatroom" in heading and "0.865" in text and "87%" in text
    header, rows = read_csv(tmp_path / "chatroom_ratios.csv")
    assert rows[0][:3] == ["1", "wsc / plain", "0.8000"]
    assert (tmp_path / "chatroom.png").exists()


CG = """desc: I1 cache: 32768 B, 64 B, 8-way associative
cmd: chatroom --mode wsc
events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw
fl=x.c
fn=main
1 10 1 1 4 1 0 2 1 0
summary: 3508939 2070 1970 992919 28942 1444 581721 20388 1746
"""


def test_parse_cachegrind_sums_misses():
    d = wsc.parse_cachegrind(CG)
    assert d["Ir"] == 3508939 and d["D1miss"] == 28942 + 20388
    assert d["LLmiss"] == 1444 + 1746 + 1970 and d["Dref"] == 992919 + 581721
    with pytest.raises(ValueError):
        wsc.parse_cachegrind("events: Ir\n")
    with pytest.raises(ValueError):
        wsc.parse_cachegrind("events: Ir Dr\nsummary: 1\n")


def test_cachegrind_outputs_ratio_row(tmp_path):
    plain = wsc.parse_cachegrind(CG.replace("3508939", "1000000"))
    (_, text), = wsc.cachegrind_outputs(tmp_path, {"plain": plain, "wsc": wsc.parse_cachegrind(CG)})
    header, rows = read_csv(tmp_path / "cachegrind.csv")
    assert rows[-1][0] == "wsc / plain" and float(rows[-1][1]) == pytest.approx(3.508939)
    assert "user-mode instructions only" in text and "0.47" in text


def test_parse_hackbench():
    out = "# Running 'sched/messaging' benchmark:\n# 20 sender and receiver processes per group\n" \
          "# 1 groups == 40 processes run\n\n     Total time: 0.085 [sec]\n"
    assert wsc.parse_hackbench(out) == pytest.approx(0.085)
    with pytest.raises(ValueError):
        wsc.parse_hackbench("perf: command not found")
