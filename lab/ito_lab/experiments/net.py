"""Loopback echo servers side by side: ito, Go goroutines, Tokio, a plain epoll loop, and
io_uring loops.

Every server is the plain idiomatic one (bench/net/): a thread (ULT, goroutine, task) per
connection that reads and writes back; the epoll loop is the floor (no runtime), and so are
the two io_uring loops (echo_uring, a thread per CPU: `uring` posts a recv per message as
ito's wrappers do, `uring-multi` keeps one multishot recv per connection with a provided
buffer ring): what ito's own kernel path costs without a runtime on top. The client
(bench/net/echo_client.c) keeps DEPTH messages of 64 bytes in flight per connection and checks
every byte it gets back (a lost or corrupted byte fails the run). Traffic goes to 127.0.0.1 only,
counts and time are bounded.

Two placements on this machine's CPUs:
  shared   nobody is pinned: server and client share all CPUs, every server with its default
           settings (ito: a worker per CPU; Go: GOMAXPROCS = CPUs; Tokio multi-thread: a worker
           per CPU);
  pinned   the client on the first half of the CPUs, the server on the other half (one each on a
           2-CPU machine): the servers' own defaults then follow their affinity mask.
Per run: messages/s (the client's clock, from the moment every connection is up), the
server's CPU time per message (user + system of the whole server process, from wait4), and,
in a separate counting run under `strace -f -c`, its system calls per message (kernel
crossings; an io_uring_enter counts once, whatever it carries). Runs are interleaved: every
round runs every server once per (placement, connections) cell, and ratios are taken within a
round, then their median over the rounds.
"""
from __future__ import annotations

from ..argtypes import positive_int, positive_int_list, choice_list

import os
import re
import resource
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from .. import host
from ..progress import print_table
from ..report import image, markdown_table, write_csv, write_report

NAME = "net"
HELP = "loopback echo server: ito vs Go, Tokio, an epoll loop and io_uring loops (messages/s, CPU and syscalls per message)"

MSG = 64
DEPTH = 8
CONNS = (100, 1000, 10000)
TOTAL_MSGS = 400_000            # per run, split over the connections
ROUNDS = 5
QUICK_CONNS = (100, 1000)
QUICK_TOTAL = 60_000
QUICK_ROUNDS = 2
COUNT_CONNS, COUNT_MSGS = 100, 200   # the strace counting run (ptrace slows the calls, not their number)
GOAL_GO, GOAL_TOKIO = 1.3, 1.0        # the goal at 1000 connections (shared placement)

# name -> argv after the program (N = connections after which the server exits)
SERVERS = {
    "ito": ("bench/net/echo_ito", ["0", "{n}"]),
    "go": ("bench/net/echo_go", ["0", "{n}"]),
    "tokio-mt": ("bench/net/echo_tokio", ["0", "multi", "{n}"]),
    "tokio-ct": ("bench/net/echo_tokio", ["0", "current", "{n}"]),
    "epoll": ("bench/net/echo_epoll", ["0", "{n}"]),
    # the io_uring floors: a liburing loop per CPU, no runtime; one recv per message, or one
    # multishot recv per connection into a provided buffer ring
    "uring": ("bench/net/echo_uring", ["0", "{n}", "single", "0"]),
    "uring-multi": ("bench/net/echo_uring", ["0", "{n}", "multi", "0"]),
}
FLOORS = ("uring", "uring-multi")  # compared with Go like ito: what io_uring itself reaches


def add_arguments(p):
    p.add_argument("--rounds", type=positive_int, default=None, help=f"interleaved rounds (default {ROUNDS})")
    p.add_argument("--servers", default=",".join(SERVERS), type=choice_list(tuple(SERVERS)), help="comma-separated subset")
    p.add_argument("--placements", default="shared,pinned", type=choice_list(("shared", "pinned")), help="comma-separated subset of shared,pinned (default: both)")
    p.add_argument("--conns", default=None, type=positive_int_list, help="comma-separated connection counts")
    p.add_argument("--no-strace", action="store_true", help="skip the system-call counting runs")


def _cpu_halves():
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        return None
    half = len(cpus) // 2
    return cpus[:half], cpus[half:]


