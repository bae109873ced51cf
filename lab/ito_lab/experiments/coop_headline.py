"""Table 3's headline in wall clock, measured in adjacent triples (seed 004; issue 12's
deliverable 3): is the optimized overhead at most half of the full save's, and at most 5 %,
at a yield per 7,700 cycles?

The case study (coop_case.py) runs every variant once per repetition: a repetition lasts
seconds, and this host's speed changes within that (the plain decode spans 35-75 ms in one
run), so its statistics sit inside their own noise. Here only the three builds of the
headline run, as triples back to back (plain, full save, optimized: the bound placement
with the budget check, at a fixed quantum), in an order that rotates through all six
permutations so that none is favoured; each triple's overheads are over the plain run of
the same triple. The verdict comes from the medians over the triples, with a bootstrap 95 %
interval (resampling triples, seeded): a bar is met only if the whole interval is on its
good side, not met if the whole interval is on the other side, and otherwise the run cannot
tell.

With --matched-player each round also runs the budget pair whose player yields with its
variant's saves (player-budget-full-pfull: every GPR and XSAVE; player-budget-pmin: the
minimal yield), the paper's other reading of "full save" (every switch saves everything).

With --floor each round also runs the two budget builds linked with floorrt.c instead of
libito (player-floor-budget*: the same decoder objects, stubs and switch code, two threads,
no scheduler; workloads/player/floorrt.c): five builds per round, the order rotating through
all 120 permutations. The same statistics then say whether the bars hold for the floor of
a compiled yield on this machine, and the difference optimized - floor per round is ito's
share of a yield (ns per yield).

The quantum is fixed (30,100: a yield per 7,700 cycles of the plain build on the host where it
was calibrated; --dense-quantum Q) or, with --host-quantum, calibrated on this host before the
rounds (the fastest of at least 15 plain decodes after 3 warm-up ones, the TSC rate from
lat_host --tsc, the yields at a quantum of 7,700). Either way the report states the density reached here, in TSC cycles
of the plain build per yield.

Outputs: case_headline_triples.csv (every round), case_headline.csv (the summary).
"""
from __future__ import annotations

import os
import random
from itertools import permutations
from pathlib import Path

from ..progress import steps
from ..report import markdown_table, write_csv
from .bench import pin_prefix
from ..hostcost import tsc_mhz
from .coop_case import (BOUND, PAPER_TICK_CYCLES, _load, _median, _quartiles, _run, budget_quantum, fmt_quartiles,
                        pair_overheads, parse_kv, player_inputs)

ROLES = ("plain", "full", "opt")
ORDERS = list(permutations(ROLES))  # six: each build first, second and third equally often
FLOOR_ROLES = ROLES + ("floor_full", "floor_opt")
FLOOR_ORDERS = list(permutations(FLOOR_ROLES))  # 120
MATCHED = ("matched_full", "matched_opt")
PROGRAMS = {"plain": "player-nothr", "full": "player-budget-full", "opt": "player-budget",
            "floor_full": "player-floor-budget-full", "floor_opt": "player-floor-budget",
            "matched_full": "player-budget-full-pfull", "matched_opt": "player-budget-pmin"}
PAIRS = {"": "bound B={b}, budget check", "floor_": "the same, floor runtime (floorrt.c, no scheduler)",
         "matched_": "the same, the player's yield with its variant's saves (full / minimal)"}
DEFAULT_QUANTUM = 30100  # a yield per 7,700 cycles of the plain build on the first AMD EPYC host
# (other hosts: --host-quantum calibrates; the report states the density reached here)
BAR_RATIO, BAR_TOTAL = 0.5, 5.0
WARMUP, CALIBRATE_MIN = 3, 15  # --host-quantum: decodes not counted, and at least this many counted


def round_order(i: int, roles: tuple[str, ...]) -> tuple[str, ...]:
    """The order of round i over `roles`: all the permutations in turn for the triple and
    the five builds with the floor, a shuffle seeded by i beyond (7! = 5,040 permutations
    would never come round)."""
    orders = {ROLES: ORDERS, FLOOR_ROLES: FLOOR_ORDERS}.get(roles)
    if orders:
        return orders[i % len(orders)]
    order = list(roles)
    random.Random(i).shuffle(order)
    return tuple(order)


def triple_order(i: int, floor: bool = False) -> tuple[str, ...]:
    """The order of round i of the triple (with the floor builds, of the five)."""
    return round_order(i, FLOOR_ROLES if floor else ROLES)


