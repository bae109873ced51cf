"""LMbench-style costs of this host beside the CEFOS paper's Table 1, and what they predict.

The paper's Table 1 (seed 001, section 4) lists LMbench results of its four hosts in clock
cycles: null call, process switch 2p/0K and 2p/16K, L1 / L2 / main-memory latency.  Our program
<build>/workloads/cefos_io/lat_host measures the same quantities (and a pipe round trip) with
LMbench's methods; `ito-lab wsc` runs it several times, interleaved with its other runs, and this
module turns the runs into min / median / max and the table.

    run_once(ctx, quick) -> {what: (ns, cycles, tsc_ghz)}       one run of lat_host
    tsc_mhz(ctx) -> the TSC rate in MHz (lat_host --tsc), 0.0 if lat_host is not built
    table_section(runs) -> (heading, markdown)                  ours (spread) beside Table 1
    crossing_model(ns_by_k) -> (per_crossing_ns, per_request_ns) from ns per call at two K
    break_even(per_crossing, per_request, plain) -> K or None   smallest K with batching cheaper
"""
from __future__ import annotations

import math

from .host import cpu_model, host_line, spread
from .parse import parse_results
from .report import markdown_table

PROGRAM = "workloads/cefos_io/lat_host"
# Table 1 of the paper, clock cycles: (GHz, null call, 2p/0K, 2p/16K, L1, L2, main)
PAPER_TABLE1 = {
    "Celeron": (0.5, 315, 675, 3235, 3, 11, 93),
    "Pentium 4": (2.53, 1090, 3298, 5798, 2, 18, 261),
    "Core Duo": (1.6, 464, 1327, 2820, 3, 14, 152),
    "PPC G4": (1.0, 200, 788, 2167, 4, 10, 127),
}
# our quantity -> column of PAPER_TABLE1 (None: not in the paper's table)
QUANTITIES = (("null_call", 1, "null call"), ("ctx_0k", 2, "2p/0K switch"), ("ctx_16k", 3, "2p/16K switch"),
              ("mem_l1", 4, "L1$"), ("mem_l2", 5, "L2$"), ("mem_main", 6, "Main"),
              ("pipe_rtt_1cpu", None, "pipe round trip, 1 CPU"), ("pipe_rtt_2cpu", None, "pipe round trip, 2 CPUs"))


def parse(text: str) -> dict:
    out = {}
    for r in parse_results(text, strict=False):
        if r.get("bench") == "lat_host":
            out[r["what"]] = (float(r["ns"]), float(r["cycles"]), float(r["tsc_ghz"]))
    if "null_call" not in out:
        raise ValueError("lat_host printed no null_call result")
    return out


def run_once(ctx, quick: bool) -> dict:
    return parse(ctx.run_program(PROGRAM, *(["--quick", "--trials", "3"] if quick else ["--trials", "11"])))


def tsc_mhz(ctx) -> float:
    """The TSC rate (MHz = TSC cycles per microsecond), measured by lat_host --tsc against
    CLOCK_MONOTONIC over 200 ms; 0.0 when lat_host is not built (the caller says so)."""
    if not (ctx.build_dir / PROGRAM).exists():
        return 0.0
    for r in parse_results(ctx.run_program(PROGRAM, "--tsc"), strict=False):
        if r.get("bench") == "lat_host" and r.get("what") == "tsc":
            return 1000.0 * float(r["tsc_ghz"])
    raise ValueError("lat_host --tsc printed no rate")


def table_section(runs: list[dict], loads: list[float]) -> tuple[str, str]:
    rows = []
    for what, col, label in QUANTITIES:
        ns = [r[what][0] for r in runs if what in r]
        cy = [r[what][1] for r in runs if what in r]
        if not ns:
            continue
        lo, med, hi = spread(cy)
        paper = [PAPER_TABLE1[c][col] if col is not None else None for c in PAPER_TABLE1]
        rows.append([label, f"{med:,.0f} ({lo:,.0f}–{hi:,.0f})", f"{spread(ns)[1]:,.1f}", *paper])
    ghz = spread([r["null_call"][2] for r in runs])[1]
    quiet = max(loads) < 0.5 if loads else False
    text = (f"{host_line()}. CPU: {cpu_model()}, TSC {ghz:.2f} GHz. `lat_host` (workloads/cefos_io/lat_host.c, "
            f"LMbench's methods) run {len(runs)} times interleaved with the experiment; ours = median (min–max) "
            f"over the runs of each run's median, in TSC cycles (ns x {ghz:.2f}); the paper's columns are its "
            "Table 1 (clock cycles). 1-minute load before the runs: "
            + ", ".join(f"{x:.2f}" for x in loads) +
            (" (quiet)." if quiet else " -- NOT quiet: switch and pipe costs include waiting for the CPU; "
             "re-run on a quiet machine.") + "\n\n" +
            markdown_table(["quantity (cycles)", "this host", "ns (median)"] +
                           [f"{c} ({PAPER_TABLE1[c][0]} GHz)" for c in PAPER_TABLE1], rows))
    return ("Host costs (LMbench-style) beside the paper's Table 1", text)


def crossing_model(ns_by_k: dict) -> tuple[float, float] | None:
    """Fit ns per call = crossing / K + per_request through the smallest and the largest K."""
    ks = sorted(k for k, v in ns_by_k.items() if v and not math.isnan(v))
    if len(ks) < 2:
        return None
    a, b = ks[0], ks[-1]
    na, nb = ns_by_k[a], ns_by_k[b]
    crossing = (na - nb) / (1.0 / a - 1.0 / b)
    return crossing, na - crossing / a


def break_even(crossing: float, per_request: float, plain: float) -> float | None:
    """The K at which crossing / K + per_request = plain (None: batching never wins)."""
    if plain <= per_request:
        return None
    return crossing / (plain - per_request)