def _raise_nofile():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def _start(argv, cpus=None, wrap=None):
    """Start a server; returns (process, port)."""
    pre = []
    if wrap:
        pre += wrap
    if cpus is not None:
        pre = ["taskset", "-c", ",".join(map(str, cpus))] + pre
    p = subprocess.Popen(pre + argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=_raise_nofile)
    line = p.stdout.readline()
    m = re.match(r"READY (\d+)", line or "")
    if not m:
        p.kill()
        raise RuntimeError(f"{argv[0]} did not start: {line!r} {p.stderr.read()[-500:]}")
    return p, int(m.group(1))


def _wait(p, timeout):
    """Wait for a server that exits by itself; its CPU (user + sys seconds), exit code, stderr
    and system seconds alone."""
    deadline = time.monotonic() + timeout
    while True:
        pid, status, ru = os.wait4(p.pid, os.WNOHANG)
        if pid:
            p.returncode = os.waitstatus_to_exitcode(status)
            err = p.stderr.read()
            return ru.ru_utime + ru.ru_stime, p.returncode, err, ru.ru_stime
        if time.monotonic() > deadline:
            p.kill()
            os.wait4(p.pid, 0)
            raise RuntimeError(f"{p.args[0]} did not exit after its last connection")
        time.sleep(0.01)


def _client(ctx, port, conns, msgs, cpus=None):
    argv = [str(ctx.program("bench/net/echo_client")), str(port), str(conns), str(msgs), str(DEPTH), "120"]
    if cpus is not None:
        argv = ["taskset", "-c", ",".join(map(str, cpus))] + argv
    before = resource.getrusage(resource.RUSAGE_CHILDREN)  # the server is reaped later: only the client counts
    cp = subprocess.run(argv, capture_output=True, text=True, timeout=300, preexec_fn=_raise_nofile)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    client_cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    m = re.search(r"RESULT conns=(\d+) msgs=(\d+) seconds=([\d.]+) msgs_per_s=([\d.]+) lost=(\d+) corrupted=(\d+)",
                  cp.stdout)
    if cp.returncode != 0 or not m:
        raise RuntimeError(f"echo_client failed ({cp.returncode}): {cp.stderr.strip()[-500:]}")
    lost, corrupted = int(m.group(5)), int(m.group(6))
    assert lost == 0 and corrupted == 0, "the client lost or saw corrupted messages"
    return int(m.group(2)), float(m.group(3)), float(m.group(4)), client_cpu


def _one_run(ctx, server, conns, msgs, placement):
    prog, args = SERVERS[server]
    argv = [str(ctx.program(prog))] + [a.format(n=conns) for a in args]
    halves = _cpu_halves() if placement == "pinned" else None
    srv_cpus, cli_cpus = (halves[1], halves[0]) if halves else (None, None)
    p, port = _start(argv, srv_cpus)
    try:
        total, secs, mps, client_cpu = _client(ctx, port, conns, msgs, cli_cpus)
    except Exception:
        p.kill()
        raise
    cpu, rc, err, sys_s = _wait(p, 60)
    if rc != 0:
        raise RuntimeError(f"{server} exited {rc}: {err[-500:]}")
    return {"server": server, "placement": placement, "conns": conns, "msgs": total, "seconds": secs,
            "msgs_per_s": mps, "server_cpu_s": cpu, "cpu_ns_per_msg": cpu * 1e9 / total,
            "server_sys_ns_per_msg": sys_s * 1e9 / total, "client_cpu_ns_per_msg": client_cpu * 1e9 / total, "load1": host.load1()}


def _count_syscalls(ctx, server):
    """System calls per message of one server, from strace -f -c (exact counts)."""
    if not shutil.which("strace"):
        return None
    prog, args = SERVERS[server]
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "strace.txt"
        argv = [str(ctx.program(prog))] + [a.format(n=COUNT_CONNS) for a in args]
        p, port = _start(argv, wrap=["strace", "-f", "-c", "-o", str(out)])
        total, _, _, _ = _client(ctx, port, COUNT_CONNS, COUNT_MSGS)
        _wait(p, 120)
        text = out.read_text()
    m = re.search(r"^[-\s]+\n\s*100\.00\s+[\d.]+\s+\d+\s+(\d+)", text, re.M)
    calls = int(m.group(1)) if m else sum(int(x) for x in re.findall(r"^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)", text, re.M))
    return calls / total


