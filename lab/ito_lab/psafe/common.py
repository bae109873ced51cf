"""What both halves of the psafe experiment share: the program mixes, the paper's numbers,
small statistics helpers and the subprocess runner of the simulator / real runner."""
from __future__ import annotations

import csv
import io
import subprocess

LABEL = {"bmm": "B-MM", "blu": "B-LU", "bs": "BS", "fft": "FFT", "ocean": "OCEAN", "mp3d": "MP3D"}
OTHERS = ["fft", "bs", "ocean", "mp3d"]            # Tables 4 and 5, in order of joining
MIXES = {("bmm", lv): ["bmm"] + OTHERS[: lv - 1] for lv in range(2, 6)}
MIXES.update({("blu", lv): ["blu"] + OTHERS[: lv - 1] for lv in range(2, 6)})
MIXES[("both", 6)] = ["bmm", "blu"] + OTHERS        # Sect. 5.2: two blocked programs

# What the paper states in its text (the figures themselves are not legible in our copy).
PAPER = {
    ("bmm", 2, "time"): -25.5, ("bmm", 5, "time"): -12.5,
    ("bmm", 2, "misses"): -32.0, ("bmm", 5, "misses"): -10.7,
    ("blu", 5, "time"): -13.3, ("blu", 5, "misses"): -9.5,
}
PAPER_DELAYED = {"bmm": "3 to 4", "blu": "4 to 5"}
# Sect. 5.3: "the improved execution times due to the reduced cache misses are 75,309,351 cycles
# in the B-MM program and 280,148,974 cycles in the B-LU program" (level 5), against signal
# overheads of 345,600 cycles (8 processors x 8 blocks x 2 signals x 2,700).
PAPER_GAIN_L5 = {"bmm": 75_309_351, "blu": 280_148_974}
PAPER_SIGNAL_COST_L5 = 345_600
# The preemption-policy times these gains imply at level 5: gain / (time decrease).
PAPER_IMPLIED_TIME_L5 = {b: PAPER_GAIN_L5[b] / (-PAPER[(b, 5, "time")] / 100.0) for b in ("bmm", "blu")}

BOUND_QUANTA = 10   # the delay bound: 10 quanta = the paper's "100 milliseconds" example


def median(xs):
    s = sorted(xs)
    m = len(s) // 2
    return s[m] if len(s) % 2 else (s[m - 1] + s[m]) / 2


def pct(new: float, old: float) -> float:
    return 100.0 * (new - old) / old if old else float("nan")


def run_csv(cmd: list[str], timeout: float = 1800) -> list[dict]:
    """Run a program (niced) that prints a CSV table; its rows as dicts (non-zero exit raises)."""
    cp = subprocess.run(["nice", "-n", "10", *cmd], capture_output=True, text=True, timeout=timeout)
    if cp.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {cp.returncode}: {cp.stderr.strip()[-1500:]}"
                           f"{cp.stdout.strip()[-1500:]}")
    return list(csv.DictReader(io.StringIO(cp.stdout)))
