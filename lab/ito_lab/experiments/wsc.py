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
"""
from __future__ import annotations

import os
import re
import shutil
import statistics
import subprocess
import tempfile
from pathlib import Path

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
    ("wsc", "sync", "getpid", "zwt"): "WSC sync backend getpid, 128 ZWTs",
}


def add_arguments(p):
    p.add_argument("--part", choices=("all", "fig11", "chatroom"), default="all")
    p.add_argument("--trials", type=int, help="Fig. 11 trials per run (default 501; quick 61)")
    p.add_argument("--runs", type=int, help="Fig. 11 processes (default 3; quick 1)")
    p.add_argument("--repeats", type=int, help="chatroom repeats per configuration (default 7; quick 3)")
    p.add_argument("--rooms", help="comma-separated room counts (default 1,5,10; quick 1,3)")
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
    """The Fig. 11 RESULT lines of one run (kind raw/wsc), checked; plain lines dropped."""
    rows = []
    for r in results:
        if r.get("kind") not in ("raw", "wsc"):
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


def break_even(curve: dict) -> int | None:
    """The smallest threshold whose ratio is below 1 (WSC wins), or None."""
    wins = [k for k, (ratio, _, _) in sorted(curve.items()) if ratio < 1.0]
    return wins[0] if wins else None


def run_fig11(ctx, trials: int, runs: int, step) -> tuple[dict, list[float]]:
    prog = str(ctx.program(FIG11))
    all_rows, plains = [], []
    for i in range(runs):
        step(f"Fig. 11 run {i + 1}/{runs} ({trials} trials)")
        out = _run(_pin(1 if (os.cpu_count() or 1) > 1 else 0) + [prog, "--trials", str(trials)])
        res = parse_results(out)
        all_rows.append(fig11_rows(res))
        plains += fig11_plain_ns(res)
    return fig11_merge(all_rows), plains


def fig11_outputs(out_dir: Path, merged: dict, plains: list[float]) -> list[tuple[str, str]]:
    rows = []
    for key, curve in merged.items():
        for k, (ratio, ns_call, cross) in curve.items():
            rows.append([*key, k, f"{ratio:.4f}", f"{ns_call:.1f}", cross])
    write_csv(out_dir / "fig11.csv", ["kind", "backend", "op", "issuer", "threshold", "ratio_to_plain_getpid",
                                      "ns_per_call", "crossings"], rows)
    series = {SERIES.get(key, "/".join(key)): (list(c), [v[0] for v in c.values()]) for key, c in merged.items()}
    png = out_dir / "fig11.png"
    from ..plot import line_chart
    line_chart(png, series, title="Fig. 11: 128 thin calls through WSC, relative to 128 plain getpid() "
               "(paper: shape only, no values)", xlabel="WSC threshold K", ylabel="time ratio to plain getpid",
               logx=True, reference={"plain getpid (ratio 1)": ([1, 64], [1.0, 1.0])})
    header = ["K"] + [SERIES.get(key, "/".join(key)) for key in merged]
    table = []
    for k in THRESHOLDS:
        table.append([k] + [merged[key][k][0] if k in merged[key] else None for key in merged])
    ns_table = [[k] + [merged[key][k][1] if k in merged[key] else None for key in merged] for k in THRESHOLDS]
    plain = statistics.median(plains) / 128.0 if plains else float("nan")
    be = {SERIES.get(key, "/".join(key)): break_even(c) for key, c in merged.items()}
    text = (f"{image(png, 'Fig. 11', out_dir)}\n\nRatio of the time of 128 calls through WSC to 128 plain "
            f"`getpid()` syscalls (median over trials of the paired ratio, median over runs). A plain getpid "
            f"took {plain:.1f} ns here (median).\n\n" + markdown_table(header, table) +
            "\nNanoseconds per call:\n\n" + markdown_table(header, ns_table) +
            "\nSmallest K at which WSC beats plain getpid: " +
            ", ".join(f"{n}: {'K=' + str(k) if k else 'never'}" for n, k in be.items()) +
            f".\n\nPaper (Fig. 11): {PAPER_FIG11_SHAPE}\n")
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


def paired_ratio(runs: list[dict], rooms: int, num: tuple[str, str], den: tuple[str, str], field: str):
    """Median over repeats of num/den where both were measured in the same round."""
    by_round: dict = {}
    for r in runs:
        if r["rooms"] == rooms:
            by_round.setdefault(r.get("round", 0), {})[(r["mode"], r["backend"])] = r[field]
    ratios = [d[num] / d[den] for d in by_round.values() if num in d and den in d]
    return statistics.median(ratios) if ratios else None


def run_chat(ctx, rooms_list, repeats, sync, step) -> list[dict]:
    modes = CHAT_MODES + (CHAT_MODES_SYNC if sync else ())
    runs = []
    for rnd in range(repeats):
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
    rows = [[rooms, mode, backend, v["n"], v["total_ms"], v["cpu_ms"], int(v["crossings"])]
            for (rooms, mode, backend), v in summ.items()]
    header = ["rooms", "server", "backend", "runs", "total ms", "server CPU ms", "crossings"]
    write_csv(out_dir / "chatroom.csv", header, [[f"{c:.3f}" if isinstance(c, float) else c for c in r]
                                                 for r in rows])
    ratio_rows = []
    for rooms in rooms_list:
        for den in (("plain", "uring"), ("ito1", "uring"), ("pthreads", "none")):
            ratio_rows.append([rooms, f"wsc / {den[0]}",
                               paired_ratio(runs, rooms, ("wsc", "uring"), den, "total_ns"),
                               paired_ratio(runs, rooms, ("wsc", "uring"), den, "server_cpu_ns")])
    rheader = ["rooms", "ratio", "total time", "server CPU"]
    write_csv(out_dir / "chatroom_ratios.csv", rheader,
              [[a, b, "" if c is None else f"{c:.4f}", "" if d is None else f"{d:.4f}"] for a, b, c, d in ratio_rows])
    from ..plot import bar_chart
    big = max(rooms_list)
    keys_big = [k for k in summ if k[0] == big]
    png = out_dir / "chatroom.png"
    bar_chart(png, [f"{m} ({b})" for _, m, b in keys_big], [summ[k]["cpu_ms"] for k in keys_big],
              title=f"Chatroom, {big} room(s) of 20 clients: server CPU time (median)", ylabel="ms",
              highlight=["wsc (uring)"])
    text = (f"{image(png, 'chatroom', out_dir)}\n\nMedians over repeats (server: 1 ito worker pinned to CPU 0; "
            f"clients: one pthread each, pinned to CPU 1).\n\n" + markdown_table(header, rows) +
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
    runs = args.runs or (1 if quick else 3)
    repeats = args.repeats or (3 if quick else 7)
    rooms_list = [int(x) for x in (args.rooms or ("1,3" if quick else "1,5,10")).split(",")]
    do_a, do_b = args.part in ("all", "fig11"), args.part in ("all", "chatroom")
    cg = do_b and not args.no_cachegrind and shutil.which("valgrind") is not None
    hb = do_b and not args.no_hackbench
    sync = not quick
    n_chat = repeats * len(rooms_list) * (len(CHAT_MODES) + (len(CHAT_MODES_SYNC) if sync else 0))
    total = (runs if do_a else 0) + (n_chat if do_b else 0) + (len(CHAT_MODES) if cg else 0) + \
        (2 * len(rooms_list) * 3 if hb else 0)
    sections = [("Setup", f"Machine: {os.cpu_count()} CPUs; {'quick' if quick else 'full'} run. "
                 "Programs: `bench/wsc_fig11`, `workloads/chatroom/chatroom` from the CMake tree "
                 f"{ctx.build_dir}. See docs/reproductions/wsc.md for the assumptions.")]
    with steps(total, "wsc") as step:
        if do_a:
            merged, plains = run_fig11(ctx, trials, runs, step)
            sections += fig11_outputs(out_dir, merged, plains)
        if do_b:
            chat = run_chat(ctx, rooms_list, repeats, sync, step)
            sections += chat_outputs(out_dir, chat, rooms_list)
            if cg:
                sections += cachegrind_outputs(out_dir, run_cachegrind(ctx, step))
            elif not args.no_cachegrind:
                warn("valgrind not found: no cache figures")
            if hb:
                sections += hackbench_outputs(out_dir, *run_hackbench(rooms_list, 3, step))
    write_report(out_dir / "report.md", "wsc: CEFOS Wrapped System Calls (Fig. 11, chatroom, Table 2)", sections)
    print(f"wrote {out_dir / 'report.md'}")
    return 0
