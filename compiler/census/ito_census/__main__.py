"""python -m ito_census [--opt -O2] [--stb] [--ito REPO] [--json OUT] [files.mir|files.c ...]

Prints the Table 1 analogue and the per-instruction distribution of live GPRs."""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from . import compile as comp
from . import mir, stats


def summary(c: stats.Census) -> dict:
    return {
        "functions": c.functions, "instructions": c.instructions, "blocks": len(c.blocks),
        "mean_live_gpr": c.mean_live(), "gpr_hist": dict(sorted(c.gpr_hist.items())),
        "vec_hist": dict(sorted(c.vec_hist.items())),
        "flags_live_fraction": c.flags_live / c.instructions if c.instructions else 0.0,
        "table1": stats.table1(c.blocks), "total": stats.table1_total(c.blocks),
        "livein_checked": c.livein_checked, "livein_mismatch": c.livein_mismatch,
        "skipped_functions": c.skipped_functions,
        "estimate": c.estimate.means() if c.estimate else None,
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="ito_census", description=__doc__)
    ap.add_argument("--opt", default="-O2")
    ap.add_argument("--stb", action="store_true", help="the libstb-dev units")
    ap.add_argument("--ito", metavar="REPO", help="ito's sources under REPO/src")
    ap.add_argument("--json", help="write the summary here")
    ap.add_argument("--plugin", help="ItoYield.so: also judge its IR estimate against the census")
    ap.add_argument("inputs", nargs="*", help=".mir files (parsed as is) or .c files")
    a = ap.parse_args(argv)
    total = stats.Census()
    with tempfile.TemporaryDirectory() as tmp:
        units = comp.stb_units(Path(tmp)) if a.stb else []
        if a.ito:
            units += comp.ito_units(Path(a.ito))
        for p in map(Path, a.inputs):
            if p.suffix == ".mir":
                total.merge(stats.census_of(mir.parse(p.read_text())))
            else:
                units.append(comp.Unit(str(p), "other", p))
        done, failed = comp.run(units, a.opt, plugin=Path(a.plugin) if a.plugin else None,
                                on_done=lambda u, e: print(
            f"{'skipped' if e else 'ok':8s}{u.name}{': ' + e if e else ''}", file=sys.stderr))
    for c in done.values():
        total.merge(c)
    s = summary(total)
    s["failed_units"] = failed
    print(" | ".join(stats.TABLE1_HEADER))
    for r in s["table1"] + [s["total"]]:
        print(" | ".join(f"{x:.1f}" if isinstance(x, float) else str(x) for x in r))
    print(f"instructions {total.instructions}, mean live GPRs {total.mean_live():.2f}, "
          f"max {max(total.gpr_hist) if total.gpr_hist else 0}; "
          f"liveins check: {total.livein_mismatch} of {total.livein_checked} blocks differ")
    if s["estimate"]:
        print("plugin estimate vs machine:", ", ".join(f"{k} {v:.2f}" for k, v in s["estimate"].items()))
    if a.json:
        Path(a.json).write_text(json.dumps(s, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
