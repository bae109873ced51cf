"""CEFOS section 4: Wrapped System Calls (WSC). Two experiments, written to results/wsc/:

A. Fig. 11 (program bench/wsc_fig11): 128 thin system calls issued by split-phase threads
   through WSC at thresholds K = 1..32 (and 64), as a ratio to the same 128 calls made as
   plain getpid() syscalls. Batched operation: the io_uring NOP on the uring backend (one
   io_uring_enter per bucket); getpid on the sync backend (one syscall each: the cost of the
   machinery alone); and raw liburing NOPs without ito (the kernel's floor). The program
   interleaves the plain baseline with every WSC trial and prints the median over trials
   of the paired ratio; here the median over runs is taken.
B. The chatroom (program workloads/chatroom/chatroom; paper section 4.4, Table 2): rooms of
   20 clients x 20 messages of 100 B, the server relays each message to 19 clients. Server
   modes: plain send() from ito ULTs (the ordinary convention), ito_send at threshold 1, WSC
   (the 19 sends as one bucket), and a plain one-pthread-per-connection server (the outside
   peer). Medians over repeats of total wall time and server CPU time; cache behaviour of the
   server process under `valgrind --tool=cachegrind`; `perf bench sched messaging`
   (hackbench) with the same shape as a second outside peer.

The paper's numbers used for display only (nothing is fitted to them): PAPER_CHAT_RATIO
(0.87 of clocks, whole run), PAPER_TABLE2 (the sending part). Fig. 11 gives no numbers,
only a shape (PAPER_FIG11_SHAPE), so no paper curve is drawn.

Host dependence. Every figure carries the host CPU and load (ito_lab.host); Fig. 11 runs 5
processes and the chatroom 7 rounds by default, reported as min / median / max; the LMbench-
style costs of the host (workloads/cefos_io/lat_host, ito_lab.hostcost) are measured between
the runs (at least 5 times) and printed beside the paper's Table 1; and the report derives,
from the raw io_uring and WSC curves of the same run, the per-crossing and per-request costs
that decide Fig. 11's break-even on this host (the plain syscall must cost more than one
request's share of the batch).
"""
from __future__ import annotations

from ..argtypes import positive_int, positive_int_list

import os
import re
import shutil
import statistics
import subprocess
import tempfile
from pathlib import Path

from .. import hostcost
from ..host import cpu_model, host_line, load1, spread
from ..parse import parse_results
from ..progress import print_table, steps, warn
from ..report import image, markdown_table, write_csv, write_report

NAME = "wsc"
HELP = "CEFOS Fig. 11 (WSC thin calls vs threshold) and the chatroom (section 4.4, Table 2)"

FIG11 = "bench/wsc_fig11"
CHAT = "workloads/chatroom/chatroom"
THRESHOLDS = (1, 2, 4, 8, 16, 32, 64)
PAPER_THRESHOLDS = (1, 2, 4, 8, 16, 32)
PAPER_FIG11_SHAPE = ("ratio > 1 at K = 1; below 1 from K = 2 (Pentium 4 2.53 GHz, Core Duo 1.66 GHz) "
                     "and from K = 4 (Celeron 500 MHz); decreasing as K grows. No values are printed.")
PAPER_CHAT_RATIO = 115.0 / 133.0          # section 4.4: 115.0 vs 133.0 million cycles (~0.87)
PAPER_TABLE2 = {"clocks": (60216.7, 48436.4), "L2 miss rate %": (1.01, 0.47),
                "DTLB miss rate %": (2.78, 2.55)}   # (normal, WSC), sending part only