def headline_stats(triples: list[dict], resamples: int = 2000, seed: int = 1, full: str = "full",
                   opt: str = "opt") -> dict:
    """From rounds {plain, full, opt} (ns): the overheads' quartiles, the ratio of the
    median overheads, and bootstrap 95 % intervals of that ratio and of the optimized
    median (resampling whole rounds; seeded, so a report is reproducible). `full` and
    `opt` name the pair (the floor builds: floor_full, floor_opt)."""
    if not triples:
        raise ValueError("no triples")
    fo, oo = pair_overheads(*([t[r] for t in triples] for r in ("plain", full, opt)))
    f_med, o_med = _median(fo), _median(oo)
    rng = random.Random(seed)
    n = len(triples)
    ratios, opts = [], []
    for _ in range(resamples):
        pick = [rng.randrange(n) for _ in range(n)]
        f, o = _median([fo[i] for i in pick]), _median([oo[i] for i in pick])
        ratios.append(o / f if f > 0 else float("inf"))
        opts.append(o)
    ratios.sort()
    opts.sort()
    lo, hi = int(0.025 * resamples), int(0.975 * resamples) - 1
    return {"triples": n, "full": _quartiles(fo), "opt": _quartiles(oo),
            "ratio": o_med / f_med if f_med > 0 else None,
            "ratio_ci": (ratios[lo], ratios[hi]), "opt_ci": (opts[lo], opts[hi])}


def bar_verdict(ci: tuple[float, float], bar: float) -> str:
    """A bar (at most `bar`) against an interval: met, not met, or inside the noise."""
    if ci[1] <= bar:
        return "met"
    if ci[0] > bar:
        return "not met"
    return "cannot tell (the interval holds the bar)"


def ito_share(rounds: list[dict]) -> dict:
    """ito's share of a yield, per round: (ito's build - the floor's build) / yields, ns,
    for the optimized and the full-save pair: quartiles over the rounds."""
    return {k: _quartiles([(t[k] - t["floor_" + k]) / t["yields"] for t in rounds]) for k in ("opt", "full")}


def _row(name: str, q: int, yields: int, plain: list[int], hs: dict) -> list:
    return [name, q, yields, hs["triples"],
            f"{plain[0] / 1e6:.1f} / {_median(plain) / 1e6:.1f} / {plain[-1] / 1e6:.1f}",
            fmt_quartiles(hs["full"]), fmt_quartiles(hs["opt"]),
            f"{hs['ratio']:.2f}" if hs["ratio"] is not None else "no result",
            f"{hs['ratio_ci'][0]:.2f}-{hs['ratio_ci'][1]:.2f}", bar_verdict(hs["ratio_ci"], BAR_RATIO),
            f"{hs['opt_ci'][0]:.1f}-{hs['opt_ci'][1]:.1f}", bar_verdict(hs["opt_ci"], BAR_TOTAL)]


def host_density(plain_min_ns: float, yields: int, tsc: float) -> str:
    """How dense the yields are on this host: TSC cycles of the plain build's fastest decode
    per yield (the paper's tick: one per 7,700 cycles)."""
    if tsc <= 0 or yields <= 0:
        return "the TSC rate unknown here (lat_host not built)"
    return (f"one per {plain_min_ns * tsc / 1000.0 / yields:,.0f} TSC cycles of the plain build's fastest "
            f"decode here (TSC {tsc:,.0f} MHz; the paper's tick: one per {PAPER_TICK_CYCLES:,} cycles)")


def calibrate_quantum(plain_cmd: list[str], opt_cmd: list[str], runs: int, tsc: float, env) -> tuple[int, str]:
    """--host-quantum: the quantum that gives the paper's density on this host, a yield per
    7,700 TSC cycles of the plain build's fastest of `runs` decodes (after WARMUP decodes
    that do not count: the first decodes after an idle spell ran 50 % slow, and a quantum
    calibrated on them gave a yield per 5,056 cycles), from the yields the optimized build
    makes at a quantum of 7,700 (the yields scale as 1 / quantum)."""
    if tsc <= 0:
        raise SystemExit("ito-lab cooperative: --host-quantum needs the TSC rate (build workloads/cefos_io/lat_host)")
    times = [int(parse_kv(_run(plain_cmd, env=env).stdout)["decode_ns"]) for _ in range(WARMUP + max(1, runs))]
    fastest = min(times[WARMUP:])
    y = int(parse_kv(_run(opt_cmd + ["--budget", str(PAPER_TICK_CYCLES)], env=env).stdout)["player_runs"])
    q = budget_quantum(y, fastest, tsc)
    return q, (f"quantum calibrated on this host (`--host-quantum`): the fastest of {runs} plain decodes "
               f"{fastest / 1e6:.2f} ms at TSC {tsc:,.0f} MHz is {fastest * tsc / 1000.0 / PAPER_TICK_CYCLES:,.0f} "
               f"ticks of {PAPER_TICK_CYCLES:,} cycles; the optimized build yields {y:,} times at a quantum of "
               f"{PAPER_TICK_CYCLES:,}, so {q:,}")