def _build_peers(ctx):
    """Go and Tokio are built on demand (Tokio comes from crates.io)."""
    cp = subprocess.run(["cmake", "--build", str(ctx.build_dir), "--target", "bench_net_peers"],
                        capture_output=True, text=True, timeout=1800)
    if cp.returncode != 0:
        print(f"net: building the Go/Tokio peers failed; they are skipped:\n{cp.stdout[-800:]}{cp.stderr[-800:]}")


def _spread(xs):
    return min(xs), statistics.median(xs), max(xs)


def _columns(rows, first=()):
    cols = list(first)
    for r in rows:
        cols += [k for k in r if k not in cols]
    return cols


def _dict_rows(rows, cols):
    return [[r.get(c) for c in cols] for r in rows]


def run(args, ctx) -> int:
    out = ctx.out(NAME)
    _build_peers(ctx)
    servers = [s for s in args.servers.split(",") if s]
    unbuilt = [s for s in servers if not (ctx.build_dir / SERVERS[s][0]).exists()]
    for s in unbuilt:
        print(f"net: {s} is not built ({ctx.build_dir / SERVERS[s][0]}): skipped")
    servers = [s for s in servers if s not in unbuilt]
    if not servers:
        raise RuntimeError("none of the requested servers is built (make build)")
    for s in [s for s in servers if s in FLOORS]:  # the floors need io_uring itself: no fallback
        try:
            _one_run(ctx, s, 4, DEPTH, "shared")
        except RuntimeError as e:
            print(f"net: {s} skipped: {str(e)[-200:]}")
            servers.remove(s)
    placements = [p for p in args.placements.split(",") if p]
    if "pinned" in placements and not _cpu_halves():
        placements.remove("pinned")
    conns = tuple(int(c) for c in args.conns.split(",")) if args.conns else (QUICK_CONNS if ctx.quick else CONNS)
    rounds = args.rounds or (QUICK_ROUNDS if ctx.quick else ROUNDS)
    total = QUICK_TOTAL if ctx.quick else TOTAL_MSGS
    load_before = host.loadavg()
    rows = []
    cells = [(pl, c, s) for pl in placements for c in conns for s in servers]
    with ctx.progress(rounds * len(cells), "echo runs") as step:
        for r in range(rounds):
            for pl, c, s in cells:
                step(f"round {r + 1}: {pl} {c} conns {s}")
                row = _one_run(ctx, s, c, max(DEPTH, total // c), pl)
                row["round"] = r
                rows.append(row)
    cols = _columns(rows)
    write_csv(out / "net.csv", cols, _dict_rows(rows, cols))

    syscalls = {}
    if not args.no_strace:
        for s in servers:
            syscalls[s] = _count_syscalls(ctx, s)

    # summary: per (placement, conns, server) spread; ratios within rounds
    def cell(pl, c, s, key):
        return [x[key] for x in rows if x["placement"] == pl and x["conns"] == c and x["server"] == s]

    def ratios(pl, c, a, b):
        ra = {x["round"]: x["msgs_per_s"] for x in rows if (x["placement"], x["conns"], x["server"]) == (pl, c, a)}
        rb = {x["round"]: x["msgs_per_s"] for x in rows if (x["placement"], x["conns"], x["server"]) == (pl, c, b)}
        return [ra[k] / rb[k] for k in ra if k in rb]

    table, round_ratios = [], {}
    for pl in placements:
        for c in conns:
            for s in servers:
                mps, cpu = cell(pl, c, s, "msgs_per_s"), cell(pl, c, s, "cpu_ns_per_msg")
                lo, med, hi = _spread(mps)
                row = {"placement": pl, "conns": c, "server": s, "msgs_per_s_median": round(med),
                       "msgs_per_s_min": round(lo), "msgs_per_s_max": round(hi),
                       "cpu_ns_per_msg_median": round(statistics.median(cpu)),
                       "server_sys_ns_per_msg_median": round(statistics.median(cell(pl, c, s, "server_sys_ns_per_msg"))),
                       "client_cpu_ns_per_msg_median": round(statistics.median(cell(pl, c, s, "client_cpu_ns_per_msg"))),
                       "syscalls_per_msg": None if syscalls.get(s) is None else round(syscalls[s], 3)}
                for peer in ("go", "tokio-mt", "tokio-ct", "epoll") + FLOORS:
                    if s == "ito" and peer in servers:
                        rs = ratios(pl, c, "ito", peer)
                        round_ratios[(pl, c, peer)] = rs
                        row[f"ito_over_{peer}"] = round(statistics.median(rs), 3) if rs else None
                if s in FLOORS and "go" in servers:
                    rs = ratios(pl, c, s, "go")
                    round_ratios[(pl, c, s, "go")] = rs
                    row[f"{s}_over_go"] = round(statistics.median(rs), 3) if rs else None
                table.append(row)
    tcols = _columns(table)
    write_csv(out / "summary.csv", tcols, _dict_rows(table, tcols))
    show = ["placement", "conns", "server", "msgs_per_s_median", "msgs_per_s_min", "msgs_per_s_max",
            "cpu_ns_per_msg_median", "client_cpu_ns_per_msg_median", "syscalls_per_msg"]
    print_table("echo servers", show, _dict_rows(table, show))
    _plot(out, rows, placements, conns, servers)
    _report(out, table, placements, conns, servers, syscalls, rounds, total, load_before, round_ratios)
    return 0


def _plot(out, rows, placements, conns, servers):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, len(placements), figsize=(6.5 * len(placements), 8), squeeze=False)
    width = 0.8 / len(servers)
    for j, pl in enumerate(placements):
        for i, key, label in ((0, "msgs_per_s", "messages / s"), (1, "cpu_ns_per_msg", "server CPU ns / message")):
            ax = axes[i][j]
            for k, s in enumerate(servers):
                meds, los, his = [], [], []
                for c in conns:
                    xs = [x[key] for x in rows if (x["placement"], x["conns"], x["server"]) == (pl, c, s)]
                    lo, med, hi = _spread(xs)
                    meds.append(med)
                    los.append(med - lo)
                    his.append(hi - med)
                xpos = [q + k * width for q in range(len(conns))]
                ax.bar(xpos, meds, width, yerr=[los, his], capsize=3, label=s)
            ax.set_xticks([q + width * (len(servers) - 1) / 2 for q in range(len(conns))])
            ax.set_xticklabels([f"{c} conns" for c in conns])
            ax.set_ylabel(label)
            ax.set_title(f"{pl}: {label} (median, min-max)")
            if i == 0 and j == 0:
                ax.legend(fontsize=8)
    host.stamp_figure(fig, host.host_line())
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    fig.savefig(out / "net.png", dpi=110)
    plt.close(fig)


def goal_verdict(rs: list[float], goal: float) -> str:
    """Whether per-round ratios meet a goal, with the rounds that say otherwise: a median
    above the goal with rounds below it is a result inside its own noise, and says so."""
    if not rs:
        return "no data"
    med, n = statistics.median(rs), len(rs)
    below = sum(1 for r in rs if r < goal)
    span = f"rounds {min(rs):.2f}-{max(rs):.2f}"
    if med >= goal:
        return "met in every round" if below == 0 else f"met at the median; {below} of {n} rounds below ({span})"
    above = n - below
    return "not met in any round" if above == 0 else f"not met at the median; {above} of {n} rounds at or above ({span})"


def _report(out, table, placements, conns, servers, syscalls, rounds, total, load_before, round_ratios=None):
    cols = ["placement", "conns", "server", "msgs_per_s_median", "msgs_per_s_min", "msgs_per_s_max",
            "cpu_ns_per_msg_median", "client_cpu_ns_per_msg_median", "syscalls_per_msg"]
    ratio_cols = [c for c in ("ito_over_go", "ito_over_tokio-mt", "ito_over_tokio-ct", "ito_over_epoll")
                  + tuple(f"ito_over_{f}" for f in FLOORS) if any(c in r for r in table)]
    ito_rows = [r for r in table if r["server"] == "ito"]
    verdicts = []
    rr = round_ratios or {}
    for r in (r for r in ito_rows if r["conns"] == 1000):
        g, t = r.get("ito_over_go"), r.get("ito_over_tokio-mt")
        vg = goal_verdict(rr.get((r["placement"], 1000, "go"), []), GOAL_GO)
        vt = goal_verdict(rr.get((r["placement"], 1000, "tokio-mt"), []), GOAL_TOKIO)
        verdicts.append(f"- {r['placement']}, 1000 connections: ito/Go = {g} (goal >= {GOAL_GO}: {vg}), "
                        f"ito/Tokio multi-thread = {t} (goal >= {GOAL_TOKIO}: {vt})")
        for f in FLOORS:
            fr = next((x for x in table if (x["server"], x["conns"], x["placement"]) == (f, 1000, r["placement"])), None)
            rs = rr.get((r["placement"], 1000, f, "go"), [])
            if fr and rs:
                verdicts.append(f"  - the io_uring floor `{f}` (no runtime) over Go in the same rounds: "
                                f"{fr[f'{f}_over_go']} (rounds {min(rs):.2f}-{max(rs):.2f}); ito over it: "
                                f"{r.get(f'ito_over_{f}')}")
    setup = "\n".join([
        host.host_line(),
        "",
        f"Load average before the runs: {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f} "
        f"(the lab records wall-clock results as such only below {host.QUIET_LOAD}).",
        "",
        f"{rounds} interleaved rounds; {total} messages of {MSG} bytes per run, {DEPTH} in flight per "
        "connection; every byte checked by the client (0 lost, 0 corrupted in every run, or the run fails). "
        "Placements: `shared` (nobody pinned, default settings) and `pinned` (client and server on "
        "separate halves of the CPUs).",
    ])
    results = "\n".join([
        image(out / "net.png", "messages/s and server CPU per message", out),
        "",
        markdown_table(cols, _dict_rows(table, cols)),
        "",
        "ito over each peer, median of the per-round ratios of messages/s:",
        "",
        markdown_table(["placement", "conns"] + ratio_cols, _dict_rows(ito_rows, ["placement", "conns"] + ratio_cols)),
    ])
    # The shared placement saturates the CPUs: messages/s ~ CPUs / (server + client CPU per
    # message). What a server with no user time and ito's kernel time would reach says how
    # far any server could go against the peer with this client on these CPUs.
    ncpu = len(os.sched_getaffinity(0))
    for r in (r for r in ito_rows if r["conns"] == 1000 and r["placement"] == "shared"):
        go = next((x for x in table if x["server"] == "go" and x["conns"] == 1000 and x["placement"] == "shared"), None)
        sys_ns = r["server_sys_ns_per_msg_median"]
        if go and r["client_cpu_ns_per_msg_median"] and sys_ns:
            predicted = ncpu * 1e9 / (r["cpu_ns_per_msg_median"] + r["client_cpu_ns_per_msg_median"])
            line = (f"- shared, 1000 connections: {ncpu} CPUs / (server + client CPU per message) predicts "
                    f"{predicted:.0f} msg/s for ito (measured {r['msgs_per_s_median']})")
            if abs(predicted / r["msgs_per_s_median"] - 1) <= 0.1:
                bound = ncpu * 1e9 / (sys_ns + r["client_cpu_ns_per_msg_median"])
                line += (f"; a server with no user time and ito's system time ({sys_ns:.0f} ns) would reach "
                         f"{bound:.0f}, {bound / go['msgs_per_s_median']:.2f}x Go's median: the most this client "
                         "and these CPUs allow")
            else:
                line += ("; more than 10 % apart, so the CPU times are not per message (set-up weighs in "
                         "short runs, or the CPUs were not saturated): no bound from this run")
            verdicts.append(line)
    goal = "\n".join(verdicts) or "(no 1000-connection cell in this run)"
    notes = (f"System calls per message come from one `strace -f -c` run per server ({COUNT_CONNS} connections "
             f"x {COUNT_MSGS} messages; counts include the setup: accepts, mappings, thread creation). "
             "Server CPU is the whole server process's user + system time from wait4, setup included; "
             "on loopback part of a message's kernel work is charged to whichever process sends it.")
    write_report(out / "report.md", "Loopback echo servers: ito, Go, Tokio, epoll, io_uring",
                 [("Set-up", setup), ("Results", results), ("Against the goal", goal), ("Notes", notes),
                  ("How to reproduce", "`ito-lab net` (or `ito-lab --quick net`); raw runs in `net.csv`.")])