CHAT_MODES = (("plain", "uring"), ("ito1", "uring"), ("wsc", "uring"), ("pthreads", "none"))
CHAT_MODES_SYNC = (("ito1", "sync"), ("wsc", "sync"))
SERIES = {  # (kind, backend, op, issuer) -> legend
    ("wsc", "uring", "nop", "zwt"): "WSC io_uring NOP, 128 issuer ZWTs",
    ("wsc", "uring", "nop", "main"): "WSC io_uring NOP, posted by one ULT",
    ("raw", "uring", "nop", "none"): "raw io_uring NOP batches (no ito)",
    ("floor", "uring", "nop", "zwt"): "floor: a ZWT per call by hand (no ito)",
    ("wsc", "sync", "getpid", "zwt"): "WSC sync backend getpid, 128 ZWTs",
}


def add_arguments(p):
    p.add_argument("--part", choices=("all", "fig11", "chatroom"), default="all")
    p.add_argument("--trials", type=positive_int, help="Fig. 11 trials per run (default 501; quick 61)")
    p.add_argument("--runs", type=positive_int, help="Fig. 11 processes (default 5; quick 1)")
    p.add_argument("--host-runs", type=positive_int, help="runs of lat_host, interleaved (default 5; quick 2)")
    p.add_argument("--repeats", type=positive_int, help="chatroom repeats per configuration (default 7; quick 3)")
    p.add_argument("--rooms", type=positive_int_list, help="comma-separated room counts (default 1,5,10; quick 1,3)")
    p.add_argument("--no-cachegrind", action="store_true")
    p.add_argument("--no-hackbench", action="store_true")


# ---- helpers that run things ----------------------------------------------------------------
def _pin(cpu: int) -> list[str]:
    """A taskset prefix pinning to `cpu` when the machine has it, else nothing."""
    if shutil.which("taskset") and cpu < (os.cpu_count() or 1):
        return ["taskset", "-c", str(cpu)]
    return []


def _run(cmd: list[str], env: dict | None = None, timeout: float = 600) -> str:
    e = dict(os.environ)
    e.update(env or {})
    cp = subprocess.run(cmd, capture_output=True, text=True, env=e, timeout=timeout)
    if cp.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {cp.returncode}: {cp.stderr.strip()[-2000:]}")
    return cp.stdout


# ---- A: Fig. 11 -----------------------------------------------------------------------------
def fig11_rows(results: list[dict]) -> list[dict]:
    """The Fig. 11 RESULT lines of one run (kind raw/floor/wsc), checked; plain lines dropped."""
    rows = []
    for r in results:
        if r.get("kind") not in ("raw", "floor", "wsc"):
            continue
        for key in ("backend", "op", "issuer", "k", "median_ns", "ratio", "calls", "crossings"):
            if key not in r:
                raise ValueError(f"Fig. 11 result without {key}: {r}")
        if r["calls"] != 128 or not r["ratio"] > 0 or not r["median_ns"] > 0:
            raise ValueError(f"Fig. 11 result out of range: {r}")
        rows.append(r)
    return rows


def fig11_plain_ns(results: list[dict]) -> list[float]:
    return [float(r["median_ns"]) for r in results if r.get("kind") == "plain"]


def fig11_merge(runs: list[list[dict]]) -> dict:
    """{(kind, backend, op, issuer): {k: (median ratio, median ns per call, crossings)}} over runs."""
    acc: dict = {}
    for rows in runs:
        for r in rows:
            key = (r["kind"], r["backend"], r["op"], r["issuer"])
            acc.setdefault(key, {}).setdefault(r["k"], []).append(r)
    out = {}
    for key, by_k in acc.items():
        out[key] = {k: (statistics.median(x["ratio"] for x in rs),
                        statistics.median(x["median_ns"] for x in rs) / 128.0,
                        rs[0]["crossings"]) for k, rs in sorted(by_k.items())}
    return out


def fig11_spread(runs: list[list[dict]]) -> dict:
    """{(kind, backend, op, issuer): {k: (min ratio, max ratio)}} over runs."""
    acc: dict = {}
    for rows in runs:
        for r in rows:
            acc.setdefault((r["kind"], r["backend"], r["op"], r["issuer"]), {}).setdefault(r["k"], []).append(r["ratio"])
    return {key: {k: (min(v), max(v)) for k, v in sorted(by_k.items())} for key, by_k in acc.items()}