def run_headline(args, ctx, out: Path, floor: bool | None = None, matched: bool | None = None,
                 host_quantum: bool | None = None) -> list[tuple[str, str]]:
    pdir, ogg, n = player_inputs(args, ctx, "triples", 301, 30, 6)
    floor = bool(getattr(args, "floor", False)) if floor is None else floor
    matched = bool(getattr(args, "matched_player", False)) if matched is None else matched
    roles = (FLOOR_ROLES if floor else ROLES) + (MATCHED if matched else ())
    base = {r: [str(pdir / PROGRAMS[r]), str(ogg)] for r in roles}
    for cmd in base.values():
        if not Path(cmd[0]).exists():
            raise SystemExit(f"ito-lab cooperative: {cmd[0]} is not built")
    # Every run on one CPU (the last): libito's pinned worker (ITO_AFFINITY=on pins the main
    # thread, its worker 0, to the first CPU of the process's mask) and the builds without
    # libito run where the others do, not on CPUs of their own.
    notes: list[str] = []
    cpu = (os.cpu_count() or 1) - 1
    pin = pin_prefix(cpu, notes.append)
    env = dict(os.environ, ITO_AFFINITY="on")
    tsc = tsc_mhz(ctx)
    q, qnote = getattr(args, "dense_quantum", None) or DEFAULT_QUANTUM, ""
    if bool(getattr(args, "host_quantum", False)) if host_quantum is None else host_quantum:
        q, qnote = calibrate_quantum(pin + base["plain"], pin + base["opt"],
                                     max(CALIBRATE_MIN, getattr(args, "calibrate", 5) or 5), tsc, env)
    exe = {r: pin + cmd + ([] if r == "plain" else ["--budget", str(q)]) for r, cmd in base.items()}
    load_before = _load()
    triples, ref_sum = [], None
    with steps(len(roles) * n, "headline rounds" if len(roles) > 3 else "headline triples") as step:
        for i in range(n):
            t = {"order": "-".join(round_order(i, roles))}
            for role in round_order(i, roles):
                step(f"round {i + 1} {role}")
                kv = parse_kv(_run(exe[role], env=env).stdout)
                ref_sum = ref_sum or kv["checksum"]
                if kv["checksum"] != ref_sum:
                    raise RuntimeError(f"{role}: checksum {kv['checksum']} differs")
                t[role] = int(kv["decode_ns"])
                if role == "opt":
                    t["yields"] = int(kv["player_runs"])
            triples.append(t)
    load_after = _load()
    names = {"plain": "plain ns", "full": "full save ns", "opt": "optimized ns",
             "floor_full": "floor full save ns", "floor_opt": "floor optimized ns",
             "matched_full": "matched player full save ns", "matched_opt": "matched player optimized ns"}
    write_csv(out / "case_headline_triples.csv",
              ["triple", "order"] + [names[r] for r in roles] + ["yields (optimized)"],
              [[i, t["order"]] + [t[r] for r in roles] + [t["yields"]] for i, t in enumerate(triples)])
    plain = sorted(t["plain"] for t in triples)
    yields = round(_median([t["yields"] for t in triples]))
    hdr = ["placement", "quantum", "yields", "triples", "plain ms min / median / max",
           "full save (%) p25 / median / p75", "optimized (%) p25 / median / p75",
           "optimized / full (medians)", "95 % interval", "<= half", "optimized median, 95 % interval",
           "<= 5 %"]
    rows = [_row(PAIRS[p].format(b=BOUND), q, yields, plain, headline_stats(triples, full=p + "full", opt=p + "opt"))
            for p in PAIRS if p + "opt" in roles]
    extra = ""
    if floor:
        sh = ito_share(triples)
        extra = (f"\nito's share of a yield (its build minus the floor's in the same round, over the "
                 f"yields; ns, p25 / median / p75 over the rounds): optimized {fmt_quartiles(sh['opt'])}, "
                 f"full save {fmt_quartiles(sh['full'])}.\n")
    write_csv(out / "case_headline.csv", hdr, rows)
    what = ("triples of the plain build, the full-save build and the optimized build, the order rotating "
            "through all six permutations" if roles == ROLES else
            f"rounds of {len(roles)} builds: the plain build, the full-save and optimized builds on libito"
            + (", the same two linked with the floor runtime (workloads/player/floorrt.c: two threads, no "
               "scheduler)" if floor else "")
            + (", the same two with the player's yield taking its variant's saves (the full save's player "
               "saves everything, the optimized one's only what is live: player.c, PLY_PLAYER_YIELD)"
               if matched else "")
            + (", the order rotating through all 120 permutations" if roles == FLOOR_ROLES else
               ", in an order shuffled per round (seeded)"))
    return [("Table 3's headline in adjacent triples", f"""
`ito-lab cooperative --part headline{' --floor' if floor else ''}{' --matched-player' if matched else ''}{' --host-quantum' if qnote else ''}`: {n} {what} (bound placement,
budget check, quantum {q}: {yields} yields, {host_density(plain[0], yields, tsc)}{'; ' + qnote if qnote else ''}), back to
back; each round's overheads over its own plain run. Verdicts from the medians over the rounds
with a bootstrap 95 % interval (2,000 resamples of whole rounds, seed 1): "met" only if the
whole interval meets the bar. Host load average {load_before} before and {load_after} after
(wall clock needs a quiet machine). {f"Every run pinned to CPU {cpu} (`taskset -c {cpu}`)." if pin else
" ".join(notes)} Every round: `case_headline_triples.csv`.

{markdown_table(hdr, rows)}{extra}
""")]
