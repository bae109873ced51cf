"""Figures of the lab: PNG files drawn with matplotlib's Agg backend (no display needed).

    bar_chart(path, labels, values, ...)    one bar per label (e.g. one per system), optional
                                            min-max error bars (`spread`)
    line_chart(path, series, ...)           curves over x, with optional reference curves
                                            (the paper's values, drawn dashed with markers) and
                                            optional min-max bands (`spread`)
Both take `footer`: a line of small text at the bottom (the host CPU and load of a wall-clock
figure: ito_lab.host.host_line()).

Invariants: every function writes exactly one PNG at `path` (parents created), closes its
figure (no state leaks between plots) and returns the path; values that cannot be drawn
(None, nan, and values <= 0 on a log axis) are left out rather than faked.
"""
from __future__ import annotations

import math
import textwrap
from pathlib import Path
from typing import Mapping, Sequence

from .report import format_number

__all__ = ["bar_chart", "line_chart", "plt"]

_pyplot = None


class _LazyPyplot:
    """matplotlib.pyplot with the Agg backend, imported at its first use. Importing it costs
    about a second of CPU, which every `ito-lab` command (a usage error too) and every
    pytest collection of the lab paid while the experiments imported it at load; the
    modules that draw use `from ..plot import plt`."""

    def __getattr__(self, name):
        global _pyplot
        if _pyplot is None:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot
            _pyplot = matplotlib.pyplot
        return getattr(_pyplot, name)


plt = _LazyPyplot()

HIGHLIGHT = "#c0392b"
NORMAL = "#5d6d7e"


def _drawable(v, log: bool) -> bool:
    return v is not None and not math.isnan(v) and not math.isinf(v) and (v > 0 or not log)


def _save(fig, path, footer: str | None = None) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if footer:
        fig.text(0.005, 0.005, footer, fontsize=6, color="#555555", ha="left", va="bottom")
        fig.tight_layout(rect=(0, 0.04, 1, 1))
        fig.savefig(path, dpi=120)
        plt.close(fig)
        return path
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def bar_chart(path, labels: Sequence[str], values: Sequence[float | None], *, title: str,
              ylabel: str, log: bool = False, highlight: Sequence[str] = (),
              hlines: Mapping[str, float] | None = None, annotate: bool = True,
              spread: Sequence[tuple[float, float] | None] | None = None, footer: str | None = None) -> Path:
    """Bars of `values` named by `labels`; labels in `highlight` are drawn in red;
    `hlines` maps a legend text to a horizontal line's height (e.g. a target); `spread` gives
    each bar's (min, max) as an error bar."""
    if len(labels) != len(values):
        raise ValueError("labels and values differ in length")
    if spread is not None and len(spread) != len(values):
        raise ValueError("spread and values differ in length")
    keep = [i for i, v in enumerate(values) if _drawable(v, log)]
    pairs = [(labels[i], values[i]) for i in keep]
    fig, ax = plt.subplots(figsize=(max(5.0, 1.1 * len(pairs) + 2), 3.8))
    xs = range(len(pairs))
    yerr = None
    if spread is not None:
        sp = [spread[i] or (values[i], values[i]) for i in keep]
        yerr = [[max(0.0, v - lo) for (lo, _), (_, v) in zip(sp, pairs)],
                [max(0.0, hi - v) for (_, hi), (_, v) in zip(sp, pairs)]]
    bars = ax.bar(xs, [v for _, v in pairs], yerr=yerr, capsize=3 if yerr else 0,
                  color=[HIGHLIGHT if lab in highlight else NORMAL for lab, _ in pairs])
    ax.set_xticks(list(xs), [lab for lab, _ in pairs], rotation=20, ha="right")
    if log:
        ax.set_yscale("log")
    for text, y in (hlines or {}).items():
        if _drawable(y, log):
            ax.axhline(y, linestyle="--", color="#27ae60", linewidth=1.2, label=text)
    if hlines:
        ax.legend(loc="upper left", fontsize=8)
    if annotate and pairs:
        for b, (_, v) in zip(bars, pairs):
            ax.annotate(format_number(v), (b.get_x() + b.get_width() / 2, v), ha="center",
                        va="bottom", fontsize=8, xytext=(0, 2), textcoords="offset points")
        lo, hi = ax.get_ylim()
        ax.set_ylim(lo, hi * 2.5 if log else hi * 1.1)  # room for the labels
    if not pairs:
        ax.text(0.5, 0.5, "no data", ha="center", va="center", transform=ax.transAxes)
    ax.set_title(textwrap.fill(title, 60), fontsize=10)
    ax.set_ylabel(ylabel)
    ax.grid(axis="y", which="both", alpha=0.3)
    return _save(fig, path, footer)


def line_chart(path, series: Mapping[str, tuple[Sequence[float], Sequence[float]]], *,
               title: str, xlabel: str, ylabel: str, logx: bool = False, logy: bool = False,
               reference: Mapping[str, tuple[Sequence[float], Sequence[float]]] | None = None,
               spread: Mapping[str, tuple[Sequence[float], Sequence[float]]] | None = None,
               footer: str | None = None) -> Path:
    """One solid curve per entry of `series` (name -> (xs, ys)); the curves of `reference`
    (e.g. values read from a paper) are drawn dashed with hollow markers beside them;
    `spread` maps a series name to (mins, maxs) over its xs, drawn as a shaded band."""
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    for name, (lo, hi) in (spread or {}).items():
        xs = series[name][0]
        if not (len(xs) == len(lo) == len(hi)):
            raise ValueError(f"{name}: spread and xs differ in length")
        pts = [(x, a, b) for x, a, b in zip(xs, lo, hi)
               if _drawable(x, logx) and _drawable(a, logy) and _drawable(b, logy)]
        if pts:
            ax.fill_between([p[0] for p in pts], [p[1] for p in pts], [p[2] for p in pts], alpha=0.18)
    for style, curves in (("-o", series), ("--s", reference or {})):
        for name, (xs, ys) in curves.items():
            if len(xs) != len(ys):
                raise ValueError(f"{name}: xs and ys differ in length")
            pts = [(x, y) for x, y in zip(xs, ys)
                   if _drawable(x, logx) and _drawable(y, logy)]
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], style, label=name,
                        markersize=4, markerfacecolor="none" if style.startswith("--") else None)
    if logx:
        ax.set_xscale("log")
    if logy:
        ax.set_yscale("log")
    ax.set_title(textwrap.fill(title, 60), fontsize=10)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(which="both", alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8)
    return _save(fig, path, footer)