def host_dependence(merged: dict, plain_ns: float) -> str:
    """Per-crossing and per-request costs fitted to each curve (ns/call = crossing/K + request),
    and the break-even they predict against this host's plain getpid."""
    rows = []
    for key, curve in merged.items():
        fit = hostcost.crossing_model({k: v[1] for k, v in curve.items()})
        if not fit:
            continue
        c, r = fit
        be = hostcost.break_even(c, r, plain_ns)
        rows.append([SERIES.get(key, "/".join(key)), round(c, 1), round(r, 1), round(plain_ns, 1),
                     "never (per request >= plain)" if be is None else f"{be:.1f}",
                     f"K={break_even(curve)}" if break_even(curve) else "never"])
    if not rows:
        return ""
    return ("Why Fig. 11 depends on the host: a batch of K costs one crossing plus K requests, so per call "
            "ns = crossing / K + per-request; WSC beats a plain call only when the plain call costs more than "
            "the per-request part, and then from K = crossing / (plain - per-request). Both parts are the "
            "host's: the kernel entry and exit (mitigations, virtualization) and io_uring's per-request path. "
            "Fitted through the smallest and largest K of this run:\n\n" +
            markdown_table(["series", "per crossing (ns)", "per request (ns)", "plain getpid (ns)",
                            "predicted break-even K", "measured"], rows))


def floor_gap(merged: dict) -> str:
    """What ito adds per call over the hand-written floor of the same design (a ZWT per call,
    raw io_uring, no ito), and what the floor adds over raw io_uring, at every K both have."""
    raw, flo = merged.get(("raw", "uring", "nop", "none")), merged.get(("floor", "uring", "nop", "zwt"))
    ito = merged.get(("wsc", "uring", "nop", "zwt"))
    if not (raw and flo and ito):
        return ""
    rows = [[k, f"{raw[k][0]:.2f}", f"{flo[k][0]:.2f}", f"{ito[k][0]:.2f}", round(flo[k][1] - raw[k][1], 1),
             round(ito[k][1] - flo[k][1], 1)] for k in sorted(set(raw) & set(flo) & set(ito))]
    return ("\nThe design's floor: the same NOPs through a ZWT per call written by hand in the benchmark "
            "(sync counts taken with a CAS, a run queue, a continuation per completion, the join; no request "
            "record, validation, statistics, live list, timer or context switch), measured in the same "
            "rounds as raw io_uring. The floor minus raw io_uring is what the design costs on this host; "
            "ito's WSC minus the floor is what ito's implementation adds:\n\n" +
            markdown_table(["K", "raw io_uring", "floor", "ito, ZWT issuers", "floor - raw (ns per call)",
                            "ito - floor (ns per call)"], rows))


def break_even(curve: dict) -> int | None:
    """The smallest threshold whose ratio is below 1 (WSC wins), or None."""
    wins = [k for k, (ratio, _, _) in sorted(curve.items()) if ratio < 1.0]
    return wins[0] if wins else None


def run_fig11(ctx, trials: int, runs: int, step, between=None) -> tuple[dict, list[float], dict]:
    prog = str(ctx.program(FIG11))
    all_rows, plains = [], []
    for i in range(runs):
        if between:
            between()
        step(f"Fig. 11 run {i + 1}/{runs} ({trials} trials)")
        out = _run(_pin(1 if (os.cpu_count() or 1) > 1 else 0) + [prog, "--trials", str(trials)])
        res = parse_results(out)
        all_rows.append(fig11_rows(res))
        plains += fig11_plain_ns(res)
    return fig11_merge(all_rows), plains, fig11_spread(all_rows)


