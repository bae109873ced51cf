"""The host a measurement ran on, and the spread of repeated measurements.

Every wall-clock figure and report of the lab names the host CPU and the load average
(results depend on both), and reports repeated runs as min / median / max:

    cpu_model() -> str          'AMD EPYC 7B13' (lscpu's Model name; /proc/cpuinfo as fallback)
    load1() -> float            the 1-minute load average now
    host_line() -> str          'host: <cpu>, <n> CPUs, kernel <r>, load <1m> <5m> <15m>'
    spread(xs) -> (min, median, max)
    spread_text(xs, fmt) -> 'median (min-max)'
    stamp_figure(fig, text)     writes the host line at the bottom of a matplotlib figure
    quiet(threshold) -> bool    1-minute load below threshold (a wall-clock result may be recorded)
"""
from __future__ import annotations

import os
import platform
import re
import statistics
import subprocess
from functools import lru_cache

QUIET_LOAD = 0.5      # the project's rule: record wall-clock results only below this 1-minute load


@lru_cache(maxsize=1)
def cpu_model() -> str:
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, timeout=10).stdout
        m = re.search(r"^Model name:\s*(.+)$", out, re.M)
        if m:
            return m.group(1).strip()
    except (OSError, subprocess.SubprocessError):
        pass
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for ln in f:
                if ln.startswith("model name"):
                    return ln.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


def loadavg() -> tuple[float, float, float]:
    try:
        return os.getloadavg()
    except OSError:
        return (float("nan"),) * 3


def load1() -> float:
    return loadavg()[0]


def quiet(threshold: float = QUIET_LOAD) -> bool:
    return load1() < threshold


def host_line() -> str:
    a, b, c = loadavg()
    return (f"host: {cpu_model()}, {os.cpu_count()} CPUs, kernel {platform.release()}, "
            f"load {a:.2f} {b:.2f} {c:.2f}")


def spread(xs) -> tuple[float, float, float]:
    xs = [x for x in xs if x is not None]
    if not xs:
        raise ValueError("no values")
    return min(xs), statistics.median(xs), max(xs)


def spread_text(xs, fmt: str = "{:.3g}") -> str:
    lo, med, hi = spread(xs)
    return f"{fmt.format(med)} ({fmt.format(lo)}–{fmt.format(hi)})"


def stamp_figure(fig, text: str | None = None) -> None:
    """Put the host line (or `text`) in small type at the bottom of a matplotlib figure."""
    fig.text(0.005, 0.005, text or host_line(), fontsize=6, color="#555555", ha="left", va="bottom")