def fig11_outputs(out_dir: Path, merged: dict, plains: list[float], spreads: dict | None = None,
                  nruns: int = 1) -> list[tuple[str, str]]:
    spreads = spreads or {}
    rows = []
    for key, curve in merged.items():
        for k, (ratio, ns_call, cross) in curve.items():
            lo, hi = spreads.get(key, {}).get(k, (ratio, ratio))
            rows.append([*key, k, f"{ratio:.4f}", f"{ns_call:.1f}", cross, f"{lo:.4f}", f"{hi:.4f}"])
    write_csv(out_dir / "fig11.csv", ["kind", "backend", "op", "issuer", "threshold", "ratio_to_plain_getpid",
                                      "ns_per_call", "crossings", "min_ratio", "max_ratio"], rows)
    series = {SERIES.get(key, "/".join(key)): (list(c), [v[0] for v in c.values()]) for key, c in merged.items()}
    bands = {SERIES.get(key, "/".join(key)): ([spreads[key][k][0] for k in c], [spreads[key][k][1] for k in c])
             for key, c in merged.items() if key in spreads and all(k in spreads[key] for k in c)}
    png = out_dir / "fig11.png"
    from ..plot import line_chart
    line_chart(png, series, title="Fig. 11: 128 thin calls through WSC, relative to 128 plain getpid() "
               f"(paper: shape only, no values); median of {nruns} run(s), band min-max",
               xlabel="WSC threshold K", ylabel="time ratio to plain getpid",
               logx=True, reference={"plain getpid (ratio 1)": ([1, 64], [1.0, 1.0])}, spread=bands,
               footer=host_line())
    header = ["K"] + [SERIES.get(key, "/".join(key)) for key in merged]
    table = []
    for k in THRESHOLDS:
        table.append([k] + [(f"{merged[key][k][0]:.2f} ({spreads[key][k][0]:.2f}–{spreads[key][k][1]:.2f})"
                             if key in spreads and k in spreads[key] else merged[key][k][0])
                            if k in merged[key] else None for key in merged])
    ns_table = [[k] + [merged[key][k][1] if k in merged[key] else None for key in merged] for k in THRESHOLDS]
    plain = statistics.median(plains) / 128.0 if plains else float("nan")
    be = {SERIES.get(key, "/".join(key)): break_even(c) for key, c in merged.items()}
    text = (f"{image(png, 'Fig. 11', out_dir)}\n\nRatio of the time of 128 calls through WSC to 128 plain "
            f"`getpid()` syscalls (median over trials of the paired ratio, median over runs). A plain getpid "
            f"took {plain:.1f} ns here (median). Cells: median (min–max) over {nruns} run(s). {host_line()}.\n\n"
            + markdown_table(header, table) +
            "\nNanoseconds per call:\n\n" + markdown_table(header, ns_table) +
            "\nSmallest K at which WSC beats plain getpid: " +
            ", ".join(f"{n}: {'K=' + str(k) if k else 'never'}" for n, k in be.items()) +
            f".\n\nPaper (Fig. 11): {PAPER_FIG11_SHAPE}\n\n" + host_dependence(merged, plain) + floor_gap(merged))
    print_table("Fig. 11: ratio to plain getpid", header, table)
    return [("A. Fig. 11: thin calls vs WSC threshold", text)]


# ---- B: the chatroom ------------------------------------------------------------------------
def chat_run(ctx, mode: str, backend: str, rooms: int, extra: list[str] | None = None,
             prefix: list[str] | None = None) -> tuple[dict, str]:
    env = {"ITO_WORKERS": "1"}
    if backend != "none":
        env["ITO_WSC_BACKEND"] = backend
    two = (os.cpu_count() or 1) > 1
    cmd = (prefix or []) + [str(ctx.program(CHAT)), "--mode", mode, "--rooms", str(rooms)]
    if two:
        cmd += ["--cpu-server", "0", "--cpu-clients", "1"]
    out = _run(cmd + (extra or []), env=env)
    res = [r for r in parse_results(out) if r.get("kind") == "chatroom"]
    if len(res) != 1:
        raise RuntimeError(f"chatroom printed {len(res)} results: {out[-500:]}")
    return check_chat(res[0]), out


def check_chat(r: dict) -> dict:
    """A chatroom RESULT whose counts add up (the program checks too; this guards the parse)."""
    want = r["rooms"] * r["clients"] * r["messages"]
    if r["relayed"] != want or r["sends"] != want * (r["clients"] - 1):
        raise ValueError(f"chatroom lost messages: {r}")
    if not r["total_ns"] > 0 or not r["server_cpu_ns"] > 0:
        raise ValueError(f"chatroom times out of range: {r}")
    return r


def chat_summary(runs: list[dict]) -> dict:
    """{(rooms, mode, backend): {'total_ms', 'cpu_ms', 'crossings', 'n'}}: medians over repeats."""
    acc: dict = {}
    for r in runs:
        acc.setdefault((r["rooms"], r["mode"], r["backend"]), []).append(r)
    return {k: {"total_ms": statistics.median(x["total_ns"] for x in rs) / 1e6,
                "cpu_ms": statistics.median(x["server_cpu_ns"] for x in rs) / 1e6,
                "crossings": statistics.median(x["crossings"] for x in rs), "n": len(rs)}
            for k, rs in sorted(acc.items())}


def paired_ratios(runs: list[dict], rooms: int, num: tuple[str, str], den: tuple[str, str], field: str) -> list:
    """num/den of every round in which both were measured."""
    by_round: dict = {}
    for r in runs:
        if r["rooms"] == rooms:
            by_round.setdefault(r.get("round", 0), {})[(r["mode"], r["backend"])] = r[field]
    return [d[num] / d[den] for d in by_round.values() if num in d and den in d]


def paired_ratio(runs: list[dict], rooms: int, num: tuple[str, str], den: tuple[str, str], field: str):
    """Median over repeats of num/den where both were measured in the same round."""
    ratios = paired_ratios(runs, rooms, num, den, field)
    return statistics.median(ratios) if ratios else None


def run_chat(ctx, rooms_list, repeats, sync, step, between=None) -> list[dict]:
    modes = CHAT_MODES + (CHAT_MODES_SYNC if sync else ())
    runs = []
    for rnd in range(repeats):
        if between:
            between()
        for rooms in rooms_list:
            for mode, backend in modes:
                step(f"chatroom round {rnd + 1}/{repeats}: {rooms} rooms, {mode} ({backend})")
                r, _ = chat_run(ctx, mode, backend, rooms)
                r["round"] = rnd
                runs.append(r)
    return runs


def chat_outputs(out_dir: Path, runs: list[dict], rooms_list) -> list[tuple[str, str]]:
    keys = ["round", "rooms", "mode", "backend", "total_ns", "server_cpu_ns", "crossings", "buckets",
            "recv_posts", "sends", "short_sends"]
    write_csv(out_dir / "chatroom_runs.csv", keys, [[r[k] for k in keys] for r in runs])
    summ = chat_summary(runs)
    by: dict = {}
    for r in runs:
        by.setdefault((r["rooms"], r["mode"], r["backend"]), []).append(r)

    def rng(key, field):
        lo, _, hi = spread([x[field] / 1e6 for x in by[key]])
        return f"{lo:.1f}–{hi:.1f}"
    rows = [[rooms, mode, backend, v["n"], v["total_ms"], rng((rooms, mode, backend), "total_ns"), v["cpu_ms"],
             rng((rooms, mode, backend), "server_cpu_ns"), int(v["crossings"])]
            for (rooms, mode, backend), v in summ.items()]
    header = ["rooms", "server", "backend", "runs", "total ms", "total min–max", "server CPU ms",
              "CPU min–max", "crossings"]
    write_csv(out_dir / "chatroom.csv", header, [[f"{c:.3f}" if isinstance(c, float) else c for c in r]
                                                 for r in rows])
    ratio_rows, csv_rows = [], []
    for rooms in rooms_list:
        for den in (("plain", "uring"), ("ito1", "uring"), ("pthreads", "none")):
            tot = paired_ratios(runs, rooms, ("wsc", "uring"), den, "total_ns")
            cpu = paired_ratios(runs, rooms, ("wsc", "uring"), den, "server_cpu_ns")
            t_s, c_s = (spread(tot) if tot else None), (spread(cpu) if cpu else None)
            ratio_rows.append([rooms, f"wsc / {den[0]}",
                               None if t_s is None else f"{t_s[1]:.3f} ({t_s[0]:.3f}–{t_s[2]:.3f})",
                               None if c_s is None else f"{c_s[1]:.3f} ({c_s[0]:.3f}–{c_s[2]:.3f})"])
            csv_rows.append([rooms, f"wsc / {den[0]}"] + ["" if x is None else f"{x[1]:.4f}" for x in (t_s, c_s)] +
                            ["" if x is None else f"{v:.4f}" for x in (t_s, c_s) for v in (x[0], x[2])])
    rheader = ["rooms", "ratio", "total time, median (min–max)", "server CPU, median (min–max)"]
    write_csv(out_dir / "chatroom_ratios.csv", ["rooms", "ratio", "total time", "server CPU", "total min",
                                                "total max", "CPU min", "CPU max"], csv_rows)
    from ..plot import bar_chart
    big = max(rooms_list)
    keys_big = [k for k in summ if k[0] == big]
    png = out_dir / "chatroom.png"
    bar_chart(png, [f"{m} ({b})" for _, m, b in keys_big], [summ[k]["cpu_ms"] for k in keys_big],
              title=f"Chatroom, {big} room(s) of 20 clients: server CPU time (median, bars min-max)", ylabel="ms",
              highlight=["wsc (uring)"], footer=host_line(),
              spread=[spread([x["server_cpu_ns"] / 1e6 for x in by[k]])[::2] for k in keys_big])
    text = (f"{image(png, 'chatroom', out_dir)}\n\nMedians over repeats (server: 1 ito worker pinned to CPU 0; "
            f"clients: one pthread each, pinned to CPU 1). {host_line()}.\n\n" + markdown_table(header, rows) +
            "\nWSC ratios (median over rounds of the ratio within a round; paper: whole run "
            f"115.0 / 133.0 M cycles = {PAPER_CHAT_RATIO:.3f}, \"about 87%\" of the normal version's clocks):\n\n" + markdown_table(rheader, ratio_rows))
    print_table("chatroom (medians)", header, rows)
    print_table("chatroom WSC ratios", rheader, ratio_rows)
    return [("B. The chatroom (section 4.4)", text)]


# ---- cachegrind ---------------------------------------------------------------------------------
_SUMMARY = re.compile(r"^summary:\s+(.*)$", re.M)
_EVENTS = re.compile(r"^events:\s+(.*)$", re.M)


def parse_cachegrind(text: str) -> dict:
    """{event: count} from a cachegrind.out file (its 'events:' and 'summary:' lines)."""
    ev, su = _EVENTS.search(text), _SUMMARY.search(text)
    if not ev or not su:
        raise ValueError("not a cachegrind output file (no events/summary line)")
    names, vals = ev.group(1).split(), su.group(1).split()
    if len(names) != len(vals):
        raise ValueError("cachegrind events and summary differ in length")
    d = dict(zip(names, (int(v) for v in vals)))
    d["D1miss"] = d.get("D1mr", 0) + d.get("D1mw", 0)
    d["LLmiss"] = d.get("DLmr", 0) + d.get("DLmw", 0) + d.get("ILmr", 0)
    d["Dref"] = d.get("Dr", 0) + d.get("Dw", 0)
    return d


def run_cachegrind(ctx, step, rooms: int = 1) -> dict:
    """{mode: events of the server process} for each mode (uring backend)."""
    out = {}
    with tempfile.TemporaryDirectory(prefix="wsc-cg-") as tmp:
        for mode, backend in CHAT_MODES:
            step(f"cachegrind: chatroom {mode}")
            pattern = os.path.join(tmp, f"{mode}.%p")
            r, _ = chat_run(ctx, mode, backend, rooms,
                            prefix=["valgrind", "--tool=cachegrind", "--cache-sim=yes",
                                    f"--cachegrind-out-file={pattern}"])
            path = Path(tmp) / f"{mode}.{r['server_pid']}"
            out[mode] = parse_cachegrind(path.read_text())
            out[mode]["total_ns"] = r["total_ns"]
    return out


CG_EVENTS = ("Ir", "Dref", "I1mr", "D1miss", "LLmiss")


def cachegrind_outputs(out_dir: Path, cg: dict) -> list[tuple[str, str]]:
    header = ["server"] + list(CG_EVENTS) + ["D1 miss rate %", "LL miss rate %"]
    rows = []
    for mode, d in cg.items():
        refs = d["Ir"] + d["Dref"]
        rows.append([mode] + [d[e] for e in CG_EVENTS] +
                    [100.0 * d["D1miss"] / d["Dref"] if d["Dref"] else None,
                     100.0 * d["LLmiss"] / refs if refs else None])
    if "wsc" in cg and "plain" in cg:
        rows.append(["wsc / plain"] + [cg["wsc"][e] / cg["plain"][e] if cg["plain"][e] else None
                                        for e in CG_EVENTS] + [None, None])
    write_csv(out_dir / "cachegrind.csv", header, [[("" if c is None else c) for c in r] for r in rows])
    t2 = [[name, n, w, w / n] for name, (n, w) in PAPER_TABLE2.items()]
    text = ("Server process only (one room), under `valgrind --tool=cachegrind --cache-sim=yes`: simulated "
            "caches of the machine's geometry, **user-mode instructions only** (kernel work, where the paper's "
            "hardmeter saw the L2/TLB savings, is invisible to cachegrind), threads serialized by valgrind. "
            "Ir = instructions, Dref = data references, D1miss = L1 data misses, LLmiss = last-level misses.\n\n"
            + markdown_table(header, rows) + "\nPaper, Table 2 (sending part only, Pentium 4, hardmeter):\n\n"
            + markdown_table(["quantity", "normal", "WSC", "WSC/normal"], t2))
    print_table("cachegrind (server)", header, rows)
    return [("Cache behaviour (cachegrind)", text)]


# ---- hackbench ----------------------------------------------------------------------------------
_HB = re.compile(r"Total time:\s*([0-9.]+)\s*\[sec\]")


def parse_hackbench(text: str) -> float:
    """Seconds from `perf bench sched messaging` output."""
    m = _HB.search(text)
    if not m:
        raise ValueError("no 'Total time' in perf bench output")
    return float(m.group(1))


def run_hackbench(rooms_list, repeats, step) -> tuple[list[list], str]:
    if not shutil.which("perf"):
        return [], "`perf` is not installed: hackbench did not run."
    rows = []
    for rooms in rooms_list:
        for label, extra in (("processes", []), ("threads", ["-t"])):
            secs = []
            for i in range(repeats):
                step(f"hackbench {rooms} groups {label} {i + 1}/{repeats}")
                try:
                    secs.append(parse_hackbench(_run(["perf", "bench", "sched", "messaging", "-g", str(rooms),
                                                      "-l", "20", *extra], timeout=300)))
                except (RuntimeError, ValueError, subprocess.TimeoutExpired) as e:
                    return rows, f"`perf bench sched messaging` did not run: {e}"
            rows.append([rooms, label, statistics.median(secs) * 1000.0, len(secs)])
    return rows, ""


def hackbench_outputs(out_dir: Path, rows, note) -> list[tuple[str, str]]:
    header = ["groups (= rooms)", "mode", "total ms (median)", "runs"]
    write_csv(out_dir / "hackbench.csv", header, rows)
    text = ("`perf bench sched messaging -g <rooms> -l 20`: per group 20 senders and 20 receivers over "
            "socketpairs, each sender writes 20 messages of 100 B to each receiver (8,000 messages per "
            "group, vs 7,600 relayed sends per chatroom room): the same shape without a server, unpinned.\n\n")
    if note:
        text += note + "\n\n"
    if rows:
        text += markdown_table(header, rows)
    return [("Outside peer: hackbench", text)]


# ---- the experiment -----------------------------------------------------------------------------
def run(args, ctx) -> int:
    out_dir = ctx.out(NAME)
    quick = ctx.quick
    trials = args.trials or (61 if quick else 501)
    runs = args.runs or (1 if quick else 5)
    repeats = args.repeats or (3 if quick else 7)
    rooms_list = [int(x) for x in (args.rooms or ("1,3" if quick else "1,5,10")).split(",")]
    do_a, do_b = args.part in ("all", "fig11"), args.part in ("all", "chatroom")
    cg = do_b and not args.no_cachegrind and shutil.which("valgrind") is not None
    hb = do_b and not args.no_hackbench
    sync = not quick
    n_chat = repeats * len(rooms_list) * (len(CHAT_MODES) + (len(CHAT_MODES_SYNC) if sync else 0))
    total = (runs if do_a else 0) + (n_chat if do_b else 0) + (len(CHAT_MODES) if cg else 0) + \
        (2 * len(rooms_list) * 3 if hb else 0)
    host_runs_wanted = getattr(args, "host_runs", None) or (2 if quick else 5)
    host_runs: list[dict] = []
    host_loads: list[float] = []
    have_host = (Path(ctx.build_dir) / hostcost.PROGRAM).exists()

    def host_between():
        """One lat_host run between two runs of the experiment (the interleaving)."""
        if have_host and len(host_runs) < max(host_runs_wanted, 10):
            host_loads.append(load1())
            host_runs.append(hostcost.run_once(ctx, quick))

    sections = [("Setup", f"{host_line()}. CPU: {cpu_model()}; {'quick' if quick else 'full'} run. "
                 "Programs: `bench/wsc_fig11`, `workloads/chatroom/chatroom` from the CMake tree "
                 f"{ctx.build_dir}. See docs/reproductions/wsc.md for the assumptions. Wall-clock results "
                 "depend on the host (kernel entry cost, io_uring's per-request cost, loopback TCP): see "
                 "the host-cost table and the break-even analysis below.")]
    with steps(total, "wsc") as step:
        if do_a:
            merged, plains, spreads = run_fig11(ctx, trials, runs, step, host_between)
            sections += fig11_outputs(out_dir, merged, plains, spreads, runs)
        if do_b:
            chat = run_chat(ctx, rooms_list, repeats, sync, step, host_between)
            sections += chat_outputs(out_dir, chat, rooms_list)
            if cg:
                sections += cachegrind_outputs(out_dir, run_cachegrind(ctx, step))
            elif not args.no_cachegrind:
                warn("valgrind not found: no cache figures")
            if hb:
                sections += hackbench_outputs(out_dir, *run_hackbench(rooms_list, 3, step))
        while have_host and len(host_runs) < host_runs_wanted:
            host_between()
    if host_runs:
        sections.append(hostcost.table_section(host_runs, host_loads))
    else:
        sections.append(("Host costs (LMbench-style)", f"`{hostcost.PROGRAM}` is not built in {ctx.build_dir}."))
    write_report(out_dir / "report.md", "wsc: CEFOS Wrapped System Calls (Fig. 11, chatroom, Table 2)", sections)
    print(f"wrote {out_dir / 'report.md'}")
    return 0
